#!/usr/bin/env bash
# Configures and builds every target into build/bin (Release).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DFXMEM_PYTHON="$PWD/.venv/bin/python" >/dev/null
cmake --build build -j"$(nproc)"
