"""Inductor's overlap schedule as a named schedule of the file ("inductor-overlap").

PyTorch's ``schedule_overlap_bucketing`` (torch/_inductor/fx_passes/overlap_scheduling.py)
reorders a graph so that collectives (FSDP all-gathers, reduce-scatters) overlap with compute,
and uses ``MemoryTracker`` to cap the memory this costs. This module runs that pass on a copy
of a captured graph and returns the node order it chose, without a GPU: the pass's own
estimates need Triton and a device, so it gets :class:`RuntimeEstimate` (stated rates, below)
through its ``custom_runtime_estimation`` hook. See docs/exporter.md, "Inductor's overlap
schedule".
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx as fx

from ._torch.fake import hint_int
from .errors import ArgumentError, CaptureError, NodeSetChanged  # NodeSetChanged: also importable from here
from .format_types import GraphFileDoc, ReferenceScheduleDoc, ScheduleDoc

__all__ = [
    "DEFAULT_OPTIONS", "PASS_NAME", "SCHEDULE_NAME", "Estimate", "NodeSetChanged", "RuntimeEstimate",
    "add_schedules", "has_collectives", "overlap_order", "overlap_schedules", "pass_options",
    "reference_entries", "source_of",
]

SCHEDULE_NAME = "inductor-overlap"
PASS_NAME = "torch._inductor.fx_passes.overlap_scheduling.schedule_overlap_bucketing"

# The pass's options that fxmem sets by default: no bucketing (which would add and remove
# nodes, so the order would no longer be an order of the exported graph), and the analytical
# estimators (the "benchmark" ones run kernels on a device and all-gather the timings).
DEFAULT_OPTIONS: dict[str, Any] = {
    "collective_bucketing": False,
    "pre_bucketing_fsdp_collectives": False,
    "compute_estimator": "analytical",
    "collective_estimator": "analytical",
}

Estimate = Callable[[fx.Node, "int | None"], "float | None"]
_Total = Callable[[fx.Node, "int | None"], float]  # an estimate with a number for every node

_c10d = torch.ops._c10d_functional
_WAIT = _c10d.wait_tensor.default


@dataclass(frozen=True)
class RuntimeEstimate:
    """Runtime of a node in milliseconds from its FakeTensors alone, at stated rates.

    * a collective (a ``_c10d_functional`` op other than ``wait_tensor``):
      ``latency_us / 1e3 + bytes / (collective_gbps * 1e9) * 1e3``, where ``bytes`` is the
      larger of its tensor inputs' and outputs' sizes (the unsharded tensor of an all-gather or
      reduce-scatter), or ``override_size`` when the pass gives one (it asks with 0 for the
      latency of a bucketed collective);
    * an op with a FLOP formula in ``torch.utils.flop_counter.flop_registry`` (mm, bmm, addmm,
      baddbmm, convolution, scaled-dot-product attention, ...):
      ``flops / (compute_tflops * 1e12) * 1e3``;
    * any other op: the bytes it reads and writes (its tensor inputs and outputs, shape times
      element size) ``/ (memory_gbps * 1e9) * 1e3``;
    * ``wait_tensor``, views (``OpOverload.is_view``), ``getitem``, placeholders, output: 0.

    The default rates are round figures of a current data-centre GPU, not a measurement.
    """

    compute_tflops: float = 100.0
    memory_gbps: float = 1000.0
    collective_gbps: float = 100.0
    latency_us: float = 10.0

    def __call__(self, node: fx.Node, override_size: int | None = None) -> float:
        if node.op != "call_function":
            return 0.0
        target = node.target
        if target is _WAIT or not isinstance(target, torch._ops.OpOverload):
            return 0.0
        if target.namespace == "_c10d_functional":
            size = override_size if override_size is not None else max(_bytes(_inputs(node)), _bytes(_outputs(node)))
            return self.latency_us / 1e3 + size / (self.collective_gbps * 1e9) * 1e3
        if target.is_view:
            return 0.0
        flops = _flops(node, target)
        if flops is not None:
            return flops / (self.compute_tflops * 1e12) * 1e3
        return (_bytes(_inputs(node)) + _bytes(_outputs(node))) / (self.memory_gbps * 1e9) * 1e3

    def describe(self) -> str:
        return (f"RuntimeEstimate(compute {self.compute_tflops:g} TFLOP/s, memory {self.memory_gbps:g} GB/s, "
                f"collectives {self.collective_gbps:g} GB/s + {self.latency_us:g} us)")


def _inputs(node: fx.Node) -> list[Any]:
    vals = [n.meta.get("val") for n in node.all_input_nodes]
    return [t for t in torch.utils._pytree.tree_leaves(vals) if isinstance(t, torch.Tensor)]


def _outputs(node: fx.Node) -> list[Any]:
    return [t for t in torch.utils._pytree.tree_leaves(node.meta.get("val")) if isinstance(t, torch.Tensor)]


def _bytes(tensors: list[Any]) -> int:
    total = 0
    for t in tensors:
        numel = 1
        for s in t.shape:
            numel *= hint_int(s)
        total += numel * t.element_size()
    return total


def _flops(node: fx.Node, target: torch._ops.OpOverload) -> int | None:
    """FLOPs from PyTorch's flop formulas (shapes only, no device), or None for other ops;
    ``target`` is the node's."""
    from torch.utils.flop_counter import flop_registry

    key = target.overloadpacket
    if key not in flop_registry:
        return None

    def val(a: Any) -> Any:
        return a.meta.get("val") if isinstance(a, fx.Node) else a

    args = torch.utils._pytree.tree_map(val, node.args)
    kwargs = torch.utils._pytree.tree_map(val, node.kwargs)
    return hint_int(flop_registry[key](*args, **kwargs, out_val=val(node)))


