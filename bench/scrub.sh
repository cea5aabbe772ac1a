#!/bin/sh
# Scrub timings (fxmem --benchmark-scrub) for the bundled llama pair and a 100k-node synthetic
# pair, offscreen at 1600x1000, with the Node tab and then the Breakdown tab raised; RUNS runs each;
# then drops and pans in the graph view of a 100k-node single graph.
# usage: bench/scrub.sh BUILD_DIR OUT_DIR [RUNS] [STEPS]
set -eu
build=$1 out=$2 runs=${3:-3} steps=${4:-200}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
[ -f "$out/synth100k.json" ] || "$build/bin/fxmem-synth" --nodes 100000 -o "$out/synth100k.json"
for file in "$here/resources/examples/llama.fxmem.json" "$out/synth100k.json"; do
  name=$(basename "$file" .json)
  for tab in node breakdown; do
    for run in $(seq "$runs"); do
      QT_QPA_PLATFORM=offscreen "$build/bin/fxmem" "$file" --pair 0 --tab "$tab" --benchmark-scrub --steps "$steps" \
        > "$out/$name.$tab.$run.txt" 2>/dev/null
    done
  done
done
# Drops and pans in the graph view of a 100k-node single graph (the graph view edits one graph).
[ -f "$out/synth100k-single.json" ] || "$build/bin/fxmem-synth" --nodes 100000 --no-pair -o "$out/synth100k-single.json"
for kind in drop pan; do
  for run in $(seq "$runs"); do
    QT_QPA_PLATFORM=offscreen "$build/bin/fxmem" "$out/synth100k-single.json" --benchmark-scrub --scrub-input "$kind" \
      --steps 40 > "$out/synth100k-single.$kind.$run.txt" 2>/dev/null
  done
done
echo "$out"
