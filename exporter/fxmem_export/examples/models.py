"""Small example models. Each builder returns (model, inputs) on the given device."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..errors import ArgumentError, UnknownExampleError

__all__ = [
    "CNN", "DESCRIPTIONS", "GPT", "LLAMA_DYNAMIC_MAX_SEQ", "LLAMA_LAYERS", "MLP", "NAMES", "Block", "Dynamic",
    "GPTBreak", "InPlace", "MultiOut", "build", "description",
]


class MLP(nn.Module):
    def __init__(self, d_in: int = 256, d_hidden: int = 1024, d_out: int = 10) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_hidden)
        self.fc3 = nn.Linear(d_hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.fc1(x))
        x = F.gelu(self.fc2(x))
        return self.fc3(x)


class CNN(nn.Module):
    """Conv + BatchNorm (training mode: running statistics are buffers mutated in forward)."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        y = F.relu(self.bn2(self.conv2(x)))
        y = F.relu(self.bn3(self.conv3(y)) + y)  # residual
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.fc(y)


class Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        x = x + self.out(F.gelu(self.fc(self.ln2(x))))
        return x


class GPT(nn.Module):
    """A small GPT: token + position embedding, pre-LN blocks, tied-free LM head, loss."""

    def __init__(self, vocab: int = 1024, d: int = 128, heads: int = 4, layers: int = 2, ctx: int = 128) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        t = idx.shape[1]
        pos = torch.arange(t, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln(x))
        logp = F.log_softmax(logits.view(-1, logits.shape[-1]), dim=-1)
        return -logp.gather(1, targets.view(-1, 1)).mean()  # cross-entropy


class GPTBreak(GPT):
    """GPT with a graph break after the first block: Dynamo compiles two regions, the embedding
    and block 0, then (a resume function) the other blocks, the norm, the head and the loss."""

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        t = idx.shape[1]
        pos = torch.arange(t, device=idx.device)
        x = self.blocks[0](self.tok(idx) + self.pos(pos))
        torch._dynamo.graph_break()
        for block in self.blocks[1:]:
            x = block(x)
        logits = self.head(self.ln(x))
        logp = F.log_softmax(logits.view(-1, logits.shape[-1]), dim=-1)
        return -logp.gather(1, targets.view(-1, 1)).mean()