def _describe(estimate: Estimate) -> str:
    describe = getattr(estimate, "describe", None)
    if callable(describe):
        return str(describe())
    return getattr(estimate, "__qualname__", None) or type(estimate).__name__


def _with_fallback(user: Estimate, fallback: RuntimeEstimate) -> _Total:
    """``user``'s estimate, or ``fallback``'s where ``user`` returns None."""

    def estimate(node: fx.Node, override_size: int | None = None) -> float:
        got = user(node, override_size)
        return fallback(node, override_size) if got is None else float(got)

    return estimate


def has_collectives(graph: fx.Graph) -> bool:
    return bool(graph.find_nodes(op="call_function", target=_WAIT))


def pass_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """DEFAULT_OPTIONS updated with ``options``; unknown names and ``custom_runtime_estimation``
    (give ``estimate=`` instead) raise ArgumentError (a ValueError)."""
    from torch._inductor.fx_passes.overlap_scheduling import schedule_overlap_bucketing

    known = set(inspect.signature(schedule_overlap_bucketing).parameters) - {"gm"}
    merged = dict(DEFAULT_OPTIONS)
    for key, value in (options or {}).items():
        if key == "custom_runtime_estimation":
            raise ArgumentError("overlap_options: pass the estimate function as overlap_estimate=..., not "
                                "custom_runtime_estimation (fxmem gives the pass its own device-free estimate)")
        if key not in known:
            raise ArgumentError(f"overlap_options: {PASS_NAME} has no option {key!r} (torch {torch.__version__}); "
                                f"it takes: {', '.join(sorted(known))}")
        merged[key] = value
    return merged


_patch_lock = threading.Lock()


@contextlib.contextmanager
def _device_free_roofline(estimate: _Total) -> Iterator[None]:
    """The pass calls its roofline estimate (which asks Triton for the GPU's bandwidth) for every
    compute node even when a custom estimate is given, and then uses the custom value. While it
    runs, that function answers with ``estimate`` instead, so no device is needed."""
    from torch._inductor.fx_passes import overlap_scheduling

    with _patch_lock:
        original = overlap_scheduling.estimate_roofline_runtime_ms
        overlap_scheduling.estimate_roofline_runtime_ms = lambda node: estimate(node, None)
        try:
            yield
        finally:
            overlap_scheduling.estimate_roofline_runtime_ms = original


