"""Trace ``F.scaled_dot_product_attention`` as the kernel a target device would run.

On ``meta`` tensors SDPA always takes the math path: ``_fused_sdp_choice`` has no meta backend,
so the composite materialises the L x S scores, softmax and their fp32 copies. A CUDA run
calls flash or memory-efficient attention instead and a CPU run
``_scaled_dot_product_flash_attention_for_cpu``, which keep O(L) per head. ``lower_sdpa``
retargets each SDPA call of a Dynamo graph to :func:`lowered_sdpa`, which AOTAutograd then
traces: it picks the backend by PyTorch's rules from the inputs it is handed (dtype, shape,
strides, requires_grad, grad mode) and calls the aten kernel as the C++ composite does.

Sources (PyTorch 2.13): the composite ``scaled_dot_product_attention`` and its helpers in
``aten/src/ATen/native/transformers/attention.cpp``; the CUDA rules in
``transformers/cuda/sdp_utils.cpp`` (``select_sdp_backend``, ``can_use_*``); the CPU rules in
``transformers/sdp_utils_cpp.cpp`` and the shared checks in ``sdp_utils_cpp.h``.
The CUDA target is an sm80/sm90 GPU (A100/H100) with flash and memory-efficient attention built
in; see docs/exporter.md, "Attention on a target device", for what is not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.fx as fx

from .errors import ArgumentError, CaptureError

_Check = Callable[[], "str | None"]  # a backend's check: why it cannot run, or None

aten = torch.ops.aten

CHOICES = {"cuda": ("flash", "efficient", "cudnn", "math"), "cpu": ("flash", "math")}
SDPA_TARGETS = (torch._C._nn.scaled_dot_product_attention, aten.scaled_dot_product_attention,
                aten.scaled_dot_product_attention.default)
_BACKEND_IDS = {1: "flash", 2: "efficient", 0: "math", 3: "cudnn"}  # at::SDPBackend values
_HALF = (torch.float16, torch.bfloat16)


@dataclass
class _Params:
    """``sdp::sdp_params``: what the selection rules look at."""

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    mask: torch.Tensor | None
    dropout: float
    is_causal: bool
    enable_gqa: bool


# Shared checks (sdp_utils_cpp.h). Each returns why the kernel cannot run, or None.

def _dims4(p: _Params) -> str | None:
    return None if p.q.dim() == p.k.dim() == p.v.dim() == 4 else "query, key and value must be 4-D"


def _dtypes(p: _Params, allowed: tuple[torch.dtype, ...]) -> str | None:
    if p.q.dtype == p.k.dtype == p.v.dtype and p.q.dtype in allowed:
        return None
    return f"dtype {p.q.dtype} (key {p.k.dtype}, value {p.v.dtype}) not in {[str(d) for d in allowed]}"


def _batch_and_heads(p: _Params, supports_gqa: bool, same_kv_heads: bool = True) -> str | None:
    """check_batch_size_and_num_heads_dense<supports_gqa, requires_same_num_heads>."""
    if not p.q.size(0) == p.k.size(0) == p.v.size(0):
        return "query, key and value batch sizes differ"
    hq, hk, hv = p.q.size(-3), p.k.size(-3), p.v.size(-3)
    if p.enable_gqa and supports_gqa:
        if same_kv_heads and hk != hv:
            return "key and value num_heads differ"
        if hq % hk or (not same_kv_heads and hq % hv):
            return "key/value num_heads must divide query num_heads"
        return None
    return None if hq == hk == hv else "num_heads differ (grouped-query attention not enabled or not supported)"


def _nonzero_seq(p: _Params) -> str | None:
    return None if p.q.size(-2) and p.k.size(-2) else "zero-length sequence"


def _last_dim_contiguous(p: _Params, ignore_singleton: bool, check_mask: bool) -> str | None:
    ok = all(t.stride(-1) == 1 for t in (p.q, p.k, p.v)) or (ignore_singleton and p.q.size(-1) == 1)
    if check_mask and p.mask is not None and p.mask.stride(-1) != 1:  # GPU kernels only
        ok = False
    return None if ok else "last dimension must have stride 1"


def _mask_shape(p: _Params) -> str | None:
    """check_attn_mask_shape: a 2-D or 4-D mask broadcastable to (B, H, L, S), not requiring grad."""
    m = p.mask
    if m is None:
        return None
    if m.requires_grad:
        return "attn_mask requires grad"
    def fits(a: int, b: int) -> bool:
        return a == b or a == 1

    if not (fits(m.size(-2), p.q.size(2)) and fits(m.size(-1), p.k.size(2))):
        return "attn_mask does not match (L, S)"
    if m.dim() == 2 or (m.dim() == 4 and fits(m.size(0), p.q.size(0)) and fits(m.size(1), p.q.size(1))):
        return None
    return "attn_mask must be 2-D (L, S) or 4-D (B, H, L, S), each dim possibly 1"


def _same_head_dim(p: _Params, limit: int | None = None) -> str | None:
    d = p.q.size(-1)
    if d == p.k.size(-1) == p.v.size(-1) and (limit is None or d <= limit):
        return None
    return f"query, key and value head dims must be equal{f' and <= {limit}' if limit else ''}"


# Backends (cuda/sdp_utils.cpp can_use_*; sdp_utils_cpp.cpp use_flash_attention_cpp).

def _flash_cuda(p: _Params) -> str | None:
    if r := _dims4(p):
        return r
    if p.mask is not None:
        return "flash attention takes no attn_mask"
    checks: tuple[_Check, ...] = (
        lambda: _same_head_dim(p, 256),
        # sm86/89/120's head_dim > 192 training limit does not apply to sm80/sm90.
        lambda: "is_causal needs seq_len_q == seq_len_kv" if p.is_causal and p.q.size(-2) != p.k.size(-2) else None,
        lambda: _dtypes(p, _HALF),  # FA3 (fp8 on sm90) is off unless enabled; not modelled
        lambda: _batch_and_heads(p, supports_gqa=True),
        lambda: _nonzero_seq(p),
        lambda: _last_dim_contiguous(p, ignore_singleton=True, check_mask=True),
    )
    return next((r for c in checks if (r := c())), None)


def _efficient_cuda(p: _Params) -> str | None:
    if r := _dims4(p):
        return r
    # minimum_gemm_alignment on sm80+: 128-bit tensor-core loads, 8 halves or 4 floats.
    align = 8 if p.q.dtype in _HALF else 4
    dq, dv = p.q.size(-1), p.v.size(-1)
    if not (dq == p.k.size(-1) and dq > 0 and dv > 0 and dq % align == 0 and dv % align == 0):
        return f"head dims must match (query, key) and be multiples of {align}"
    # check_data_ptr_alignment_mem_efficient: the allocator aligns bases, so the storage offset decides.
    if any(t.numel() and t.storage_offset() % align for t in (p.q, p.k, p.v)):
        return f"storage offsets must be multiples of {align} elements"
    checks: tuple[_Check, ...] = (
        lambda: _nonzero_seq(p),
        lambda: _last_dim_contiguous(p, ignore_singleton=False, check_mask=True),
        # Grouped-query attention: flash and math only in 2.13 (the F.scaled_dot_product_attention docs).
        lambda: _batch_and_heads(p, supports_gqa=False),
        lambda: _dtypes(p, (torch.float16, torch.float32, torch.bfloat16)),
    )
    return next((r for c in checks if (r := c())), None)


def _cudnn_cuda(p: _Params) -> str | None:
    if torch.are_deterministic_algorithms_enabled() and not torch.is_deterministic_algorithms_warn_only_enabled():
        return "cuDNN attention is not deterministic"
    if p.dropout * 16.0 != math.floor(p.dropout * 16.0):
        return "cuDNN dropout must be a multiple of 1/16"
    checks: tuple[_Check, ...] = (
        lambda: _dims4(p),
        lambda: _dtypes(p, _HALF),
        lambda: _mask_shape(p),
        lambda: _nonzero_seq(p),
        lambda: _last_dim_contiguous(p, ignore_singleton=True, check_mask=True),
        lambda: _batch_and_heads(p, supports_gqa=True, same_kv_heads=False),
        lambda: _cudnn_shapes(p),
    )
    return next((r for c in checks if (r := c())), None)


def _cudnn_shapes(p: _Params) -> str | None:
    """check_cudnn_tensor_shapes for cuDNN >= 9 with the 128 head-dim limit (sm80; older sm90 cuDNN)."""
    if max(p.q.size(0), p.q.size(1)) > 65535:
        return "cuDNN takes batch and num_heads <= 65535"
    dqk, dv = p.q.size(3), p.v.size(3)
    if dqk > 128 or dv > 128 or dqk % 8 or dv % 8:
        return "cuDNN head dims must be <= 128 and multiples of 8"
    if p.k.size(2) == 1 or (p.dropout != 0.0 and p.q.size(2) == 1):
        return "cuDNN takes no key length 1 (nor query length 1 with dropout)"
    return None


def _flash_cpu(p: _Params) -> str | None:
    if p.dropout > 0.0:
        return "CPU flash attention takes no dropout"
    if r := _dims4(p):
        return r
    checks: tuple[_Check, ...] = (
        lambda: _batch_and_heads(p, supports_gqa=True),
        lambda: _mask_shape(p),
        lambda: _same_head_dim(p),
        lambda: _nonzero_seq(p),
        lambda: _last_dim_contiguous(p, ignore_singleton=False, check_mask=False),
        lambda: _dtypes(p, (torch.float32, torch.float64, torch.bfloat16, torch.float16)),
    )
    return next((r for c in checks if (r := c())), None)


_RULES = {("cuda", "flash"): _flash_cuda, ("cuda", "efficient"): _efficient_cuda,
          ("cuda", "cudnn"): _cudnn_cuda, ("cpu", "flash"): _flash_cpu}
_ENABLED: dict[str, Callable[[], bool]] = {
    "flash": torch.backends.cuda.flash_sdp_enabled, "efficient": torch.backends.cuda.mem_efficient_sdp_enabled,
    "cudnn": torch.backends.cuda.cudnn_sdp_enabled, "math": torch.backends.cuda.math_sdp_enabled}


def _why_not(backend: str, target: str, p: _Params) -> str | None:
    """Why ``backend`` cannot run these inputs on ``target`` (None: it can). Ignores the toggles."""
    return None if backend == "math" else _RULES[(target, backend)](p)


def select_backend(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attn_mask: torch.Tensor | None = None,
                   dropout_p: float = 0.0, is_causal: bool = False, enable_gqa: bool = False, *,
                   target: str, choice: str | None = None) -> str:
    """The SDPA backend ``target`` would run: "flash", "efficient", "cudnn" or "math".

    Without ``choice`` this follows ``select_sdp_backend`` (CUDA: the global priority order,
    flash > efficient > math by default) or ``select_sdp_backend_cpp`` (CPU: flash > math),
    honouring the ``torch.backends.cuda.enable_*_sdp`` toggles. A ``choice`` acts like
    ``sdpa_kernel([choice])``: that backend or a RuntimeError saying why not.
    """
    _check_target(target, choice)
    p = _Params(query, key, value, attn_mask, float(dropout_p), bool(is_causal), bool(enable_gqa))
    if choice is not None:
        if reason := _why_not(choice, target, p):
            raise CaptureError(f"scaled_dot_product_attention cannot use {choice} on {target}: {reason}")
        return choice
    if target == "cpu":
        order = ["flash", "math"]
    else:
        order = [_BACKEND_IDS[i] for i in torch._C._get_sdp_priority_order() if i in _BACKEND_IDS]
    for backend in order:
        if _ENABLED[backend]() and _why_not(backend, target, p) is None:
            return backend
    raise CaptureError(f"scaled_dot_product_attention: no enabled backend can run these inputs on {target}")


# The composite's helpers (attention.cpp).

def _additive_mask(mask: torch.Tensor | None, dtype: torch.dtype, neg_inf: float = -math.inf) -> torch.Tensor | None:
    """convert_boolean_attn_mask: True keeps a score (adds 0), False adds ``neg_inf`` (cuDNN: -65504)."""
    if mask is None or mask.dtype != torch.bool:
        return mask
    return torch.where(mask, 0.0, aten.scalar_tensor.default(neg_inf, dtype=dtype, device=mask.device))


def _pad_last_dim(t: torch.Tensor, multiple: int) -> torch.Tensor:
    """pad_last_dim<multiple, false>: flash needs head dims that are multiples of 8."""
    rem = t.size(-1) % multiple
    return t if rem == 0 else aten.pad.default(t, [0, multiple - rem])


def _efficient_mask(mask: torch.Tensor, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """preprocess_mask: pad the bias's row stride to 8 (then slice back) and expand to (B, H, L, S)."""
    aligned = mask.stride(-1) == 1 and all(mask.stride(i) % 8 == 0 for i in range(mask.dim() - 1))
    if not aligned:
        s = mask.size(-1)
        mask = aten.slice.Tensor(aten.pad.default(mask, [0, 8 - s % 8]), -1, 0, s)
    return aten.expand.default(mask, [q.size(0), q.size(1), q.size(2), k.size(2)])


