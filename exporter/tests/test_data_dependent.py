"""Data-dependent routing (a mixture of experts with top-k and torch.where): captured, with its
data-dependent sizes said, and scored as PyTorch's estimator scores the captured graphs."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import fxmem_export
from fxmem_export._checks import DataDependentSizesWarning
from fxmem_export.reference import intended_peak_memory

from conftest import run_cli


class MoE(nn.Module):
    def __init__(self, d: int = 32, experts: int = 4) -> None:
        super().__init__()
        self.gate = nn.Linear(d, experts)
        self.experts = nn.ModuleList(nn.Linear(d, d) for _ in range(experts))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight, chosen = F.softmax(self.gate(x), -1).topk(2, dim=-1)
        out = torch.zeros_like(x)
        for i, expert in enumerate(self.experts):
            token, slot = torch.where(chosen == i)
            out = out.index_add(0, token, expert(x[token]) * weight[token, slot, None])
        return out


def _capture(device: str, path):
    torch._dynamo.reset()
    torch.manual_seed(0)
    with torch.device(device):
        model, x = MoE(), torch.randn(16, 32)
    be = fxmem_export.backend(path, target="cpu")
    with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True), \
            pytest.warns(DataDependentSizesWarning, match=r"u0=32"):
        torch.compile(model, backend=be, fullgraph=True)(x).sum().backward()
    graphs = {kind: gm for _, kind, gm in be.graphs()}
    torch._dynamo.reset()
    return be.save(), graphs


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_moe_routing_is_captured_and_scored_as_pytorch_does(tmp_path, cli, device):
    path = tmp_path / f"moe_{device}.fxmem.json"
    if device == "meta":  # nonzero on meta needs PyTorch's own opt-in: every element selected
        torch._dynamo.reset()
        with torch.device("meta"):
            model, x = MoE(), torch.randn(16, 32)
        with torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True), \
                pytest.raises(Exception, match="meta_nonzero_assume_all_nonzero"):
            torch.compile(model, backend=fxmem_export.backend(None, target="cpu"), fullgraph=True)(x)
        with torch.fx.experimental._config.patch(meta_nonzero_assume_all_nonzero=True):
            doc, graphs = _capture(device, path)
    else:
        doc, graphs = _capture(device, path)
    assert any(n["target"] == "aten._assert_scalar.default" for g in doc["graphs"] for n in g["nodes"])
    expected = intended_peak_memory(graphs["forward"].graph, graphs["backward"].graph, count_cpu=True)
    got = run_cli(cli, "peak", str(path), "--devices", "all", "--json")
    assert got["peak"] == expected["peak"] > 0
