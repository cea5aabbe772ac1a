#!/usr/bin/env bash
# Regenerates the bundled example graphs (resources/examples/*.fxmem.json) with the exporter,
# each with a "reference" block (what torch's memory_estimator computes on the same graphs).
# Needs the venv from scripts/setup.sh (torch 2.13.0 + fxmem_export). Usage:
#   resources/examples/regenerate.sh            # all examples
#   resources/examples/regenerate.sh gpt cnn    # some of them
set -euo pipefail
cd "$(dirname "$0")/../.."
py=${FXMEM_PYTHON:-.venv/bin/python}
if [ $# -eq 0 ]; then set -- gpt cnn mlp multiout inplace llama dynamic fsdp gpt_break gpt_adam; fi
for name in "$@"; do
  "$py" -m fxmem_export.examples "$name" -o "resources/examples/$name.fxmem.json" --with-reference
done