def _run(backend: str, target: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None,
         dropout_p: float, is_causal: bool, scale: float | None, enable_gqa: bool) -> torch.Tensor:
    """The composite's switch: the aten calls one backend makes."""
    # should_compute_logsumexp: the logsumexp is only kept for a backward.
    lse = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
    if backend == "cudnn":
        bias = _additive_mask(mask, q.dtype, neg_inf=-65504.0)
        return aten._scaled_dot_product_cudnn_attention(q, k, v, bias, lse, dropout_p, is_causal, False, scale=scale)[0]
    bias = _additive_mask(mask, q.dtype)
    if backend == "flash" and target == "cpu":
        return aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, dropout_p, is_causal, attn_mask=bias,
                                                                scale=scale)[0]
    if backend == "flash":
        head_dim = q.size(-1)
        # The scale comes from the unpadded head dim (calculate_scale).
        og_scale = scale if scale is not None else 1.0 / math.sqrt(head_dim)
        out = aten._scaled_dot_product_flash_attention(_pad_last_dim(q, 8), _pad_last_dim(k, 8), _pad_last_dim(v, 8),
                                                       dropout_p, is_causal, False, scale=og_scale)[0]
        return out if out.size(-1) == head_dim else aten.slice.Tensor(out, -1, 0, head_dim)  # post_process_flash_output
    if backend == "efficient":
        if bias is not None:
            bias = _efficient_mask(bias, q, k)
        return aten._scaled_dot_product_efficient_attention(q, k, v, bias, lse, dropout_p, is_causal, scale=scale)[0]
    return aten._scaled_dot_product_attention_math(q, k, v, bias, dropout_p, is_causal, None, scale=scale,
                                                   enable_gqa=enable_gqa)[0]


