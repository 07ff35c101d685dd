#!/usr/bin/env bash
# Set up, build, and run every test (ctest). Long suites run only on demand:
# the all-2^32 sweeps (label `exhaustive`) and simulate mode's full matrix of
# models x recipes (label `simulate_long`) and the classic rules' whole healthy
# corpus (label `healthy`) and the low-precision rules' validation corpus
# (label `validation`; a slice of each of these two runs by default):
#   (cd build && ctest -L exhaustive)   (cd build && ctest -L simulate_long)
#   (cd build && ctest -L healthy)      (cd build && ctest -L validation)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest -j "$(nproc)" -LE "exhaustive|simulate_long|healthy|validation" --output-on-failure "$@"
