#!/bin/sh
# Retakes the docs/ screenshots of the bundled llama, fsdp and GPT examples, light and dark, with the
# app's own offscreen renderer (fxmem --screenshot), reduced to 256 colours to stay small.
# Usage: docs/make-screenshots.sh [BUILD_DIR]   (needs ImageMagick's convert)
set -eu
cd "$(dirname "$0")/.."
fxmem="${1:-build}/bin/fxmem"
ex=resources/examples
export QT_QPA_PLATFORM=offscreen
shot() {  # NAME FILE OPTIONS...
    name=$1 file=$2
    shift 2
    for theme in light dark; do
        suffix=; [ "$theme" = dark ] && suffix=-dark
        "$fxmem" --screenshot "docs/$name$suffix.png" --size 1600x1000 --theme "$theme" "$@" "$file" >/dev/null
        convert "docs/$name$suffix.png" -strip -dither None -colors 256 "PNG8:docs/$name$suffix.png"
    done
}
shot llama-stacked-role "$ex/llama.fxmem.json" --pair 0 --timeline-mode role
shot llama-breakdown "$ex/llama.fxmem.json" --tab breakdown --select-module layers.3 --timeline-mode module --depth 2
shot llama-modules "$ex/llama.fxmem.json" --collapse-depth 3 --timeline-mode module --depth 2
shot llama-recompute "$ex/llama_sweep.fxmem.json" --tab recompute --find-plan
shot fsdp-compare "$ex/fsdp.fxmem.json" --graph backward --tab schedule --schedule inductor-overlap --compare inductor-overlap
# The whole step (the default view of a file with a step): a graph break, and Adam's state.
shot gpt-break-whole-step "$ex/gpt_break.fxmem.json" --timeline-mode role --step 200 --tab schedule
shot gpt-adam-whole-step "$ex/gpt_adam.fxmem.json" --timeline-mode role --tab breakdown
# The Sizes bar: the dynamic capture at batch 512 x sequence 1024 against a 24 GB GPU.
shot llama-dynamic-sizes "$ex/llama_dynamic.fxmem.json" --pair 0 --timeline-mode role --set batch=512,sequence=1024 --device-memory 24GB
# The graph view's Dataflow mode: llama's pair at its peak step, and layers.3 opened at a step of
# its forward with the live storages' edges; the 8B-shaped capture's whole step fitted, when the
# capture is on disk (python -m fxmem_export.examples llama3_8b -o /tmp/exp/llama3_8b.fxmem.json).
shot llama-dataflow "$ex/llama.fxmem.json" --pair 0 --graph-mode dataflow
shot llama-dataflow-expanded "$ex/llama.fxmem.json" --pair 0 --graph-mode dataflow --expand layers.3 --step 640
if [ -f /tmp/exp/llama3_8b.fxmem.json ]; then
    shot llama3-8b-dataflow /tmp/exp/llama3_8b.fxmem.json --graph-mode dataflow --dataflow-fit
fi
# The README's first pictures: the bundled GPT example as it opens, at 1600x1000 and on a laptop.
for theme in light dark; do
    suffix=; [ "$theme" = dark ] && suffix=-dark
    "$fxmem" --screenshot "docs/screenshot$suffix.png" --size 1600x1000 --theme "$theme" "$ex/gpt.fxmem.json" >/dev/null
    "$fxmem" --screenshot "docs/screenshot-1366$suffix.png" --size 1366x768 --theme "$theme" "$ex/gpt.fxmem.json" >/dev/null
    convert "docs/screenshot$suffix.png" -strip -dither None -colors 256 "PNG8:docs/screenshot$suffix.png"
    convert "docs/screenshot-1366$suffix.png" -strip -dither None -colors 256 "PNG8:docs/screenshot-1366$suffix.png"
done