def lowered_sdpa(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attn_mask: torch.Tensor | None = None,
                 dropout_p: float = 0.0, is_causal: bool = False, *, scale: float | None = None,
                 enable_gqa: bool = False, fxmem_target: str = "cuda", fxmem_choice: str | None = None) -> torch.Tensor:
    """``F.scaled_dot_product_attention`` as ``fxmem_target`` runs it (what ``lower_sdpa`` calls)."""
    if any(t.is_nested for t in (query, key, value)):  # nested inputs: PyTorch's own dispatch
        return torch._C._nn.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal,
                                                         scale=scale, enable_gqa=enable_gqa)
    # Autocast casts scaled_dot_product_attention's inputs before the composite picks a kernel.
    # The kernel (the math path's softmax included) then runs below autocast, as PyTorch's does.
    from ._autocast import below_autocast, cast_for

    query, key, value, attn_mask = cast_for("scaled_dot_product_attention", query, key, value, attn_mask)
    with below_autocast():
        backend = select_backend(query, key, value, attn_mask, dropout_p, is_causal, enable_gqa,
                                 target=fxmem_target, choice=fxmem_choice)
        return _run(backend, fxmem_target, query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _check_target(target: str, choice: str | None) -> None:
    if target not in CHOICES:
        raise ArgumentError(f"target must be one of {sorted(CHOICES)}, got {target!r}")
    if choice is not None and choice not in CHOICES[target]:
        raise ArgumentError(f"choice for target {target!r} must be one of {CHOICES[target]} or None, got {choice!r}")


def lower_sdpa(gm: fx.GraphModule, *, target: str, choice: str | None = None) -> int:
    """Rewrite in place every ``F.scaled_dot_product_attention`` call of a Dynamo graph, nested
    graph modules included (checkpoint bodies and other get_attr submodules), so that AOTAutograd
    traces the kernel ``target`` ("cuda" or "cpu") would run. ``choice`` ("flash", "efficient",
    "cudnn", "math") forces a backend, as ``sdpa_kernel([choice])`` would; None follows PyTorch's
    rules. The decision is made at trace time, from the inputs' dtype, shape, strides and
    requires_grad. Returns how many calls were rewritten; ValueError for a bad target or choice."""
    _check_target(target, choice)
    count = 0
    for mod in gm.modules():
        if not isinstance(mod, fx.GraphModule):
            continue
        changed = False
        for node in mod.graph.nodes:
            if node.op == "call_function" and (node.target is lowered_sdpa or node.target in SDPA_TARGETS):
                node.target = lowered_sdpa
                node.kwargs = {**node.kwargs, "fxmem_target": target, "fxmem_choice": choice}
                changed = True
                count += 1
        if changed:
            mod.recompile()
    return count


__all__ = ["lower_sdpa", "lowered_sdpa", "select_backend"]
