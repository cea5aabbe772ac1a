"""fxmem_export.sweep: one joint graph partitioned per activation memory budget, each pair
checked against what a real CPU torch.compile run partitions at that budget (real_run.py) and
its FLOPs against FlopCounterMode."""

from __future__ import annotations

import json

import pytest
import torch
import torch.fx as fx
from torch.utils.flop_counter import FlopCounterMode

import fxmem_export
import real_run
from fxmem_export.sweep import partition_sweep

from test_partition import signature, small


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def torch_partition_at(name: str, budget: float):
    """What a real CPU ``torch.compile`` training step of the same model (built on the CPU)
    partitions at ``activation_memory_budget=budget``: Inductor's decompositions, joint-graph
    passes and min-cut (real_run.real_cpu_pair)."""
    pair = real_run.real_cpu_pair(*small(name, "cpu"), budget=budget)
    return pair.forward, pair.backward


def flops_by_running(gm: fx.GraphModule) -> int:
    """Run the graph on meta tensors shaped like its placeholders under FlopCounterMode."""
    args = []
    for n in gm.graph.find_nodes(op="placeholder"):
        v = n.meta["val"]
        args.append(torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="meta")
                    if isinstance(v, torch.Tensor) else v)
    with FlopCounterMode(display=False) as mode:
        fx.Interpreter(gm).run(*args)
    return mode.get_total_flops()


BUDGETS = (1.0, 0.5, 0.2, 0.0)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_sweep_pairs_are_torch_partitions(name):
    model, inputs = small(name)
    sw = partition_sweep(model, inputs, BUDGETS)
    graphs = {n: gm for n, _, gm in sw.graphs}
    assert [n for n, _, _ in sw.graphs] == [f"budget={b!r}.{k}" for b in BUDGETS for k in ("forward", "backward")] + ["joint"]
    distinct = set()
    for b in BUDGETS:
        fw, bw = torch_partition_at(name, b)
        assert signature(graphs[f"budget={b!r}.forward"].graph) == signature(fw.graph), b
        assert signature(graphs[f"budget={b!r}.backward"].graph) == signature(bw.graph), b
        distinct.add(repr(signature(bw.graph)))
    assert len(distinct) >= 2  # the budgets do change the partition of these models
    joint_names = {n.name for n in graphs["joint"].graph.nodes}
    for n, _, gm in sw.graphs:
        assert {x.name for x in gm.graph.nodes} <= joint_names, n


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_sweep_file_budgets_and_flops(tmp_path, name):
    model, inputs = small(name)
    path = tmp_path / "sweep.fxmem.json"
    doc = fxmem_export.sweep(model, inputs, path, budgets=BUDGETS, reference=True)
    assert json.loads(path.read_text()) == doc
    assert [p["budget"] for p in doc["pairs"]] == list(BUDGETS)
    assert all(p["joint"] == "joint" for p in doc["pairs"])
    assert [(p["forward"], p["backward"]) for p in doc["pairs"]] == [
        (f"budget={b!r}.forward", f"budget={b!r}.backward") for b in BUDGETS]
    joint = next(g for g in doc["graphs"] if g["name"] == "joint")
    assert joint["kind"] == "joint" and joint["num_fwd_outputs"] >= 1
    assert doc["producer"]["budgets"] == list(BUDGETS)
    assert len(doc["reference"]["pairs"]) == len(BUDGETS)
    # FLOPs: the file's per-node counts summed equal FlopCounterMode over running each graph
    sw = partition_sweep(model, inputs, BUDGETS)
    run = {n: flops_by_running(gm) for n, _, gm in sw.graphs}
    total = {g["name"]: sum(n.get("flops", 0) for n in g["nodes"]) for g in doc["graphs"]}
    assert total == run
    for p in doc["pairs"]:
        assert p["extra_flops"] == run[p["forward"]] + run[p["backward"]] - run["joint"] >= 0
    assert doc["pairs"][0]["extra_flops"] == 0  # budget 1.0 recomputes nothing with FLOPs
    assert max(p["extra_flops"] for p in doc["pairs"]) > 0


def test_batchnorm_model_sweeps_below_budget_one(tmp_path):
    """Running a BatchNorm model's captured graphs under autograd on meta at budgets below 1.0
    fails ("modified by an inplace operation"); sweep never runs them."""
    model, inputs = small("cnn")
    doc = fxmem_export.sweep(model, inputs, tmp_path / "cnn.json", budgets=(0.3, 0.0), joint=False)
    assert [p["budget"] for p in doc["pairs"]] == [0.3, 0.0]
    assert [g["kind"] for g in doc["graphs"]] == ["forward", "backward"] * 2
    assert all("joint" not in p for p in doc["pairs"])


@pytest.mark.parametrize("budgets, message", [
    ((), "non-empty"), ((1.5,), "not a number in"), ((0.5, 0.5), "given twice"), ("0.5", "non-empty"),
    ((True,), "not a number in"),
])
def test_bad_budgets(tmp_path, budgets, message):
    model, inputs = small("mlp")
    with pytest.raises(ValueError, match=message):
        fxmem_export.sweep(model, inputs, tmp_path / "x.json", budgets=budgets)
    assert not (tmp_path / "x.json").exists()


def test_no_gradient_is_an_error(tmp_path):
    model, inputs = small("mlp")
    model.requires_grad_(False)
    with pytest.raises(ValueError, match="no joint graph"):
        fxmem_export.sweep(model, inputs, tmp_path / "x.json")


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_cli_budgets_rows_are_pytorchs_numbers(tmp_path, cli, name):
    """fxmem-cli budgets: each row's pair peak is PyTorch's build_memory_profile on that budget's
    pair (forward outputs carried into the backward), its extra FLOPs the FlopCounterMode
    difference to the budget-1.0 pair, and the Pareto/lowest marks follow from those numbers."""
    from conftest import run_cli
    from fxmem_export.reference import intended_peak_memory
    from fxmem_export.sweep import write_sweep

    model, inputs = small(name)
    sw = partition_sweep(model, inputs, BUDGETS)
    path = tmp_path / "sweep.fxmem.json"
    write_sweep(path, sw)
    graphs = {n: gm for n, _, gm in sw.graphs}
    rows = run_cli(cli, "budgets", str(path), "--json")["rows"]
    assert [r["budget"] for r in rows] == list(BUDGETS)
    flops = {b: flops_by_running(graphs[f"budget={b!r}.forward"]) + flops_by_running(graphs[f"budget={b!r}.backward"])
             for b in BUDGETS}
    for r in rows:
        b = r["budget"]
        fw, bw = graphs[f"budget={b!r}.forward"], graphs[f"budget={b!r}.backward"]
        assert r["peak"] == intended_peak_memory(fw.graph, bw.graph)["peak"], b
        assert r["extra_flops"] == flops[b] - flops[1.0], b
        assert (r["forward"], r["backward"]) == (f"budget={b!r}.forward", f"budget={b!r}.backward")
    points = [(r["peak"], r["extra_flops"]) for r in rows]
    for r, (p, f) in zip(rows, points):
        dominated = any(q <= p and g <= f and (q, g) != (p, f) for q, g in points)
        assert r["pareto"] == (not dominated), r
    # one row is marked lowest: the lowest peak, at the fewest extra FLOPs among those
    lowest = [r for r in rows if r["lowest"]]
    assert len(lowest) == 1 and (lowest[0]["peak"], lowest[0]["extra_flops"]) == min(points)
    assert len({p for p, _ in points}) >= 2  # the budgets make different pairs here
