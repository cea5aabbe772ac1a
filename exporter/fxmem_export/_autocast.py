"""Autocast on ``meta``: mixed precision captured as the target device would run it.

PyTorch's autocast is a dispatch key of the tensor's device (``AutocastCUDA``, ``AutocastCPU``):
its kernels cast the inputs of the ops on its lists, above autograd, so the casts are
differentiable and the saved activations are in the lower precision. A ``meta`` tensor carries no
autocast key, and the C++ kernels only cast tensors of their own device, so
``torch.autocast("cuda")`` around a meta model leaves every matmul in fp32 (and without CUDA,
``autocast.__init__`` switches a ``"cuda"`` region off as it is created).

While :func:`autocast_capture` is active:

* Python kernels, registered with ``torch.library`` for every op on the target's lists, run at
  an autocast dispatch key that no device of this process uses (``AutocastIPU`` in torch 2.13),
  switched on in the thread's dispatch keys. Above autograd, as PyTorch's own: on ``meta`` tensors they apply
  the target's policy (cast to the lower precision, to fp32, fp32 output dtype, widest type) when
  autocast is on for the target (``torch.is_autocast_enabled(target)``), and pass everything else
  through. They read autocast's own thread-local state, so the user's regions, nested
  ``enabled=False`` regions, ``custom_fwd``, AOTAutograd's ``backward_pass_autocast`` and the
  autocast enter/exit nodes in a Dynamo graph all mean what they mean on the device.
* ``torch.autocast("cuda", ...)`` made on this thread is not switched off for lack of CUDA.
* ``dtype`` (the backend's ``autocast=`` option) enters ``torch.autocast(target, dtype)`` for the
  whole capture, as a script whose call of the compiled model sits inside an autocast region.

Autocast's weight cache (a leaf fp32 weight is cast once per autocast region) is off while
``make_fx`` traces (``proxy_tensor.disable_autocast_cache``), so the graphs of a real device cast a
weight once per use, and AOTAutograd's CSE merges the forward's copies. These kernels never
cache, which is what the captured graphs need; on eager meta tensors a weight used twice is cast
twice (nothing is captured there).

The op lists mirror PyTorch's ``aten/src/ATen/autocast_mode.h`` (``AT_FORALL_LOWER_PRECISION_FP``,
``AT_FORALL_FP32``, ``AT_FORALL_FP32_SET_OPT_DTYPE``, ``AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE``,
``AT_FORALL_PROMOTE``, which ``TORCH_LIBRARY_IMPL(aten, AutocastCUDA)`` in
``aten/src/ATen/autocast_mode.cpp`` registers, with that block's own additions) and the
``TORCH_LIBRARY_IMPL(aten, AutocastCPU)`` block of ``autocast_mode.cpp`` (torch 2.13).
exporter/tests/test_autocast.py checks them against the kernels the installed PyTorch registers.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import torch

from .errors import ArgumentError, CaptureError

TARGETS = ("cuda", "cpu")
CATEGORIES = ("lower_precision_fp", "fp32", "fp32_set_opt_dtype", "fp32_append_dtype", "promote", "banned")

# -- the op lists (ATen overload names; "mm" is the default overload) ---------------------------

# autocast_mode.h, AT_FORALL_LOWER_PRECISION_FP; the CUDA block of autocast_mode.cpp adds the cudnn
# convolutions.
_CUDA_LOWER = (
    "_convolution.deprecated", "_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d.input", "conv_transpose3d.input", "convolution", "prelu", "addmm", "addmv", "addr",
    "matmul", "einsum", "mm", "mv", "linalg_vecdot", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul",
    "linalg_multi_dot", "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell", "lstm_cell", "gru_cell",
    "rnn_tanh_cell", "rnn_relu_cell", "_scaled_dot_product_flash_attention", "scaled_dot_product_attention",
    "cudnn_convolution", "cudnn_convolution_transpose",
)
# AT_FORALL_FP32
_CUDA_FP32 = (
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
    "sinh", "tan", "pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar", "softplus", "layer_norm",
    "native_layer_norm", "rms_norm", "group_norm", "frobenius_norm.dim", "nuclear_norm", "nuclear_norm.dim",
    "cosine_similarity", "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
    "hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss",
    "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss",
    "multi_margin_loss", "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp",
    "upsample_nearest1d", "_upsample_nearest_exact1d", "upsample_nearest2d", "_upsample_nearest_exact2d",
    "upsample_nearest3d", "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
    "_upsample_bilinear2d_aa", "upsample_trilinear3d", "upsample_bicubic2d", "_upsample_bicubic2d_aa",
)
# AT_FORALL_FP32_SET_OPT_DTYPE. The named-tensor overloads (*.Dimname, *.dimname) are not operators
# in every torch (2.13 has none); ops this torch lacks are skipped when the kernels are registered.
_CUDA_SET_OPT_DTYPE = (
    "prod", "prod.dim_int", "prod.dim_Dimname", "softmax.int", "softmax.Dimname", "log_softmax.int",
    "log_softmax.Dimname", "cumprod", "cumprod.dimname", "cumsum", "cumsum.dimname", "linalg_vector_norm",
    "linalg_matrix_norm", "linalg_matrix_norm.str_ord", "sum", "sum.dim_IntList", "sum.dim_DimnameList",
)
# AT_FORALL_DIFFERENT_REDISPATCH_SIGNATURE: norm overloads without a dtype run as the overload with
# one, dtype fp32.
_APPEND_DTYPE_REDIRECT = {
    "norm.Scalar": "norm.ScalarOpt_dtype",
    "norm.ScalarOpt_dim": "norm.ScalarOpt_dim_dtype",
    "norm.names_ScalarOpt_dim": "norm.names_ScalarOpt_dim_dtype",
}
# AT_FORALL_PROMOTE
_CUDA_PROMOTE = (
    "addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot", "grid_sampler", "index_put",
    "tensordot", "scatter_add",
)
# The CUDA block registers binary_cross_entropy as an error (use binary_cross_entropy_with_logits).
_CUDA_BANNED = ("binary_cross_entropy",)

# autocast_mode.cpp, TORCH_LIBRARY_IMPL(aten, AutocastCPU, m)
_CPU_LOWER = (
    "conv1d", "conv1d.padding", "conv2d", "conv2d.padding", "conv3d", "conv3d.padding", "bmm", "mm",
    "linalg_vecdot", "baddbmm", "addmm", "_addmm_activation", "addbmm", "linear", "_convolution.deprecated",
    "matmul", "conv_tbc", "mkldnn_rnn_layer", "conv_transpose1d", "conv_transpose2d.input",
    "conv_transpose3d.input", "prelu", "scaled_dot_product_attention", "_native_multi_head_attention",
)
_CPU_FP32 = (
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "prod.dim_int", "prod.dim_Dimname",
    "quantile", "quantile.scalar", "nanquantile", "nanquantile.scalar", "stft", "stft.center", "cdist",
    "grid_sampler_2d", "_grid_sampler_2d_cpu_fallback", "grid_sampler_3d", "trace", "view_as_complex",
    "cholesky", "cholesky_inverse", "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse",
    "max_pool3d", "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d",
    "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d", "mse_loss",
    "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss", "poisson_nll_loss",
    "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss", "margin_ranking_loss", "soft_margin_loss",
    "triplet_margin_loss", "multi_margin_loss", "ctc_loss.IntList", "ctc_loss.Tensor", "kl_div",
    "multilabel_margin_loss", "binary_cross_entropy_with_logits", "fft_fft", "fft_ifft", "fft_fft2",
    "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn",
    "fft_irfftn", "fft_hfft", "fft_ihfft", "linalg_cond", "linalg_cond.p_str", "linalg_matrix_rank",
    "linalg_matrix_rank.tol_tensor", "linalg_matrix_rank.atol_rtol_tensor",
    "linalg_matrix_rank.atol_rtol_float", "linalg_solve", "linalg_cholesky", "linalg_svdvals",
    "linalg_eigvals", "linalg_eigvalsh", "linalg_inv", "linalg_householder_product", "linalg_tensorinv",
    "linalg_tensorsolve", "fake_quantize_per_tensor_affine", "geqrf", "_lu_with_info", "qr", "svd",
    "triangular_solve", "fractional_max_pool2d", "fractional_max_pool3d", "adaptive_max_pool3d",
    "multilabel_margin_loss_forward", "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig",
    "linalg_eigh", "linalg_lstsq", "linalg_inv_ex",
)
_CPU_PROMOTE = ("stack", "cat", "index_copy", "index_copy.dimname")


def _table(*groups: tuple[str, tuple[str, ...]]) -> Mapping[str, str]:
    table: dict[str, str] = {}
    for category, names in groups:
        for name in names:
            assert name not in table, f"{name} listed twice"
            table[name] = category
    return MappingProxyType(table)


POLICY_TABLES: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "cuda": _table(("lower_precision_fp", _CUDA_LOWER), ("fp32", _CUDA_FP32),
                   ("fp32_set_opt_dtype", _CUDA_SET_OPT_DTYPE),
                   ("fp32_append_dtype", tuple(_APPEND_DTYPE_REDIRECT)), ("promote", _CUDA_PROMOTE),
                   ("banned", _CUDA_BANNED)),
    "cpu": _table(("lower_precision_fp", _CPU_LOWER), ("fp32", _CPU_FP32), ("promote", _CPU_PROMOTE)),
})


def op_name(op: Any) -> str:
    """The table's name of an ATen op: ``aten.mm.default`` -> "mm", ``aten.softmax.int`` ->
    "softmax.int"; strings ("aten::mm", "mm.default") are normalised the same way."""
    if isinstance(op, torch._ops.OpOverload):
        packet, overload = op._schema.name.split("::")[-1], op._overloadname
    else:
        packet, _, overload = str(op).split("::")[-1].removeprefix("aten.").partition(".")
    return packet if overload in ("", "default") else f"{packet}.{overload}"


@dataclass(frozen=True)
class AutocastPolicy:
    """What a capture for ``target`` ("cuda" or "cpu") does to autocast: that device's op lists,
    and ``dtype`` (bf16/fp16), an autocast region over the whole capture, or None (only the
    user's own regions)."""

    target: str
    dtype: torch.dtype | None = None

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ArgumentError(f"autocast target must be one of {', '.join(map(repr, TARGETS))}, got {self.target!r}")
        if self.dtype is not None and self.dtype not in (torch.bfloat16, torch.float16):
            raise ArgumentError(f"autocast dtype must be torch.bfloat16, torch.float16 or None, got {self.dtype!r}")

    @property
    def table(self) -> Mapping[str, str]:
        """ATen overload name -> category (one of CATEGORIES)."""
        return POLICY_TABLES[self.target]

    def category(self, op: Any) -> str | None:
        """The category of ``op`` (an OpOverload or its name) on the target, None if unlisted."""
        return self.table.get(op_name(op))


# -- the kernels ---------------------------------------------------------------------------------

_FP32 = torch.float32
_state_lock = threading.RLock()
_active: list[AutocastPolicy] = []  # global, not per thread: autograd may run a backward on another thread
_tls = threading.local()  # .cuda_depth: captures for "cuda" entered on this thread
_key: Any = None  # the dispatch key the kernels live at, once registered
_libraries: list[Any] = []  # kept alive: a Library's registrations end with it
_original_init: Callable[..., None] | None = None
_init_patches = 0


def _choose_key() -> Any:
    """An autocast key that neither core PyTorch nor a loaded plugin uses: no fallback, no mm kernel
    (PrivateUse1's is left to out-of-tree backends, which register theirs on import). Its
    autocast-key position puts the kernels above autograd, as PyTorch's own."""
    for name in ("AutocastIPU", "AutocastHPU"):
        key = getattr(torch._C.DispatchKey, name, None)
        if key is None or torch._C._dispatch_has_backend_fallback(key):
            continue
        if torch._C._dispatch_has_kernel_for_dispatch_key("aten::mm", name):
            continue
        return key
    raise CaptureError("fxmem_export: no free autocast dispatch key to register the meta autocast kernels at")


def _resolve(name: str) -> torch._ops.OpOverload | None:
    packet, _, overload = name.partition(".")
    try:
        op: torch._ops.OpOverload = getattr(getattr(torch.ops.aten, packet), overload or "default")
        return op
    except (AttributeError, RuntimeError):
        return None  # an overload this torch does not have (named-tensor overloads in 2.13)


def _register() -> Any:
    """Register the kernels once per process (they act only where the key is switched on)."""
    global _key
    with _state_lock:
        if _key is not None:
            return _key
        key = _choose_key()
        fallthrough = torch.library.Library("_", "IMPL")  # every other op passes the key by
        fallthrough.fallback(torch.library.fallthrough_kernel, key.name)
        lib = torch.library.Library("aten", "IMPL")
        for name in sorted({n for table in POLICY_TABLES.values() for n in table}):
            op = _resolve(name)
            if op is not None:
                lib.impl(name, _make_kernel(op, name, key), key.name)
        _libraries.extend([fallthrough, lib])
        _key = key
        return key


def _make_kernel(op: torch._ops.OpOverload, name: str, key: Any) -> Callable[..., Any]:
    keyset = torch._C.DispatchKeySet(key)

    def kernel(*args: Any, **kwargs: Any) -> Any:
        # As PyTorch's kernels: the whole call below runs with this key off, so the op's own
        # decomposition is not autocast again; the casts themselves go through autograd.
        with torch._C._ExcludeDispatchKeyGuard(keyset):
            try:
                policy: AutocastPolicy | None = _active[-1]
            except IndexError:  # no capture active (another thread's may just have ended)
                policy = None
            category = policy.table.get(name) if policy is not None else None
            if (policy is None or category is None or not torch.is_autocast_enabled(policy.target)
                    or not any(t.device.type == "meta" for t in _tensors((args, tuple(kwargs.values()))))):
                return op(*args, **kwargs)  # real tensors are PyTorch's own autocast's
            return _apply(category, policy.target, op, name, args, kwargs)

    kernel.__name__ = f"fxmem_meta_autocast_{name.replace('.', '_')}"
    return kernel


@contextlib.contextmanager
def below_autocast() -> Iterator[None]:
    """Run the body as PyTorch runs an autocast-listed op after casting its inputs: with the
    autocast key off, so the ops it is made of (the math attention's softmax) are not cast again."""
    if _key is None:
        yield
        return
    with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(_key)):
        yield


