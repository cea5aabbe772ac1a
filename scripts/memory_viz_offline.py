#!/usr/bin/env python3
"""PyTorch's memory_viz page for a snapshot, made to work without the network, and a screenshot.

torch.cuda._memory_viz.trace_plot / segment_plot write a page that imports MemoryViz.js from a CDN,
which imports d3 5 from another. This writes the same page into OUTDIR with MemoryViz.js beside it
(a copy of a PyTorch checkout's torch/utils/viz/MemoryViz.js whose d3 imports read the globals of
a local d3 5 bundle, e.g. Debian's node-d3: /usr/share/nodejs/d3/dist/d3.min.js), and with
--screenshot renders it in headless Chromium, served from 127.0.0.1 (module scripts do not load
from file://). docs/exports.md, "memory_viz", shows one of fxmem-cli export --memory-viz.

  scripts/memory_viz_offline.py SNAPSHOT.pickle OUTDIR --memory-viz-js PATH/MemoryViz.js \\
      [--d3 /usr/share/nodejs/d3/dist/d3.min.js] [--view trace|segments|cached] [--screenshot OUT.png]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import pickle
import re
import shutil
import subprocess
import threading
from pathlib import Path

CDN = "https://cdn.jsdelivr.net/gh/pytorch/pytorch@main/torch/utils/viz/MemoryViz.js"
IMPORT = re.compile(r'^import\s+(\*\s+as\s+(\w+)|\{([^}]*)\})\s+from\s+"https://cdn\.skypack\.dev/d3[^"]*";\s*$', re.M)


def offline_module(source: str) -> str:
    """MemoryViz.js with each `import ... from "https://cdn.skypack.dev/d3..."` read from window.d3."""
    def local(m: re.Match[str]) -> str:
        return f"const {m.group(2)} = window.d3;" if m.group(2) else f"const {{{m.group(3)}}} = window.d3;"
    out, n = IMPORT.subn(local, source)
    if n == 0 or "https://" in "".join(l for l in out.splitlines() if l.startswith("import")):
        raise SystemExit("MemoryViz.js: no d3 imports from cdn.skypack.dev found to rewrite")
    return out


def write_page(snapshot_path: Path, outdir: Path, memory_viz_js: Path, d3: Path, view: str) -> Path:
    from torch.cuda import _memory_viz as mv

    with snapshot_path.open("rb") as f:
        snapshot = pickle.load(f)
    html = {"trace": mv.trace_plot, "segments": mv.segment_plot,
            "cached": functools.partial(mv.trace_plot, plot_segments=True)}[view](snapshot)
    if CDN not in html:
        raise SystemExit(f"the page torch wrote does not import {CDN}")
    html = html.replace(CDN, "./MemoryViz.js").replace("<head>", '<head>\n<script src="d3.min.js"></script>', 1)
    outdir.mkdir(parents=True, exist_ok=True)
    (outdir / "MemoryViz.js").write_text(offline_module(memory_viz_js.read_text()))
    shutil.copyfile(d3, outdir / "d3.min.js")
    page = outdir / "index.html"
    page.write_text(html)
    return page


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


def screenshot(outdir: Path, png: Path, size: str = "1280,720") -> None:
    handler = functools.partial(QuietHandler, directory=str(outdir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
        if not browser:
            raise SystemExit("no chromium on PATH (Debian: apt-get install chromium)")
        subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--virtual-time-budget=15000", f"--window-size={size}", f"--screenshot={png.resolve()}",
                        f"http://127.0.0.1:{server.server_address[1]}/index.html"],
                       check=True, capture_output=True, timeout=300)
    finally:
        server.shutdown()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("snapshot", type=Path)
    p.add_argument("outdir", type=Path)
    p.add_argument("--memory-viz-js", type=Path, required=True, help="torch/utils/viz/MemoryViz.js of a checkout")
    p.add_argument("--d3", type=Path, default=Path("/usr/share/nodejs/d3/dist/d3.min.js"), help="a d3 5 bundle")
    p.add_argument("--view", choices=["trace", "segments", "cached"], default="trace",
                   help="Active Memory Timeline, Allocator State History, Active Cached Segment Timeline")
    p.add_argument("--screenshot", type=Path)
    p.add_argument("--size", default="1280,720")
    a = p.parse_args()
    page = write_page(a.snapshot, a.outdir, a.memory_viz_js, a.d3, a.view)
    print(f"wrote {page}")
    if a.screenshot:
        screenshot(a.outdir, a.screenshot, a.size)
        print(f"wrote {a.screenshot}")


if __name__ == "__main__":
    main()
