"""overlap=True: Inductor's schedule_overlap_bucketing order stored as the "inductor-overlap"
schedule, checked against PyTorch's MemoryTracker and fxmem-cli on the fsdp example."""

from __future__ import annotations

import importlib.util
import json
import warnings

import pytest
import torch
import torch.distributed as dist

import fxmem_export
from fxmem_export import examples, overlap
from fxmem_export._backend import snapshot
from fxmem_export.examples import fsdp
from fxmem_export.reference import torch_tracker
from fxmem_export.schedule import check_schedule

from conftest import run_cli

GRAPHS = ["forward", "backward"]


def schedule_of(doc, graph):
    found = [s for s in doc.get("schedules", []) if s["graph"] == graph]
    assert [s["name"] for s in found] == ["inductor-overlap"], doc.get("schedules")
    return found[0]


def tracker_peak(graph, names):
    by = {n.name: n for n in graph.nodes}
    return torch_tracker(graph, [by[n] for n in names])[0]


@pytest.fixture(scope="module")
def fsdp_graphs():
    """The fsdp example captured again (the pass needs its process group while it runs)."""
    with fsdp.fake_process_group():
        cap = examples.capture("fsdp")
    return cap


@pytest.mark.parametrize("graph", GRAPHS)
def test_order_is_a_legal_permutation_of_the_graph(exported, graph):
    ex = exported["fsdp"]
    g = ex.graph(graph)
    sched = schedule_of(ex.doc, graph)
    names = [n.name for n in g.nodes]
    assert sorted(sched["order"]) == sorted(names) and len(set(sched["order"])) == len(names)
    check_schedule(g, sched["order"], graph)  # inputs before users, output last, in-place writes kept
    placeholders = [n.name for n in g.find_nodes(op="placeholder")]
    assert sched["order"][: len(placeholders)] == placeholders
    assert sched["order"] != names  # the pass moved collectives
    assert "schedule_overlap_bucketing" in sched["source"] and torch.__version__ in sched["source"]
    assert "collective_bucketing=False" in sched["source"]
    assert "pre_bucketing_fsdp_collectives=False" in sched["source"]
    assert "100 GB/s + 10 us" in sched["source"]


def test_only_graphs_with_collectives_get_a_schedule(exported):
    assert "schedules" not in exported["mlp"].doc  # exported with overlap=True, no wait_tensor
    assert [s["graph"] for s in exported["fsdp"].doc["schedules"]] == GRAPHS


@pytest.mark.parametrize("graph", GRAPHS)
def test_applied_order_scores_the_same_in_pytorch_and_fxmem(exported, cli, tmp_path, graph):
    ex = exported["fsdp"]
    sched = schedule_of(ex.doc, graph)
    gm = snapshot({"forward": ex.forward, "backward": ex.backward}[graph])  # shares the FakeTensors
    fxmem_export.apply_schedule(gm, {"graph": graph, "order": sched["order"]}, graph_name=graph)
    assert [n.name for n in gm.graph.nodes] == sched["order"]
    peak, current = torch_tracker(gm.graph)  # PyTorch's MemoryTracker on the reordered graph
    path = tmp_path / f"{graph}.sched.json"
    path.write_text(json.dumps({"graph": graph, "order": sched["order"]}))
    got = run_cli(cli, "score", str(ex.path), "--schedule", str(path), "--graph", graph, "--standalone", "--json")
    assert got["peak"] == peak
    assert got["current"] == current
    by_name = run_cli(cli, "score", str(ex.path), "--schedule", "inductor-overlap", "--graph", graph, "--standalone",
                     "--json")
    assert by_name["peak"] == peak
    assert by_name["current"] == current
    # The reference block carries the same PyTorch numbers for C++ tests that have no torch.
    ref = [r for r in ex.doc["reference"]["schedules"] if r["graph"] == graph]
    assert ref == [{"name": "inductor-overlap", "graph": graph, "tracker_peak": peak, "tracker_current": current}]


