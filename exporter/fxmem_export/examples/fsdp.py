"""The ``fsdp`` example: FSDP-style training of a stack of MLP blocks under a fake process group.

Each block is one FSDP unit. Its parameters (two Linear weights and an RMSNorm weight) live as
one flat shard per rank (1/world of the flat parameter, as FSDP keeps them). The forward
all-gathers the shard (``_c10d_functional.all_gather_into_tensor`` + ``wait_tensor``) and splits
it into the weights. The backward all-gathers it again (the gathered weights are not saved:
selective activation checkpointing marks the all-gather, its wait and the views of the gathered
buffer MUST_RECOMPUTE, as SimpleFSDP does), and reduce-scatters the flat gradient
(``reduce_scatter_tensor`` + ``wait_tensor``). Everything is traced on ``meta`` under PyTorch's
fake process group (``FakeStore``), so no GPU and no second process are needed.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

from ..errors import CaptureError

__all__ = [
    "BATCH", "DESCRIPTION", "DIM", "HIDDEN", "LAYERS", "WORLD_SIZE", "AllGather", "FSDPStack",
    "ShardedMLPBlock", "build", "fake_process_group",
]

WORLD_SIZE = 4
LAYERS = 8
DIM = 256
HIDDEN = 1024
BATCH = (8, 128)

DESCRIPTION = (f"FSDP-style {LAYERS} MLP blocks (RMSNorm, d={DIM}, hidden {HIDDEN}, batch {BATCH[0]}x{BATCH[1]}), "
               f"per-layer all-gather and reduce-scatter, fake process group of {WORLD_SIZE} ranks, "
               "with Inductor's overlap schedule")

_c10d = torch.ops._c10d_functional


@contextlib.contextmanager
def fake_process_group(world_size: int = WORLD_SIZE) -> Iterator[None]:
    """A default process group of ``world_size`` fake ranks (this process is rank 0) unless one
    exists already; destroyed on exit if it was made here."""
    from torch.testing._internal.distributed.fake_pg import FakeStore  # registers the "fake" backend

    if dist.is_initialized():
        yield
        return
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world_size)
    try:
        yield
    finally:
        dist.destroy_process_group()


class AllGather(torch.autograd.Function):
    """All-gather of a flat shard; its gradient is the reduce-scatter of the full gradient."""

    @staticmethod
    def forward(ctx: Any, shard: torch.Tensor, world: int, group: str) -> torch.Tensor:
        ctx.world, ctx.group = world, group
        return _c10d.wait_tensor(_c10d.all_gather_into_tensor(shard, world, group))

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        return _c10d.wait_tensor(_c10d.reduce_scatter_tensor(grad, "sum", ctx.world, ctx.group)), None, None


_RECOMPUTED = {
    _c10d.all_gather_into_tensor.default, _c10d.wait_tensor.default, torch.ops.aten.split_with_sizes.default,
    torch.ops.aten.view.default, torch.ops.aten.t.default,
}


def _policy(ctx: Any, op: Any, *args: Any, **kwargs: Any) -> CheckpointPolicy:
    """Recompute the all-gather (and the views of its result) in the backward, save the rest."""
    return CheckpointPolicy.MUST_RECOMPUTE if op in _RECOMPUTED else CheckpointPolicy.PREFER_SAVE


class ShardedMLPBlock(nn.Module):
    """x + W2 gelu(W1 rmsnorm(x)), with [W1, W2, norm weight] in one flat, sharded parameter."""

    def __init__(self, dim: int, hidden: int, world: int, group: str) -> None:
        super().__init__()
        self.sizes = [hidden * dim, dim * hidden, dim]
        numel = sum(self.sizes)
        padded = -(-numel // world) * world
        self.sizes.append(padded - numel)  # padding so that every rank holds the same shard size
        self.dim, self.hidden, self.world, self.group = dim, hidden, world, group
        self.shard = nn.Parameter(torch.randn(padded // world) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = AllGather.apply(self.shard, self.world, self.group)  # type: ignore[no-untyped-call]  # unannotated in torch
        w1, w2, norm, _ = flat.split(self.sizes)
        h = F.rms_norm(x, (self.dim,), norm)
        h = F.gelu(F.linear(h, w1.view(self.hidden, self.dim)))
        return x + F.linear(h, w2.view(self.dim, self.hidden))


class FSDPStack(nn.Module):
    def __init__(self, layers: int = LAYERS, dim: int = DIM, hidden: int = HIDDEN) -> None:
        super().__init__()
        world_group = dist.group.WORLD
        if world_group is None:
            raise CaptureError("the fsdp example needs a default process group (fsdp.fake_process_group())")
        world, group = dist.get_world_size(), world_group.group_name
        self.blocks = nn.ModuleList(ShardedMLPBlock(dim, hidden, world, group) for _ in range(layers))
        self._context = functools.partial(create_selective_checkpoint_contexts, _policy)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False, context_fn=self._context)
        return x


def build(device: str | torch.device) -> tuple[nn.Module, tuple[torch.Tensor, ...], dict[str, Any]]:
    """(model, inputs, torch.compile options); needs a default process group (fake_process_group)."""
    with torch.device(device):
        return FSDPStack(), (torch.randn(*BATCH, DIM),), {}
