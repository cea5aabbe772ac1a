"""Drops in a real fxmem window's graph view, timed from the X server (xscrub).

Finds node boxes in a screenshot of the graph view (runs of 4-8 px of one colour between rows
of the background), drags each DX px right with `xscrub drag` (8 moves, then the release; the
drop is timed until the region around the node changes on screen), checks in a new screenshot
that the node moved, and drags it back. Prints the median, p90 and max over the drops that
moved. Expects a 1600x1000 screen, the window at 0,0 filling it, the graph view zoomed in so
that nodes are boxes (see docs/benchmarks.md); needs numpy, xwd and ImageMagick's convert.

usage: python3 graphdrops.py XSCRUB N [X0 X1 Y0 Y1]
"""
import re
import subprocess
import sys

import numpy as np

DX = 28
W, H = 1600, 1000


def shot():
    raw = subprocess.run("xwd -root | convert xwd:- rgb:-", shell=True, capture_output=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(H, W, 3).astype(int)


def boxes(img, x0, x1, y0, y1):
    out = []
    back = img[(y0 + y1) // 2, 150]  # what lies between the boxes
    for y in range(y0, y1, 3):
        row = img[y]
        x = x0
        while x < x1:
            c = row[x]
            if abs(c - back).sum() > 60 and c.sum() < 600:
                e = x
                while e < x1 + 20 and abs(row[e] - c).sum() < 10:
                    e += 1
                if 4 <= e - x <= 8 and abs(img[y - 2, x] - back).sum() < 10 and abs(img[y + 2, x] - back).sum() < 10:
                    out.append((x + (e - x) // 2, y, c))
                x = e + 10
            else:
                x += 1
    return out


def near(img, x, y, c):
    return any(abs(img[y, xx] - c).sum() < 30 for xx in range(x - 5, x + 6))


def drag(xscrub, a, b, y):
    r = subprocess.run([xscrub, "drag", str(a), str(b), str(y), "8", str(min(a, b) - 20), str(y - 15),
                        str(abs(b - a) + 40), "30"], capture_output=True, text=True).stdout
    m = re.search(r"after the release: ([0-9.]+) ms", r)
    return float(m.group(1)) if m else None


def main():
    xscrub, want = sys.argv[1], int(sys.argv[2])
    x0, x1, y0, y1 = (int(v) for v in sys.argv[3:7]) if len(sys.argv) >= 7 else (350, 700, 140, 470)
    times, tried = [], set()
    for _ in range(60):
        if len(times) >= want:
            break
        found = [b for b in boxes(shot(), x0, x1, y0, y1) if (b[0], b[1]) not in tried]
        if not found:
            break
        x, y, c = found[len(found) // 2]
        tried.add((x, y))
        t = drag(xscrub, x, x + DX, y)
        after = shot()
        moved = near(after, x + DX, y, c) and abs(after[y, x] - c).sum() > 30
        if not moved or t is None or t >= 500:
            continue  # not a node, or a refused drop
        back = drag(xscrub, x + DX, x, y)
        if back is None or back >= 500:
            continue
        times += [t, back]
    times.sort()
    n = len(times)
    if not n:
        sys.exit("no drop moved a node")
    median = times[n // 2] if n % 2 else (times[n // 2 - 1] + times[n // 2]) / 2
    print(f"{n} drops: median {median:.1f} ms, p90 {times[min(n - 1, int(0.9 * n))]:.1f}, max {times[-1]:.1f}; "
          f"all: {' '.join(f'{t:.1f}' for t in times)}")


if __name__ == "__main__":
    main()
