#!/usr/bin/env bash
# Installs every system package lpsim needs, from Debian's packages only.
# Idempotent: when everything is already installed it returns in well under a
# second without touching the network.
#   scripts/setup.sh            # build + test dependencies (clang-16 and
#                               # libFuzzer for scripts/fuzz.sh among them)
# Also installs the report's chart libraries and the browser test's driver
# from npm (`npm ci` in report/web, skipped while its lock file is unchanged).
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libtorch-dev libopenblas0-openmp libgloo-dev
  libhwy-dev libeigen3-dev libboost-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  chromium curl
  clang-16 libclang-rt-16-dev libfuzzer-16-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed'; then
    missing+=("$p")
  fi
done
# Node and npm from Debian only where none is on PATH: a Node installed
# otherwise (it bundles npm) conflicts with Debian's npm package.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

# report/web/node_modules: vega, vega-lite, vega-embed (inlined into every
# HTML report) and playwright-core (tests/browser). A stamp holding the lock
# file's hash makes a second run instant and offline.
npm_step() {
  local web
  web="$(cd "$(dirname "$0")/.." && pwd)/report/web"
  local want have=""
  want="$(sha256sum "$web/package-lock.json" | cut -d' ' -f1)"
  [ -f "$web/node_modules/.lpsim-stamp" ] && have="$(cat "$web/node_modules/.lpsim-stamp")"
  if [ "$want" != "$have" ]; then
    echo "setup: npm ci in report/web"
    (cd "$web" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" > "$web/node_modules/.lpsim-stamp"
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  npm_step
  exit 0
fi

echo "setup: installing ${#missing[@]} Debian package(s): ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "setup: not root and no sudo; install these packages by hand: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
npm_step
