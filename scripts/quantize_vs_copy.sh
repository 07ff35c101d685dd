#!/usr/bin/env bash
# `lpsim quantize` of a float32 .npy against a synced copy of the same file
# (`dd conv=fsync`), interleaved, best of N runs each (README "lpsim quantize
# end to end"). Also times the lpsim binary doing next to nothing (`lpsim
# formats`): its start-up is part of every command.
#
#   scripts/quantize_vs_copy.sh [MIB [RUNS]]     # default 256 MiB, 3 runs
set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-256}
runs=${2:-3}
lpsim=build/bin/lpsim
dir=$(mktemp -d "${TMPDIR:-/tmp}/lpsim_qcopy.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# A float32 .npy of mib MiB: 128-byte header, then gradient-like values.
n=$((mib * 262144))
python3 - "$dir/in.npy" "$n" <<'PY'
import array, random, struct, sys
path, n = sys.argv[1], int(sys.argv[2])
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % n
hdr += " " * (64 - (10 + len(hdr) + 1) % 64) + "\n"
random.seed(1)
block = array.array("f", [random.gauss(0, 1 / 1024) for _ in range(1 << 16)])
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
    for i in range(n >> 16):
        block[0] = i / 1024.0
        f.write(block.tobytes())
PY
sync
best() { sort -n | head -1; }
now() { date +%s.%N; }
dd_t=() q_t=() s_t=()
for ((r = 0; r < runs; ++r)); do
  t0=$(now); dd if="$dir/in.npy" of="$dir/copy.npy" bs=4M conv=fsync status=none; t1=$(now)
  dd_t+=("$(echo "$t1 - $t0" | bc)")
  t0=$(now); "$lpsim" formats >/dev/null; t1=$(now)
  s_t+=("$(echo "$t1 - $t0" | bc)")
  t0=$(now); "$lpsim" quantize -f e4m3fn --scale 64 "$dir/in.npy" "$dir/q.npy" >/dev/null; t1=$(now)
  q_t+=("$(echo "$t1 - $t0" | bc)")
done
d=$(printf '%s\n' "${dd_t[@]}" | best)
s=$(printf '%s\n' "${s_t[@]}" | best)
q=$(printf '%s\n' "${q_t[@]}" | best)
printf 'file %d MiB, best of %d\n' "$mib" "$runs"
printf 'dd conv=fsync        %6.2f s\n' "$d"
printf 'lpsim formats        %6.2f s   (start-up of the binary)\n' "$s"
printf 'lpsim quantize       %6.2f s   %.2fx the copy\n' "$q" "$(echo "$q / $d" | bc -l)"
printf 'quantize - start-up  %6.2f s   %.2fx the copy\n' "$(echo "$q - $s" | bc -l)" "$(echo "($q - $s) / $d" | bc -l)"
