"""fxmem_export.testing.assert_peak: the pair peak of PyTorch's estimator on what torch.compile
partitions, compared with a limit; equal to the examples' capture and to fxmem-cli peak."""

from __future__ import annotations

import json
import subprocess

import pytest
import torch

import fxmem_export
from fxmem_export import examples
from fxmem_export.examples.models import MLP
from fxmem_export.reference import intended_peak_memory


def mlp() -> tuple[torch.nn.Module, tuple[torch.Tensor]]:
    with torch.device("meta"):
        return MLP(), (torch.randn(64, 256),)


def test_peak_is_pytorchs_and_the_limit_is_inclusive(cli, tmp_path) -> None:
    cap = examples.capture("mlp")  # the same model and inputs, through the examples' capture
    expected = intended_peak_memory(cap.forward.graph, cap.backward.graph)["peak"]
    path = tmp_path / "mlp.fxmem.json"
    peak = fxmem_export.testing.assert_peak(*mlp(), max_bytes=10 * 2**30, save_to=path)
    assert peak == expected > 0
    printed = json.loads(subprocess.run([str(cli), "peak", str(path), "--json"], capture_output=True, text=True,
                                        check=True).stdout)
    assert printed["peak"] == peak
    assert fxmem_export.testing.assert_peak(*mlp(), max_bytes=peak) == peak


def test_over_the_limit_says_by_how_much_and_where(cli) -> None:
    peak = fxmem_export.testing.assert_peak(*mlp(), max_bytes=2**62)
    with pytest.raises(AssertionError) as e:
        fxmem_export.testing.assert_peak(*mlp(), max_bytes=peak - 1000, target="cuda")
    message = str(e.value)
    assert f"({peak} bytes) exceeds max_bytes" in message
    assert "by 1000 B (1000 bytes" in message
    assert "pair region0.forward + region0.backward" in message and "target 'cuda'" in message


def test_cpu_tensors_are_counted() -> None:
    # On real CPU tensors PyTorch's filter counts nothing: the helper counts them instead, so a
    # limit cannot pass by accident. The same model on meta (CPU-target capture) gives the same bytes.
    torch.manual_seed(0)
    cpu_peak = fxmem_export.testing.peak_bytes(MLP(), (torch.randn(64, 256),), target="cpu")[0]
    meta_peak = fxmem_export.testing.peak_bytes(*mlp(), target="cpu")[0]
    assert cpu_peak == meta_peak > 0