def cast_for(name: str, *values: Any) -> tuple[Any, ...]:
    """``values`` cast as the active capture's autocast region casts the inputs of op ``name``
    (an aten name of the tables): for code that calls another op in that op's place (_sdpa.py
    calls the fused kernel itself, where autocast would have cast scaled_dot_product_attention's
    inputs first). Unchanged outside an enabled region or for real tensors."""
    try:
        policy: AutocastPolicy | None = _active[-1]
    except IndexError:
        return values
    category = policy.table.get(name) if policy is not None else None
    if policy is None or category is None or not torch.is_autocast_enabled(policy.target) or not any(
            t.device.type == "meta" for t in _tensors(values)):
        return values
    if category == "lower_precision_fp":
        return tuple(_cast(v, torch.get_autocast_dtype(policy.target)) for v in values)
    if category == "fp32":
        return tuple(_cast(v, _FP32) for v in values)
    raise AssertionError(f"cast_for: op {name!r} is in category {category!r}, which casts are not taken from here")


def _meta_float(t: Any) -> bool:
    return isinstance(t, torch.Tensor) and t.device.type == "meta" and t.is_floating_point()


def _cast(value: Any, dtype: torch.dtype) -> Any:
    """autocast's cached_cast without the cache: eligible tensors (meta, floating, not double)
    to ``dtype``; lists of tensors element by element."""
    if _meta_float(value):
        return value.to(dtype) if value.dtype not in (dtype, torch.float64) else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def _call_cast(op: torch._ops.OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any], dtype: torch.dtype) -> Any:
    """``op`` on its arguments cast to ``dtype``, cast last argument first: PyTorch's wrappers
    cast in a C++ call's argument list (``cached_cast(args)...``), which GCC, which builds its
    wheels, evaluates right to left. The order names the casts (``convert_element_type_1``), and
    a recompute plan refers to them by name."""
    cast_kwargs = {k: _cast(kwargs[k], dtype) for k in reversed(kwargs)}
    cast_args = [_cast(a, dtype) for a in reversed(args)][::-1]
    return op(*cast_args, **{k: cast_kwargs[k] for k in kwargs})


