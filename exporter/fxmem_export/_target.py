"""The device a capture stands for: ``target="cuda"`` or ``"cpu"``.

On a real device the target is that device. On ``meta`` there is no device to dispatch on, so
what PyTorch would run is chosen here: attention's fused kernel (_sdpa.py) is put into the
Dynamo graph before AOTAutograd traces it; autocast's casts come from kernels active while the
backend compiles (_autocast.py). The default on
``meta`` is "cuda", said once, with how to change it.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch
import torch.fx as fx

from .errors import ArgumentError

TARGETS = ("cuda", "cpu")
SDPA_CHOICES = ("flash", "efficient", "cudnn", "math")

_said_meta_default = False


class MetaTargetNote(UserWarning):
    """Said once per process: a capture on ``meta`` stands for CUDA unless told otherwise."""


def check_target_options(target: Any, sdpa: Any, autocast: Any) -> None:
    if target is not None and target not in TARGETS:
        raise ArgumentError(f"target must be one of {', '.join(map(repr, TARGETS))} or None (the inputs' device), got {target!r}")
    if sdpa is not None and sdpa not in SDPA_CHOICES:
        raise ArgumentError(f"sdpa must be one of {', '.join(map(repr, SDPA_CHOICES))} or None (PyTorch's choice), got {sdpa!r}")
    if autocast is not None and autocast not in (torch.bfloat16, torch.float16):
        raise ArgumentError(f"autocast must be torch.bfloat16, torch.float16 or None, got {autocast!r}")


def _input_devices(example_inputs: Any) -> set[str]:
    return {t.device.type for t in torch.utils._pytree.tree_leaves(list(example_inputs))
            if isinstance(t, torch.Tensor)}


def resolve_target(example_inputs: Any) -> str:
    """The target of a capture that was not given one: the inputs' device; on ``meta``, "cuda"."""
    global _said_meta_default
    devices = _input_devices(example_inputs)
    if "cuda" in devices:
        return "cuda"
    if "meta" in devices or not devices:
        if not _said_meta_default:
            _said_meta_default = True
            warnings.warn("fxmem_export: tracing on meta for target='cuda': attention and autocast are captured as "
                          "a CUDA GPU (sm80/sm90) runs them; pass fxmem_export.backend(..., target='cpu') for what "
                          "a CPU run compiles", MetaTargetNote, stacklevel=4)
        return "cuda"
    return "cpu" if devices <= {"cpu"} else sorted(devices - {"cpu"})[0]


def _called_names(gm: fx.GraphModule) -> set[str]:
    """The names of the functions ``gm`` and its subgraphs call (one walk for every question)."""
    names: set[str] = set()
    for module in gm.modules():
        graph = getattr(module, "graph", None)
        if isinstance(graph, fx.Graph):
            names.update(getattr(n.target, "__name__", "") for n in graph.nodes if n.op == "call_function")
    return names


# Ops whose CUDA dispatch runs another kernel than ``meta`` traces, which the capture does not
# reproduce: each is said once (docs/exporter.md, "Ops that dispatch differently on a GPU").
CUDA_DISPATCH_DIFFERS = {
    "gru_cell": "a CUDA GPU runs aten._thnn_fused_gru_cell (one kernel saving a 5*hidden workspace) where "
                "meta traces the cell's pointwise ops",
    "lstm_cell": "a CUDA GPU runs aten._thnn_fused_lstm_cell (one kernel saving a 4*hidden workspace) where "
                 "meta traces the cell's pointwise ops",
    "_weight_norm": "a CUDA GPU runs aten._weight_norm_interface (a fused kernel saving the norms) where meta "
                    "traces norm and div",
    "gru": "a CUDA GPU runs cuDNN's RNN (aten._cudnn_rnn, with its reserve buffer) where meta traces the cells",
    "lstm": "a CUDA GPU runs cuDNN's RNN (aten._cudnn_rnn, with its reserve buffer) where meta traces the cells",
    "rnn_tanh": "a CUDA GPU runs cuDNN's RNN (aten._cudnn_rnn, with its reserve buffer) where meta traces the cells",
    "rnn_relu": "a CUDA GPU runs cuDNN's RNN (aten._cudnn_rnn, with its reserve buffer) where meta traces the cells",
}
_said_dispatch: set[str] = set()


class DispatchDiffersWarning(UserWarning):
    """An op a CUDA GPU runs as another kernel than the capture holds (not reproduced on meta)."""


def warn_dispatch_differences(called: set[str]) -> list[str]:
    """Say once per op which of ``CUDA_DISPATCH_DIFFERS`` the Dynamo graph calls (``called``:
    its called function names); returns them."""
    found = []
    for name, what in CUDA_DISPATCH_DIFFERS.items():
        if name in called:
            found.append(name)
            if name not in _said_dispatch:
                _said_dispatch.add(name)
                warnings.warn(f"fxmem_export: the capture for target='cuda' holds torch.{name} as traced on meta; "
                              f"{what}, so its bytes may differ from a GPU run", DispatchDiffersWarning, stacklevel=4)
    return found


def prepare_graph(gm: fx.GraphModule, *, target: str, sdpa: str | None, autocast: Any) -> None:
    """Put into the Dynamo graph ``gm`` the attention kernel ``target``'s dispatch would run,
    which ``meta`` (or this machine) would not. In place. Ops that a CUDA GPU dispatches to
    other kernels, not reproduced here, are said (warn_dispatch_differences). Autocast is not a
    graph rewrite: the backend compiles inside ``_autocast.autocast_capture``."""
    if target not in TARGETS:
        return  # another real device: its own dispatch runs
    called = _called_names(gm)
    if target == "cuda":
        warn_dispatch_differences(called)
    if "scaled_dot_product_attention" in called:
        from ._sdpa import lower_sdpa

        lower_sdpa(gm, target=target, choice=sdpa)


def on_target_device(example_inputs: Any, target: str) -> bool:
    """Whether the inputs live on the target device itself (its own dispatch then applies)."""
    devices = _input_devices(example_inputs)
    return bool(devices) and devices <= {target}
