#!/usr/bin/env bash
# Applies .clang-format to every tracked C/C++ file (tests/style/check_format.sh checks it).
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files '*.cpp' '*.h' '*.c' | xargs "${CLANG_FORMAT:-clang-format}" -i