def _tensors(value: Any) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)


def _promote_type(lower: torch.dtype, args: tuple[Any, ...], kwargs: dict[str, Any]) -> torch.dtype:
    """The widest floating type among the eligible inputs, as autocast's ``prioritize``."""
    current = lower
    for t in _tensors((args, tuple(kwargs.values()))):
        if not _meta_float(t) or t.dtype == torch.float64:
            continue  # not eligible, or double: ignored
        if current == _FP32 or t.dtype == _FP32:
            current = _FP32
        elif t.dtype != lower:
            raise CaptureError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _apply(category: str, target: str, op: torch._ops.OpOverload, name: str, args: tuple[Any, ...],
           kwargs: dict[str, Any]) -> Any:
    lower = torch.get_autocast_dtype(target)
    if category == "lower_precision_fp":
        return _call_cast(op, args, kwargs, lower)
    if category == "fp32":
        return _call_cast(op, args, kwargs, _FP32)
    if category == "promote":
        return _call_cast(op, args, kwargs, _promote_type(lower, args, kwargs))
    if category == "fp32_set_opt_dtype":
        # An unset output dtype becomes fp32, only when the first input is eligible (else the op's
        # own promotion decides, as PyTorch leaves it).
        if not (args and _meta_float(args[0]) and args[0].dtype != torch.float64):
            return op(*args, **kwargs)
        given, kwargs = list(args), dict(kwargs)
        for i, a in enumerate(op._schema.arguments):
            if str(a.real_type) != "Optional[ScalarType]":
                continue
            if not a.kwarg_only and i < len(given):
                given[i] = _FP32 if given[i] is None else given[i]
            elif kwargs.get(a.name) is None:
                kwargs[a.name] = _FP32
        return op(*given, **kwargs)
    if category == "fp32_append_dtype":
        first = args[0]
        out = _FP32 if _meta_float(first) and first.dtype != torch.float64 else first.dtype
        redirect = _resolve(_APPEND_DTYPE_REDIRECT[name])
        assert redirect is not None, _APPEND_DTYPE_REDIRECT[name]
        full = _positional(op, args, kwargs)
        return redirect(*full, dtype=out)
    if category == "banned":
        raise CaptureError(
            f"fxmem_export (CUDA autocast on meta): aten::{name} is not allowed in a CUDA autocast region, as on "
            "the GPU: torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast; use "
            "binary_cross_entropy_with_logits / BCEWithLogitsLoss")
    raise AssertionError(f"unknown autocast category {category!r}")


