#!/usr/bin/env bash
# Set up, build, and run every test (ctest). The all-2^32 sweeps carry the
# label `exhaustive` and run only on demand:
#   (cd build && ctest -L exhaustive)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest -j "$(nproc)" -LE exhaustive --output-on-failure "$@"
