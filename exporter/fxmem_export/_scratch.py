"""The scratch space an ATen kernel allocates for itself while it runs (target cpu).

The program's extern kernels and fallbacks (convolution and its backward through oneDNN, a
scatter's index sort, ...) allocate temporaries through the CPU allocator that no wrapper line
shows: weight reorders, workspaces, sorted copies. Inductor does not know them; ATen does. So
each such kernel's op runs once, on real CPU tensors of its inputs' sizes, strides and dtypes
(zeros: index arguments stay in range), under the profiler, and its scratch is the highest
running sum of its allocator events above what it leaves allocated (its outputs). That is
exact where the allocations do not depend on the values (the tests check it against real
steps), and it costs memory: a kernel whose tensors exceed ``MAX_BYTES`` is not run, and the
capture says how many were left out (ProgramCaptureWarning).
"""

from __future__ import annotations

from typing import Any

import torch
import torch.fx as fx

MAX_BYTES = 256 * 2**20  # the most a kernel's tensors may take to be run for its scratch


def origin_op(node: Any) -> fx.Node | None:
    """The FX node whose op an extern kernel or fallback runs (its ``origin_node``, else the
    origin whose target is the kernel's own op)."""
    origin = node.get_origin_node() if hasattr(node, "get_origin_node") else None
    if isinstance(origin, fx.Node) and isinstance(origin.target, torch._ops.OpOverload):
        return origin
    op = getattr(node, "op_overload", None)
    packet = getattr(op, "overloadpacket", None)
    for n in getattr(node, "origins", ()):
        if isinstance(n.target, torch._ops.OpOverload) and packet is not None and n.target.overloadpacket is packet:
            return n  # type: ignore[no-any-return]
    return None


def _stand_in(size: list[int], stride: list[int], offset: int, dtype: torch.dtype) -> torch.Tensor:
    """Zeros on the CPU with this layout, in a storage just large enough for it."""
    elements = offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1 if all(size) else 0
    return torch.as_strided(torch.zeros(max(elements, 1), dtype=dtype), size, stride, offset)


def _layout_of(inp: Any) -> tuple[list[int], list[int], int] | None:
    """An IR input's size, stride and offset as the program passes it (Inductor may have
    chosen another layout than the FX graph's, e.g. channels-last for convolutions)."""
    from ._torch.fake import hint_int

    try:
        layout = inp.get_layout()
        return ([hint_int(V_hint(s)) for s in layout.size], [hint_int(V_hint(s)) for s in layout.stride],
                hint_int(V_hint(layout.offset)))
    except Exception:
        return None


def V_hint(expr: Any) -> int:  # noqa: N802
    from torch._inductor.virtualized import V

    return int(V.graph.sizevars.optimization_hint(expr, fallback=1))


def _arguments(node: fx.Node, ir_inputs: list[Any]) -> tuple[Any, Any, int]:
    """Real stand-ins for the node's arguments (tensors in the IR inputs' layouts where they
    correspond one to one), and the bytes its tensors and output take."""
    from ._torch.fake import hint_int

    tensors = [a for a in torch.utils._pytree.tree_leaves((node.args, node.kwargs))
               if isinstance(a, fx.Node) and isinstance(a.meta.get("val"), torch.Tensor)]
    layouts = [_layout_of(i) for i in ir_inputs] if len(ir_inputs) == len(tensors) else []
    by_node: dict[int, tuple[list[int], list[int], int]] = {}
    for arg, layout in zip(tensors, layouts):
        val = arg.meta["val"]
        if layout is not None and layout[0] == [hint_int(s) for s in val.shape]:
            by_node[id(arg)] = layout
    total = 0

    def value(a: Any) -> Any:
        nonlocal total
        if not isinstance(a, fx.Node):
            return torch.device("cpu") if isinstance(a, torch.device) else a
        val = a.meta.get("val")
        if isinstance(val, torch.Tensor):
            size, stride, offset = by_node.get(id(a)) or ([hint_int(s) for s in val.shape],
                                                          [hint_int(s) for s in val.stride()],
                                                          hint_int(val.storage_offset()))
            t = _stand_in(size, stride, offset, val.dtype)
            total += t.untyped_storage().nbytes()
            return t
        if isinstance(val, torch.SymInt):
            return hint_int(val)
        return val

    args = fx.node.map_aggregate(node.args, value)
    kwargs = fx.node.map_aggregate(node.kwargs, value)
    for t in torch.utils._pytree.tree_leaves(node.meta.get("val")):
        if isinstance(t, torch.Tensor):
            total += hint_int(t.numel()) * t.dtype.itemsize
    return args, kwargs, total


def cpu_allocation_events(prof: Any) -> list[tuple[int, int]]:
    """(time, bytes) of every CPU allocator event a ``torch.profiler.profile(profile_memory=True)``
    saw, in time order (negative bytes: a free)."""
    from torch._C._profiler import _EventType

    events: list[tuple[int, int]] = []
    stack = list(prof.profiler.kineto_results.experimental_event_tree())
    while stack:
        e = stack.pop()
        if e.tag == _EventType.Allocation and e.extra_fields.device.type == "cpu":
            events.append((e.start_time_ns, int(e.extra_fields.alloc_size)))
        stack.extend(e.children)
    return sorted(events)


def scratch_bytes(node: fx.Node, ir_inputs: list[Any]) -> int | None:
    """The bytes ``node``'s op allocates above what it leaves allocated, run once on the CPU;
    None where it is not run (too large, or it fails on stand-in values)."""
    from torch.profiler import ProfilerActivity, profile

    args, kwargs, total = _arguments(node, ir_inputs)
    if total > MAX_BYTES:
        return None
    op = node.target
    assert callable(op)
    try:
        with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            result = op(*args, **kwargs)
    except Exception:
        return None
    del result
    running = peak = 0
    for _, size in cpu_allocation_events(prof):
        running += size
        peak = max(peak, running)
    # The result is freed after the profile ends, so ``running`` is what the op left allocated.
    return max(0, peak - max(running, 0))
