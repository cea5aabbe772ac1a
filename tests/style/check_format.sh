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
bad=()
for f in "${files[@]}"; do
  "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted with .clang-format (${#bad[@]} of ${#files[@]} files; run scripts/format.sh):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "all ${#files[@]} C/C++ files formatted"
