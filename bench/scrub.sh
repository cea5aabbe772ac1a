#!/bin/sh
# Scrub timings (fxmem --benchmark-scrub) for the bundled llama pair and a 100k-node synthetic
# pair, offscreen at 1600x1000, with the Node tab and then the Breakdown tab raised; RUNS runs each.
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
echo "$out"