class MultiOut(nn.Module):
    """Ops with several outputs: split, chunk, unbind, topk, max(dim), sort, cummax, layer_norm."""

    def __init__(self, d: int = 256) -> None:
        super().__init__()
        self.lin = nn.Linear(d, 3 * d)
        self.lin2 = nn.Linear(d, d // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, b, c = self.lin(x).split(x.shape[-1], dim=-1)
        c1, c2 = c.chunk(2, dim=-1)
        values, indices = torch.topk(a, 8, dim=-1)
        mx, argmx = b.max(dim=-1)
        srt, order = torch.sort(c1, dim=-1)
        cm, cm_idx = torch.cummax(c2, dim=-1)
        rows = self.lin2(x).unbind(0)
        y = F.layer_norm(c2, c2.shape[-1:])  # native_layer_norm: 3 outputs
        y = y + cm + srt.flip(-1) + rows[0] + rows[-1]
        return y.sum() + values.sum() + mx.sum() + (indices.float() + argmx.unsqueeze(-1).float() + order[..., :8].float() + cm_idx[..., :8].float()).sum() * 0.0


class InPlace(nn.Module):
    """In-place ops on activations, on a view, and on a buffer (a step counter)."""

    steps: torch.Tensor  # the buffers, for the type checker (nn.Module.__getattr__ is Tensor | Module)
    ema: torch.Tensor

    def __init__(self, d: int = 256) -> None:
        super().__init__()
        self.lin1 = nn.Linear(d, d)
        self.lin2 = nn.Linear(d, d)
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))
        self.register_buffer("ema", torch.zeros(d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.steps.add_(1)
        h = self.lin1(x)
        h.mul_(2.0)
        h[:, : h.shape[1] // 2].add_(1.0)  # in place on a view
        g = h * 0.5
        g.relu_()
        with torch.no_grad():
            self.ema.mul_(0.9).add_(g.mean(0), alpha=0.1)
        y = self.lin2(g)
        y.add_(x)
        return y.sigmoid_()


class Dynamic(nn.Module):
    """An MLP with a residual, compiled with a dynamic batch size (symbolic nbytes)."""

    def __init__(self, d: int = 256) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.ln = nn.LayerNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.gelu(self.fc1(self.ln(x)))
        y = x + self.fc2(h)
        return y.reshape(-1, 16, y.shape[-1] // 16).softmax(-1).reshape(y.shape)


def build(name: str, device: str | torch.device, *, layers: int | None = None
          ) -> tuple[nn.Module, tuple[torch.Tensor, ...], dict[str, Any]]:
    """(model, inputs, torch.compile options) of example ``name`` on ``device``. ``layers``:
    llama's decoder layers (default 8; the bundled sweep has 2); no other example takes it."""
    if layers is not None and (name != "llama" or isinstance(layers, bool) or not isinstance(layers, int)
                               or layers < 1):
        raise ArgumentError(f"layers={layers!r}: only the llama example takes a number of layers (an integer >= 1)")
    with torch.device(device):
        if name == "mlp":
            return MLP(), (torch.randn(64, 256),), {}
        if name == "cnn":
            return CNN().train(), (torch.randn(16, 3, 32, 32),), {}
        if name == "gpt":
            model = GPT()
            idx = torch.randint(0, 1024, (4, 128))
            targets = torch.randint(0, 1024, (4, 128))
            return model, (idx, targets), {}
        if name in ("gpt_break", "gpt_adam"):
            model = GPTBreak(layers=3) if name == "gpt_break" else GPT()
            batch = 8 if name == "gpt_break" else 4
            idx = torch.randint(0, 1024, (batch, 128))
            targets = torch.randint(0, 1024, (batch, 128))
            return model, (idx, targets), {}
        if name == "multiout":
            return MultiOut(), (torch.randn(32, 256),), {}
        if name == "inplace":
            return InPlace(), (torch.randn(32, 256),), {}
        if name == "llama":
            from .llama import Llama

            tokens = torch.randint(0, 256, (2, 64))
            targets = torch.randint(0, 256, (2, 64))
            return Llama(layers=LLAMA_LAYERS if layers is None else layers), (tokens, targets), {}
        if name == "dynamic":
            x = torch.randn(48, 256)
            torch._dynamo.mark_dynamic(x, 0)
            return Dynamic(), (x,), {"dynamic": True}
        if name == "llama_dynamic":
            from .llama import LlamaNextToken

            tokens = torch.randint(0, 256, (8, 48))
            torch._dynamo.mark_dynamic(tokens, 0)  # batch
            torch._dynamo.mark_dynamic(tokens, 1)  # sequence length
            return LlamaNextToken(max_seq=LLAMA_DYNAMIC_MAX_SEQ), (tokens,), {}
    raise UnknownExampleError(f"unknown example model {name!r}")


LLAMA_LAYERS = 8


def description(name: str, layers: int | None = None, descriptions: dict[str, str] | None = None) -> str:
    """The example's description (``descriptions``, default DESCRIPTIONS: the package's adds fsdp),
    with llama's layer count when ``layers`` changes it."""
    text = (DESCRIPTIONS if descriptions is None else descriptions)[name]
    if layers is None or name != "llama":
        return text
    return text.replace(f"({LLAMA_LAYERS} layers,", f"({layers} layer{'s' if layers != 1 else ''},", 1)


LLAMA_DYNAMIC_MAX_SEQ = 4096  # llama_dynamic's rotary tables: the sequence length's upper bound
DESCRIPTIONS = {
    "mlp": "3-layer MLP (Linear, ReLU, GELU), batch 64",
    "cnn": "Conv + BatchNorm (training mode, running stats mutated) + residual + pooling, batch 16x3x32x32",
    "gpt": "small GPT (2 layers, d=128, 4 heads, ctx 128, vocab 1024, batch 4): embedding, LayerNorm, "
    "SDPA attention, GELU, residuals, views and transposes, cross-entropy loss",
    "multiout": "split/chunk/unbind/topk/max(dim)/sort/cummax/layer_norm (multi-output ops), batch 32",
    "inplace": "in-place ops on activations, a view and buffers (step counter, EMA), batch 32",
    "llama": f"small Llama-style decoder ({LLAMA_LAYERS} layers, dim 64, 4 heads, SwiGLU hidden 176, seq 64, "
    "vocab 256, batch 2): RMSNorm, rotary embedding, causal SDPA, SwiGLU MLP, cross-entropy loss",
    "dynamic": "MLP with residual compiled with a dynamic batch size (symbolic nbytes, hint 48)",
    "llama_dynamic": "the small llama (8 layers, dim 64) trained on next-token prediction, compiled with a dynamic "
    "batch and sequence length (hint 8 x 48, sequence up to 4096): sizes written as expressions of both",
}
NAMES = list(DESCRIPTIONS)
