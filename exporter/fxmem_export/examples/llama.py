"""A small Llama-style decoder: RMSNorm, rotary position embedding, SwiGLU MLP, causal
scaled-dot-product attention, pre-norm residual blocks, an untied LM head and a
cross-entropy loss."""

from __future__ import annotations

from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

__all__ = ["Attention", "DecoderLayer", "Llama", "LlamaNextToken", "RMSNorm", "Rotary", "SwiGLU"]


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Rotary(nn.Module):
    """cos/sin tables of the rotary embedding, as non-persistent buffers."""

    cos: torch.Tensor  # the buffers, for the type checker (nn.Module.__getattr__ is Tensor | Module)
    sin: torch.Tensor

    def __init__(self, head_dim: int, max_seq: int, base: float = 10000.0) -> None:
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        freqs = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv_freq)
        self.register_buffer("cos", freqs.cos(), persistent=False)
        self.register_buffer("sin", freqs.sin(), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: (batch, heads, seq, head_dim)
        t = x.shape[-2]
        cos, sin = self.cos[:t], self.sin[:t]
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class Attention(nn.Module):
    """Causal attention; ``kv_heads`` < ``heads`` is grouped-query attention (Llama 3)."""

    def __init__(self, dim: int, heads: int, max_seq: int, kv_heads: int | None = None) -> None:
        super().__init__()
        self.heads = heads
        self.kv_heads = kv_heads or heads
        head_dim = dim // heads
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, self.kv_heads * head_dim, bias=False)
        self.wv = nn.Linear(dim, self.kv_heads * head_dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.rotary = Rotary(head_dim, max_seq)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.heads
        q = self.wq(x).view(b, t, self.heads, hd).transpose(1, 2)
        k = self.wk(x).view(b, t, self.kv_heads, hd).transpose(1, 2)
        v = self.wv(x).view(b, t, self.kv_heads, hd).transpose(1, 2)
        q, k = self.rotary(q), self.rotary(k)
        gqa: dict[str, Any] = {"enable_gqa": True} if self.kv_heads != self.heads else {}
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, **gqa)
        return self.wo(y.transpose(1, 2).reshape(b, t, d))


class SwiGLU(nn.Module):
    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)  # gate
        self.w3 = nn.Linear(dim, hidden, bias=False)  # up
        self.w2 = nn.Linear(hidden, dim, bias=False)  # down

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class DecoderLayer(nn.Module):
    def __init__(self, dim: int, heads: int, hidden: int, max_seq: int, kv_heads: int | None = None) -> None:
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention(dim, heads, max_seq, kv_heads)
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = SwiGLU(dim, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class Llama(nn.Module):
    def __init__(self, vocab: int = 256, dim: int = 64, layers: int = 8, heads: int = 4,
                 hidden: int = 176, max_seq: int = 64, kv_heads: int | None = None) -> None:
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(DecoderLayer(dim, heads, hidden, max_seq, kv_heads) for _ in range(layers))
        self.norm = RMSNorm(dim)
        self.output = nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        x = self.tok_embeddings(tokens)
        for layer in self.layers:
            x = layer(x)
        logits = self.output(self.norm(x)).float()
        # Cross-entropy as log_softmax + gather: F.cross_entropy's nll_loss has no autograd
        # kernel on meta in torch 2.13 (see docs/exporter.md).
        logp = F.log_softmax(logits.view(-1, logits.shape[-1]), dim=-1)
        return -logp.gather(1, targets.view(-1, 1)).mean()


class LlamaNextToken(Llama):
    """Llama trained on next-token prediction of its one input: the targets are the tokens shifted
    by one (wrapping), so batch and sequence length are the two sizes of ``tokens`` alone (marked
    dynamic, they are the capture's two symbols)."""

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return super().forward(tokens, tokens.roll(-1, dims=1))
