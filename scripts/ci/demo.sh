#!/usr/bin/env bash
# docs/ci.md's recipe run end to end on this machine: a reference job on "main", then a change that
# widens the MLP, which the check must catch (exit 3), then an unchanged run that must pass (exit 0).
#   scripts/ci/demo.sh [WORK_DIR]     (uses .venv/bin/python and build/bin/fxmem-cli)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$(mktemp -d)}
export PYTHON=${PYTHON:-$root/.venv/bin/python}
export FXMEM_CLI=${FXMEM_CLI:-$root/build/bin/fxmem-cli}
export PYTHONPATH=$root/exporter${PYTHONPATH:+:$PYTHONPATH}
check=$root/scripts/ci/memory_check.sh

echo "== main: trace and keep the reference artifact"
"$check" "$work/main" || exit 1
mkdir -p "$work/artifacts" && cp "$work/main/capture.fxmem.json" "$work/artifacts/reference.fxmem.json"

echo "== pull request: the MLP widened from 176 to 352"
FXMEM_DEMO_HIDDEN=352 "$check" "$work/pr" "$work/artifacts/reference.fxmem.json"
status=$?
echo "exit status $status"
[[ $status == 3 ]] || { echo "demo: the regression was not caught"; exit 1; }

echo "== pull request: no memory change"
"$check" "$work/pr2" "$work/artifacts/reference.fxmem.json"
status=$?
echo "exit status $status"
[[ $status == 0 ]] || { echo "demo: an unchanged model failed the check"; exit 1; }
echo "demo: regression caught, unchanged model passed"
