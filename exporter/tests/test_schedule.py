"""apply_schedule: reorders, lints, runs with equal results; rejects what does not fit."""

from __future__ import annotations

import copy
import json
import random
import re

import pytest
import torch
import torch.fx as fx

import fxmem_export
from fxmem_export import examples
from fxmem_export.reference import torch_tracker

from conftest import meta_vals_to_real, random_topological_order


@pytest.fixture(scope="module")
def cpu_cnn():
    """The cnn example captured on the CPU with real tensors, so its graphs can run."""
    return examples.capture("cnn", device="cpu")


def real_inputs(pair, which):
    """Real CPU inputs for the pair's ``which`` graph: random ones for the forward; for the
    backward, the values the forward really computes (its saved values: Inductor's backward
    takes indices as max-pool window offsets and masks as bools, which random data would not
    fit) and random tangents."""
    args = meta_vals_to_real(pair.forward)
    if which == "forward":
        return args
    outs = copy.deepcopy(pair.forward)(*[a.clone() for a in args])
    (returned,) = pair.forward.graph.find_nodes(op="output")[0].args
    by_name = {n.name: v for n, v in zip(returned, outs) if isinstance(n, fx.Node)}
    g = torch.Generator().manual_seed(1)
    out = []
    for node in pair.backward.graph.find_nodes(op="placeholder"):
        if node.name in by_name:
            out.append(by_name[node.name])
        else:
            assert node.name.startswith("tangents"), node.name
            val = node.meta["val"]
            out.append(torch.randn(tuple(val.shape), generator=g, dtype=val.dtype))
    return out


def write(tmp_path, graph, order, name="s.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"graph": graph, "order": order}))
    return path


@pytest.mark.parametrize("which", ["forward", "backward"])
def test_reorders_lints_runs_and_agrees(tmp_path, cpu_cnn, which):
    gm = getattr(cpu_cnn, which)
    original = copy.deepcopy(gm)
    args = real_inputs(cpu_cnn, which)
    expected = original(*[a.clone() for a in args])
    rng = random.Random(7)
    order = [n.name for n in random_topological_order(gm.graph, rng)]
    assert order != [n.name for n in gm.graph.nodes]
    result = fxmem_export.apply_schedule(gm, write(tmp_path, which, order), graph_name=which)
    assert result is gm
    result.graph.lint()
    placeholder_names = {p.name for p in original.graph.find_nodes(op="placeholder")}
    non_placeholders = [n.name for n in result.graph.nodes if n.op != "placeholder"]
    assert non_placeholders == [n for n in order if n not in placeholder_names]
    # placeholders keep their order, so the call signature is unchanged
    assert [n.name for n in result.graph.find_nodes(op="placeholder")] == \
        [n.name for n in original.graph.find_nodes(op="placeholder")]
    got = result(*[a.clone() for a in args])
    assert len(got) == len(expected)
    for a, b in zip(got, expected):
        torch.testing.assert_close(a, b)
    # the code was regenerated in the new order (each node's assignment at the start of a line:
    # "squeeze = " is also the end of "unsqueeze = ", "mean = " of "var_mean = ")
    code = result.code
    found = [re.search(rf"^ *{re.escape(n)} = ", code, re.M) for n in non_placeholders if n != "output"]
    positions = [m.start() for m in found if m is not None]
    assert len(positions) == len(non_placeholders) - 1  # every node but the output assigns a name
    assert positions == sorted(positions)


def test_schedule_changes_memory_tracker_peak(exported, tmp_path):
    """A schedule found elsewhere (here: the lowest of some random orders) is what the tracker then sees."""
    gm = copy.deepcopy(exported["gpt"].backward)
    g = gm.graph
    rng = random.Random(1)
    best = min((random_topological_order(g, rng) for _ in range(10)), key=lambda o: torch_tracker(g, o)[0])
    best_peak = torch_tracker(g, best)[0]
    names = [n.name for n in best]
    inputs = {n.name for n in g.find_nodes(op="placeholder")}
    fxmem_export.apply_schedule(gm, write(tmp_path, "backward", names))
    assert [n.name for n in gm.graph.nodes if n.op != "placeholder"] == [n for n in names if n not in inputs]
    assert torch_tracker(gm.graph)[0] == best_peak


def linear_graph():
    gm = fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)))
    return gm, [n.name for n in gm.graph.nodes]


def test_accepts_a_dict_and_the_original_order():
    gm, names = linear_graph()
    fxmem_export.apply_schedule(gm, {"graph": "g", "order": names})
    assert [n.name for n in gm.graph.nodes] == names


