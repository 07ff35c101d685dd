#!/usr/bin/env bash
# The main job: set up, build, and run `lpsim demo` on built-in data.
# Arguments go to `lpsim demo` (see `build/bin/lpsim demo --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec build/bin/lpsim demo "$@"
