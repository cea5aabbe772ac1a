"""The step (the order the graphs ran in), module prefixes across graph breaks, the whole-step
numbers of fxmem-cli against the fullgraph pair, and the capture-time checks."""

from __future__ import annotations

import json
import subprocess
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn as nn

import fxmem_export
from fxmem_export.examples.models import GPT, Block, GPTBreak


class LoopBreak(nn.Module):
    """A graph break inside the loop over the blocks: Dynamo skips the frame of forward (it cannot
    resume inside a loop) and compiles Block.forward once, run for every block."""

    def __init__(self, d: int = 32, layers: int = 3) -> None:
        super().__init__()
        self.emb = nn.Linear(16, d)
        self.blocks = nn.ModuleList(Block(d, 4) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.emb(x)
        for i, block in enumerate(self.blocks):
            x = block(x)
            if i == 0:
                torch._dynamo.graph_break()
        return self.head(self.ln(x)).sum()


def _capture_loop_break(iterations: int = 1, **kwargs):
    torch._dynamo.reset()
    with torch.device("meta"):
        model = LoopBreak()
        x = torch.randn(2, 8, 16)
    be = fxmem_export.backend(None, inner="eager", **kwargs)
    compiled = torch.compile(model, backend=be)
    for _ in range(iterations):
        compiled(x).backward()
    return model, be


def test_step_lists_each_call_and_the_backwards_in_autograd_order(tmp_path: Path) -> None:
    _, be = _capture_loop_break(iterations=2)  # the second iteration replaces the first
    with pytest.warns(UserWarning, match=r"outside every captured graph: emb\.weight, emb\.bias, ln\.weight"):
        doc = be.save(tmp_path / "loop.fxmem.json")
    assert [(e["graph"], e["call"], e.get("module_prefix")) for e in doc["step"]] == [
        ("region0.forward", 0, "blocks.0"),
        ("region0.forward", 1, "blocks.1"),
        ("region0.forward", 2, "blocks.2"),
        ("region0.backward", 2, "blocks.2"),
        ("region0.backward", 1, "blocks.1"),
        ("region0.backward", 0, "blocks.0"),
    ]
    torch._dynamo.reset()


def test_module_prefix_is_baked_in_when_a_region_runs_in_one_submodule(tmp_path: Path) -> None:
    # Region 0 (block 0 and the embedding) runs in the root; the resume region too: their
    # parameters are named from the root, blocks.1/blocks.2 included.
    torch._dynamo.reset()
    with torch.device("meta"):
        model = GPTBreak(layers=3)
        idx = torch.randint(0, 1024, (2, 32))
        targets = torch.randint(0, 1024, (2, 32))
    be = fxmem_export.backend(None, inner="eager")
    torch.compile(model, backend=be)(idx, targets).backward()
    doc = be.save(tmp_path / "b.fxmem.json")
    labels = {s["label"] for s in doc["storages"] if s.get("role") == "parameter"}
    assert labels == {n for n, _ in model.named_parameters()}
    modules = {n.get("module") for g in doc["graphs"] if g["name"] == "region1.forward" for n in g["nodes"]}
    assert {"blocks.1.qkv", "blocks.2.fc", "ln", "head"} <= modules
    assert [e["graph"] for e in doc["step"]] == ["region0.forward", "region1.forward", "region1.backward",
                                                 "region0.backward"]
    torch._dynamo.reset()


def test_a_backward_that_never_ran_is_named(tmp_path: Path) -> None:
    torch._dynamo.reset()
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
        x = torch.randn(4, 8)
    be = fxmem_export.backend(None, inner="eager")
    compiled = torch.compile(model, backend=be)
    used = compiled(x)
    compiled(x)  # a second forward call of the same iteration whose backward never runs
    used.sum().backward()
    with pytest.warns(UserWarning, match=r"the backward of region0\.forward \(call 1\) never ran"):
        doc = be.save(tmp_path / "m.fxmem.json")
    assert [(e["graph"], e["call"]) for e in doc["step"]] == [("region0.forward", 0), ("region0.forward", 1),
                                                              ("region0.backward", 0)]
    torch._dynamo.reset()


def _export_gpt(cls: type, fullgraph: bool, path: Path) -> dict:
    torch._dynamo.reset()
    torch.manual_seed(0)
    with torch.device("meta"):
        model = cls(layers=3)
        idx = torch.randint(0, 1024, (8, 128))
        targets = torch.randint(0, 1024, (8, 128))
    be = fxmem_export.backend(None, inner="eager")
    torch.compile(model, backend=be, fullgraph=fullgraph)(idx, targets).backward()
    doc = be.save(path)
    torch._dynamo.reset()
    return doc


def _cli_json(cli: Path, *args: str) -> dict:
    r = subprocess.run([str(cli), *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def _placeholder_storages(graph: dict) -> set[int]:
    out: set[int] = set()

    def walk(v) -> None:
        if isinstance(v, dict) and "storage" in v:
            out.add(v["storage"])
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for n in graph["nodes"]:
        if n["op"] == "placeholder":
            walk(n["val"])
    return out


def test_graph_break_whole_step_matches_the_fullgraph(tmp_path: Path, cli: Path) -> None:
    full = _export_gpt(GPT, True, tmp_path / "full.fxmem.json")
    broken = _export_gpt(GPTBreak, False, tmp_path / "break.fxmem.json")
    assert len(broken["pairs"]) == 2
    pair = _cli_json(cli, "peak", str(tmp_path / "full.fxmem.json"))["peak"]
    whole_full = _cli_json(cli, "peak", str(tmp_path / "full.fxmem.json"), "--whole-step")["peak"]
    whole_break = _cli_json(cli, "peak", str(tmp_path / "break.fxmem.json"), "--whole-step")["peak"]
    # The graph break changes nothing: both peak at the start of the head's backward.
    assert whole_break == whole_full
    # Against the pair peak, the whole step adds the parameters the backward graph does not hold
    # (the pair counts only its graphs' placeholders; a parameter lives through the whole step).
    by_name = {g["name"]: g for g in full["graphs"]}
    held = _placeholder_storages(by_name["region0.backward"])
    not_held = sum(s["nbytes"] for s in full["storages"] if s.get("role") == "parameter" and s["id"] not in held)
    print(f"pair peak {pair}, whole step (fullgraph) {whole_full}, whole step (break) {whole_break}, "
          f"parameters the backward does not hold {not_held}")
    assert whole_break - pair == not_held
    assert abs(whole_break - pair) / pair < 0.02


def test_whole_step_of_the_loop_break_counts_every_block(tmp_path: Path, cli: Path) -> None:
    model, be = _capture_loop_break()
    with pytest.warns(UserWarning):
        be.save(tmp_path / "loop.fxmem.json")
    out = _cli_json(cli, "peak", str(tmp_path / "loop.fxmem.json"), "--whole-step")
    # Parameters: the three blocks' (the region's labels under each call's prefix), once each, and
    # those only the eager code uses (emb, ln, head: the file has a parameter storage for each).
    assert out["parameters"] == sum(p.numel() * p.element_size() for p in model.parameters())
    assert [e["graph"] for e in out["entries"]] == ["region0.forward"] * 3 + ["region0.backward"] * 3
    torch._dynamo.reset()


def test_meta_with_inductor_raises_the_package_error() -> None:
    torch._dynamo.reset()
    with torch.device("meta"):
        model = nn.Linear(8, 8)
        x = torch.randn(4, 8)
    # inner="inductor" (full Inductor, kernels included; no longer the default) cannot run on meta
    compiled = torch.compile(model, backend=fxmem_export.backend(None, inner="inductor"))
    with pytest.raises(Exception) as info:
        compiled(x)
    inner = getattr(info.value, "inner_exception", info.value)
    assert isinstance(inner, fxmem_export.MetaInductorError)
    assert "Inductor cannot compile meta tensors" in str(inner)
    assert "inner='partition'" in str(inner) and "inner='eager'" in str(inner)
    # ... and the default (inner="partition": Inductor's front half, no kernels) captures on meta
    torch._dynamo.reset()
    be = fxmem_export.backend(None)
    assert be.inner == "partition"
    torch.compile(model, backend=be)(x).sum().backward()
    assert [kind for _, kind, _ in be.graphs()] == ["forward", "backward", "joint"]
    torch._dynamo.reset()


def test_cpu_only_capture_warns_and_the_cli_says_why_it_reads_zero(tmp_path: Path, cli: Path) -> None:
    torch._dynamo.reset()
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 1))
    be = fxmem_export.backend(None, inner="eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.compile(model, backend=be)(torch.randn(4, 8)).sum().backward()
    messages = [str(w.message) for w in caught if "fxmem_export" in str(w.message)]
    assert len(messages) == 1 and "on the CPU" in messages[0] and "torch.device('meta')" in messages[0]
    path = tmp_path / "cpu.fxmem.json"
    be.save(path)
    for command in (["peak"], ["peak", "--whole-step"], ["breakdown", "--graph", "region0.forward"], ["info"],
                    ["profile", "--graph", "region0.backward"], ["live", "--graph", "region0.forward"],
                    ["optimize", "--graph", "region0.forward", "--time-limit", "0"], ["schedules"],
                    ["breakdown", "--pair", "region0.forward,region0.backward"]):
        r = subprocess.run([str(cli), command[0], str(path), *command[1:]], capture_output=True, text=True, check=True)
        first = r.stdout.splitlines()[0]
        assert first.startswith("note: every storage of") and "so the result is 0 B" in first, (command, r.stdout)
    zero = _cli_json(cli, "peak", str(path))["peak"]
    counted = _cli_json(cli, "peak", str(path), "--devices", "all")["peak"]
    assert zero == 0 and counted > 0
    r = subprocess.run([str(cli), "peak", str(path), "--devices", "gpu"], capture_output=True, text=True)
    assert r.returncode == 2 and "--devices must be" in r.stderr
    torch._dynamo.reset()


def test_whole_step_of_a_file_without_a_step_is_an_error(cli: Path) -> None:
    path = Path(__file__).resolve().parents[2] / "resources" / "examples" / "mlp.fxmem.json"
    r = subprocess.run([str(cli), "peak", str(path), "--whole-step"], capture_output=True, text=True)
    assert r.returncode == 1 and 'the file has no "step"' in r.stderr
