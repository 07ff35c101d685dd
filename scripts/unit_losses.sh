#!/usr/bin/env bash
# The README's "training on a unit" table: the demo model trained in fp32 and
# in simulate mode (e4m3fn forward, e5m2 backward, the default recipe) with
# its matrix products on each unit, loss at a few steps, final accuracy and
# wall time; rows for fp32 and for the fp8 casts alone (fp32 products) first. Needs a build (scripts/build.sh).
#
#   scripts/unit_losses.sh                       # mlp, 300 steps, fp32 h100 b200 h100-promote128
#   scripts/unit_losses.sh cnn 200 h100 b200 mi300
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-mlp}
steps=${2:-300}
shift $(( $# < 2 ? $# : 2 ))
units=("$@")
[ ${#units[@]} -eq 0 ] && units=(h100 b200 h100-promote128)
lpsim=${LPSIM:-build/bin/lpsim}
[ -x "$lpsim" ] || { echo "unit_losses.sh: $lpsim not found; run scripts/build.sh first" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Loss at these steps (1-based), and the last.
marks=(1 $((steps / 10)) $((steps / 4)) $((steps / 2)) "$steps")
header="| run |"; rule="|---|"
for m in "${marks[@]}"; do header+=" loss@$m |"; rule+="---|"; done
echo "$header accuracy | seconds |"
echo "$rule---|---|"
# fp32: no simulation; casts: fp8 casts with fp32 products; then each unit.
for run in fp32 casts "${units[@]}"; do
  args=(demo --model "$model" --steps "$steps" --formats e4m3fn --every 50 --run-dir "$tmp/$run" --json)
  case "$run" in
    fp32) label="fp32" ;;
    casts) label="fp8 casts, fp32 products"; args+=(--simulate) ;;
    *) label="fp8 casts, \`$run\` products"; args+=(--matmul-unit "$run") ;;
  esac
  "$lpsim" "${args[@]}" > "$tmp/$run.json"
  row="| $label |"
  for m in "${marks[@]}"; do row+=" $(jq -r ".losses[$((m - 1))] | . * 10000 | round / 10000" "$tmp/$run.json") |"; done
  row+=" $(jq -r '.accuracy * 1000 | round / 10 | tostring + "%"' "$tmp/$run.json") |"
  row+=" $(jq -r '.seconds * 10 | round / 10' "$tmp/$run.json") |"
  echo "$row"
done
