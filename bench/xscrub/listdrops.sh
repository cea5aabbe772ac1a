#!/bin/sh
# Drops in a real fxmem window's Schedule tab, timed from the X server (xscrub release): the row
# at Y1 is dragged (xdotool, 6 moves) onto Y2 and released, then the row at Y3 back onto Y4, N
# times; each drop is timed until the list's rows change on screen. The rows are those of the
# 100k single graph (fxmem-synth --nodes 100000 --no-pair) at its peak in a 1600x1000 window, the
# Schedule tab raised: getitem_19363 moved below getitem_19364 and back (both are legal: they
# only read split_3055). See docs/benchmarks.md.
# usage: listdrops.sh XSCRUB N [X Y1 Y2 Y3 Y4]
set -eu
xs=$1 n=$2 x=${3:-1187} y1=${4:-786} y2=${5:-814} y3=${6:-806} y4=${7:-778}
drag() {
  xdotool mousemove "$x" "$1" mousedown 1
  sleep 0.15
  for k in 1 2 3 4 5 6; do
    xdotool mousemove "$x" $(($1 + ($2 - $1) * k / 6))
    sleep 0.05
  done
  sleep 0.4
  "$xs" release 1030 700 500 140
  sleep 0.6
}
i=0
while [ "$i" -lt "$n" ]; do
  drag "$y1" "$y2"
  drag "$y3" "$y4"
  i=$((i + 1))
done
