"""inner="partition": what Inductor partitions, captured on meta, and the joint graph it cuts
(phases, FLOPs, node names), each checked against PyTorch itself: a real CPU torch.compile run
(real_run.py) for the graphs, classify_nodes and FlopCounterMode for phases and FLOPs."""

from __future__ import annotations

import copy
import json

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch._functorch.partitioners import classify_nodes
from torch.utils.flop_counter import FlopCounterMode

import fxmem_export
import real_run
from fxmem_export._joint import copy_graph_module


class SmallMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(32, 64), nn.Linear(64, 64), nn.Linear(64, 8)

    def forward(self, x):
        return self.fc3(F.gelu(self.fc2(torch.relu(self.fc1(x)))))


class SmallCNN(nn.Module):
    """Conv + BatchNorm in training mode: the running statistics are mutated buffers."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = F.relu(self.bn2(self.conv2(y)) + y)
        return self.fc(F.adaptive_avg_pool2d(y, 1).flatten(1))


def small(name: str, device: str = "meta"):
    with torch.device(device):
        torch.manual_seed(0)
        if name == "mlp":
            return SmallMLP(), (torch.randn(16, 32),)
        return SmallCNN(), (torch.randn(4, 3, 16, 16),)


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def run_step(compiled, inputs):
    out = compiled(*inputs)
    out.float().sum().backward()


def capture(name: str, tmp_path, **kw):
    model, inputs = small(name)
    path = tmp_path / f"{name}.fxmem.json"
    be = fxmem_export.backend(path, inner="partition", **kw)
    run_step(torch.compile(model, backend=be, fullgraph=True), inputs)
    return be, be.save(), model, inputs


def real_cpu_partition(name: str):
    """What a real CPU ``torch.compile`` training step of the same model (built on the CPU)
    partitions: (forward, backward, the joint graph min-cut cut, its num_fwd_outputs), taken
    inside ``min_cut_rematerialization_partition`` as ``compile_fx.partition_fn`` calls it (after
    Inductor's decompositions and joint-graph passes)."""
    import torch._inductor.compile_fx as cfx

    seen = {}
    min_cut = cfx.min_cut_rematerialization_partition

    def spy(gm, joint_inputs, **kwargs):
        out = min_cut(gm, joint_inputs, **kwargs)
        seen["joint"], seen["num_fwd_outputs"] = copy_graph_module(gm), kwargs["num_fwd_outputs"]
        return out

    cfx.min_cut_rematerialization_partition = spy  # real_cpu_pair calls it, then stops the compile
    try:
        pair = real_run.real_cpu_pair(*small(name, "cpu"))
    finally:
        cfx.min_cut_rematerialization_partition = min_cut
    return pair.forward, pair.backward, seen["joint"], seen["num_fwd_outputs"]


def signature(graph):
    return [(n.name, n.op, str(n.target), [i.name for i in n.all_input_nodes]) for n in graph.nodes]


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_partition_inner_is_torch_min_cut(tmp_path, name):
    be, doc, _, _ = capture(name, tmp_path)
    graphs = {n: gm for n, _, gm in be.graphs()}
    # These models have no attention: a real CPU run compiles, node for node, what meta captures.
    fw, bw, _, _ = real_cpu_partition(name)
    assert signature(graphs["region0.forward"].graph) == signature(fw.graph)
    assert signature(graphs["region0.backward"].graph) == signature(bw.graph)
    assert [(g["name"], g["kind"]) for g in doc["graphs"]] == [
        ("region0.forward", "forward"), ("region0.backward", "backward"), ("region0.joint", "joint")]
    assert doc["pairs"] == [{"forward": "region0.forward", "backward": "region0.backward", "joint": "region0.joint"}]
    assert doc["producer"]["inner"] == "partition"


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_joint_phases_and_names(tmp_path, name):
    be, doc, model, _ = capture(name, tmp_path)
    graphs = {n: gm for n, _, gm in be.graphs()}
    joint = graphs["region0.joint"]
    fj = next(g for g in doc["graphs"] if g["name"] == "region0.joint")
    nfo = fj["num_fwd_outputs"]
    # the joint graph is the one a real run hands to min-cut, cut the same way
    _, _, real_joint, real_nfo = real_cpu_partition(name)
    assert signature(joint.graph) == signature(real_joint.graph)
    # the forward's outputs: the loss input alone. Inductor keeps input mutations in the graph:
    # the new values of the two BatchNorms' three buffers (running mean, running var,
    # num_batches_tracked) are copy_ nodes into the buffers, in the forward phase.
    assert nfo == real_nfo == 1
    copies = [n for n in joint.graph.nodes if n.target is torch.ops.aten.copy_.default]
    assert all(c.args[0].op == "placeholder" for c in copies)
    written = sorted(((tuple(c.args[0].meta["val"].shape), c.args[0].meta["val"].dtype) for c in copies), key=str)
    assert written == sorted(((tuple(b.shape), b.dtype) for b in model.buffers()), key=str)
    assert len(copies) == (0 if name == "mlp" else 2 * 3)
    phase = {n["name"]: n["phase"] for n in fj["nodes"]}
    assert all(phase[c.name] == "forward" for c in copies)
    info = classify_nodes(joint, [], nfo)
    expected = {n.name for n in joint.graph.nodes if info.is_required_fw(n)}
    assert {n["name"] for n in fj["nodes"] if n["phase"] == "forward"} == expected
    assert {n["phase"] for n in fj["nodes"]} == {"forward", "backward"}
    assert len(fj["nodes"]) == len(joint.graph.nodes)
    # the partitioned graphs keep the joint's node names (a saved value is a backward placeholder
    # named like the joint node it holds)
    joint_names = {n.name for n in joint.graph.nodes}
    for g in ("region0.forward", "region0.backward"):
        assert {n.name for n in graphs[g].graph.nodes} <= joint_names
    # storages are shared: a joint node and its partitioned copy name the same storage
    nodes = {(g["name"], n["name"]): n for g in doc["graphs"] for n in g["nodes"]}
    for n in graphs["region0.forward"].graph.nodes:
        if n.op == "call_function" and isinstance(n.meta.get("val"), torch.Tensor):
            assert nodes[("region0.forward", n.name)]["val"] == nodes[("region0.joint", n.name)]["val"]


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_flops_equal_flop_counter_mode(tmp_path, name):
    _, doc, _, _ = capture(name, tmp_path)
    model, inputs = small(name)  # the same model, run eagerly on meta under FlopCounterMode
    with FlopCounterMode(display=False) as fwd_mode:
        out = model(*inputs)
    with FlopCounterMode(display=False) as bwd_mode:
        out.float().sum().backward()
    total = {g["name"]: sum(n.get("flops", 0) for n in g["nodes"]) for g in doc["graphs"]}
    assert total["region0.forward"] == fwd_mode.get_total_flops() > 0
    assert total["region0.backward"] == bwd_mode.get_total_flops() > 0
    assert total["region0.joint"] == total["region0.forward"] + total["region0.backward"]
    for g in doc["graphs"]:
        for n in g["nodes"]:
            assert ("flops" in n) == (n["op"] == "call_function"), (g["name"], n["name"])


def test_joint_flag(tmp_path):
    _, doc, _, _ = capture("mlp", tmp_path, joint=False)
    assert [g["kind"] for g in doc["graphs"]] == ["forward", "backward"]
    assert doc["pairs"] == [{"forward": "region0.forward", "backward": "region0.backward"}]
    with pytest.raises(ValueError, match="joint=True needs inner='partition'"):
        fxmem_export.backend(tmp_path / "x.json", inner="eager", joint=True)
    with pytest.raises(ValueError, match="'partition'"):
        fxmem_export.backend(tmp_path / "x.json", inner="partitions")


def test_save_with_joint(tmp_path):
    be, doc, _, _ = capture("cnn", tmp_path)
    graphs = {n: gm for n, _, gm in be.graphs()}
    fw, bw, joint = graphs["region0.forward"], graphs["region0.backward"], graphs["region0.joint"]
    saved = fxmem_export.save(tmp_path / "s.json", fw, bw, joint=joint)  # num_fwd_outputs the backend recorded
    assert saved["pairs"] == [{"forward": "forward", "backward": "backward", "joint": "joint"}]
    by_name = {g["name"]: g for g in saved["graphs"]}
    assert by_name["joint"]["nodes"] == next(g for g in doc["graphs"] if g["name"] == "region0.joint")["nodes"]
    # what the backend recorded: the loss alone (BatchNorm's buffers are updated by copy_ in the graph)
    assert by_name["joint"]["num_fwd_outputs"] == joint.meta["fxmem_num_fwd_outputs"] == 1
    bare = torch.fx.GraphModule(joint, copy.deepcopy(joint.graph))  # a joint the backend did not capture
    with pytest.raises(ValueError, match="pass num_fwd_outputs"):
        fxmem_export.save(tmp_path / "x.json", fw, bw, joint=bare)
    with pytest.raises(ValueError, match="num_fwd_outputs must be an integer"):
        fxmem_export.save(tmp_path / "x.json", fw, bw, joint=bare, num_fwd_outputs=-1)
    with pytest.raises(TypeError, match="joint must be a torch.fx.GraphModule"):
        fxmem_export.save(tmp_path / "x.json", fw, bw, joint=joint.graph)
    with pytest.raises(ValueError, match="inference=True"):
        fxmem_export.save(tmp_path / "x.json", fw, inference=True, joint=joint)
    assert not (tmp_path / "x.json").exists()
    fxmem_export.save(tmp_path / "y.json", fw, bw, joint=bare, num_fwd_outputs=1)
    assert json.loads((tmp_path / "y.json").read_text())["graphs"][2]["nodes"] == by_name["joint"]["nodes"]
    # the value given is the one written: another count gives other phases
    other = fxmem_export.save(tmp_path / "z.json", fw, bw, joint=bare, num_fwd_outputs=0)
    assert other["graphs"][2]["num_fwd_outputs"] == 0 and other["graphs"][2]["nodes"] != by_name["joint"]["nodes"]


class TwoRegions(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(16, 32), nn.Linear(32, 8)

    def forward(self, x):
        h = torch.relu(self.a(x))
        torch._dynamo.graph_break()
        return self.b(h).tanh()


def test_each_region_has_its_joint(tmp_path, cli):
    with torch.device("meta"):
        model, x = TwoRegions(), torch.randn(4, 16)
    be = fxmem_export.backend(tmp_path / "r.json", inner="partition")
    out = torch.compile(model, backend=be)(x)
    doc = json.loads((tmp_path / "r.json").read_text())
    # after the forward: both joints (partitioned at the forward compile) and both forwards
    assert sorted(g["name"] for g in doc["graphs"]) == [
        "region0.forward", "region0.joint", "region1.forward", "region1.joint"]
    assert "pairs" not in doc
    out.sum().backward()
    doc = be.save()
    assert doc["pairs"] == [
        {"forward": f"region{i}.forward", "backward": f"region{i}.backward", "joint": f"region{i}.joint"} for i in (0, 1)]
    graphs = {n: gm for n, _, gm in be.graphs()}
    for i in (0, 1):
        joint = {n.name for n in graphs[f"region{i}.joint"].graph.nodes}
        for kind in ("forward", "backward"):
            assert {n.name for n in graphs[f"region{i}.{kind}"].graph.nodes} <= joint
    # fxmem-cli reads the joint graphs, and scores each pair as PyTorch does
    from conftest import run_cli
    from fxmem_export.reference import intended_peak_memory

    info = run_cli(cli, "info", str(tmp_path / "r.json"), "--json")
    assert sorted((g["name"], g["kind"]) for g in info["graphs"]) == sorted(
        (n, n.split(".")[1]) for n in graphs)
    for i in (0, 1):
        got = run_cli(cli, "peak", str(tmp_path / "r.json"), "--pair", str(i), "--json")
        assert got == intended_peak_memory(graphs[f"region{i}.forward"].graph, graphs[f"region{i}.backward"].graph)
