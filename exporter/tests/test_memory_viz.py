"""fxmem-cli export --memory-viz read back by PyTorch's own torch.cuda._memory_viz on the CPU.

The snapshot must load with pickle and be what Python's pickler writes for it (protocol 2, no
memo); trace_plot and segment_plot must embed it in their HTML; segsum, trace and the flame-graph
helpers must accept it (segsum checks its own accounting of every segment's bytes). The peak
memory_viz's "Active Memory Timeline" draws (MemoryViz.js's process_alloc_data, ported below:
allocations add, frees subtract, blocks live before the trace count from the start) must be a
sum of 512-byte blocks that fxmem-cli's own live sets give independently: at fxmem's peak step
the same storages as `fxmem-cli live`, each rounded up as the CUDA caching allocator rounds.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import pickle
import pickletools
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from torch.cuda import _memory_viz as mv

from conftest import REPO, run_cli

EXAMPLES = REPO / "resources" / "examples"
ROLES = {"parameter", "buffer", "input", "activation", "output", "tangent", "gradient", "temporary",
         "optimizer_state", "unsharded_parameter", "unknown"}
# What the writer may use (PyTorch's own snapshots use protocol 2 with a memo as well).
OPCODES = {"PROTO", "EMPTY_DICT", "EMPTY_LIST", "MARK", "SETITEMS", "SETITEM", "APPENDS", "APPEND",
           "BINUNICODE", "BININT1", "BININT2", "BININT", "LONG1", "NEWTRUE", "NEWFALSE", "NONE",
           "TUPLE2", "STOP"}


def block(nbytes: int) -> int:
    """The CUDA caching allocator's block for a request (round_size): at least 512, a multiple of 512."""
    return max(512, -(-nbytes // 512) * 512)


def export(cli: Path, tmp_path: Path, file: Path, *args: str) -> tuple[bytes, dict[str, Any]]:
    out = tmp_path / "snapshot.pickle"
    proc = subprocess.run([str(cli), "export", str(file), "--memory-viz", str(out), *args],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("wrote ") and " trace entries for " in proc.stdout
    raw = out.read_bytes()
    return raw, pickle.loads(raw)


def active_timeline(snapshot: dict[str, Any], device: int) -> list[tuple[int, int]]:
    """(time_us, bytes) after every action of MemoryViz.js's trace view (create_trace_view ->
    process_alloc_data, plot_segments false), after annotate_snapshot has merged each
    free_requested + free_completed pair into one 'free'."""
    trace = []
    for e in snapshot["device_traces"][device]:
        if e["action"] == "free_completed" and trace and trace[-1]["action"] == "free_requested" \
                and trace[-1]["addr"] == e["addr"]:
            trace[-1] = {**trace[-1], "action": "free"}
            continue
        trace.append(e)
    elements: list[dict[str, Any]] = []
    initially: list[int] = []
    actions: list[int] = []
    addr_to_alloc: dict[int, int] = {}
    for e in trace:
        if e["action"] == "alloc":
            elements.append(e)
            addr_to_alloc[e["addr"]] = len(elements) - 1
            actions.append(len(elements) - 1)
        elif e["action"] in ("free", "free_completed"):
            if e["addr"] in addr_to_alloc:
                actions.append(addr_to_alloc.pop(e["addr"]))
            else:
                elements.append(e)
                initially.append(len(elements) - 1)
                actions.append(len(elements) - 1)
    for seg in snapshot["segments"]:
        if seg["device"] != device:
            continue
        for b in seg["blocks"]:
            if b["state"] == "active_allocated" and b["address"] not in addr_to_alloc:
                elements.append({"size": b["requested_size"], "time_us": -1})
                initially.append(len(elements) - 1)
    total = sum(elements[i]["size"] for i in initially)
    live = set(initially)
    out = []
    for a in actions:
        if a in live:
            live.discard(a)
            total -= elements[a]["size"]
        else:
            live.add(a)
            total += elements[a]["size"]
        out.append((elements[a]["time_us"] if "time_us" in elements[a] else -1, total))
    return out


def live_after(snapshot: dict[str, Any], device: int, step: int) -> Counter[tuple[int, int]]:
    """(storage id, block size) of the blocks live after every entry up to time_us == step."""
    live: dict[int, tuple[int, int]] = {}
    for e in snapshot["device_traces"][device]:
        if e["time_us"] > step:
            break
        if e["action"] == "alloc":
            assert e["addr"] not in live
            live[e["addr"]] = (int(re.match(r"storage (-?\d+)", e["user_metadata"]).group(1)), e["size"])
        elif e["action"] == "free_completed":
            del live[e["addr"]]
    return Counter(live.values())


def cli_live(cli: Path, file: Path, view: list[str], step: int) -> Counter[tuple[int, int]]:
    """(storage id, block size) of what `fxmem-cli live` lists at a step (pair or whole step)."""
    doc = run_cli(cli, "live", str(file), *view, "--step", str(step), "--json")
    if "carried" in doc:  # --whole-step: the graph's own storages, then what it carries
        items = [(s["storage"], s["bytes"]) for s in doc["storages"] + doc["carried"]]
    else:
        items = [(s["id"], s["nbytes"]) for s in doc["storages"]]
    assert sum(n for _, n in items) == doc["total"]
    return Counter((i, block(n)) for i, n in items if n > 0)


def check_accepted(raw: bytes, snapshot: dict[str, Any]) -> None:
    """PyTorch's viewer functions accept the snapshot, and it is exactly Python's pickle of itself."""
    ops = {op.name for op, _, _ in pickletools.genops(raw)}
    assert ops <= OPCODES, ops - OPCODES
    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=2)
    p.fast = True  # no memo: the writer never memoizes
    p.dump(snapshot)
    assert buf.getvalue() == raw
    for html in (mv.trace_plot(snapshot), mv.segment_plot(snapshot),
                 mv.trace_plot(snapshot, plot_segments=True)):
        encoded = json.loads(re.search(r"const local_files = (\[.*?\])\n", html).group(1))[0]["base64"]
        assert pickle.loads(base64.b64decode(encoded)) == snapshot  # trace_plot pickles it again
    summary = mv.segsum(snapshot)  # raises on a segment whose blocks do not add up to its size
    reserved = sum(s["total_size"] for s in snapshot["segments"])
    assert f"segments: {len(snapshot['segments'])}\n" in summary
    assert f"total_reserved: {mv.Bytes(reserved)}\n" in summary
    mv.trace(snapshot)
    for lines in (mv.segments(snapshot, format_flamegraph=lambda x: x),
                  mv.memory(snapshot, format_flamegraph=lambda x: x)):
        assert sum(int(line.rsplit(" ", 1)[1]) for line in lines.splitlines()) == reserved
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):  # it prints each free_completed without free_requested
        mv.filter_alloc_free_pairs(pickle.loads(raw))
    assert printed.getvalue() == ""


def check_layout(snapshot: dict[str, Any]) -> None:
    """Every block lies inside its device's segment and overlaps no other live block; the segments
    list the blocks live after the trace, and each block's frames name its node."""
    segments = {s["device"]: s for s in snapshot["segments"]}
    for device, trace in enumerate(snapshot["device_traces"]):
        live: dict[int, int] = {}
        for e in trace:
            if e["action"] == "alloc":
                seg = segments[device]
                assert seg["address"] <= e["addr"] and e["addr"] + e["size"] <= seg["address"] + seg["total_size"]
                assert all(e["addr"] + e["size"] <= a or a + n <= e["addr"] for a, n in live.items())
                live[e["addr"]] = e["size"]
                assert e["category"] in ROLES
                node = e["frames"][0]
                assert "fx_node_name" in node or node["name"].startswith("carried ")
            elif e["action"] == "free_completed":
                assert live.pop(e["addr"]) == e["size"]
        if device in segments:
            blocks = segments[device]["blocks"]
            assert {b["address"]: b["size"] for b in blocks if b["state"] == "active_allocated"} == live
            assert sum(b["size"] for b in blocks) == segments[device]["total_size"]
        if trace:
            assert trace[-1]["action"] == "snapshot" and trace[-1]["category"] == "unknown"


@pytest.mark.parametrize("name, view", [("gpt", ["--pair", "forward,backward"]),
                                        ("gpt_break", ["--whole-step"])])
def test_memory_viz_peak_is_fxmems_in_512_byte_blocks(cli, tmp_path, name, view):
    file = EXAMPLES / f"{name}.fxmem.json"
    raw, snapshot = export(cli, tmp_path, file)  # the default view: gpt's pair 0, gpt_break's whole step
    check_accepted(raw, snapshot)
    check_layout(snapshot)
    assert snapshot["fxmem"]["devices"][0] == "meta"
    timeline = active_timeline(snapshot, 0)
    viz_peak = max(b for _, b in timeline)
    # fxmem's peak and its step: the storages live there are memory_viz's at that step, each in
    # its block.
    peak = (run_cli(cli, "peak", str(file), "--whole-step", "--json") if "--whole-step" in view
            else run_cli(cli, "peak", str(file), "--json"))["peak"]
    step = snapshot["fxmem"]["peak_index"]
    assert snapshot["fxmem"]["peak"] == peak
    at_peak = cli_live(cli, file, view, step)
    assert live_after(snapshot, 0, step) == at_peak
    assert sum(n for (_, n), k in at_peak.items() for _ in range(k)) <= viz_peak
    # memory_viz's own peak, where it draws it: again the blocks of what fxmem-cli lists there.
    viz_step = next(t for t, b in timeline if b == viz_peak)
    at_viz_peak = cli_live(cli, file, view, viz_step)
    assert sum(n * k for (_, n), k in at_viz_peak.items()) == viz_peak
    assert peak <= viz_peak < peak + 512 * sum(at_viz_peak.values())
    # Its frames: the node, its module and the file's stack trace (models.py of the examples).
    frames = [f for e in snapshot["device_traces"][0] for f in e["frames"]]
    assert any(f["filename"].endswith("models.py") and f["line"] > 0 for f in frames)
    assert any(f["filename"].startswith("module ") for f in frames)


def test_memory_viz_until_peak_ends_with_the_peak_blocks(cli, tmp_path):
    file = EXAMPLES / "gpt_break.fxmem.json"
    raw, snapshot = export(cli, tmp_path, file, "--until-peak")
    check_accepted(raw, snapshot)
    check_layout(snapshot)
    peak = run_cli(cli, "peak", str(file), "--whole-step", "--json")
    assert snapshot["fxmem"]["steps"] == peak["peak_step"] + 1
    assert all(e["time_us"] <= peak["peak_step"] for e in snapshot["device_traces"][0])
    # The segments hold the peak's blocks: their requested sizes are fxmem's peak to the byte.
    blocks = [b for s in snapshot["segments"] for b in s["blocks"] if b["state"] == "active_allocated"]
    assert sum(b["requested_size"] for b in blocks) == peak["peak"]
    at_peak = cli_live(cli, file, ["--whole-step"], peak["peak_step"])
    assert Counter(b["size"] for b in blocks) == Counter(n for (_, n), k in at_peak.items() for _ in range(k))
    assert max(b for _, b in active_timeline(snapshot, 0)) == sum(b["size"] for b in blocks)


def test_memory_viz_devices_all_puts_cpu_storages_on_a_device_of_their_own(cli, tmp_path):
    raw, snapshot = export(cli, tmp_path, EXAMPLES / "gpt_break.fxmem.json", "--devices", "all")
    check_accepted(raw, snapshot)
    check_layout(snapshot)
    assert snapshot["fxmem"]["devices"] == ["meta", "cpu"]
    cpu = snapshot["device_traces"][1]
    assert cpu and {s["device"] for s in snapshot["segments"]} == {0, 1}
    # Every device's blocks together are the whole step's peak in blocks, at its peak step.
    doc = run_cli(cli, "peak", str(EXAMPLES / "gpt_break.fxmem.json"), "--whole-step", "--devices", "all",
                  "--json")
    step = snapshot["fxmem"]["peak_index"]
    assert step == doc["peak_step"]
    both = live_after(snapshot, 0, step) + live_after(snapshot, 1, step)
    assert sum(n * k for (_, n), k in both.items()) >= doc["peak"]
