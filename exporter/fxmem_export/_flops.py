"""Per-node FLOPs as ``torch.utils.flop_counter.FlopCounterMode`` counts them on ``meta``.

Each ``call_function`` node whose target is an ATen/prims operator is run once on ``meta``
tensors shaped like its FakeTensor inputs, under a ``FlopCounterMode``; the node's FLOPs are
that mode's total (0 for operators it counts none for). Nothing else runs: collectives and
other namespaces would touch a process group, and they have no FLOP formula anyway, so they
count 0. Nodes whose operator cannot run on ``meta`` (data-dependent output shapes) get no
entry. Results are cached by operator and argument shapes, because the same computation
appears in the joint graph and in every partition of it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import torch
import torch.fx as fx

from ._torch.fake import fake_tensor_type, hint_int

_RUN_NAMESPACES = ("aten", "prims")


def _to_meta(value: Any) -> Any:
    if isinstance(value, fake_tensor_type()):
        return torch.empty_strided([hint_int(s) for s in value.shape], [hint_int(s) for s in value.stride()],
                                   dtype=value.dtype, device="meta")
    if isinstance(value, torch.SymInt):
        return hint_int(value)
    if isinstance(value, torch.SymFloat):
        return float(value)
    if isinstance(value, torch.SymBool):
        return bool(value)
    if isinstance(value, (list, tuple)):
        items = [_to_meta(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value


def _signature(value: Any) -> Any:
    if isinstance(value, fake_tensor_type()):
        return ("T", str(value.dtype), tuple(hint_int(s) for s in value.shape),
                tuple(hint_int(s) for s in value.stride()))
    if isinstance(value, (list, tuple)):
        return tuple(_signature(v) for v in value)
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
        return _to_meta(value)
    if isinstance(value, dict):
        return tuple((k, _signature(v)) for k, v in value.items())
    return repr(value)


def _arg_value(arg: Any) -> Any:
    """A node argument with every Node replaced by its meta["val"]."""
    return fx.node.map_arg(arg, lambda n: n.meta.get("val"))


class FlopCounter:
    """Counts FLOPs node by node; one instance may be shared by several graphs."""

    def __init__(self) -> None:
        self._cache: dict[Any, int | None] = {}

    def node(self, node: fx.Node) -> int | None:
        if node.op != "call_function":
            return None
        target = node.target
        if not isinstance(target, torch._ops.OpOverload) or target.namespace not in _RUN_NAMESPACES:
            return 0
        args, kwargs = _arg_value(node.args), _arg_value(node.kwargs)
        try:
            key = (str(target), _signature(args), _signature(kwargs))
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in self._cache:
            return self._cache[key]
        flops = self._run(target, args, kwargs)
        if key is not None:
            self._cache[key] = flops
        return flops

    @staticmethod
    def _run(target: torch._ops.OpOverload, args: Any, kwargs: Any) -> int | None:
        from torch.utils.flop_counter import FlopCounterMode

        try:
            meta_args, meta_kwargs = _to_meta(args), {k: _to_meta(v) for k, v in kwargs.items()}
            if "device" in meta_kwargs:  # factories: count on meta like every other node
                meta_kwargs["device"] = torch.device("meta")
            counter = FlopCounterMode(display=False)
            with counter:
                target(*meta_args, **meta_kwargs)
            return int(counter.get_total_flops())
        except Exception:  # noqa: BLE001 - a node that cannot run on meta gets no count
            return None

    def graph(self, graph: fx.Graph) -> dict[str, int]:
        """{node name: FLOPs} for the call_function nodes that could be counted."""
        out: dict[str, int] = {}
        for node in graph.nodes:
            flops = self.node(node)
            if flops is not None:
                out[node.name] = flops
        return out


def symbolic_flops(node: fx.Node) -> Any:
    """The node's FLOPs as FlopCounterMode's formula gives them on its FakeTensors' own sizes: a
    SymInt when the sizes are symbolic, None for an operator with no formula (the caller keeps
    the hinted count; it writes the expression only when it gives that count at the hints)."""
    from torch.utils.flop_counter import flop_registry

    target = node.target
    if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload):
        return None
    formula = flop_registry.get(target._overloadpacket)
    if formula is None:
        return None
    args, kwargs = _arg_value(node.args), _arg_value(node.kwargs)
    env = next((leaf.fake_mode.shape_env for leaf in torch.utils._pytree.tree_leaves((args, node.meta.get("val")))
                if isinstance(leaf, fake_tensor_type()) and leaf.fake_mode.shape_env is not None), None)
    try:  # a formula's size checks must not add guards to the capture's ShapeEnv
        with env.suppress_guards() if env is not None else contextlib.nullcontext():
            return formula(*args, **kwargs, out_val=node.meta.get("val"))
    except Exception:  # noqa: BLE001 - no expression: the hinted count stands
        return None

