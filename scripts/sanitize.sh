#!/usr/bin/env bash
# Builds lpsim and its unit tests into build-asan/ with GCC's AddressSanitizer
# and UndefinedBehaviorSanitizer, without LibTorch (tracker/ and its tests are
# left out), and runs the tests labelled `unit`: everything from formats/ to
# report/ except the CLI, browser, package and exhaustive tests. Any memory
# error, leak or undefined behaviour fails the test that hit it.
#   scripts/sanitize.sh              # every unit test (~35 min of tests on 2 busy cores)
#   scripts/sanitize.sh --slice      # CI's slice: see below
#   scripts/sanitize.sh -R Npy       # extra arguments go to ctest
# The slice runs every unit test except the per-format instances of the
# formats oracle and the SIMD sweep (306 instances, three quarters of the
# time: the same code paths with other format parameters), and of those the
# instances of e4m3fn, e5m2 and e2m1fn.
set -euo pipefail
cd "$(dirname "$0")/.."
slice=0
if [ "${1:-}" = "--slice" ]; then slice=1; shift; fi
scripts/setup.sh

# One Highway target (the static baseline) instead of every attainable one, as
# in scripts/fuzz.sh: the sanitizers look for memory errors and undefined
# behaviour in lpsim's code, and tests/simd checks every target in the main
# build. Compiling every target under ASan takes most of an hour on 2 cores.
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -DHWY_COMPILE_ONLY_STATIC=1"
args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g"
      "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_C_FLAGS=$flags"
      -DLPSIM_WITH_TORCH=OFF -DLPSIM_BUILD_BENCHMARKS=OFF)
# Never -Werror here: GCC 12 under ASan warns falsely inside libstdc++'s
# <regex> (-Wmaybe-uninitialized); the main build holds the warning gate.
args+=(-DLPSIM_WERROR=OFF)
if command -v ninja >/dev/null 2>&1 && [ ! -f build-asan/Makefile ]; then args+=(-G Ninja); fi
cmake -S . -B build-asan "${args[@]}" >/dev/null
cmake --build build-asan -j "${LPSIM_JOBS:-$(nproc)}"
cd build-asan
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
if [ "$slice" = 1 ]; then
  per_format='(OracleTest|SimdSweep)\.'
  ctest -j "$(nproc)" -L '^unit$' -E "$per_format" --output-on-failure "$@"
  ctest -j "$(nproc)" -L '^unit$' -R "$per_format.*/(e4m3fn|e5m2|e2m1fn)_" --output-on-failure "$@"
else
  ctest -j "$(nproc)" -L '^unit$' --output-on-failure "$@"
fi
