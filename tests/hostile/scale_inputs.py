#!/usr/bin/env python3
"""Inputs for the scale figures of docs/benchmarks.md ("Reliability round 3").

  scale_inputs.py joint --nodes N -o FILE   a joint graph of about N nodes: an MLP chain of
      relu(x @ w) layers and its backward, without a pair (remat simulates the baseline)
  scale_inputs.py sweep -o FILE             llama_sweep with 22 budget pairs (0.0 to 1.0 by 0.05,
      and 0.025), each a copy of the bundled pair of nearest budget
  scale_inputs.py calls --nodes N -o FILE   round 4: tests/data/good/diff_step_old.json's pair run
      as N forward calls, then N backward calls (whole-step views' memory)
  scale_inputs.py deep --nodes D -o FILE    round 4: one node nested D modules deep (layout)
"""
from __future__ import annotations

import argparse
import copy
import json
from pathlib import Path

SIDE = 64  # [64, 64] float32 tensors: 16 KiB each


def sweep22(out: str) -> None:
    src = Path(__file__).resolve().parents[2] / "resources" / "examples" / "llama_sweep.fxmem.json"
    doc = json.loads(src.read_bytes())
    by_name = {g["name"]: g for g in doc["graphs"]}
    bundled = sorted(doc["pairs"], key=lambda p: p["budget"])
    graphs = [g for g in doc["graphs"] if g["kind"] == "joint"]
    pairs = []
    for b in [round(i * 0.05, 3) for i in range(21)] + [0.025]:
        p = min(bundled, key=lambda q: (abs(q["budget"] - b), -q["budget"]))
        fwd, bwd = copy.deepcopy(by_name[p["forward"]]), copy.deepcopy(by_name[p["backward"]])
        fwd["name"], bwd["name"] = f"budget={b!r}.forward", f"budget={b!r}.backward"
        graphs += [fwd, bwd]
        pairs.append({**p, "forward": fwd["name"], "backward": bwd["name"], "budget": b})
    doc["graphs"], doc["pairs"] = graphs, pairs
    Path(out).write_text(json.dumps(doc))
    print(f"{out}: {len(pairs)} pairs")


def calls(n: int, out: str) -> None:
    doc = json.loads((Path(__file__).resolve().parents[2] / "tests" / "data" / "good" / "diff_step_old.json").read_bytes())
    doc["step"] = ([{"graph": "fwd", "call": i} for i in range(n)] +
                   [{"graph": "bwd", "call": i} for i in range(n - 1, -1, -1)])
    Path(out).write_text(json.dumps(doc, separators=(",", ":")))
    print(f"{out}: {n} forward calls, then {n} backward calls")


def deep(depth: int, out: str) -> None:
    module = ".".join(["m"] * depth)
    val = '{"storage":%d,"dtype":"torch.float32","shape":[16],"stride":[1],"offset":0}'
    Path(out).write_text(
        '{"format":"fxmem","version":1,"storages":[{"id":0,"device":"cuda:0","nbytes":64},'
        '{"id":1,"device":"cuda:0","nbytes":64}],"graphs":[{"name":"g","kind":"inference","nodes":['
        '{"name":"x","op":"placeholder","target":"x","inputs":[],"val":' + val % 0 + '},'
        '{"name":"y","op":"call_function","target":"aten.relu.default","inputs":["x"],"module":"' + module +
        '","val":' + val % 1 + '},{"name":"output","op":"output","target":"output","inputs":["y"],"val":null}]}]}')
    print(f"{out}: one node {depth} modules deep")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["joint", "sweep", "calls", "deep"])
    ap.add_argument("--nodes", type=int, default=100000)
    ap.add_argument("-o", required=True)
    a = ap.parse_args()
    if a.what == "sweep":
        sweep22(a.o)
        return
    if a.what in ("calls", "deep"):
        (calls if a.what == "calls" else deep)(a.nodes, a.o)
        return
    layers = max(1, (a.nodes - 5) // 8)  # 8 nodes per layer, 5 besides
    storages: list[str] = []
    nodes: list[str] = []

    def add(name: str, op: str, target: str, inputs: list[str], phase: str, flops: int | None) -> None:
        sid = len(storages)
        storages.append(f'{{"id":{sid},"device":"cuda:0","nbytes":{SIDE * SIDE * 4}}}')
        val = f'{{"storage":{sid},"dtype":"float32","shape":[{SIDE},{SIDE}],"stride":[{SIDE},1],"offset":0}}'
        extra = f',"flops":{flops}' if flops is not None else ""
        nodes.append(f'{{"name":"{name}","op":"{op}","target":"{target}","inputs":{json.dumps(inputs)},'
                     f'"val":{val},"phase":"{phase}"{extra}}}')

    mm = 2 * SIDE**3
    add("x", "placeholder", "primals_0", [], "forward", None)
    for i in range(1, layers + 1):
        add(f"w{i}", "placeholder", f"primals_{i}", [], "forward", None)
    add("tangents_1", "placeholder", "tangents_1", [], "backward", None)
    h = "x"
    for i in range(1, layers + 1):
        add(f"mm{i}", "call_function", "aten.mm.default", [h, f"w{i}"], "forward", mm)
        add(f"relu{i}", "call_function", "aten.relu.default", [f"mm{i}"], "forward", SIDE * SIDE)
        h = f"relu{i}"
    add("loss", "call_function", "aten.sum.default", [h], "forward", SIDE * SIDE)
    add("g", "call_function", "aten.expand.default", ["tangents_1"], "backward", 0)
    grad, grads = "g", []
    for i in range(layers, 0, -1):
        prev = "x" if i == 1 else f"relu{i - 1}"
        add(f"tb{i}", "call_function", "aten.threshold_backward.default", [grad, f"relu{i}"], "backward", SIDE * SIDE)
        add(f"t{i}", "call_function", "aten.t.default", [prev], "backward", 0)
        add(f"gw{i}", "call_function", "aten.mm.default", [f"t{i}", f"tb{i}"], "backward", mm)
        add(f"tw{i}", "call_function", "aten.t.default", [f"w{i}"], "backward", 0)
        add(f"gh{i}", "call_function", "aten.mm.default", [f"tb{i}", f"tw{i}"], "backward", mm)
        grad = f"gh{i}"
        grads.append(f"gw{i}")
    nodes.append(f'{{"name":"output","op":"output","target":"output","inputs":{json.dumps(["loss"] + grads)},'
                 f'"val":null,"phase":"backward"}}')
    with open(a.o, "w") as f:
        f.write('{"format":"fxmem","version":1,"storages":[' + ",\n".join(storages) + '],\n"graphs":[{"name":"joint",'
                '"kind":"joint","num_fwd_outputs":1,"nodes":[\n' + ",\n".join(nodes) + "]}]}\n")
    print(f"{a.o}: joint graph of {len(nodes)} nodes ({layers} layers)")


if __name__ == "__main__":
    main()
