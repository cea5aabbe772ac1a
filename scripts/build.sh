#!/usr/bin/env bash
# Configures and builds into build/bin (Release): the targets named as arguments (run.sh: the app
# and the CLI, so the first window does not wait for the tests), or every target.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFXMEM_PYTHON="$PWD/.venv/bin/python" >/dev/null
if [ $# -gt 0 ]; then
  targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build build -j"$(nproc)" "${targets[@]}"
else
  cmake --build build -j"$(nproc)"
fi
