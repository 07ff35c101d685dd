#!/usr/bin/env bash
# Installs every system package lpsim needs, from Debian's packages only.
# Idempotent: when everything is already installed it returns in well under a
# second without touching the network.
#   scripts/setup.sh            # build + test dependencies
#   LPSIM_SETUP_BROWSER=1 ...   # also the headless browser used by report tests
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libtorch-dev libopenblas0-openmp libgloo-dev
  libhwy-dev libeigen3-dev libboost-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev libcpp-httplib-dev
  libgtest-dev libgmock-dev libbenchmark-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
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
