"""A capture that lost a gradient a real run computes fails, naming the parameters.

When an op has no autograd kernel for the tensors being traced, PyTorch runs it through its
autograd fallback: the result's backward does nothing but warn "an autograd kernel was not
registered ... silently incorrect", and every parameter upstream of the op gets no gradient.
On ``meta`` that happened to ``F.cross_entropy`` (_meta_autograd.py fixes the ops it knows); an
op the fix does not know must not give a silently smaller backward. ``watch_lost_autograd``
records those warnings while the backend compiles; ``lost_gradient_error`` turns them into
``LostGradientError`` when a CPU tensor would have had the derivative (an op without one on
every device loses it in the real run too, and is left to PyTorch's warning).
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import torch
import torch.fx as fx
from torch._C import DispatchKey

from .errors import LostGradientError

_LOST = re.compile(r"^(?P<op>[\w.:]+): an autograd kernel was not registered")


@contextlib.contextmanager
def watch_lost_autograd() -> Iterator[list[str]]:
    """Yields a list that collects the names (``aten::nll_loss``) of ops whose backward hit the
    autograd fallback while active. Every warning is still shown as before; the fallback's is
    shown each time (not once per place), so a second capture in a process sees it too."""
    seen: list[str] = []
    with warnings.catch_warnings():
        shown = warnings.showwarning
        warnings.filterwarnings("always", message=r".*an autograd kernel was not registered", category=UserWarning)

        def showwarning(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                        line: str | None = None) -> None:
            found = _LOST.match(str(message))
            if found and found["op"] not in seen:
                seen.append(found["op"])
            shown(message, category, filename, lineno, file, line)

        warnings.showwarning = showwarning
        yield seen


def _has_autograd_on_cpu(name: str) -> bool:
    """Whether some overload of ``name`` ("ns::op") gets a derivative on a CPU tensor."""
    from torch._ops import resolve_key

    namespace, _, op_name = name.partition("::")
    packet = getattr(getattr(torch.ops, namespace, None), op_name, None)
    if packet is None:
        return True  # not an op we can ask about: take the warning at its word
    for overload in packet.overloads():
        op = getattr(packet, overload)
        try:
            key = resolve_key(op, DispatchKey.AutogradCPU)
            if key != DispatchKey.AutogradCPU or op.has_kernel_for_dispatch_key(key):
                return True  # a composite kernel or an autograd kernel; not the fallback
        except (NotImplementedError, RuntimeError):
            continue
    return False


def parameters_without_gradient(joint: fx.GraphModule, context: Mapping[str, Any]) -> list[str]:
    """The labels of the trainable parameters whose gradient the joint graph returns as None
    (AOTAutograd's output descriptors say which input each gradient slot is for);
    ``context``: the region's meta (Dynamo's input sources and names, _roles.py)."""
    from torch._functorch._aot_autograd import descriptors as d

    from ._joint import copy_graph_module
    from ._roles import _Context, output_descs

    labelled = copy_graph_module(joint)
    labelled.meta = dict(context)
    names = _Context(labelled.graph)
    out = []
    for arg, desc in output_descs(labelled.graph):
        if arg is None and isinstance(desc, d.GradAOTOutput):
            role, label = names.input(desc.grad_of)
            if role == "parameter":
                out.append(label or str(desc.grad_of))
    return out


def lost_gradient_error(lost_ops: list[str], joint: fx.GraphModule | None, context: Mapping[str, Any],
                        where: str) -> LostGradientError | None:
    """The error to raise if ``lost_ops`` (from watch_lost_autograd) holds an op a CPU tensor
    differentiates, else None; ``joint``: the joint graph traced, to name the parameters."""
    lost = [op for op in lost_ops if _has_autograd_on_cpu(op)]
    if not lost:
        return None
    params = parameters_without_gradient(joint, context) if joint is not None else []
    shown = ", ".join(params[:12]) + (f" and {len(params) - 12} more" if len(params) > 12 else "")
    whom = f"so the trainable parameters {shown} get no gradient" if params else \
        "so the gradients flowing through it are missing"
    return LostGradientError(
        f"fxmem_export: {where}: {', '.join(lost)} {'was' if len(lost) == 1 else 'were'} traced without a derivative (no autograd kernel for "
        f"these tensors, where a CPU or CUDA tensor has one), {whom}, and the captured backward would be "
        f"smaller than a real run's. Capture on a real device, or compute it from ops that have a "
        f"derivative on meta; please report the op to fxmem")
