"""fxmem --screenshot OUT FILE under hostile outputs (issue 39): OUT is checked as fxmem-cli checks
its outputs before anything loads, and written atomically. Before the fix, an OUT whose suffix is
no image format was truncated to 0 bytes (`fxmem --screenshot model.fxmem.json`, the PNG name
forgotten, emptied the graph), a symbolic link to the input replaced the input with a PNG, and a
FIFO blocked. Also: a FILE whose path is not UTF-8 opens (Qt decoded it to U+FFFD: "No such file").

usage: screenshot_output.py FXMEM_BINARY GOOD_FILE
"""
import os
import shutil
import subprocess
import sys
import tempfile

APP, GOOD = sys.argv[1], sys.argv[2]
ENV = dict(os.environ, QT_QPA_PLATFORM="offscreen")
failures = []


def run(*args):
    return subprocess.run([APP, *args], env=ENV, capture_output=True, timeout=120)


def check(what, ok, detail=b""):
    if not ok:
        failures.append(f"{what}: {detail!r}")


with tempfile.TemporaryDirectory() as d:
    model = os.path.join(d, "model.fxmem.json")
    shutil.copy(GOOD, model)
    before = open(model, "rb").read()

    # The PNG name forgotten: OUT is the graph, FILE the bundled example.
    r = run("--screenshot", model)
    check("non-image OUT: exit 2", r.returncode == 2, r.stderr)
    check("non-image OUT: named", b"not an image file name" in r.stderr, r.stderr)
    check("non-image OUT: untouched", open(model, "rb").read() == before)
    r = run(f"--screenshot={model}", GOOD)
    check("non-image OUT (=): exit 2", r.returncode == 2, r.stderr)
    check("non-image OUT (=): untouched", open(model, "rb").read() == before)

    # A symbolic link to the input, and the input itself under an image name.
    link = os.path.join(d, "shot.png")
    os.symlink(model, link)
    r = run("--screenshot", link, model)
    check("link to input: exit 2", r.returncode == 2, r.stderr)
    check("link to input: named", b"is the file it would show" in r.stderr, r.stderr)
    check("link to input: untouched", open(model, "rb").read() == before)
    as_png = os.path.join(d, "graph.png")
    shutil.copy(GOOD, as_png)
    r = run("--screenshot", as_png, as_png)
    check("input as OUT: exit 2", r.returncode == 2, r.stderr)
    check("input as OUT: untouched", open(as_png, "rb").read() == before)

    # A FIFO is refused without opening it (opening one blocks until a reader comes).
    fifo = os.path.join(d, "pipe.png")
    os.mkfifo(fifo)
    r = run("--screenshot", fifo, model)
    check("FIFO: exit 2", r.returncode == 2, r.stderr)
    check("FIFO: named", b"not a regular file" in r.stderr, r.stderr)

    # A good OUT is a PNG; a FILE whose path is not UTF-8 opens by its bytes.
    odd = os.path.join(os.fsencode(d), b"caf\xe9.json")
    shutil.copy(GOOD, odd)
    out = os.path.join(d, "out.png")
    r = run("--screenshot", out, os.fsdecode(odd))
    check("non-UTF-8 FILE: exit 0", r.returncode == 0, r.stderr)
    check("PNG written", os.path.isfile(out) and open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n")
    check("no temporary left", sorted(os.listdir(d)) == sorted(
        ["model.fxmem.json", "shot.png", "graph.png", "pipe.png", "caf\udce9.json", "out.png"]), os.listdir(d))

for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
