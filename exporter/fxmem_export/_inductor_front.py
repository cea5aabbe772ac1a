"""Inductor's front half without its code generation: what ``torch.compile`` partitions.

``compile_fx`` runs Inductor's pre-grad passes, traces the joint graph with Inductor's
decompositions, runs its joint-graph passes (``compile_fx.partition_fn``) and then the min-cut
partitioner. ``capture_compile`` runs exactly that, with an ``inner_compile`` that records the
graphs and runs them as they are instead of generating kernels, so it works on ``meta`` too.

Two joint-graph passes treat ``meta`` tensors as tensors that have no data, which is right for a
real meta program but not for ours, where ``meta`` stands for a GPU's memory:

* ``remove_no_ops`` replaces every graph output on ``meta`` by ``empty_strided`` and then removes
  the dead code: a meta llama collapses to 95 + 7 nodes. ``meta_as_device`` keeps the outputs.
* the pattern matcher skips every node that reads or writes a ``meta`` tensor
  (``lowering.unsupported_input_tensor``), so no pattern pass (pointless permute pairs, view
  pairs, attention fusion, ...) ever applies. ``meta_as_device`` lets it match them.
* the uniform-value constant folder takes a ``meta`` constant as known but never folds it; on a
  device it folds constant subgraphs (``full``, then pointwise ops on it) into one ``full``.
  ``meta_as_device`` evaluates those one-element constants on the CPU, as the pass does on a
  real device, and treats a meta constant it cannot read (a tensor attribute) as unknown.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, cast

import torch
import torch.fx as fx
from torch.utils._python_dispatch import TorchDispatchMode

_patch_lock = threading.RLock()


class _UnreadableMeta(Exception):
    """A constant whose data is on ``meta``: the folder cannot know its value."""


class _MetaConstantsOnCpu(TorchDispatchMode):
    """Runs the constant folder's one-element evaluations on the CPU: a constructor asked for
    ``meta`` is built on the CPU; an op on a meta tensor (data nobody has) is unknown."""

    def __init__(self) -> None:  # typed: TorchDispatchMode's own __init__ is not
        TorchDispatchMode.__init__(self)

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = dict(kwargs or {})
        for leaf in torch.utils._pytree.tree_leaves((args, kwargs)):
            if isinstance(leaf, torch.Tensor) and leaf.device.type == "meta":
                raise _UnreadableMeta(str(func))
        device = kwargs.get("device")
        if device is not None and torch.device(device).type == "meta":
            kwargs["device"] = torch.device("cpu")
        return func(*args, **kwargs)


def _folder_class() -> type:
    from torch._inductor.fx_passes.joint_graph import UniformValueConstantFolder

    class MetaAsDeviceFolder(UniformValueConstantFolder):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            with _MetaConstantsOnCpu():
                super().__init__(*args, **kwargs)

        def _deduce_value(self, node: fx.Node) -> Any:
            try:
                with _MetaConstantsOnCpu():
                    return super()._deduce_value(node)
            except _UnreadableMeta:
                return self.unknown_value

    MetaAsDeviceFolder.__name__ = UniformValueConstantFolder.__name__
    return MetaAsDeviceFolder


def _meta_is_supported(original: Callable[..., bool]) -> Callable[..., bool]:
    # fp8, complex and sparse tensors keep the original answer (the meta check comes first there).
    def unsupported_input_tensor(t: torch.Tensor, node: Any = None) -> bool:
        if t.is_meta and not (t.is_complex() or t.is_sparse or t.dtype.itemsize == 1 and t.dtype.is_floating_point):
            return False
        return original(t, node)

    return unsupported_input_tensor


def _remove_no_ops_keeping_outputs(original: Callable[..., Any]) -> Callable[..., Any]:
    def remove_no_ops(gm: fx.GraphModule, zeros: Any, ones: Any) -> Any:
        graph = gm.graph
        find = graph.find_nodes

        # The pass's last step visits the output node to drop meta outputs; hide it from there.
        def find_nodes(*, op: str, target: Any = None, sort: bool = True) -> Any:
            return [] if op == "output" else find(op=op, target=target, sort=sort)

        setattr(graph, "find_nodes", find_nodes)  # an instance attribute over the method
        try:
            return original(gm, zeros, ones)
        finally:
            del graph.find_nodes

    return remove_no_ops


@contextlib.contextmanager
def meta_as_device() -> Iterator[None]:
    """Inductor's joint-graph passes treat ``meta`` as a device with memory while this is active
    (module-level patches, held under a lock: one capture at a time in a process)."""
    from torch._inductor import lowering
    from torch._inductor.fx_passes import joint_graph

    with _patch_lock:
        saved = (joint_graph.remove_no_ops, joint_graph.UniformValueConstantFolder, lowering.unsupported_input_tensor)
        joint_graph.remove_no_ops = _remove_no_ops_keeping_outputs(saved[0])
        setattr(joint_graph, "UniformValueConstantFolder", _folder_class())
        lowering.unsupported_input_tensor = _meta_is_supported(saved[2])
        try:
            yield
        finally:
            joint_graph.remove_no_ops, lowering.unsupported_input_tensor = saved[0], saved[2]
            setattr(joint_graph, "UniformValueConstantFolder", saved[1])


class RecordingPartitioner:
    """Inductor's partitioner (``config.custom_partitioner_fn``): called by
    ``compile_fx.partition_fn`` with the joint graph after Inductor's joint-graph passes.
    ``before(joint, joint_inputs, kwargs)`` runs first (it may tag the joint graph), then the
    min-cut partitioner Inductor calls, then ``after(joint, fw, bw)``, which may return another
    (fw, bw) to use."""

    def __init__(self, before: Callable[..., None] | None,
                 after: Callable[..., tuple[fx.GraphModule, fx.GraphModule] | None] | None,
                 inner: Any = None) -> None:
        self.before, self.after, self.inner = before, after, inner

    def __call__(self, gm: fx.GraphModule, joint_inputs: Any, **kwargs: Any) -> Any:
        from torch._functorch.partitioners import min_cut_rematerialization_partition

        if self.before is not None:
            self.before(gm, joint_inputs, kwargs)
        cut = self.inner if self.inner is not None else min_cut_rematerialization_partition
        fw, bw = cut(gm, joint_inputs, **kwargs)
        if self.after is not None:
            fw, bw = self.after(gm, fw, bw) or (fw, bw)
        return fw, bw

    def uuid(self) -> Any:  # CustomPartitionerFn's cache key; caches are off while we capture
        return None


def _custom_partitioner(recording: RecordingPartitioner) -> Any:
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    class Partitioner(CustomPartitionerFn):
        def __call__(self, gm: fx.GraphModule, joint_inputs: Any, **kwargs: Any) -> Any:
            return recording(gm, joint_inputs, **kwargs)

        def uuid(self) -> Any:
            return None

    return Partitioner()


def capture_compile(gm: fx.GraphModule, example_inputs: list[Any], *, partitioner: RecordingPartitioner,
                    inner_compile: Callable[..., Any]) -> Callable[..., Any]:
    """``compile_fx(gm, example_inputs, inner_compile=...)`` with ``partitioner`` as Inductor's
    partitioner, the caches off (a hit would skip the capture) and ``meta`` taken as a device.
    A user's own ``custom_partitioner_fn`` is kept: the recording wraps it."""
    from torch._inductor.compile_fx import compile_fx

    user = torch._inductor.config.custom_partitioner_fn
    if user is not None and partitioner.inner is None:
        partitioner.inner = user
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch._functorch.config.patch(enable_autograd_cache=False))
        stack.enter_context(torch._inductor.config.patch(fx_graph_cache=False,
                                                         custom_partitioner_fn=_custom_partitioner(partitioner)))
        stack.enter_context(meta_as_device())
        # compile_fx returns code or weights (its other types) only for AOT Inductor.
        return cast(Callable[..., Any], compile_fx(gm, example_inputs, inner_compile=inner_compile))


