"""What PyTorch's own memory estimator (torch/_inductor/fx_passes/memory_estimator.py)
computes on the exported graphs, for the optional ``"reference"`` block.

Everything is computed by calling PyTorch's functions. The one exception is
:func:`intended_peak_memory`: in torch 2.13 ``get_fwd_bwd_interactions`` does
``next(iter(reversed(fwd_graph.nodes)))[-1]`` and raises ``TypeError: 'Node' object is not
subscriptable``, so ``get_peak_memory`` raises on every pair. :func:`intended_peak_memory`
repeats ``get_peak_memory`` with that one line read as intended ("the last node of the forward
graph, its output node"), using PyTorch's GraphAliasTracker and build_memory_profile.
"""

from __future__ import annotations

from typing import Any, cast

import torch
import torch.fx as fx

from .errors import ArgumentError
from .format_types import IntendedPeakDoc, ReferenceDoc, ReferenceGraphDoc, ReferencePairDoc

__all__ = [
    "intended_fwd_bwd_interactions", "intended_peak_memory", "reference_block", "torch_peak_memory",
    "torch_profile", "torch_tracker",
]


def _me() -> Any:  # the module, imported when first used (torch._inductor takes a second); patched below
    from torch._inductor.fx_passes import memory_estimator

    return memory_estimator


def _err(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def torch_profile(graph: fx.Graph) -> list[int]:
    me = _me()
    return [int(x) for x in me.build_memory_profile(graph, me._is_releasable)]


def torch_tracker(graph: fx.Graph, order: list[fx.Node] | None = None) -> tuple[int, list[int]]:
    """MemoryTracker peak and the memory after each scheduled node (``order`` defaults to the
    graph order)."""
    me = _me()
    tracker = me.MemoryTracker(graph)
    current = []
    for node in list(graph.nodes) if order is None else order:
        tracker.schedule_node(node)
        current.append(int(tracker.get_current_memory_bytes()))
    return int(tracker.peak_memory), current


def intended_fwd_bwd_interactions(fwd_graph: fx.Graph, bwd_graph: fx.Graph,
                                  count_cpu: bool = False, size_of: Any = None) -> tuple[int, set[str]]:
    """``get_fwd_bwd_interactions`` with the forward output node taken as the last node
    (``count_cpu``: the baseline counts CPU storages too; ``size_of``: as PyTorch's, the bytes of a
    storage's int or SymInt byte count, default its hint)."""
    me = _me()
    size_of = size_of or me._size_of_default
    fwd_alias_info = me.GraphAliasTracker(list(fwd_graph.nodes))
    primal_storages: set[Any] = set()
    for node in fwd_graph.find_nodes(op="placeholder"):
        if node.name.startswith("primals"):
            primal_storages.update(fwd_alias_info.get_fresh_allocations(node))
    fwd_output_node = next(iter(reversed(fwd_graph.nodes)))  # the intent of "...)[-1]"
    if fwd_output_node.op != "output":
        raise ArgumentError("the last node of the forward graph is not its output node")
    fwd_output_storages = set(fwd_alias_info.get_storage_uses(fwd_output_node))
    do_not_delete: set[str] = set()
    bwd_input_storages: set[Any] = set()
    for node in bwd_graph.find_nodes(op="placeholder"):
        node_storages = set(me.GraphAliasTracker._get_output_storages(node))
        bwd_input_storages.update(node_storages)
        if node_storages & primal_storages:
            do_not_delete.add(node.name)
        if not (node_storages & fwd_output_storages):
            do_not_delete.add(node.name)
    baseline = 0
    for key in fwd_output_storages - bwd_input_storages:
        if count_cpu or key.device.type != "cpu":
            baseline += size_of(key.storage.nbytes())
    return int(baseline), do_not_delete


def intended_peak_memory(fwd_graph: fx.Graph, bwd_graph: fx.Graph, count_cpu: bool = False,
                         size_of: Any = None) -> IntendedPeakDoc:
    """``get_peak_memory`` as intended, with its parts: forward_peak, backward_baseline,
    backward_peak (baseline included) and peak. ``count_cpu``: every device is counted (the
    estimator's module-level ``device_filter`` accepts CPU storages while it runs), as a real
    CPU run's graphs need. ``size_of``: PyTorch's argument of build_memory_profile and
    get_fwd_bwd_interactions (a symbolic byte count at other sizes than the hint)."""
    me = _me()
    saved_filter = me.device_filter
    if count_cpu:
        me.device_filter = lambda device: True
    try:
        fwd_peak = max(me.build_memory_profile(fwd_graph, me._is_releasable, size_of))
        baseline, do_not_delete = intended_fwd_bwd_interactions(fwd_graph, bwd_graph, count_cpu, size_of)

        def is_bwd_releasable(n: fx.Node) -> bool:
            return me._is_releasable(n) and n.name not in do_not_delete

        bwd_peak = baseline + max(me.build_memory_profile(bwd_graph, is_bwd_releasable, size_of))
    finally:
        me.device_filter = saved_filter
    return {
        "forward_peak": int(fwd_peak),
        "backward_baseline": int(baseline),
        "backward_peak": int(bwd_peak),
        "peak": int(max(fwd_peak, bwd_peak)),
    }


def torch_peak_memory(fwd_graph: fx.Graph, bwd_graph: fx.Graph) -> tuple[int | None, str | None]:
    """PyTorch's own ``get_peak_memory``: (peak, None), or (None, "Type: message") if it raised."""
    me = _me()
    try:
        return int(me.get_peak_memory(fwd_graph, bwd_graph)), None
    except Exception as e:  # noqa: BLE001 - recorded, not hidden
        return None, _err(e)


def reference_block(graphs: dict[str, fx.Graph], pairs: list[tuple[str, str]]) -> ReferenceDoc:
    out_graphs: dict[str, ReferenceGraphDoc] = {}
    for name, graph in graphs.items():
        entry: dict[str, Any] = {}
        try:
            entry["profile"] = torch_profile(graph)
        except Exception as e:  # noqa: BLE001
            entry["profile"] = None
            entry["profile_error"] = _err(e)
        try:
            entry["tracker_peak"], entry["tracker_current"] = torch_tracker(graph)
        except Exception as e:  # noqa: BLE001
            entry["tracker_peak"] = None
            entry["tracker_current"] = None
            entry["tracker_error"] = _err(e)
        out_graphs[name] = cast(ReferenceGraphDoc, entry)  # every key set above
    out_pairs: list[ReferencePairDoc] = []
    for fwd, bwd in pairs:
        peak, error = torch_peak_memory(graphs[fwd], graphs[bwd])
        item: dict[str, Any] = {"forward": fwd, "backward": bwd, "peak": peak, "error": error}
        try:
            item["intended"] = intended_peak_memory(graphs[fwd], graphs[bwd])
        except Exception as e:  # noqa: BLE001
            item["intended"] = None
            item["intended_error"] = _err(e)
        out_pairs.append(cast(ReferencePairDoc, item))  # every key set above
    return {
        "torch_version": torch.__version__,
        "estimator": "torch._inductor.fx_passes.memory_estimator",
        "graphs": out_graphs,
        "pairs": out_pairs,
    }
