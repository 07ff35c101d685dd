#!/usr/bin/env bash
# Builds lpsim and its unit tests into build-asan/ with GCC's AddressSanitizer
# and UndefinedBehaviorSanitizer, without LibTorch (tracker/ and its tests are
# left out), and runs the tests labelled `unit`: everything from formats/ to
# report/ except the CLI, browser, package and exhaustive tests. Any memory
# error, leak or undefined behaviour fails the test that hit it.
#   scripts/sanitize.sh              # extra arguments go to ctest, e.g. -R Npy
set -euo pipefail
cd "$(dirname "$0")/.."
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
ctest -j "$(nproc)" -L '^unit$' --output-on-failure "$@"