def _copy(g: fx.GraphModule | fx.Graph) -> fx.GraphModule:
    """A copy with the same node names whose nodes share the original's FakeTensors, so the
    pass's MemoryTracker sees exactly the storages of the exported graph."""
    source = g.graph if isinstance(g, fx.GraphModule) else g
    root = g if isinstance(g, fx.GraphModule) else (source.owning_module or torch.nn.Module())
    graph = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    for node in source.nodes:
        env[node] = graph.node_copy(node, lambda n: env[n])
    return fx.GraphModule(root, graph)


def _listed(names: list[str], shown: int = 12) -> str:
    if not names:
        return "no node"
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"{len(names)} node(s) ({', '.join(names[:shown])}{more})"


def overlap_order(
    gm: fx.GraphModule | fx.Graph,
    *,
    estimate: Estimate | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[str]:
    """The node order ``schedule_overlap_bucketing`` gives a copy of ``gm`` (``gm`` is not
    changed), as node names. Placeholders come first in their original order (the estimator
    counts inputs as live from the start, and the schedule format wants them first).

    ``estimate(node, override_size) -> ms | None`` replaces the default :class:`RuntimeEstimate`
    where it returns a number. ``options`` are keyword arguments of the pass, over
    :data:`DEFAULT_OPTIONS`. Raises :class:`NodeSetChanged` if the pass changed the node set,
    and CaptureError (a RuntimeError) if torch.distributed has no default process group (the
    pass resolves the collectives' group names and asks for the world size)."""
    from torch._inductor.fx_passes.overlap_scheduling import schedule_overlap_bucketing

    opts = pass_options(options)
    default = RuntimeEstimate()
    est = default if estimate is None else _with_fallback(estimate, default)
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        raise CaptureError(
            "overlap=True runs Inductor's overlap pass, which needs the process group the graph's "
            "collectives were traced with: initialize torch.distributed first (without GPUs: "
            "dist.init_process_group('fake', store=torch.testing._internal.distributed.fake_pg.FakeStore(), "
            "rank=0, world_size=N))"
        )
    graph = gm.graph if isinstance(gm, fx.GraphModule) else gm
    copy = _copy(gm)
    with _device_free_roofline(est):
        try:
            out = schedule_overlap_bucketing(copy, custom_runtime_estimation=est, **opts)
        except AttributeError as e:
            # torch 2.13: with both memory limits None the pass has no MemoryTracker, yet
            # OverlapScheduler._schedule calls it for every node.
            if not (opts.get("max_memory_increase_gb", 1) is None and opts.get("max_memory_increase_ratio", 1) is None):
                raise
            raise CaptureError(
                f"{PASS_NAME} failed without a memory limit (max_memory_increase_gb and max_memory_increase_ratio "
                f"both None) in torch {torch.__version__}: {e}; give a large max_memory_increase_gb instead"
            ) from e
        except ModuleNotFoundError as e:
            if e.name != "triton":
                raise
            raise CaptureError(
                f"{PASS_NAME} with options {opts} asked for Triton, which this torch build lacks ({e}); fxmem's "
                "defaults need no device: leave out the option that measures the device (e.g. "
                "enable_fusion_regions=True)"
            ) from e
        except RuntimeError as e:
            # Triton installed on a machine without a GPU: its driver finds no device to measure.
            if "active drivers" not in str(e):
                raise
            raise CaptureError(
                f"{PASS_NAME} with options {opts} asked for Triton to measure the GPU, and Triton finds none here "
                f"({e}); fxmem's defaults need no device: leave out the option that measures the device (e.g. "
                "enable_fusion_regions=True)"
            ) from e
    before = [n.name for n in graph.nodes]
    after = [n.name for n in out.graph.nodes]
    added = sorted(set(after) - set(before))
    removed = sorted(set(before) - set(after))
    if added or removed or len(after) != len(before):
        raise NodeSetChanged(
            f"{PASS_NAME} changed the node set (options {opts}): "
            f"{_listed(added)} appeared, {_listed(removed)} disappeared; keep collective_bucketing and "
            "pre_bucketing_fsdp_collectives off to get an order of the exported graph"
        )
    inputs = [p.name for p in graph.find_nodes(op="placeholder")]  # in graph order
    placeholders = set(inputs)
    return inputs + [n for n in after if n not in placeholders]


def source_of(estimate: Estimate | None, options: Mapping[str, Any] | None) -> str:
    """The schedule's ``source``: torch version, pass, options and the estimate used."""
    opts = pass_options(options)
    est = RuntimeEstimate() if estimate is None else estimate
    shown = ", ".join(f"{k}={v!r}" for k, v in sorted(opts.items()))
    text = f"torch {torch.__version__} {PASS_NAME}({shown}); estimate {_describe(est)}"
    if estimate is not None:
        text += f", else {RuntimeEstimate().describe()}"
    return text


def overlap_schedules(
    graphs: list[tuple[str, fx.GraphModule | fx.Graph]],
    *,
    estimate: Estimate | None = None,
    options: Mapping[str, Any] | None = None,
    cache: dict[int, tuple[Any, ScheduleDoc | None]] | None = None,
) -> list[ScheduleDoc]:
    """``{"name": "inductor-overlap", "graph", "order", "source"}`` for every graph of
    ``graphs`` (name, graph) that contains ``wait_tensor``. A graph whose node set the pass
    changes gets a warning naming the nodes and no schedule. ``cache`` (keyed by ``id(graph)``)
    lets a caller that writes the file repeatedly run the pass once per graph."""
    source = None
    out: list[ScheduleDoc] = []
    for name, g in graphs:
        graph = g.graph if isinstance(g, fx.GraphModule) else g
        if not has_collectives(graph):
            continue
        hit = cache.get(id(g)) if cache is not None else None
        entry: ScheduleDoc | None
        if hit is not None and hit[0] is g:
            entry = hit[1]
        else:
            if source is None:
                source = source_of(estimate, options)
            try:
                entry = {"name": SCHEDULE_NAME, "graph": name, "order": overlap_order(g, estimate=estimate, options=options),
                         "source": source}
            except NodeSetChanged as e:
                warnings.warn(f"graph {name!r}: no {SCHEDULE_NAME!r} schedule stored: {e}", stacklevel=3)
                entry = None
            if cache is not None:
                cache[id(g)] = (g, entry)
        if entry is not None:
            out.append({**entry, "graph": name})
    return out


def reference_entries(graphs: Mapping[str, fx.Graph], schedules: list[ScheduleDoc]) -> list[ReferenceScheduleDoc]:
    """What PyTorch's MemoryTracker gives each schedule's order (for the file's reference block):
    ``{"name", "graph", "tracker_peak", "tracker_current"}``."""
    from .reference import torch_tracker

    out: list[ReferenceScheduleDoc] = []
    for s in schedules:
        graph = graphs[s["graph"]]
        by_name = {n.name: n for n in graph.nodes}
        peak, current = torch_tracker(graph, [by_name[n] for n in s["order"]])
        out.append({"name": s["name"], "graph": s["graph"], "tracker_peak": peak, "tracker_current": current})
    return out


def add_schedules(
    doc: GraphFileDoc,
    graphs: list[tuple[str, fx.GraphModule | fx.Graph]],
    *,
    estimate: Estimate | None = None,
    options: Mapping[str, Any] | None = None,
    cache: dict[int, tuple[Any, ScheduleDoc | None]] | None = None,
) -> None:
    """Add ``"schedules"`` (see :func:`overlap_schedules`) to a document built by
    ``build_document``, and their MemoryTracker numbers to its reference block if it has one."""
    found = overlap_schedules(graphs, estimate=estimate, options=options, cache=cache)
    if not found:
        return
    doc["schedules"] = found
    if "reference" in doc:
        plain = {name: (g.graph if isinstance(g, fx.GraphModule) else g) for name, g in graphs}
        doc["reference"]["schedules"] = reference_entries(plain, found)
