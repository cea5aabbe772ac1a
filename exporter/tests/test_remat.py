"""The recompute loop closed: fxmem-cli remat plans a partition of the joint graph, PyTorch
partitions the same joint graph under the plan's tags (backend(inner="partition", remat=PLAN)),
and PyTorch's own estimator (build_memory_profile on both graphs, forward outputs carried into the
backward, fxmem_export.reference.intended_peak_memory) gives fxmem's predicted peak to the byte."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
import torch
import torch.nn as nn

import fxmem_export
from fxmem_export.examples.llama import Llama
from fxmem_export.examples.models import CNN, GPT, Dynamic
from fxmem_export.reference import intended_peak_memory
from fxmem_export.remat import RematPlanError, apply_remat, load_plan, tag_joint_graph


class BNNet(nn.Module):
    """Linear + BatchNorm1d (training: running stats mutated) + ReLU, twice."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.BatchNorm1d(64), nn.ReLU(),
                                 nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def small(name: str):
    with torch.device("meta"):
        torch.manual_seed(0)
        if name == "llama":
            return Llama(vocab=64, dim=32, layers=2, heads=2, hidden=64, max_seq=16), (
                torch.randint(0, 64, (2, 16)), torch.randint(0, 64, (2, 16)))
        if name == "gpt":
            return GPT(vocab=64, d=32, heads=2, layers=1, ctx=16), (torch.randint(0, 64, (2, 16)), torch.randint(0, 64, (2, 16)))
        if name == "cnn":
            return CNN().train(), (torch.randn(2, 3, 8, 8),)
        if name == "dynamic":
            x = torch.randn(12, 64)
            torch._dynamo.mark_dynamic(x, 0)
            return Dynamic(d=64), (x,)
        # bn64, a batch of 64: at 8 the peak is the parameters' and gradients' (Inductor's
        # partition already recomputes BatchNorm's normalization), leaving a plan nothing to win.
        return BNNet().train(), (torch.randn(64 if name == "bn64" else 8, 32),)


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def capture(name: str, path, **kw) -> fxmem_export.FxmemBackend:
    torch._dynamo.reset()
    model, inputs = small(name)
    be = fxmem_export.backend(path, inner="partition", **kw)
    out = torch.compile(model, backend=be, fullgraph=True, dynamic=(name == "dynamic") or None)(*inputs)
    (out if out.dim() == 0 else out.float().sum()).backward()
    be.save()
    return be


def pair(be: fxmem_export.FxmemBackend):
    graphs = {k: gm for _, k, gm in be.graphs()}
    return graphs["forward"].graph, graphs["backward"].graph


def plan_for(cli, path, tmp_path, *extra: str) -> tuple[dict, dict]:
    plan_path = tmp_path / "plan.json"
    run = subprocess.run([str(cli), "remat", str(path), "--time-limit", "2", "-o", str(plan_path), "--json", *extra],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout), json.loads(plan_path.read_text())


@pytest.mark.parametrize("name", ["llama", "gpt", "cnn", "bn64", "dynamic"])
def test_pytorch_partition_under_the_plan_has_fxmems_peak(name, cli, tmp_path):
    before = tmp_path / "before.fxmem.json"
    capture(name, before)
    result, plan = plan_for(cli, before, tmp_path)
    assert plan["peak"] == result["peak"] and plan["saved"] == result["saved"]
    # The plan recomputes something and beats the partition it started from.
    assert result["recomputed"], name
    assert result["peak"] < result["baseline"]["peak"], name

    after = capture(name, tmp_path / "after.fxmem.json", remat=tmp_path / "plan.json")
    fw, bw = pair(after)
    assert intended_peak_memory(fw, bw) == {
        "forward_peak": result["forward_peak"], "backward_baseline": result["backward_baseline"],
        "backward_peak": result["backward_peak"], "peak": result["peak"]}
    # The backward is in the plan's order and saves the plan's values.
    assert [n.name for n in bw.nodes if n.op not in ("placeholder", "output")] == plan["order"]
    saved = [n.name for n in bw.find_nodes(op="placeholder") if "tangents" not in n.name]
    assert sorted(saved) == sorted(plan["saved"])
    recomputed = {n.name for n in fw.nodes} & {n.name for n in bw.nodes if n.op == "call_function"}
    assert recomputed == set(plan["recomputed"])