def _on_meta(args: Any, kwargs: Any) -> bool:
    return any(isinstance(t, torch.Tensor) and t.device.type == "meta"
               for t in torch.utils._pytree.tree_leaves((args, kwargs)))


def _run_and_save_rng_state(op: Any, *args: Any, **kwargs: Any) -> Any:
    from torch._prims.rng_prims import run_and_save_rng_state

    if not _on_meta(args, kwargs):
        return run_and_save_rng_state(op, *args, **kwargs)
    # A recomputed random op (checkpointing, fused attention) saves the generator's state; meta
    # has no generator. The state's bytes are the recorded graph's, not this stand-in's.
    return torch.empty(0, dtype=torch.uint8, device="meta"), op(*args, **kwargs)


def _run_with_rng_state(rng_state: Any, op: Any, *args: Any, **kwargs: Any) -> Any:
    from torch._prims.rng_prims import run_with_rng_state

    if not _on_meta(args, kwargs):
        return run_with_rng_state(rng_state, op, *args, **kwargs)
    return op(*args, **kwargs)


_CONVOLUTIONS = (torch.ops.aten.convolution.default, torch.ops.aten.convolution_backward.default)


def _traced_formats(node: fx.Node) -> tuple[Any, ...] | None:
    """The memory formats of a convolution's traced outputs, when one is not contiguous."""
    from torch._prims_common import suggest_memory_format

    vals = node.meta.get("val")
    vals = vals if isinstance(vals, (list, tuple)) else (vals,)
    formats = tuple(suggest_memory_format(v) if isinstance(v, torch.Tensor) else None for v in vals)
    return formats if any(f not in (None, torch.contiguous_format) for f in formats) else None


