"""The CPU branches of a capture for target "cpu" on meta (fxmem_export._cpu_branches): the
convolution's layout question is asked about CPU stand-ins, which a Conv1d makes contiguous and
unsqueezes; that runs outside the fake mode, and the captured output has the layout a real CPU
convolution gives."""

from __future__ import annotations

import torch

import fxmem_export


class _Conv1d(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv1d(32, 16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def test_a_conv1d_captured_for_the_cpu_on_meta_has_the_cpu_layout():
    torch.manual_seed(0)
    real = _Conv1d()(torch.randn(4, 32, 5))
    with torch.device("meta"):
        model, x = _Conv1d(), torch.randn(4, 32, 5)
    be = fxmem_export.backend(None, target="cpu")
    torch.compile(model, backend=be, fullgraph=True)(x).float().square().mean().backward()
    forward = next(g for g in be.document()["graphs"] if g["kind"] == "forward")
    conv = next(n for n in forward["nodes"] if n["target"] == "aten.convolution.default")
    assert conv["val"]["shape"] == list(real.shape)
    assert conv["val"]["stride"] == list(real.stride())
