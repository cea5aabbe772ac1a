"""Optimizer state in the file equals what torch's MemTracker measures after a real step under
FakeTensorMode, and the whole step carries it; fxmem beside MemTracker's eager peak."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.distributed._tools.mem_tracker import MemTracker, _MemRefType

import fxmem_export
from fxmem_export.examples import models
from fxmem_export._serialize import write_json_atomic

OPTIMIZERS = {
    "Adam": lambda ps: torch.optim.Adam(ps, lr=1e-3),
    "AdamW": lambda ps: torch.optim.AdamW(ps, lr=1e-3),
    "SGD-momentum": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
}
MODELS = ["mlp", "cnn", "gpt"]


# (model, optimizer) -> _memtracker's and _export's results: the whole-step test checks other
# things of the same Adam runs as test_optimizer_state_equals_memtracker, so they are made once.
_RUNS: dict[tuple[str, str, str], object] = {}


def _once(what: str, name: str, kind: str, run):
    if (what, name, kind) not in _RUNS:
        _RUNS[(what, name, kind)] = run()
    return _RUNS[(what, name, kind)]


def _memtracker(name: str, make) -> tuple[int, dict[str, int]]:
    """MemTracker's optimizer-state bytes after one real step (CPU, FakeTensorMode), and its
    peak by role."""
    with FakeTensorMode():
        model, inputs, _ = models.build(name, "cpu")
        opt = make(model.parameters())
        mt = MemTracker()
        mt.track_external(model, opt, *inputs)
        with mt:
            model(*inputs).float().sum().backward()
            opt.step()
        current = mt.get_tracker_snapshot("current")
        peak = mt.get_tracker_snapshot("peak")
    opt_bytes = sum(d.get(_MemRefType.OPT, 0) for d in current.values())
    peak_by_role = {str(k): sum(d.get(k, 0) for d in peak.values()) for k in _MemRefType}
    peak_by_role["Total"] = sum(d.get("Total", 0) for d in peak.values())
    return opt_bytes, peak_by_role


def _export(name: str, make, path: Path) -> tuple[torch.nn.Module, dict]:
    torch._dynamo.reset()
    torch.manual_seed(0)
    model, inputs, options = models.build(name, "meta")
    opt = make(model.parameters())
    be = fxmem_export.backend(None, inner="eager", optimizer=opt)
    torch.compile(model, backend=be, **options)(*inputs).float().sum().backward()
    doc = be.save(path)
    torch._dynamo.reset()
    return model, doc


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_optimizer_state_equals_memtracker(name: str, kind: str, tmp_path: Path) -> None:
    make = OPTIMIZERS[kind]
    expected, _ = _once("memtracker", name, kind, lambda: _memtracker(name, make))
    model, doc = _once("export", name, kind, lambda: _export(name, make, tmp_path / "m.fxmem.json"))
    state = [s for s in doc["storages"] if s.get("role") == "optimizer_state"]
    assert sum(s["nbytes"] for s in state) == expected
    # Labelled "<parameter> <state>", one per state tensor, with the parameter's size.
    by_label = {s["label"]: s for s in state}
    for pname, p in model.named_parameters():
        size = p.numel() * p.element_size()
        if kind == "SGD-momentum":
            assert by_label[f"{pname} momentum_buffer"]["nbytes"] == size
        else:
            assert by_label[f"{pname} exp_avg"]["nbytes"] == size
            assert by_label[f"{pname} exp_avg_sq"]["nbytes"] == size
            assert by_label[f"{pname} step"]["device"] == "cpu"  # a CPU scalar unless capturable/fused


def test_save_takes_the_optimizer_and_names_from_the_model(tmp_path: Path) -> None:
    from fxmem_export.examples import capture

    cap = capture("mlp")
    model, _, _ = models.build("mlp", "meta")
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    doc = fxmem_export.save(tmp_path / "s.fxmem.json", cap.forward, cap.backward, optimizer=opt, model=model)
    labels = sorted(s["label"] for s in doc["storages"] if s.get("role") == "optimizer_state")
    assert labels == sorted(f"{n} momentum_buffer" for n, _ in model.named_parameters())
    unnamed = fxmem_export.save(tmp_path / "u.fxmem.json", cap.forward, cap.backward, optimizer=opt)
    assert "param_groups[0][0] momentum_buffer" in {s.get("label") for s in unnamed["storages"]}


def test_whole_step_beside_memtracker(tmp_path: Path, cli: Path) -> None:
    """fxmem's whole step (compiled graphs) and MemTracker's eager step differ by design (eager
    keeps other activations, and MemTracker's peak is during the optimizer step); the roles both
    know agree: parameters and optimizer state to the byte."""
    for name in MODELS + ["multiout", "inplace", "llama"]:
        make = OPTIMIZERS["Adam"]
        opt_bytes, peak = _once("memtracker", name, "Adam", lambda: _memtracker(name, make))
        model, doc = _once("export", name, "Adam", lambda: _export(name, make, tmp_path / f"{name}.fxmem.json"))
        write_json_atomic(tmp_path / f"{name}.fxmem.json", doc)  # the file _export wrote, for the CLI
        r = subprocess.run([str(cli), "peak", str(tmp_path / f"{name}.fxmem.json"), "--whole-step", "--json"],
                           capture_output=True, text=True, check=True)
        ours = json.loads(r.stdout)
        params = sum(p.numel() * p.element_size() for p in model.parameters())
        buffers = sum(b.numel() * b.element_size() for b in model.buffers())
        print(f"{name}: fxmem whole-step peak {ours['peak']} B, MemTracker eager peak {peak['Total']} B; "
              f"parameters+buffers {ours['parameters']} = {params}+{buffers}; optimizer state "
              f"{ours['optimizer_state']} (MemTracker {opt_bytes})")
        assert ours["parameters"] == params + buffers
        # The file's CPU `step` scalars are not counted (device filter); MemTracker counts them.
        steps = 4 * sum(1 for _ in model.parameters())
        assert ours["optimizer_state"] == opt_bytes - steps
        assert peak[str(_MemRefType.PARAM)] == params


def test_a_compiled_optimizer_step_runs_last_and_holds_its_own_inputs(tmp_path: Path, cli: Path) -> None:
    """torch.compile(opt.step) with the same backend: its graph is the step's last entry; its
    inputs are named by what they are (parameters, their gradients, the optimizer's state), so
    the whole step counts each once (nothing of them is carried into it)."""
    torch._dynamo.reset()
    with torch.device("meta"):
        model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        x = torch.randn(4, 16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    be = fxmem_export.backend(None, inner="eager", optimizer=opt)
    compiled, step = torch.compile(model, backend=be), torch.compile(opt.step, backend=be)
    for _ in range(2):
        compiled(x).sum().backward()
        step()
        opt.zero_grad()
    path = tmp_path / "opt.fxmem.json"
    doc = be.save(path)
    torch._dynamo.reset()
    assert [e["graph"] for e in doc["step"]] == ["region0.forward", "region0.backward", "region1.inference"]
    by_id = {s["id"]: s for s in doc["storages"]}
    graph = next(g for g in doc["graphs"] if g["name"] == "region1.inference")
    inputs = {(by_id[n["val"]["storage"]].get("role"), by_id[n["val"]["storage"]].get("label"))
              for n in graph["nodes"] if n["op"] == "placeholder" and isinstance(n["val"], dict)}
    names = [n for n, _ in model.named_parameters()]
    assert {("parameter", n) for n in names} <= inputs
    assert {("gradient", f"grad of {n}") for n in names} <= inputs
    assert {("optimizer_state", f"{n} {k}") for n in names for k in ("step", "exp_avg", "exp_avg_sq")} <= inputs
    out = json.loads(subprocess.run([str(cli), "peak", str(path), "--whole-step", "--json"], capture_output=True,
                                    text=True, check=True).stdout)
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    assert out["parameters"] == params and out["optimizer_state"] == 2 * params  # exp_avg, exp_avg_sq (step: CPU)
    b = json.loads(subprocess.run([str(cli), "breakdown", str(path), "--whole-step", "--step",
                                   str(out["entries"][2]["begin"]), "--json"], capture_output=True, text=True,
                                  check=True).stdout)
    carry = {c["key"]: c["bytes"] for c in b["carry"]}
    assert carry["parameters and buffers (outside the graph)"] == 0
    assert carry["optimizer state"] == 0 and carry["parameter gradients (earlier backwards)"] == 0
    # Its start is parameters + gradients + state, all its own inputs.
    assert b["total"] - sum(carry.values()) == params + params + 2 * params
