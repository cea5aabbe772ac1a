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

OPTIMIZERS = {
    "Adam": lambda ps: torch.optim.Adam(ps, lr=1e-3),
    "AdamW": lambda ps: torch.optim.AdamW(ps, lr=1e-3),
    "SGD-momentum": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
}
MODELS = ["mlp", "cnn", "gpt"]


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
    expected, _ = _memtracker(name, make)
    model, doc = _export(name, make, tmp_path / "m.fxmem.json")
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
    for name in MODELS:
        make = OPTIMIZERS["Adam"]
        opt_bytes, peak = _memtracker(name, make)
        model, _ = _export(name, make, tmp_path / f"{name}.fxmem.json")
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
