"""Golden parity: fxmem-cli on the exported files against PyTorch's own memory_estimator
called on the very same GraphModules (torch/_inductor/fx_passes/memory_estimator.py)."""

from __future__ import annotations

import json
import random

import pytest

from torch._inductor.fx_passes import memory_estimator as me

from fxmem_export import examples
from fxmem_export.reference import intended_peak_memory, torch_profile, torch_tracker

from conftest import random_topological_order, run_cli

RANDOM_ORDERS = 20


@pytest.mark.parametrize("name", examples.NAMES)
@pytest.mark.parametrize("graph", ["forward", "backward"])
def test_profile_matches_build_memory_profile(exported, cli, name, graph):
    ex = exported[name]
    expected = [int(x) for x in me.build_memory_profile(ex.graph(graph), me._is_releasable)]
    assert ex.doc["reference"]["graphs"][graph]["profile"] == expected
    got = run_cli(cli, "profile", str(ex.path), "--graph", graph, "--json")
    assert got["graph"] == graph
    assert len(got["profile"]) == len(expected), f"{name}/{graph}: profile length"
    for step, (a, b) in enumerate(zip(got["profile"], expected)):
        assert a == b, f"{ex.path} graph {graph}: profile[{step}] fxmem-cli {a} != torch {b}"
    assert got["peak"] == max(expected)


@pytest.mark.parametrize("name", examples.NAMES)
def test_pair_peak_matches_get_peak_memory(exported, cli, name):
    ex = exported[name]
    fwd, bwd = ex.forward.graph, ex.backward.graph
    intended = intended_peak_memory(fwd, bwd)
    try:
        torch_peak = me.get_peak_memory(fwd, bwd)
        torch_error = None
    except Exception as e:  # noqa: BLE001
        torch_peak, torch_error = None, f"{type(e).__name__}: {e}"
    ref = ex.doc["reference"]["pairs"][0]
    assert (ref["peak"], ref["error"]) == (torch_peak, torch_error)
    assert ref["intended"] == intended
    if torch_error is not None:
        # torch 2.13: get_fwd_bwd_interactions indexes a Node ("...)[-1]"); we compare with the
        # documented intent (the forward output node is the last node).
        assert torch_error == "TypeError: 'Node' object is not subscriptable"
    else:  # a fixed PyTorch: its own result must then equal the intent
        assert torch_peak == intended["peak"]
    # The forward part of get_peak_memory runs before the failing line and is PyTorch's own.
    assert intended["forward_peak"] == max(me.build_memory_profile(fwd, me._is_releasable))
    got = run_cli(cli, "peak", str(ex.path), "--pair", "0", "--json")
    for key in ("forward_peak", "backward_baseline", "backward_peak", "peak"):
        assert got[key] == intended[key], f"{ex.path} pair 0: {key} fxmem-cli {got[key]} != {intended[key]}"
    default = run_cli(cli, "peak", str(ex.path), "--json")
    assert default == got


@pytest.mark.parametrize("name", examples.NAMES)
@pytest.mark.parametrize("graph", ["forward", "backward"])
def test_memory_tracker_random_orders(exported, cli, tmp_path, name, graph):
    ex = exported[name]
    g = ex.graph(graph)
    rng = random.Random(f"{name}/{graph}")
    orders = [list(g.nodes)] + [random_topological_order(g, rng) for _ in range(RANDOM_ORDERS)]
    distinct = {tuple(n.name for n in o) for o in orders}
    assert len(distinct) > RANDOM_ORDERS // 2, "random orders are not random"
    ref = ex.doc["reference"]["graphs"][graph]
    assert (ref["tracker_peak"], ref["tracker_current"]) == torch_tracker(g)
    for k, order in enumerate(orders):
        peak, current = torch_tracker(g, order)
        sched = tmp_path / f"s{k}.json"
        sched.write_text(json.dumps({"graph": graph, "order": [n.name for n in order]}))
        got = run_cli(cli, "score", str(ex.path), "--schedule", str(sched), "--graph", graph, "--standalone", "--json")
        where = f"{ex.path} graph {graph} order #{k} ({sched.name})"
        assert len(got["current"]) == len(current), f"{where}: length of current"
        for step, (a, b) in enumerate(zip(got["current"], current)):
            assert a == b, f"{where}: memory after step {step} ({order[step].name}) fxmem-cli {a} != torch {b}"
        assert got["peak"] == peak, f"{where}: peak fxmem-cli {got['peak']} != torch {peak}"
    # The original order's tracker peak is the profile's maximum.
    assert torch_tracker(g)[0] == max(torch_profile(g))


@pytest.mark.parametrize("case", ["missing", "repeated", "unknown", "before_input", "output_not_last"])
def test_cli_and_apply_schedule_reject_the_same_schedules(exported, cli, tmp_path, case):
    """fxmem-cli score (exit 1) and fxmem_export.apply_schedule (ScheduleError) agree on what is legal."""
    import copy
    import subprocess

    import fxmem_export

    ex = exported["mlp"]
    order = [n.name for n in ex.forward.graph.nodes]
    compute = next(i for i, n in enumerate(ex.forward.graph.nodes) if n.op == "call_function")
    if case == "missing":
        order.pop(compute)
    elif case == "repeated":
        order.insert(compute, order[compute])
    elif case == "unknown":
        order.insert(compute, "no_such_node")
    elif case == "before_input":
        node = list(ex.forward.graph.nodes)[compute]
        order.remove(node.name)
        order.insert(0, node.name)
    else:
        order = order[-1:] + order[:-1]
    sched = tmp_path / "bad.json"
    sched.write_text(json.dumps({"graph": "forward", "order": order}))
    proc = subprocess.run([str(cli), "score", str(ex.path), "--schedule", str(sched), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.strip()
    with pytest.raises(fxmem_export.ScheduleError):
        fxmem_export.apply_schedule(copy.deepcopy(ex.forward), sched)