def test_a_flop_limit_is_kept_and_scored_the_same(cli, tmp_path):
    # llama: its free plan recomputes matmuls (gpt's, on Inductor's partition, only zero-FLOP
    # pointwise ops and views, so no limit binds there); half of their FLOPs allows some of them.
    before = tmp_path / "before.fxmem.json"
    capture("llama", before)
    free, _ = plan_for(cli, before, tmp_path)
    assert free["extra_flops"] > 0
    limit = free["extra_flops"] // 2
    result, _ = plan_for(cli, before, tmp_path, "--max-extra-flops", str(limit))
    assert 0 < result["extra_flops"] <= limit
    assert free["peak"] <= result["peak"] < result["baseline"]["peak"]
    after = capture("llama", tmp_path / "after.fxmem.json", remat=tmp_path / "plan.json")
    assert intended_peak_memory(*pair(after))["peak"] == result["peak"]


def test_apply_remat_tags_every_forward_node(cli, tmp_path):
    before = tmp_path / "before.fxmem.json"
    capture("bn", before)
    _, plan = plan_for(cli, before, tmp_path)
    from torch.utils.checkpoint import CheckpointPolicy

    seen = {}

    def pre_pass(graph):
        apply_remat(plan)(graph)
        seen.update({n.name: n.meta.get("recompute") for n in graph.nodes if n.op == "call_function"})

    be = fxmem_export.backend(None, inner="partition")
    model, inputs = small("bn")
    # As in a training script: Inductor runs the pass on the joint graph after its joint-graph
    # passes, right before the partition (the backend runs Inductor's front half, so the same
    # config applies to it).
    with torch._inductor.config.patch(joint_custom_post_pass=pre_pass):
        out = torch.compile(model, backend=be, fullgraph=True)(*inputs)
        out.float().sum().backward()
    assert {k for k, v in seen.items() if v == CheckpointPolicy.MUST_RECOMPUTE} >= set(plan["recomputed"])
    assert all(v in (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.MUST_RECOMPUTE)
               for k, v in seen.items() if k in set(plan["saved"]) | set(plan["recomputed"]))
    fw, bw = pair(be)
    assert sorted(n.name for n in bw.find_nodes(op="placeholder") if "tangents" not in n.name) == sorted(plan["saved"])


def test_malformed_plans_name_the_file_and_the_node(cli, tmp_path):
    before = tmp_path / "before.fxmem.json"
    capture("bn", before)
    _, plan = plan_for(cli, before, tmp_path)
    bad = tmp_path / "bad.json"

    def fails(data, fragment):
        bad.write_text(json.dumps(data) if not isinstance(data, str) else data)
        with pytest.raises(Exception) as info:  # torch.compile wraps what the backend raises
            capture("bn", tmp_path / "x.fxmem.json", remat=bad)
        e = info.value
        while e is not None and not isinstance(e, RematPlanError):
            e = getattr(e, "inner_exception", None) or e.__cause__
        assert e is not None, info.value
        assert re.search(fragment, str(e)), str(e)

    fails({**plan, "saved": plan["saved"] + ["no_such_node"]}, r"bad\.json: saved\[\d+\]: unknown node 'no_such_node'")
    fails({**plan, "order": ["relu_99"] + plan["order"]}, r"bad\.json: order\[0\]: unknown node 'relu_99'")
    fails({**plan, "saved": [s for s in plan["saved"] if not s.startswith("primals")]},
          r"bad\.json: the saved values leave the backward unable to compute '\w+': it needs 'primals_\d+'")
    fails({**plan, "format": "fxmem"}, r"bad\.json: not a remat plan")
    fails("{\"format\": ", r"bad\.json:1:\d+: invalid JSON")
    with pytest.raises(RematPlanError, match=r"bad\.json: 'saved' must be an array"):
        bad.write_text(json.dumps({**plan, "saved": "mm"}))
        apply_remat(bad)
    # The same plan applied to another model's joint graph names the first node it lacks.
    other = tmp_path / "other.json"
    other.write_text(json.dumps(plan))
    graph = torch.fx.Graph()
    graph.placeholder("primals_1")
    graph.output(())
    with pytest.raises(RematPlanError, match=r"other\.json: saved\[0\]: unknown node .*another graph"):
        tag_joint_graph(graph, load_plan(other)[0], str(other))


def test_cli_refuses_malformed_plans(cli, tmp_path):
    before = tmp_path / "before.fxmem.json"
    capture("bn", before)
    _, plan = plan_for(cli, before, tmp_path)
    bad = tmp_path / "bad.json"
    for data, fragment in [
        ({**plan, "saved": ["nope"] + plan["saved"]}, "bad.json: saved[0]: unknown node 'nope'"),
        ({**plan, "joint": "region7.joint"}, "bad.json: the plan is for joint graph 'region7.joint'"),
        ({**plan, "saved": [s for s in plan["saved"] if not s.startswith("primals")]}, "it needs 'primals_"),
    ]:
        bad.write_text(json.dumps(data))
        run = subprocess.run([str(cli), "remat", str(before), "--plan", str(bad)], capture_output=True, text=True)
        assert run.returncode == 1 and fragment in run.stderr, run.stderr