@pytest.mark.parametrize("mutate, message", [
    (lambda o: o[:-2] + o[-1:], r"missing 1 node\(s\): '_2'"),
    (lambda o: o[:-1] + ["ghost", "output"], r"1 name\(s\) not in the graph: 'ghost'"),
    (lambda o: o[:2] + [o[1]] + o[2:], r"repeated name\(s\): '_0'"),
    (lambda o: [o[0], o[2], o[1]] + o[3:], r"puts node '_1' .* before its input\(s\) '_0'"),
    (lambda o: o[-1:] + o[:-1], r"output node 'output' must be last"),
])
def test_rejects_orders_that_do_not_fit(tmp_path, mutate, message):
    gm, names = linear_graph()
    before = gm.code
    with pytest.raises(fxmem_export.ScheduleError, match=message):
        fxmem_export.apply_schedule(gm, write(tmp_path, "g", mutate(names)))
    assert gm.code == before, "a rejected schedule must leave the graph alone"


def test_rejects_schedule_of_another_graph(tmp_path, exported):
    ex = exported["mlp"]
    order = [n.name for n in ex.backward.graph.nodes]
    gm = copy.deepcopy(ex.forward)
    with pytest.raises(fxmem_export.ScheduleError, match=r"for graph 'backward', not 'forward'"):
        fxmem_export.apply_schedule(gm, write(tmp_path, "backward", order), graph_name="forward")
    with pytest.raises(fxmem_export.ScheduleError, match=r"exactly once \(the schedule is for graph 'backward'\).*missing"):
        fxmem_export.apply_schedule(gm, write(tmp_path, "backward", order))


def test_rejects_unreadable_schedules(tmp_path):
    gm, _ = linear_graph()
    with pytest.raises(fxmem_export.ScheduleError, match="cannot read schedule"):
        fxmem_export.apply_schedule(gm, tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(fxmem_export.ScheduleError, match="not valid JSON"):
        fxmem_export.apply_schedule(gm, bad)
    bad.write_text(json.dumps({"graph": "g", "order": "x"}))
    with pytest.raises(fxmem_export.ScheduleError, match="list of node names"):
        fxmem_export.apply_schedule(gm, bad)
    bad.write_text("[1, 2]")
    with pytest.raises(fxmem_export.ScheduleError, match="JSON object"):
        fxmem_export.apply_schedule(gm, bad)
    with pytest.raises(TypeError, match="GraphModule"):
        fxmem_export.apply_schedule(gm.graph, bad)


@pytest.mark.parametrize("content, message", [
    # invalid UTF-8 inside a node name (a Latin-1 byte), and at the very start
    (b'{"graph": "g", "order": ["caf\xe9"]}', r"is not valid UTF-8 \(byte 29: invalid continuation"),
    (b'\xff\xfe{}', r"is not valid UTF-8 \(byte 0"),
    (b'{"graph": "g", "order": []' + b" " * 20_000 + b'}\x80', r"is not valid UTF-8 \(byte 20027"),
    # nested deeper than Python's recursion limit, in a value and at the top
    (b'{"graph": "g", "order": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    (b"[" * 100_000, "nested too deeply"),
])
def test_rejects_bad_encoding_and_deep_nesting(tmp_path, content, message):
    """A schedule file that is not valid UTF-8 or is nested too deeply: the package's own error naming
    the file, the graph left alone."""
    gm, names = linear_graph()
    before = gm.code
    bad = tmp_path / "hostile.json"
    bad.write_bytes(content)
    with pytest.raises(fxmem_export.ScheduleError, match=message) as info:
        fxmem_export.apply_schedule(gm, bad)
    assert str(bad) in str(info.value)
    assert gm.code == before and [n.name for n in gm.graph.nodes] == names


def test_keeps_in_place_writes_ordered(tmp_path):
    g = fx.Graph()
    x = g.placeholder("x")
    read = g.create_node("call_function", torch.ops.aten.mul.Tensor, (x, x), name="mul")
    write_ = g.create_node("call_function", torch.ops.aten.add_.Tensor, (x, read), name="add_")
    later = g.create_node("call_function", torch.ops.aten.neg.default, (x,), name="neg")
    g.output((write_, later))
    gm = fx.GraphModule(torch.nn.Module(), g)
    ok = [n.name for n in g.nodes]
    fxmem_export.apply_schedule(gm, write(tmp_path, "g", ok))
    moved = ["x", "mul", "neg", "add_", "output"]  # neg would read x before the in-place add_
    with pytest.raises(fxmem_export.ScheduleError, match=r"'add_' writes to 'x' in place.*'neg'"):
        fxmem_export.apply_schedule(gm, write(tmp_path, "g", moved))
