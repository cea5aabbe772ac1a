"""Shared fixtures: every example model is captured and exported once per test session."""

from __future__ import annotations

import json
import os
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import torch  # a missing torch must fail the run, not skip it
import torch.fx as fx

import fxmem_export
from fxmem_export import examples

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Exported:
    name: str
    path: Path
    doc: dict[str, Any]
    forward: fx.GraphModule
    backward: fx.GraphModule

    def graph(self, name: str) -> fx.Graph:
        return {"forward": self.forward, "backward": self.backward}[name].graph

    def file_graph(self, name: str) -> dict[str, Any]:
        return next(g for g in self.doc["graphs"] if g["name"] == name)


@pytest.fixture(scope="session")
def exported(tmp_path_factory) -> dict[str, Exported]:
    """Every example model, captured once (meta device) and written with a reference block."""
    out = tmp_path_factory.mktemp("examples")
    result = {}
    for name in examples.NAMES:
        path = out / f"{name}.fxmem.json"
        cap, doc = examples.export(name, path, reference=True)
        assert json.loads(path.read_text()) == doc
        result[name] = Exported(name, path, doc, cap.forward, cap.backward)
    return result


def cli_path() -> Path:
    return Path(os.environ.get("FXMEM_CLI") or REPO / "build" / "bin" / "fxmem-cli")


@pytest.fixture(scope="session")
def cli() -> Path:
    path = cli_path()
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(
            f"fxmem-cli not found at {path}: build it (cmake -S . -B build && cmake --build build "
            "--target fxmem-cli) or set FXMEM_CLI", pytrace=False)
    return path


def run_cli(cli: Path, *args: str) -> dict[str, Any]:
    proc = subprocess.run([str(cli), *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"fxmem-cli {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}"
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError as e:  # pragma: no cover - reported as a failure
        raise AssertionError(f"fxmem-cli {' '.join(args)} printed no JSON: {proc.stdout[:500]!r}") from e


def random_topological_order(graph: fx.Graph, rng: random.Random) -> list[fx.Node]:
    """A uniformly-picked-at-each-step legal order: each node after its inputs, output last."""
    nodes = list(graph.nodes)
    output = [n for n in nodes if n.op == "output"]
    body = [n for n in nodes if n.op != "output"]
    pending = {n: len(set(n.all_input_nodes)) for n in body}
    ready = [n for n in body if pending[n] == 0]
    order: list[fx.Node] = []
    while ready:
        node = ready.pop(rng.randrange(len(ready)))
        order.append(node)
        for user in node.users:
            if user in pending:
                pending[user] -= 1
                if pending[user] == 0:
                    ready.append(user)
    assert len(order) == len(body), "graph has a cycle?"
    return order + output


def meta_vals_to_real(gm: fx.GraphModule, seed: int = 0) -> list[torch.Tensor]:
    """Real CPU inputs matching the placeholders' FakeTensors."""
    g = torch.Generator().manual_seed(seed)
    args = []
    for node in gm.graph.find_nodes(op="placeholder"):
        val = node.meta["val"]
        if val.dtype.is_floating_point:
            t = torch.randn(tuple(val.shape), generator=g, dtype=val.dtype)
        else:
            t = torch.randint(0, 8, tuple(val.shape), generator=g, dtype=val.dtype)
        args.append(t)
    return args
