"""Losses on ``meta`` keep their backward (_meta_autograd.py), and a capture that loses a
gradient a real run computes fails naming the parameters (_gradients.py).

The ground truth is a real CPU ``torch.compile`` training step (real_run.real_cpu_pair)."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import fxmem_export
from fxmem_export import _meta_autograd
from fxmem_export.errors import LostGradientError

import real_run


class Losses(nn.Module):
    """The losses people use: cross-entropy with ignored labels, nll_loss with class weights,
    torch.where with a scalar branch (T5's masks), and var_mean (a normalisation)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 10)
        self.bias = nn.Parameter(torch.zeros(10))
        self.register_buffer("weight", torch.linspace(0.5, 1.5, 10))

    def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        y = torch.where(y > 0, y, 0.25) + self.bias
        var, mean = torch.var_mean(y, dim=-1, keepdim=True)
        y = (y - mean) / (var + 1e-5)
        return F.cross_entropy(y, labels, ignore_index=-100) + F.nll_loss(F.log_softmax(y, -1), labels.clamp(min=0),
                                                                           weight=self.weight)


def _losses(device: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    with torch.device(device):
        labels = torch.tensor([1, -100, 3, 4, 9, 0, -100, 2])
        return Losses(), (torch.randn(8, 16), labels)


def _gradients(pair: real_run.Pair) -> int:
    out = next(iter(pair.backward.graph.find_nodes(op="output")))
    return sum(isinstance(a, torch.fx.Node) for a in out.args[0])


def test_losses_on_meta_equal_the_real_cpu_run():
    real = real_run.real_cpu_pair(*_losses("cpu"))
    captured = real_run.meta_pair(*_losses("meta"), target="cpu")
    assert real_run.differences(real, captured) == []
    assert _gradients(captured) == _gradients(real) == 3  # fc.weight, fc.bias, bias


def test_the_ops_lacking_autograd_on_meta_are_found_and_restored():
    ops = {str(op) for op in _meta_autograd.affected_ops()}
    assert {"aten.nll_loss.default", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.var_mean.dim"} <= ops
    assert "aten.mm.default" not in ops and "aten.where.self" not in ops  # they have autograd kernels
    key = torch._C.DispatchKey.AutogradMeta
    with _meta_autograd.meta_autograd(), _meta_autograd.meta_autograd():
        assert key in torch.ops.aten.nll_loss.default.py_kernels
    assert key not in torch.ops.aten.nll_loss.default.py_kernels


@pytest.mark.parametrize("inner", ["partition", "eager"])
def test_a_lost_gradient_fails_naming_the_parameters(monkeypatch, inner):
    """Without the fix (as an op it does not know would be), PyTorch only warns; the capture fails."""
    monkeypatch.setattr(_meta_autograd, "_install", lambda ops: None)
    model, inputs = _losses("meta")
    torch._dynamo.reset()
    compiled = torch.compile(model, backend=fxmem_export.backend(None, target="cpu", inner=inner), fullgraph=True)
    with pytest.warns(UserWarning, match="autograd kernel was not registered"), \
            pytest.raises(LostGradientError, match=r"aten::nll_loss.*parameters fc\.weight, fc\.bias, bias get no gradient"):
        compiled(*inputs)
    torch._dynamo.reset()


def test_a_parameter_the_real_run_gives_no_gradient_is_not_an_error():
    class Frozen(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(8, 4)
            self.scale = nn.Parameter(torch.ones(4))  # used without a gradient: no error

        def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
            return F.cross_entropy(self.fc(x) * self.scale.detach(), labels)

    with torch.device("meta"):
        model, inputs = Frozen(), (torch.randn(4, 8), torch.tensor([0, 1, 2, 3]))
    pair = real_run.meta_pair(model, inputs, target="cpu")
    assert _gradients(pair) == 2


def _normed(device: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    with torch.device(device):
        return nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.Linear(32, 4)), (torch.randn(8, 16),)


def test_layer_norm_statistics_under_cpu_bf16_equal_the_real_run():
    """CPU autocast leaves LayerNorm's bf16 input in bf16; on a CPU tensor torch._refs'
    native_layer_norm returns its mean and rstd in bf16 too (fp32 on any other device), and the
    backward saves them (_cpu_branches.py)."""
    real = real_run.real_cpu_pair(*_normed("cpu"), autocast=torch.bfloat16)
    captured = real_run.meta_pair(*_normed("meta"), target="cpu", region=("cpu", torch.bfloat16))
    assert real_run.differences(real, captured) == []
    stats = [key for key in real_run.saved(captured) if key[1] == (8, 1)]
    assert stats and {dtype for _, _, dtype in stats} == {"torch.bfloat16"}
