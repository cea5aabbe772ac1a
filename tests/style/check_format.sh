#!/usr/bin/env bash
# Fails when a tracked C/C++ file differs from what .clang-format makes of it, and names the files.
# The style is applied once to the whole tree; this keeps it applied (fix: scripts/format.sh).
set -euo pipefail
cd "$1"
fmt=${CLANG_FORMAT:-clang-format}
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.c')
else  # an unpacked source tree: every C/C++ file but the build folders'
  mapfile -t files < <(find . -path './build*' -prune -o -path './.venv' -prune -o \( -name '*.cpp' -o -name '*.h' -o -name '*.c' \) -print)
fi
# One clang-format run over every file (a process per file cost a minute on 2 cores); the files
# it names in "FILE:LINE:COL: error: code should be clang-formatted" are the unformatted ones.
report=$("$fmt" --dry-run -Werror "${files[@]}" 2>&1 >/dev/null || true)
mapfile -t bad < <(printf '%s\n' "$report" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ -n "$report" ] && [ ${#bad[@]} -eq 0 ]; then
  echo "clang-format failed:"; printf '%s\n' "$report" | head -20
  exit 1
fi
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted with .clang-format (${#bad[@]} of ${#files[@]} files; run scripts/format.sh):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "all ${#files[@]} C/C++ files formatted"
