"""What program=True writes, without a real run: its options, the file's rules, the storages
its input buffers name, and a target it cannot generate code for said, not hidden."""

from __future__ import annotations

import warnings

import pytest
import torch

import fxmem_export
from fxmem_export._program import ProgramCaptureWarning
from fxmem_export.program_peak import profile

import real_run
from program_checks import program_errors
from test_capture_real import _model


def test_program_needs_the_partition_capture():
    with pytest.raises(ValueError, match="program=True needs inner='partition'"):
        fxmem_export.backend(None, inner="eager", program=True)


def test_mlp_program_follows_the_format_and_the_storages():
    doc = real_run.meta_program_doc(*_model("mlp", "meta"), target="cpu")
    assert program_errors(doc) == []
    storages = {s["id"]: s for s in doc["storages"]}
    forward = next(g for g in doc["graphs"] if g["kind"] == "forward")
    program = forward["program"]
    assert program["target"] == "cpu" and program["kernels"]
    placeholders = [n for n in forward["nodes"] if n["op"] == "placeholder"]
    inputs = [b for b in program["buffers"] if b.get("input")]
    # Every graph input is an input buffer of its storage's size, on the capture's device.
    assert [b["name"] for b in inputs] == [n["name"] for n in placeholders]
    for b, n in zip(inputs, placeholders):
        assert b["storage"] == n["val"]["storage"]
        assert b["nbytes"] == storages[b["storage"]]["nbytes"] and b["device"] == "meta"
    # The forward frees no input (the module and the caller hold them).
    freed = {i for k in program["kernels"] for i in k["free"]}
    assert not any(program["buffers"][i].get("input") for i in freed)
    assert profile(program)[0] == sum(storages[b["storage"]]["nbytes"] for b in inputs)


def test_cuda_code_generation_failing_is_said(monkeypatch):
    """A GPU Triton cannot generate code for (sm60: Inductor raises GPUTooOldForTriton): each
    graph's failure is said in a ProgramCaptureWarning and the file has no program level."""
    from fxmem_export import _gpu

    monkeypatch.setitem(_gpu.GPUS, "p100", _gpu.GpuModel("Tesla P100-SXM2-16GB", 6, 0, total_memory=16 * 2**30,
                                                         multi_processor_count=56))
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        doc = real_run.meta_program_doc(*_model("mlp", "meta"), target="cuda", gpu="p100")
    messages = [str(w.message) for w in said if issubclass(w.category, ProgramCaptureWarning)]
    assert sum("target 'cuda' failed (InductorError: GPUTooOldForTriton" in m for m in messages) == 2
    assert not any("program" in g for g in doc["graphs"])
