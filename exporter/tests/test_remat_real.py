"""Recompute plans that apply in real training.

For each model: capture it on ``meta`` with ``fxmem_export.backend(path, target="cpu")``, let
``fxmem-cli remat`` plan what to recompute, then train the real model on the CPU with Inductor
(real tensors, kernels generated and run, SGD, three steps) twice: without the plan, and with
``torch._inductor.config.joint_custom_post_pass = fxmem_export.apply_remat(plan)``.

(a) the plan applies: every plan node is found by its key in the joint graph Inductor hands to
    its partitioner (RematReport), and PyTorch's partition saves exactly the plan's values;
(b) the three losses equal those of the run without the plan;
(c) the pair Inductor partitions (taken as ``min_cut_rematerialization_partition`` returns it)
    has, with PyTorch's estimator counting every device, the pair peak ``fxmem-cli remat``
    predicts for it: ``remat --plan`` on the plan without its order for the pair as PyTorch
    orders its backward, and the plan's own ``peak`` once the backward is in the plan's order
    (which ``remat_partitioner`` does inside a real run: ``test_partitioner_applies_the_order``).
    The run without the plan has the file's own pair peak (the plan's baseline).

The models are tiny so that Inductor's CPU code generation stays within seconds per compile.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import torch
import torch.nn as nn

import fxmem_export
from fxmem_export.examples.llama import Llama
from fxmem_export.examples.models import Block, build
from fxmem_export.reference import intended_peak_memory
from fxmem_export.remat import RematReport, remat_partitioner, reorder_backward
from test_capture_real import GRUUnrolled  # a GRU cell unrolled over the input's time steps

STEPS = 3


class TinyViT(nn.Module):
    """Patch embedding (conv), class token, position embedding, one attention block, head."""

    def __init__(self, d: int = 32, heads: int = 2) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, d, 4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, 5, d) * 0.02)
        self.block = Block(d, heads)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.norm(self.block(x)[:, 0]))


class Broken(nn.Module):
    """Two MLPs with a graph break between them: two regions, two joint graphs."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 16))
        self.b = nn.Sequential(nn.Linear(16, 64), nn.SiLU(), nn.Linear(64, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.a(x)
        torch._dynamo.graph_break()
        return self.b(h)


def make(name: str, device: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    if name == "cnn":
        model, inputs, _ = build("cnn", device)
        return model, tuple(inputs)
    with torch.device(device):
        if name == "llama":
            return Llama(vocab=64, dim=32, layers=1, heads=2, hidden=64, max_seq=16), (
                torch.randint(0, 64, (2, 16)), torch.randint(0, 64, (2, 16)))
        if name == "vit":
            return TinyViT(), (torch.randn(4, 3, 8, 8),)
        if name == "gru":
            return GRUUnrolled(), (torch.randn(4, 4, 16),)
        if name == "broken":
            return Broken(), (torch.randn(32, 16),)
    raise KeyError(name)


def loss_of(out: torch.Tensor) -> torch.Tensor:
    return out if out.dim() == 0 else out.float().square().mean()


def peak(fw: torch.fx.GraphModule, bw: torch.fx.GraphModule) -> int:
    return intended_peak_memory(fw.graph, bw.graph, count_cpu=True)["peak"]


def saved_names(bw: torch.fx.GraphModule) -> list[str]:
    return sorted(n.name for n in bw.graph.find_nodes(op="placeholder") if "tangents" not in n.name)


def run_cli(cli: Path, *args: str) -> dict[str, Any]:
    run = subprocess.run([str(cli), *args, "--json"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


_CACHE: dict[Any, Any] = {}


def capture_and_plan(name: str, cli: Path, tmp: Path) -> tuple[dict[str, Any], dict[str, Any], Path]:
    """(CLI result, plan, file) for the model captured on meta for a CPU target (once per model:
    later calls copy the plan into ``tmp``)."""
    if ("plan", name) in _CACHE:
        result, plan, path = _CACHE[("plan", name)]
        (tmp / f"{name}.plan.json").write_text(json.dumps(plan))
        return result, plan, path
    path = tmp / f"{name}.fxmem.json"
    torch._dynamo.reset()
    model, inputs = make(name, "meta")
    be = fxmem_export.backend(path, target="cpu")
    loss_of(torch.compile(model, backend=be, fullgraph=True)(*inputs)).backward()
    be.save()
    torch._dynamo.reset()
    result = run_cli(cli, "remat", str(path), "--time-limit", "1", "-o", str(tmp / f"{name}.plan.json"))
    _CACHE[("plan", name)] = result, json.loads((tmp / f"{name}.plan.json").read_text()), path
    return _CACHE[("plan", name)]


def train_without_plan(name: str) -> tuple[list[float], list[tuple[torch.fx.GraphModule, torch.fx.GraphModule]]]:
    if ("base", name) not in _CACHE:
        _CACHE[("base", name)] = train(name)
    return _CACHE[("base", name)]


def train(name: str, **config: Any) -> tuple[list[float], list[tuple[torch.fx.GraphModule, torch.fx.GraphModule]]]:
    """Losses of STEPS SGD steps of the real CPU model compiled by Inductor (caches off, so that
    the joint graph is built and partitioned here) and the pairs min-cut partitioned."""
    import torch._inductor.compile_fx as cfx
    from fxmem_export._joint import copy_graph_module

    real_cut = cfx.min_cut_rematerialization_partition
    pairs: list[tuple[torch.fx.GraphModule, torch.fx.GraphModule]] = []

    def recording_cut(gm: torch.fx.GraphModule, joint_inputs: Any, **kwargs: Any) -> Any:
        fw, bw = real_cut(gm, joint_inputs, **kwargs)
        pairs.append((copy_graph_module(fw), copy_graph_module(bw)))
        return fw, bw

    torch._dynamo.reset()
    model, inputs = make(name, "cpu")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    compiled = torch.compile(model, fullgraph=name != "broken")
    losses = []
    cfx.min_cut_rematerialization_partition = recording_cut
    try:
        with torch._functorch.config.patch(enable_autograd_cache=False), \
                torch._inductor.config.patch({"fx_graph_cache": False, "compile_threads": 1, "cpp.vec_isa_ok": False, **config}):
            for _ in range(STEPS):
                loss = loss_of(compiled(*inputs))
                loss.backward()
                opt.step()
                opt.zero_grad()
                losses.append(loss.item())
    finally:
        cfx.min_cut_rematerialization_partition = real_cut
        torch._dynamo.reset()
    return losses, pairs


@pytest.mark.parametrize("name", ["llama", "vit", "gru", "cnn"])
def test_plan_applies_in_real_training(name, cli, tmp_path):
    result, plan, path = capture_and_plan(name, cli, tmp_path)
    assert result["recomputed"] and result["peak"] < result["baseline"]["peak"], result
    assert result["reproducible"]

    base_losses, base_pairs = train_without_plan(name)
    remat = fxmem_export.apply_remat(tmp_path / f"{name}.plan.json")
    losses, pairs = train(name, joint_custom_post_pass=remat)

    # (a) Every plan node found by its key; PyTorch saves what the plan saves.
    report: RematReport = remat.report
    named = set(plan["saved"]) | set(plan["recomputed"]) | set(plan["order"])
    assert (report.by_key, report.by_name) == (len(named), 0), str(report)
    assert report.saved == [n for n in report.saved if n in set(plan["saved"])] and sorted(report.saved) == sorted(plan["saved"])
    assert len(pairs) == len(base_pairs) == 1
    fw, bw = pairs[0]
    assert saved_names(bw) == sorted(plan["saved"])
    recomputed = {n.name for n in fw.graph.nodes} & {n.name for n in bw.graph.nodes if n.op == "call_function"}
    assert recomputed == set(plan["recomputed"])

    # (b) The same training.
    assert torch.allclose(torch.tensor(losses), torch.tensor(base_losses), rtol=1e-6, atol=0), (losses, base_losses)
    assert base_losses[-1] < base_losses[0]

    # (c) fxmem's predictions to the byte, PyTorch's estimator counting every device.
    assert peak(*base_pairs[0]) == result["baseline"]["peak"]
    unordered = tmp_path / f"{name}.unordered.json"
    unordered.write_text(json.dumps({k: v for k, v in plan.items() if k != "order"}))
    as_partitioned = run_cli(cli, "remat", str(path), "--plan", str(unordered))
    assert peak(fw, bw) == as_partitioned["peak"]
    assert peak(fw, reorder_backward(bw, plan, names=report.names)) == plan["peak"] == result["peak"]
    print(f"{name}: pair peak {result['baseline']['peak']} -> {as_partitioned['peak']} (PyTorch's backward order), "
          f"{plan['peak']} (the plan's); losses {losses}, largest relative difference to the run without the plan "
          f"{max(abs(a - b) / abs(b) for a, b in zip(losses, base_losses)):.1e}; {report}")


def test_partitioner_applies_the_order(cli, tmp_path):
    """``remat_partitioner`` as Inductor's partitioner: the backward in the plan's order, whose
    pair peak is the plan's, and the same losses."""
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    from fxmem_export._joint import copy_graph_module

    result, plan, _ = capture_and_plan("gru", cli, tmp_path)
    assert result["order"] and result["peak"] < result["baseline"]["peak"]
    inner = remat_partitioner(tmp_path / "gru.plan.json")
    pairs = []

    class Recording(CustomPartitionerFn):
        def __call__(self, gm, joint_inputs, **kwargs):
            fw, bw = inner(gm, joint_inputs, **kwargs)
            pairs.append((copy_graph_module(fw), copy_graph_module(bw)))
            return fw, bw

        def uuid(self):
            return inner.uuid()

    base_losses, _ = train_without_plan("gru")
    losses, _ = train("gru", custom_partitioner_fn=Recording())
    fw, bw = pairs[0]
    assert [n.name for n in bw.graph.nodes if n.op not in ("placeholder", "output")] == plan["order"]
    assert peak(fw, bw) == plan["peak"]
    assert torch.allclose(torch.tensor(losses), torch.tensor(base_losses), rtol=1e-6, atol=0), (losses, base_losses)
    assert inner.application.report.by_key > 0


def test_the_pass_is_cacheable_and_names_a_plan_for_another_model(cli, tmp_path):
    """The pass is an Inductor CustomGraphPass keyed on the plan (the FX graph cache does not
    bypass it), and a plan for another model is refused naming the node."""
    from torch._inductor.custom_graph_pass import CustomGraphPass

    from fxmem_export import RematPlanError

    _, plan, _ = capture_and_plan("gru", cli, tmp_path)
    a, b = fxmem_export.apply_remat(plan), fxmem_export.apply_remat(plan)
    assert isinstance(a, CustomGraphPass) and a.uuid() == b.uuid()
    assert fxmem_export.apply_remat({**plan, "saved": plan["saved"][1:]}).uuid() != a.uuid()
    with pytest.raises(Exception) as info:
        train("vit", joint_custom_post_pass=a)
    e = info.value
    while e is not None and not isinstance(e, RematPlanError):
        e = getattr(e, "inner_exception", None) or e.__cause__
    assert e is not None and re.search(r"(saved|recomputed|order)\[\d+\]: .*(unknown node|where the plan has)", str(e)), info.value


def test_plan_keys_survive_renaming_and_refuse_other_shapes(cli, tmp_path):
    """The plan's node keys (op, module, occurrence; dtype and shape checked) find the nodes where
    the names differ, in fxmem-cli and in apply_remat, also under a module prefix; old plans
    without keys are matched by name."""
    from fxmem_export import RematPlanError
    from fxmem_export._joint import copy_graph_module
    from fxmem_export.remat import load_plan, tag_joint_graph

    result, plan, path = capture_and_plan("gru", cli, tmp_path)
    named = set(plan["saved"]) | set(plan["recomputed"]) | set(plan["order"])
    assert set(plan["nodes"]) == named

    def write(data: dict[str, Any], name: str) -> Path:
        (tmp_path / name).write_text(json.dumps(data))
        return tmp_path / name

    renamed = {**plan, **{k: ["x_" + n for n in plan[k]] for k in ("saved", "recomputed", "order")},
               "nodes": {"x_" + k: v for k, v in plan["nodes"].items()}}
    scored = run_cli(cli, "remat", str(path), "--plan", str(write(renamed, "renamed.json")))
    assert (scored["peak"], scored["saved"], scored["order"]) == (plan["peak"], plan["saved"], plan["order"])
    victim = next(n for n in plan["saved"] if not n.startswith("primals"))
    key = plan["nodes"][victim]
    wrong = {**plan, "nodes": {**plan["nodes"], victim: [key[0], key[1], key[2], [d + 1 for d in key[3]], key[4]]}}
    run = subprocess.run([str(cli), "remat", str(path), "--plan", str(write(wrong, "wrong.json"))],
                         capture_output=True, text=True)
    assert run.returncode == 1 and f"is node '{victim}', a float32" in run.stderr and "where the plan has" in run.stderr, run.stderr

    torch._dynamo.reset()
    model, inputs = make("gru", "meta")
    be = fxmem_export.backend(None, target="cpu")
    loss_of(torch.compile(model, backend=be, fullgraph=True)(*inputs)).backward()
    torch._dynamo.reset()
    joint = be.regions[0].joint_captures[0]

    def tag(data: dict[str, Any]) -> RematReport:
        return tag_joint_graph(copy_graph_module(joint.gm).graph, load_plan(data)[0], "p.json", joint.num_fwd_outputs)

    assert (tag(renamed).by_key, tag(renamed).renamed) == (len(named), {"x_" + n: n for n in named})
    # A region compiled inside a submodule: the file's modules carry its prefix.
    prefixed = {**plan, "nodes": {k: [v[0], ("outer." + v[1]) if v[1] else "outer", *v[2:]] for k, v in plan["nodes"].items()}}
    assert tag(prefixed).by_key == len(named)
    assert tag({k: v for k, v in plan.items() if k != "nodes"}).by_name == len(named)
    with pytest.raises(RematPlanError, match=rf"p\.json: saved\[\d+\]: '{victim}' \(.*\) is node '{victim}' of the joint graph, a float32\[.*\] where the plan has float32\["):
        tag(wrong)
    with pytest.raises(RematPlanError, match=r"p\.json: saved\[\d+\]: unknown node 'x_.*': the joint graph has 0 aten\.nope"):
        tag({**renamed, "nodes": {**renamed["nodes"], "x_" + victim: ["aten.nope", None, 0, None, None]}})
    with pytest.raises(RematPlanError, match=r"nodes\['relu'\]: the occurrence must be an integer >= 0"):
        load_plan({**plan, "nodes": {"relu": ["aten.relu.default", None, -1, None, None]}})


def test_one_plan_per_region_of_a_model_with_a_graph_break(cli, tmp_path):
    """A list of plans tags each joint graph with the plan that fits it (one per region); one
    region's plan alone is refused on the other region's joint graph."""
    from fxmem_export import RematPlanError

    path = tmp_path / "broken.fxmem.json"
    torch._dynamo.reset()
    model, inputs = make("broken", "meta")
    be = fxmem_export.backend(path, target="cpu")
    loss_of(torch.compile(model, backend=be)(*inputs)).backward()
    be.save()
    torch._dynamo.reset()
    plans, results = [], []
    for region in (0, 1):
        plans.append(tmp_path / f"region{region}.plan.json")
        results.append(run_cli(cli, "remat", str(path), "--graph", f"region{region}.joint", "--time-limit", "0.5",
                               "-o", str(plans[-1])))
    assert any(r["recomputed"] for r in results)
    base_losses, base_pairs = train_without_plan("broken")
    remat = fxmem_export.apply_remat(plans)
    losses, pairs = train("broken", joint_custom_post_pass=remat)
    assert [r.source for r in remat.reports] == [str(p) for p in plans]
    assert len(pairs) == len(base_pairs) == 2
    for (fw, bw), result, plan in zip(pairs, results, plans):
        assert saved_names(bw) == sorted(result["saved"])
        assert peak(fw, reorder_backward(bw, json.loads(plan.read_text()))) == result["peak"]
    assert torch.allclose(torch.tensor(losses), torch.tensor(base_losses), rtol=1e-6, atol=0), (losses, base_losses)
    with pytest.raises(Exception) as info:
        train("broken", joint_custom_post_pass=fxmem_export.apply_remat(plans[0]))
    e = info.value
    while e is not None and not isinstance(e, RematPlanError):
        e = getattr(e, "inner_exception", None) or e.__cause__
    assert e is not None and "region0.plan.json" in str(e), info.value