def _conv_as_traced(op: Any, *args: Any, fxmem_formats: tuple[Any, ...], **kwargs: Any) -> Any:
    """``op`` with its meta outputs in the layout the capture traced (a channels-last
    convolution for target "cpu", _cpu_branches.py), which meta's own kernel does not give."""
    out = op(*args, **kwargs)
    many = isinstance(out, (list, tuple))
    outs = [t.contiguous(memory_format=f) if isinstance(t, torch.Tensor) and t.is_meta and f is not None else t
            for t, f in zip(out if many else (out,), fxmem_formats)]
    return tuple(outs) if many else outs[0]


def runnable(g: fx.GraphModule) -> fx.GraphModule:
    """``g``, or a copy of it that runs on ``meta`` where PyTorch's RNG-state wrappers
    (``run_and_save_rng_state``/``run_with_rng_state``) have no meta kernel, and where a
    convolution traced channels-last must give that layout to the ops after it."""
    from torch._prims.rng_prims import run_and_save_rng_state, run_with_rng_state

    swap = {run_and_save_rng_state: _run_and_save_rng_state, run_with_rng_state: _run_with_rng_state}
    relayout = {n: _traced_formats(n) for n in g.graph.nodes if n.op == "call_function" and n.target in _CONVOLUTIONS}
    relayout = {n.name: f for n, f in relayout.items() if f is not None}
    if not relayout and not any(n.op == "call_function" and n.target in swap for n in g.graph.nodes):
        return g
    from ._joint import copy_graph_module

    run = copy_graph_module(g)
    for node in run.graph.nodes:
        if node.op == "call_function" and node.target in swap:
            node.target = swap[node.target]
        elif node.op == "call_function" and node.name in relayout:
            node.args = (node.target, *node.args)
            node.kwargs = {**node.kwargs, "fxmem_formats": relayout[node.name]}
            node.target = _conv_as_traced
    run.recompile()
    return run


def eager_inner_compile(record: Callable[[str, fx.GraphModule], None],
                        program: Callable[[fx.GraphModule, Any, dict[str, Any]], None] | None = None) -> Callable[..., Any]:
    """An ``inner_compile`` for ``compile_fx`` that records each graph (kind "forward",
    "backward" or "inference") before Inductor's post-grad passes and runs it as it is;
    ``program(g, inputs, kwargs)`` first reads the program Inductor would generate from it."""
    from functorch.compile import make_boxed_func

    def inner_compile(g: fx.GraphModule, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        kind = "backward" if kwargs.get("is_backward") else "inference" if kwargs.get("is_inference") else "forward"
        if program is not None:
            program(g, inputs, kwargs)
        record(kind, g)
        return make_boxed_func(runnable(g).forward)

    return inner_compile
