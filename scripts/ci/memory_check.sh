#!/usr/bin/env bash
# The CI job of docs/ci.md: trace the model on meta, keep the capture, and compare it with the
# reference capture (the last good one, an artifact of the main branch) when there is one.
#   memory_check.sh OUT_DIR [REFERENCE.fxmem.json]
# Exit 0: within the limit (or no reference yet); 3: a regression over the limit; 1/2: an error.
set -euo pipefail
out=$1
reference=${2:-}
python=${PYTHON:-python}
cli=${FXMEM_CLI:-fxmem-cli}
limit=${FXMEM_MAX_INCREASE:-2%}
here=$(cd "$(dirname "$0")" && pwd)

mkdir -p "$out"
"$python" "$here/trace_model.py" "$out/capture.fxmem.json"
"$cli" peak "$out/capture.fxmem.json" --whole-step | head -1
if [[ -z "$reference" || ! -f "$reference" ]]; then
    echo "no reference capture: this capture becomes the reference"
    exit 0
fi
status=0
"$cli" diff "$reference" "$out/capture.fxmem.json" --whole-step --max-increase "$limit" >"$out/diff.txt" || status=$?
"$cli" diff "$reference" "$out/capture.fxmem.json" --whole-step --max-increase "$limit" --json >"$out/diff.json" || true
cat "$out/diff.txt"
exit "$status"
