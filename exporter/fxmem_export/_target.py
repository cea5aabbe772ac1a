"""The device a capture stands for: ``target="cuda"`` or ``"cpu"``.

On a real device the target is that device. On ``meta`` there is no device to dispatch on, so
what PyTorch would run is chosen here: attention's fused kernel (_sdpa.py) and autocast's casts
(_autocast.py) are put into the Dynamo graph before AOTAutograd traces it. The default on
``meta`` is "cuda", said once, with how to change it.
"""

from __future__ import annotations

import warnings
from typing import Any

import torch
import torch.fx as fx

TARGETS = ("cuda", "cpu")
SDPA_CHOICES = ("flash", "efficient", "cudnn", "math")

_said_meta_default = False


class MetaTargetNote(UserWarning):
    """Said once per process: a capture on ``meta`` stands for CUDA unless told otherwise."""


def check_target_options(target: Any, sdpa: Any, autocast: Any) -> None:
    if target is not None and target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(map(repr, TARGETS))} or None (the inputs' device), got {target!r}")
    if sdpa is not None and sdpa not in SDPA_CHOICES:
        raise ValueError(f"sdpa must be one of {', '.join(map(repr, SDPA_CHOICES))} or None (PyTorch's choice), got {sdpa!r}")
    if autocast is not None and autocast not in (torch.bfloat16, torch.float16):
        raise ValueError(f"autocast must be torch.bfloat16, torch.float16 or None, got {autocast!r}")


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


def _calls(gm: fx.GraphModule, name: str) -> bool:
    """Whether ``gm`` or a subgraph of it calls a function named ``name``."""
    for module in gm.modules():
        graph = getattr(module, "graph", None)
        if isinstance(graph, fx.Graph) and any(
                n.op == "call_function" and getattr(n.target, "__name__", "") == name for n in graph.nodes):
            return True
    return False


def prepare_graph(gm: fx.GraphModule, *, target: str, sdpa: str | None, autocast: Any) -> None:
    """Put into the Dynamo graph ``gm`` what ``target``'s dispatch would run that ``meta`` (or
    this machine) would not: autocast's casts, then the attention kernel. In place."""
    if target not in TARGETS:
        return  # another real device: its own dispatch runs
    if autocast is not None or _calls(gm, "_enter_autocast"):
        from ._autocast import apply_autocast

        apply_autocast(gm, target=target, dtype=autocast)
    if _calls(gm, "scaled_dot_product_attention"):
        from ._sdpa import lower_sdpa

        lower_sdpa(gm, target=target, choice=sdpa)


def on_target_device(example_inputs: Any, target: str) -> bool:
    """Whether the inputs live on the target device itself (its own dispatch then applies)."""
    devices = _input_devices(example_inputs)
    return bool(devices) and devices <= {target}