def test_cli_lists_the_schedules_with_pytorchs_peaks(exported, cli):
    ex = exported["fsdp"]
    listed = run_cli(cli, "schedules", str(ex.path), "--json")["schedules"]
    assert [(s["name"], s["graph"]) for s in listed] == [("inductor-overlap", g) for g in GRAPHS]
    for s in listed:
        g = ex.graph(s["graph"])
        stored = schedule_of(ex.doc, s["graph"])
        assert s["source"] == stored["source"]
        assert s["peak"] == tracker_peak(g, stored["order"])
        assert s["original_peak"] == tracker_peak(g, [n.name for n in g.nodes])


def test_overlap_order_effect_on_the_peak(exported):
    """The overlap order prefetches all-gathers: the backward peak grows, the forward's does not
    (its peak is at the end, where every saved activation is live). Figures: docs/exporter.md."""
    ex = exported["fsdp"]
    peaks = {}
    for graph in GRAPHS:
        g = ex.graph(graph)
        peaks[graph] = (tracker_peak(g, [n.name for n in g.nodes]), tracker_peak(g, schedule_of(ex.doc, graph)["order"]))
    assert peaks["forward"][1] == peaks["forward"][0]
    assert peaks["backward"][1] > peaks["backward"][0]


def test_the_pass_sees_the_original_storages(fsdp_graphs):
    """The copy the pass runs on shares the original's FakeTensors, so its MemoryTracker peak of
    the original order is the exported graph's."""
    gm = fsdp_graphs.backward
    copy = overlap._copy(gm)
    assert [n.name for n in copy.graph.nodes] == [n.name for n in gm.graph.nodes]
    assert torch_tracker(copy.graph)[0] == torch_tracker(gm.graph)[0]


def test_node_set_is_unchanged_and_the_original_graph_untouched(fsdp_graphs):
    gm = fsdp_graphs.backward
    before = [(n.name, n.op, n.target, tuple(i.name for i in n.all_input_nodes)) for n in gm.graph.nodes]
    with fsdp.fake_process_group():
        order = overlap.overlap_order(gm)
    assert [(n.name, n.op, n.target, tuple(i.name for i in n.all_input_nodes)) for n in gm.graph.nodes] == before
    assert sorted(order) == sorted(b[0] for b in before)


def test_a_changed_node_set_warns_and_stores_nothing(fsdp_graphs):
    """FSDP pre-bucketing merges the all-gathers, so the pass's graph has other nodes."""
    with fsdp.fake_process_group():
        with pytest.raises(overlap.NodeSetChanged, match=r"appeared.*disappeared"):
            overlap.overlap_order(fsdp_graphs.forward, options={"pre_bucketing_fsdp_collectives": True})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = overlap.overlap_schedules([("forward", fsdp_graphs.forward), ("backward", fsdp_graphs.backward)],
                                              options={"pre_bucketing_fsdp_collectives": True})
    assert found == []
    messages = [str(w.message) for w in caught]
    assert len(messages) == 2, messages
    for graph, message in zip(GRAPHS, messages):
        assert message.startswith(f"graph {graph!r}: no 'inductor-overlap' schedule stored: ")
        assert "appeared" in message and "disappeared" in message and "all_gather_into_tensor" in message


def test_custom_estimate_is_used(fsdp_graphs):
    gm = fsdp_graphs.backward
    seen = []

    def free_collectives(node, override_size):
        seen.append((node.name, override_size))
        return 0.0 if node.target is torch.ops._c10d_functional.all_gather_into_tensor.default else None

    with fsdp.fake_process_group():
        default = overlap.overlap_order(gm)
        custom = overlap.overlap_order(gm, estimate=free_collectives)
        none = overlap.overlap_order(gm, estimate=lambda node, size: None)
    starts = [n.name for n in gm.graph.find_nodes(op="call_function",
                                                  target=torch.ops._c10d_functional.all_gather_into_tensor.default)]
    assert starts and all((name, None) in seen for name in starts)
    assert custom != default  # nothing to hide: the all-gathers are no longer prefetched the same way
    assert none == default  # None falls back to the default estimate
    assert "free_collectives" in overlap.source_of(free_collectives, None)


