#!/usr/bin/env bash
# Regenerates the bundled example graphs (resources/examples/*.fxmem.json) with the exporter,
# each with a "reference" block (what torch's memory_estimator computes on the same graphs).
# The pairs are PyTorch's min-cut partition (the exporter's inner="partition", what Inductor
# partitions); llama_sweep holds a 2-layer llama partitioned at the activation memory budgets
# 1.0, 0.8, ..., 0.0 and the joint graph (2-layer and 6 budgets keep it under 2 MB: the 8-layer
# llama at 11 budgets was 9.5 MB). Needs the venv from scripts/setup.sh (torch 2.13.0); this checkout's
# exporter is used. Usage:
#   resources/examples/regenerate.sh                  # all examples
#   resources/examples/regenerate.sh gpt llama_sweep  # some of them
set -euo pipefail
cd "$(dirname "$0")/../.."
py=${FXMEM_PYTHON:-.venv/bin/python}
export PYTHONPATH="$PWD/exporter${PYTHONPATH:+:$PYTHONPATH}"
if [ $# -eq 0 ]; then set -- gpt cnn mlp multiout inplace llama dynamic llama_dynamic fsdp llama_sweep gpt_break gpt_adam; fi
for name in "$@"; do
  case "$name" in
    llama_sweep) "$py" -m fxmem_export.examples llama --sweep --layers 2 --budgets 1.0,0.8,0.6,0.4,0.2,0.0 \
      -o "resources/examples/$name.fxmem.json" --with-reference ;;
    *_sweep) "$py" -m fxmem_export.examples "${name%_sweep}" --sweep -o "resources/examples/$name.fxmem.json" --with-reference ;;
    *) "$py" -m fxmem_export.examples "$name" -o "resources/examples/$name.fxmem.json" --with-reference ;;
  esac
done
