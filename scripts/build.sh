#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), configures and builds lpsim into
# build/. Extra arguments go to CMake's configure step, e.g.
#   scripts/build.sh -DLPSIM_WERROR=ON
# LPSIM_WERROR=1 in the environment does the same (CI sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

args=(-DCMAKE_BUILD_TYPE=Release)
if [ "${LPSIM_WERROR:-0}" = "1" ]; then args+=(-DLPSIM_WERROR=ON); else args+=(-DLPSIM_WERROR=OFF); fi
if command -v ninja >/dev/null 2>&1 && [ ! -f build/Makefile ]; then args+=(-G Ninja); fi
cmake -S . -B build "${args[@]}" "$@" >/dev/null
# Torch translation units take ~1.1 GB each; two jobs fit in 24 GiB with room.
cmake --build build -j "${LPSIM_JOBS:-$(nproc)}"