def test_memory_limit_options_are_forwarded(fsdp_graphs):
    gm = fsdp_graphs.backward
    g = gm.graph
    original = tracker_peak(g, [n.name for n in g.nodes])
    with fsdp.fake_process_group():
        default = overlap.overlap_order(gm)
        capped = overlap.overlap_order(gm, options={"max_memory_increase_gb": 0.0, "max_memory_increase_ratio": 0.0})
    assert tracker_peak(g, default) > original
    assert tracker_peak(g, capped) == original
    assert "max_memory_increase_gb=0.0" in overlap.source_of(None, {"max_memory_increase_gb": 0.0})


def test_bad_options_and_no_process_group(tmp_path, fsdp_graphs):
    with pytest.raises(ValueError, match="has no option 'max_in_flight'"):
        overlap.pass_options({"max_in_flight": 1})
    with pytest.raises(ValueError, match="overlap_estimate"):
        overlap.pass_options({"custom_runtime_estimation": lambda n, s: 1.0})
    with pytest.raises(ValueError, match="has no option"):
        fxmem_export.backend(tmp_path / "x.json", overlap=True, overlap_options={"nope": 1})
    with pytest.raises(ValueError, match="has no option"):
        fxmem_export.save(tmp_path / "y.json", fsdp_graphs.forward, overlap=True, overlap_options={"nope": 1})
    assert not (tmp_path / "y.json").exists()
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="init_process_group"):
        overlap.overlap_order(fsdp_graphs.forward)


def test_an_option_that_needs_the_device_is_named(fsdp_graphs):
    from torch._inductor.fx_passes.fusion_regions import build_fusion_regions

    options = {"enable_fusion_regions": True}  # estimates fused regions from the GPU's bandwidth
    # The option measures only graphs with fusion regions: the min-cut forward has them (the
    # min-cut backward has none).
    gm = fsdp_graphs.forward
    assert build_fusion_regions(gm)
    with fsdp.fake_process_group():
        if importlib.util.find_spec("triton") is None or not torch.cuda.is_available():
            # Without Triton, or with Triton and no GPU for its driver (the test command's venv has
            # triton for program=True's cuda target): the option is named either way.
            with pytest.raises(RuntimeError, match=r"asked for Triton.*enable_fusion_regions"):
                overlap.overlap_order(gm, options=options)
        else:  # pragma: no cover - a machine with a GPU runs the option
            assert len(overlap.overlap_order(gm, options=options)) == len(gm.graph.nodes)


def test_no_memory_limit_at_all_is_explained(fsdp_graphs):
    options = {"max_memory_increase_gb": None, "max_memory_increase_ratio": None}
    with fsdp.fake_process_group():
        try:
            order = overlap.overlap_order(fsdp_graphs.backward, options=options)
        except RuntimeError as e:  # torch 2.13: the pass calls a MemoryTracker it did not make
            assert "without a memory limit" in str(e) and "max_memory_increase_gb" in str(e)
        else:  # pragma: no cover - a torch that fixed it
            assert sorted(order) == sorted(n.name for n in fsdp_graphs.backward.graph.nodes)
        unlimited = overlap.overlap_order(fsdp_graphs.backward, options={"max_memory_increase_gb": 1000.0})
    assert sorted(unlimited) == sorted(n.name for n in fsdp_graphs.backward.graph.nodes)


