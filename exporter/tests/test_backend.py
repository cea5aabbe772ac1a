"""The torch.compile backend: regions, lazy backward, inference graphs, errors."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn as nn

import fxmem_export


class TwoRegions(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(16, 32)
        self.b = nn.Linear(32, 8)

    def forward(self, x):
        h = torch.relu(self.a(x))
        torch._dynamo.graph_break()
        return self.b(h).tanh()


@pytest.fixture(autouse=True)
def _reset_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def names(path):
    doc = json.loads(path.read_text())
    return [(g["name"], g["kind"]) for g in doc["graphs"]], doc.get("pairs", [])


def test_regions_and_lazy_backward(tmp_path):
    path = tmp_path / "m.fxmem.json"
    be = fxmem_export.backend(path, inner="eager", reference=True)
    with torch.device("meta"):
        model = TwoRegions()
        x = torch.randn(4, 16)
    out = torch.compile(model, backend=be)(x)
    graphs, pairs = names(path)
    assert graphs == [("region0.forward", "forward"), ("region1.forward", "forward")]
    assert pairs == []
    with pytest.raises(fxmem_export.BackwardNotCapturedError, match=r"region0, region1.*backward\(\)"):
        be.save()
    out.sum().backward()
    graphs, pairs = names(path)
    assert sorted(graphs) == sorted([
        ("region0.forward", "forward"), ("region0.backward", "backward"),
        ("region1.forward", "forward"), ("region1.backward", "backward")])
    assert pairs == [{"forward": "region0.forward", "backward": "region0.backward"},
                     {"forward": "region1.forward", "backward": "region1.backward"}]
    doc = be.save()
    assert doc == json.loads(path.read_text())
    assert [p["forward"] for p in doc["reference"]["pairs"]] == ["region0.forward", "region1.forward"]
    assert set(doc["reference"]["graphs"]) == {g for g, _ in graphs}
    assert doc["producer"]["inner"] == "eager"
    # storages of region0's forward appear in region0's backward (saved activations)
    ids = {g["name"]: {t["storage"] for n in g["nodes"] for t in ([n["val"]] if isinstance(n["val"], dict) and "storage" in n["val"] else [])} for g in doc["graphs"]}
    assert ids["region0.forward"] & ids["region0.backward"]


def test_inference_region(tmp_path):
    path = tmp_path / "inf.json"
    be = fxmem_export.backend(path, inner="eager")
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(16, 16), nn.ReLU())
        x = torch.randn(4, 16)
    with torch.no_grad():
        torch.compile(model, backend=be)(x)
    graphs, pairs = names(path)
    assert graphs == [("region0.inference", "inference")] and pairs == []
    be.save()  # complete: an inference region needs no backward


def test_nothing_captured(tmp_path):
    be = fxmem_export.backend(tmp_path / "x.json", inner="eager")
    with pytest.raises(fxmem_export.NothingCapturedError, match="call the model"):
        be.save()
    assert not (tmp_path / "x.json").exists()


def test_unwritable_backend_path(tmp_path):
    with pytest.raises(fxmem_export.ExportWriteError, match="does not exist"):
        fxmem_export.backend(tmp_path / "missing" / "x.json")


def test_bad_inner():
    with pytest.raises(ValueError, match="inner"):
        fxmem_export.backend(None, inner="tvm")


def test_callable_inner_and_real_cpu_tensors(tmp_path):
    calls = []

    def my_compiler(gm, example_inputs):
        calls.append(len(gm.graph.nodes))
        from functorch.compile import make_boxed_func
        return make_boxed_func(gm.forward)

    be = fxmem_export.backend(tmp_path / "c.json", inner=my_compiler)
    model = nn.Linear(8, 4)
    x = torch.randn(2, 8)
    y = torch.compile(model, backend=be)(x)
    torch.testing.assert_close(y, model(x))
    y.sum().backward()
    assert len(calls) == 2
    doc = be.save()
    assert {s["device"] for s in doc["storages"]} == {"cpu"}
    assert doc["pairs"] == [{"forward": "region0.forward", "backward": "region0.backward"}]


def test_inductor_inner(tmp_path):
    """Inductor on CPU (needs a C++ compiler): graphs are captured before post-grad passes."""
    path = tmp_path / "ind.json"
    be = fxmem_export.backend(path, inner="inductor", reference=True)
    # bias-free linears: only extern mm kernels, so Inductor does not need to run the C++ compiler
    model = nn.Sequential(nn.Linear(8, 16, bias=False), nn.Linear(16, 4, bias=False))
    x = torch.randn(3, 8)
    with torch._inductor.config.patch(compile_threads=1):
        y = torch.compile(model, backend=be)(x)
        torch.testing.assert_close(y, model(x))
        y.sum().backward()
    doc = be.save()
    assert [g["name"] for g in doc["graphs"]] == ["region0.forward", "region0.backward"]
    assert doc["producer"]["inner"] == "inductor"
    # every storage is on the CPU here, so nothing is counted
    assert max(doc["reference"]["graphs"]["region0.forward"]["profile"]) == 0
    # Inductor's AOTAutograd graphs carry the same descriptors and module stacks.
    roles = {s.get("label"): s.get("role") for s in doc["storages"]}
    params = [name for name, _ in model.named_parameters()]
    assert params == ["0.weight", "1.weight"]
    assert all(roles[p] == "parameter" and roles[f"grad of {p}"] == "gradient" for p in params)
    assert roles["args[0]"] == "input"  # Dynamo traces nn.Sequential through _call_impl(*args)
    modules = {n.get("module") for g in doc["graphs"] for n in g["nodes"]}
    assert modules == {"", "0", "1"} and modules <= dict(model.named_modules()).keys()
