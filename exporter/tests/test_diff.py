"""fxmem-cli diff on real pairs of captures (traced on meta for a CUDA GPU): the llama example
with and without a wider MLP, the 3-layer GPT with and without a graph break (whole step), and
llama with and without a recompute plan. Each side's pair peak must be PyTorch's estimator's
(get_peak_memory as intended), and the attributions by role and by module must add up to the
difference byte for byte."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import torch

import fxmem_export
from fxmem_export.examples.llama import Llama
from fxmem_export.examples.models import GPT, build
from fxmem_export.reference import intended_peak_memory


def capture(model: torch.nn.Module, inputs: tuple[Any, ...], path: Path, *, fullgraph: bool = True,
            optimizer: bool = False, **options: Any) -> fxmem_export.FxmemBackend:
    """One training step of ``model`` captured with the fxmem backend and written to ``path``."""
    torch._dynamo.reset()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3) if optimizer else None
    be = fxmem_export.backend(None, optimizer=opt, **options)
    torch.compile(model, backend=be, fullgraph=fullgraph)(*inputs).backward()
    be.save(path)
    torch._dynamo.reset()
    return be


def pytorch_peak(be: fxmem_export.FxmemBackend, pair: int = 0) -> int:
    graphs = {name: gm.graph for name, _, gm in be.graphs()}
    fw, bw = be.pairs()[pair][:2]
    return intended_peak_memory(graphs[fw], graphs[bw])["peak"]


def diff(cli: Path, old: Path, new: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    proc = subprocess.run([str(cli), "diff", str(old), str(new), "--json", *args], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode in (0, 3), proc.stderr
    text = subprocess.run([str(cli), "diff", str(old), str(new), *args], capture_output=True, text=True,
                          timeout=120).stdout
    return proc.returncode, json.loads(proc.stdout), text


def assert_adds_up(d: dict[str, Any]) -> None:
    delta = d["new"]["peak"] - d["old"]["peak"]
    assert d["delta"] == delta
    assert sum(r["delta"] for r in d["by_role"]) == delta
    assert sum(r["delta"] for r in d["by_module"]) == delta
    for side in ("old", "new"):
        assert sum(r[side] for r in d["by_role"]) == d[side]["peak"]
        assert sum(r[side] for r in d["by_module"]) == d[side]["peak"]


def llama(hidden: int | None = None) -> tuple[torch.nn.Module, tuple[Any, ...]]:
    """The small llama with 2 decoder layers (the example's 8 only make each capture slower), its
    feed-forward hidden size ``hidden`` (default 176), on the example's inputs."""
    torch.manual_seed(0)
    _, inputs, _ = build("llama", "meta")
    with torch.device("meta"):
        model = Llama(layers=2) if hidden is None else Llama(layers=2, hidden=hidden)
    return model, inputs


@pytest.fixture(scope="module")
def llama_base(tmp_path_factory) -> tuple[Path, fxmem_export.FxmemBackend]:
    path = tmp_path_factory.mktemp("diff") / "llama.fxmem.json"
    return path, capture(*llama(), path)


def test_wider_mlp_is_a_regression_in_the_mlp(cli, llama_base, tmp_path) -> None:
    old, old_be = llama_base
    new = tmp_path / "llama_wide.fxmem.json"
    new_be = capture(*llama(hidden=352), new)  # the default is 176
    status, d, text = diff(cli, old, new, "--max-increase", "5%")
    assert d["old"]["peak"] == pytorch_peak(old_be)
    assert d["new"]["peak"] == pytorch_peak(new_be)
    assert d["delta"] > 0
    assert_adds_up(d)
    assert status == 3 and d["verdict"] == "regression"
    assert text.startswith("fxmem-cli diff: REGRESSION: the pair peak grew by ")
    # The growth is in the feed-forward modules: the largest module row, and more than the others.
    grown = [r for r in d["by_module"] if r["delta"] > 0]
    assert "feed_forward" in grown[0]["key"]
    assert sum(r["delta"] for r in grown if "feed_forward" in r["key"]) > d["delta"] // 2
    # What the new peak has that the old lacks: the wider MLP's tensors (hidden 352).
    assert any("352" in s["shape"] for s in d["only_new"])
    assert not any("352" in s["shape"] for s in d["only_old"])
    # Within a limit above the growth: exit 0.
    percent = 100 * d["delta"] / d["old"]["peak"] + 1
    status, ok, _ = diff(cli, old, new, "--max-increase", f"{percent:.2f}%")
    assert status == 0 and ok["verdict"] == "ok"


def test_graph_break_whole_step(cli, tmp_path) -> None:
    torch.manual_seed(0)
    model, inputs, _ = build("gpt_break", "meta")  # GPTBreak(layers=3), batch 8
    with torch.device("meta"):
        whole = GPT(layers=3)
    old, new = tmp_path / "gpt.fxmem.json", tmp_path / "gpt_break.fxmem.json"
    old_be = capture(whole, inputs, old, optimizer=True)
    new_be = capture(model, inputs, new, fullgraph=False, optimizer=True)
    assert len(old_be.pairs()) == 1 and len(new_be.pairs()) == 2
    _, d, text = diff(cli, old, new, "--whole-step")
    assert_adds_up(d)
    for path, side in ((old, "old"), (new, "new")):
        peak = json.loads(subprocess.run([str(cli), "peak", str(path), "--whole-step", "--json"], capture_output=True,
                                         text=True, check=True).stdout)
        assert d[side]["peak"] == peak["peak"]
    # The break splits the step into two regions: the peak's graph is named by a region of each.
    assert d["old"]["graph"].startswith("region0") and d["new"]["graph"].startswith("region")
    assert text.splitlines()[0].startswith("fxmem-cli diff: ")
    # The pair view compares the first regions' pairs, PyTorch's numbers on each side.
    _, p, _ = diff(cli, old, new)
    assert p["old"]["peak"] == pytorch_peak(old_be) and p["new"]["peak"] == pytorch_peak(new_be, 0)
    assert_adds_up(p)


def test_recompute_plan_applied(cli, llama_base, tmp_path) -> None:
    old, old_be = llama_base
    plan = tmp_path / "plan.json"
    subprocess.run([str(cli), "remat", str(old), "-o", str(plan), "--time-limit", "5"], check=True,
                   capture_output=True, timeout=120)
    new = tmp_path / "llama_remat.fxmem.json"
    new_be = capture(*llama(), new, remat=str(plan))
    status, d, _ = diff(cli, old, new)
    assert d["old"]["peak"] == pytorch_peak(old_be)
    assert d["new"]["peak"] == pytorch_peak(new_be)
    assert d["new"]["peak"] == json.loads(plan.read_text())["peak"]  # what the plan predicted
    assert d["delta"] < 0 and status == 0
    assert_adds_up(d)
    # Recomputing drops saved activations: the old peak has storages the new one lacks.
    assert d["only_old"]
