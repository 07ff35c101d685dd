#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) into build-fuzz/ with clang-16, ASan
# and UBSan, then runs each for SECONDS seconds (default 30) from its seed
# corpus (fuzz/corpus/<target>/). New inputs collect in
# build-fuzz/corpus/<target>/ and are reused by the next run; a crashing input
# is saved in build-fuzz/artifacts/<target>/ (reproduce it with
# build-fuzz/bin/lpsim_fuzz_<target> FILE). Exits 1 when any target crashed.
#   scripts/fuzz.sh             # every target, 30 s each
#   scripts/fuzz.sh 300 npy     # one target, 5 minutes
# LPSIM_FUZZ_TORCH=1 adds the LibTorch file target (torch_file): it compiles
# torch's headers with clang under ASan (a few minutes more to build).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
[ $# -gt 0 ] && shift
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2;; esac
scripts/setup.sh

torch=OFF
[ "${LPSIM_FUZZ_TORCH:-0}" = "1" ] && torch=ON
targets=(npy format_spec rule_config run_db capture_manifest target_config torch_archive)
[ "$torch" = ON ] && targets+=(torch_file)
[ $# -gt 0 ] && targets=("$@")

args=(-DLPSIM_FUZZ=ON -DLPSIM_WITH_TORCH="$torch" -DLPSIM_BUILD_TESTS=OFF
      -DLPSIM_BUILD_BENCHMARKS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g")
if [ "${LPSIM_WERROR:-0}" = "1" ]; then args+=(-DLPSIM_WERROR=ON); else args+=(-DLPSIM_WERROR=OFF); fi
if command -v ninja >/dev/null 2>&1 && [ ! -f build-fuzz/Makefile ]; then args+=(-G Ninja); fi
CC=clang-16 CXX=clang++-16 cmake -S . -B build-fuzz "${args[@]}" >/dev/null
build=()
for t in "${targets[@]}"; do build+=("lpsim_fuzz_$t"); done
cmake --build build-fuzz -j "${LPSIM_JOBS:-$(nproc)}" --target "${build[@]}"

failed=()
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/artifacts/$t"
  echo "fuzz: $t for ${seconds}s"
  log="build-fuzz/artifacts/$t/last_run.log"
  # -timeout: one input taking over 10 s is a hang; -rss_limit_mb: a parser
  # that believes a header's sizes runs out of memory long before this.
  seeds=()
  [ -d "fuzz/corpus/$t" ] && seeds=("fuzz/corpus/$t")
  # LibTorch's unpickler leaks on some malformed archives (inside
  # libtorch_cpu, not lpsim): fuzz/lsan.supp names that library only, so a
  # leak in lpsim's code still ends the run.
  if ! LSAN_OPTIONS="suppressions=$PWD/fuzz/lsan.supp" "build-fuzz/bin/lpsim_fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t/" \
      "build-fuzz/corpus/$t" "${seeds[@]}" >"$log" 2>&1; then
    failed+=("$t")
    tail -n 60 "$log" >&2
  fi
  grep -E '^stat::(number_of_executed_units|new_units_added)' "$log" | tr '\n' ' ' || true
  echo
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashed: ${failed[*]} (inputs in build-fuzz/artifacts/<target>/)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} target(s), no crash"