def _positional(op: torch._ops.OpOverload, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """Every argument of ``op``'s schema in order, defaults filled in."""
    out = []
    for i, a in enumerate(op._schema.arguments):
        if i < len(args):
            out.append(args[i])
        elif a.name in kwargs:
            out.append(kwargs[a.name])
        else:
            out.append(a.default_value)
    return out


# -- torch.autocast("cuda") without CUDA ---------------------------------------------------------

def _autocast_init(original: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(original)
    def __init__(self: Any, device_type: str, dtype: torch.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if device_type == "cuda" and enabled and (getattr(_tls, "cuda_depth", 0) > 0 or _cuda_backends > 0) \
                and not torch.cuda.is_available():
            # Built as disabled (skips "CUDA is not available ... Disabling autocast" and the
            # device's bf16 check, which are about this machine), then turned on: the region's
            # state is what the kernels read.
            original(self, device_type, dtype, False, cache_enabled)
            self._enabled = True
            return
        original(self, device_type, dtype, enabled, cache_enabled)

    return __init__


_cuda_backends = 0  # live backends for target "cuda" (their user's regions are honoured)


def honour_user_regions(owner: Any) -> None:
    """While ``owner`` (a backend for target "cuda") lives, a ``torch.autocast("cuda")`` the
    user creates anywhere (around the call of the compiled model, in the training loop) is
    built enabled on a machine without CUDA, so the capture can honour it."""
    global _cuda_backends
    import weakref

    with _state_lock:
        _cuda_backends += 1
    _install_init_patch()

    def release() -> None:
        global _cuda_backends
        with _state_lock:
            _cuda_backends -= 1
        _remove_init_patch()

    weakref.finalize(owner, release)


def _install_init_patch() -> None:
    global _original_init, _init_patches
    with _state_lock:
        if _init_patches == 0:
            cls = torch.amp.autocast_mode.autocast
            _original_init = cls.__init__
            setattr(cls, "__init__", _autocast_init(_original_init))
        _init_patches += 1


def _remove_init_patch() -> None:
    global _original_init, _init_patches
    with _state_lock:
        _init_patches -= 1
        if _init_patches == 0 and _original_init is not None:
            setattr(torch.amp.autocast_mode.autocast, "__init__", _original_init)
            _original_init = None


# -- the entry point -------------------------------------------------------------------------------

@contextlib.contextmanager
def autocast_capture(target: str, dtype: torch.dtype | None = None) -> Iterator[AutocastPolicy]:
    """Autocast on ``meta`` tensors as on ``target`` ("cuda" or "cpu"), for the code run inside.

    Must be active while AOTAutograd traces the graphs (the backend's compile: the joint
    forward+backward is traced there), on the thread that traces. The autocast regions it
    honours are those on when an op runs: the Dynamo graph's own ``_enter_autocast`` nodes
    (a ``with torch.autocast(...)`` inside the compiled function), a region around the call of
    the compiled model if it was entered inside this context, and ``dtype`` (a region over the
    whole context). Re-entrant; two captures with different policies at once are refused.
    """
    policy = AutocastPolicy(target, dtype)
    key = _register()
    with _state_lock:
        if _active and _active[-1] != policy:
            raise CaptureError(f"fxmem_export: an autocast capture for {_active[-1]} is active; cannot start {policy}")
        _active.append(policy)
    if target == "cuda":
        _install_init_patch()
        _tls.cuda_depth = getattr(_tls, "cuda_depth", 0) + 1
    # The key is in the default excluded set (autocast off); switch it on for this thread.
    was_included = torch._C._dispatch_tls_is_dispatch_key_included(key)
    was_excluded = torch._C._dispatch_tls_is_dispatch_key_excluded(key)
    torch._C._dispatch_tls_set_dispatch_key_included(key, True)
    torch._C._dispatch_tls_set_dispatch_key_excluded(key, False)
    try:
        with torch.autocast(target, dtype=dtype) if dtype is not None else contextlib.nullcontext():
            yield policy
    finally:
        torch._C._dispatch_tls_set_dispatch_key_included(key, was_included)
        torch._C._dispatch_tls_set_dispatch_key_excluded(key, was_excluded)
        if target == "cuda":
            _tls.cuda_depth -= 1
            _remove_init_patch()
        with _state_lock:
            _active.pop()
