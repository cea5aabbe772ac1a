from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

import torch.fx as fx

from ._serialize import build_document, write_json_atomic
from .format_types import GraphFileDoc, PairInfo
from .errors import ArgumentError, ArgumentTypeError


def _graph_of(obj: Any, what: str) -> fx.Graph:
    if isinstance(obj, fx.GraphModule):
        return obj.graph
    if isinstance(obj, fx.Graph):
        return obj
    raise ArgumentTypeError(f"{what} must be a torch.fx.GraphModule or torch.fx.Graph, got {type(obj).__name__}")


def save(
    path: str | os.PathLike[str],
    forward: fx.GraphModule | fx.Graph,
    backward: fx.GraphModule | fx.Graph | None = None,
    *,
    inference: bool = False,
    reference: bool = False,
    producer: Mapping[str, Any] | None = None,
    overlap: bool = False,
    overlap_options: Mapping[str, Any] | None = None,
    overlap_estimate: Callable[..., Any] | None = None,
    joint: fx.GraphModule | None = None,
    num_fwd_outputs: int | None = None,
    optimizer: Any = None,
    model: Any = None,
) -> GraphFileDoc:
    """Write an fxmem file (format v1) for one compiled graph or one forward/backward pair.

    ``forward``/``backward`` are FX GraphModules (or Graphs) whose nodes carry FakeTensors in
    ``meta["val"]``, e.g. the graphs AOTAutograd hands to ``fw_compiler``/``bw_compiler``.
    Graphs are named "forward" and "backward" (a pair is written when both are given), or
    "inference" (kind "inference") when ``inference=True``. With ``reference=True`` the file
    gets a "reference" block with what torch's memory_estimator computes on these graphs.
    ``producer`` adds free-form keys to the "producer" object. With ``overlap=True`` every graph
    that has collectives gets Inductor's overlap order as the schedule "inductor-overlap"
    (``overlap_options``/``overlap_estimate``: see fxmem_export.overlap). ``joint``: the joint
    forward+backward GraphModule the pair was partitioned from, written as graph "joint" (kind
    "joint", the pair's "joint" key); ``num_fwd_outputs`` is the partitioner's argument (default:
    what the fxmem backend recorded on the GraphModule). ``optimizer``: a torch.optim optimizer
    whose state (exp_avg, ...) is written as storages of role ``optimizer_state``, labelled with
    the parameters' names in ``model`` (an nn.Module) when given, else ``param_groups[g][i]``.
    The file is written atomically. Returns the written document (a dict).
    """
    if overlap:
        from .overlap import pass_options

        pass_options(overlap_options)  # a bad option fails before anything is written
    fwd = _graph_of(forward, "forward")
    if inference:
        if backward is not None or joint is not None:
            raise ArgumentError("inference=True exports a single graph; do not pass a backward or joint graph")
        graphs = [("inference", "inference", fwd)]
        pairs: list[tuple[str, str] | tuple[str, str, PairInfo]] = []
    else:
        graphs = [("forward", "forward", fwd)]
        pairs = []
        if backward is not None:
            graphs.append(("backward", "backward", _graph_of(backward, "backward")))
            pairs.append(("forward", "backward"))
        if joint is not None:
            from ._joint import attach_joint

            graphs.append(("joint", "joint", attach_joint(joint, num_fwd_outputs)))
            if pairs:
                pairs = [("forward", "backward", {"joint": "joint"})]
    doc = build_document(graphs, pairs, reference=reference, producer=producer)
    if optimizer is not None:
        from ._optimizer import add_optimizer_state, names_in

        add_optimizer_state(doc, optimizer, names_in(model))
    if overlap:
        from .overlap import add_schedules

        originals = {"forward": forward, "inference": forward}  # not the joint graph
        if backward is not None:
            originals["backward"] = backward
        add_schedules(doc, [(name, originals[name]) for name, _, _ in graphs if name in originals],
                      estimate=overlap_estimate, options=overlap_options)
    write_json_atomic(path, doc)
    return doc