def test_runtime_estimate_by_hand(fsdp_graphs):
    """Rates 100 TFLOP/s, 1000 GB/s, collectives 100 GB/s + 10 us (the documented defaults)."""
    est = overlap.RuntimeEstimate()
    g = fsdp_graphs.forward.graph
    by = {n.name: n for n in g.nodes}
    # mm: (1024 x 256) @ (256 x 1024) = 2*1024*256*1024 FLOPs
    mm = by["mm"]
    assert [tuple(i.meta["val"].shape) for i in mm.all_input_nodes] == [(1024, 256), (256, 1024)]
    assert est(mm, None) == pytest.approx(2 * 1024 * 256 * 1024 / 100e12 * 1e3)
    # all-gather: 4 ranks x 131136 float32 = the full flat parameter of a block, 2098176 bytes
    ag = by["all_gather_into_tensor"]
    assert tuple(ag.meta["val"].shape) == (524544,)
    assert est(ag, None) == pytest.approx(10e-3 + 524544 * 4 / 100e9 * 1e3)
    assert est(ag, 0) == pytest.approx(10e-3)  # the pass asks with size 0 for the latency alone
    # erf (of gelu, as Inductor decomposes it): reads and writes 8*128*1024 float32
    gelu = next(n for n in g.nodes if n.target is torch.ops.aten.erf.default)
    assert est(gelu, None) == pytest.approx(2 * 8 * 128 * 1024 * 4 / 1000e9 * 1e3)
    # gelu's last mul (x * 0.5) * (1 + erf): reads two 8*128*1024 float32 tensors, writes one
    mul = next(n for n in g.nodes if n.target is torch.ops.aten.mul.Tensor and len(n.all_input_nodes) == 2
               and all(tuple(i.meta["val"].shape) == (8, 128, 1024) for i in n.all_input_nodes))
    assert est(mul, None) == pytest.approx(3 * 8 * 128 * 1024 * 4 / 1000e9 * 1e3)
    wait = next(n for n in g.nodes if n.target is torch.ops._c10d_functional.wait_tensor.default)
    view = next(n for n in g.nodes if n.target is torch.ops.aten.view.default)
    assert est(wait, None) == 0.0 and est(view, None) == 0.0 and est(by["primals_1"], None) == 0.0
    slow = overlap.RuntimeEstimate(compute_tflops=50, memory_gbps=500, collective_gbps=25, latency_us=0)
    assert slow(mm, None) == pytest.approx(2 * est(mm, None))
    assert slow(gelu, None) == pytest.approx(2 * est(gelu, None))
    assert slow(ag, None) == pytest.approx(524544 * 4 / 25e9 * 1e3)


def test_backend_records_the_overlap_schedule(tmp_path, fsdp_graphs):
    path = tmp_path / "fsdp.fxmem.json"
    with fsdp.fake_process_group():
        torch._dynamo.reset()
        model, inputs, _ = fsdp.build("meta")
        be = fxmem_export.backend(path, inner="partition", overlap=True)  # as the example, and a joint graph
        out = torch.compile(model, backend=be, fullgraph=True)(*inputs)
        doc = json.loads(path.read_text())
        assert [s["graph"] for s in doc["schedules"]] == ["region0.forward"]  # backward not compiled yet
        out.sum().backward()
        doc = be.save()
        expected = {name: overlap.overlap_order(gm) for name, kind, gm in be.graphs() if kind != "joint"}
        assert [kind for _, kind, _ in be.graphs()] == ["forward", "backward", "joint"]  # no schedule of the joint
        torch._dynamo.reset()
    assert json.loads(path.read_text()) == doc
    assert {s["graph"]: s["order"] for s in doc["schedules"]} == expected
    assert [s["name"] for s in doc["schedules"]] == ["inductor-overlap"] * 2
    # The same graphs as the example's, so the same order up to the graph's name.
    assert expected["region0.backward"] == overlap_order_of(fsdp_graphs.backward)


def overlap_order_of(gm):
    with fsdp.fake_process_group(), warnings.catch_warnings():
        return overlap.overlap_order(gm)
