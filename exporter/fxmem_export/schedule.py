"""Apply a saved schedule (a node order, e.g. found by fxmem) to an FX graph."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, cast

import torch
import torch.fx as fx

from ._json_file import file_problem
from .errors import ArgumentTypeError, ScheduleError
from .format_types import ScheduleFileDoc

__all__ = ["MAX_SCHEDULE_BYTES", "apply_schedule", "check_schedule", "load_schedule", "place_in_order"]

MAX_SCHEDULE_BYTES = 256 << 20  # an order of 10 million nodes


def _names(names: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(repr(n) for n in list(names)[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def load_schedule(schedule: str | os.PathLike[str] | Mapping[str, Any]) -> ScheduleFileDoc:
    """Read and check the shape of a schedule ``{"graph": NAME, "order": [node names]}``."""
    if isinstance(schedule, Mapping):
        data: Any = dict(schedule)
        where = "schedule"
    else:
        where = os.fspath(schedule)
        problem = file_problem(where, MAX_SCHEDULE_BYTES, "schedule")  # a FIFO hung in open()
        if problem is not None:
            raise ScheduleError(f"cannot read schedule {where!r}: {problem}")
        try:
            with open(where, "rb") as f:
                raw = f.read(MAX_SCHEDULE_BYTES + 1)
            if len(raw) > MAX_SCHEDULE_BYTES:  # it grew since the check
                raise ScheduleError(f"cannot read schedule {where!r}: it has more than the {MAX_SCHEDULE_BYTES} "
                                    "bytes a schedule may have")
            data = json.loads(raw.decode("utf-8"))  # decoded whole: the error's offset is the file's
        except OSError as e:
            raise ScheduleError(f"cannot read schedule {where!r}: {e.strerror or e}") from e
        except json.JSONDecodeError as e:
            raise ScheduleError(f"schedule {where!r} is not valid JSON: {e}") from e
        except UnicodeDecodeError as e:
            raise ScheduleError(
                f"schedule {where!r} is not valid UTF-8 (byte {e.start}: {e.reason}); a schedule is a "
                "JSON file in UTF-8 as fxmem saves it") from e
        except RecursionError as e:
            raise ScheduleError(
                f"schedule {where!r} is nested too deeply to read; a schedule is "
                "{\"graph\": NAME, \"order\": [node names]}") from e
    if not isinstance(data, dict):
        raise ScheduleError(f"{where}: a schedule must be a JSON object {{\"graph\": NAME, \"order\": [...]}}")
    order = data.get("order")
    if not isinstance(order, list) or not all(isinstance(n, str) for n in order):
        raise ScheduleError(f"{where}: \"order\" must be a list of node names (strings)")
    graph = data.get("graph")
    if graph is not None and not isinstance(graph, str):
        raise ScheduleError(f"{where}: \"graph\" must be a string (the graph name in the fxmem file)")
    return cast(ScheduleFileDoc, data)  # its shape checked above


def _mutated_inputs(node: fx.Node) -> list[fx.Node]:
    """Input nodes an in-place/out= op writes to (from the op schema's alias info)."""
    target = node.target
    if node.op != "call_function" or not isinstance(target, torch._ops.OpOverload):
        return []
    out: list[fx.Node] = []
    schema = target._schema
    for i, arg in enumerate(schema.arguments):
        if arg.alias_info is None or not arg.alias_info.is_write:
            continue
        value = node.args[i] if i < len(node.args) else node.kwargs.get(arg.name)
        for leaf in torch.utils._pytree.tree_leaves(value):
            if isinstance(leaf, fx.Node):
                out.append(leaf)
    return out


def check_schedule(graph: fx.Graph, order: Sequence[str], graph_name: str | None = None,
                   schedule_graph: str | None = None) -> list[fx.Node]:
    """Check that ``order`` is a legal order of ``graph``'s nodes; return the nodes in that
    order. Raises ScheduleError saying exactly what does not fit."""
    nodes = list(graph.nodes)
    by_name = {n.name: n for n in nodes}
    for_other = ""
    if schedule_graph is not None and graph_name is not None and schedule_graph != graph_name:
        raise ScheduleError(
            f"the schedule is for graph {schedule_graph!r}, not {graph_name!r}: use the schedule saved "
            f"for {graph_name!r} (or pass graph_name={schedule_graph!r} if this is that graph)"
        )
    if schedule_graph is not None:
        for_other = f" (the schedule is for graph {schedule_graph!r})"
    counts = Counter(order)
    repeated = sorted(n for n, c in counts.items() if c > 1)
    missing = [n.name for n in nodes if n.name not in counts]
    extra = [n for n in order if n not in by_name]
    problems = []
    if missing:
        problems.append(f"missing {len(missing)} node(s): {_names(missing)}")
    if extra:
        problems.append(f"{len(extra)} name(s) not in the graph: {_names(extra)}")
    if repeated:
        problems.append(f"repeated name(s): {_names(repeated)}")
    if problems:
        raise ScheduleError(
            "the schedule does not list every node of this graph exactly once" + for_other + ": "
            + "; ".join(problems) + ". Use a schedule saved for this very graph."
        )
    position = {name: i for i, name in enumerate(order)}
    scheduled = [by_name[n] for n in order]
    outputs = [n for n in nodes if n.op == "output"]
    if outputs and order[-1] != outputs[0].name:
        raise ScheduleError(
            f"the output node {outputs[0].name!r} must be last in the schedule, found it at position "
            f"{position[outputs[0].name]} of {len(order)}"
        )
    for node in scheduled:
        late = [i.name for i in node.all_input_nodes if position[i.name] > position[node.name]]
        if late:
            raise ScheduleError(
                f"the schedule puts node {node.name!r} (position {position[node.name]}) before its "
                f"input(s) {_names(late)}; every node must come after its inputs"
            )
    original = {n: i for i, n in enumerate(nodes)}
    for node in nodes:
        for target in _mutated_inputs(node):
            for user in target.users:
                if user is node:
                    continue
                if (original[user] < original[node]) != (position[user.name] < position[node.name]):
                    raise ScheduleError(
                        f"node {node.name!r} writes to {target.name!r} in place, and the schedule moves "
                        f"{user.name!r} (which also uses {target.name!r}) across it; keep the order of "
                        "the in-place write and the other uses of that value"
                    )
    return scheduled


def apply_schedule(gm: fx.GraphModule, schedule_path: str | os.PathLike[str] | Mapping[str, Any],
                   *, graph_name: str | None = None) -> fx.GraphModule:
    """Reorder ``gm``'s nodes (in place) to a saved schedule ``{"graph": NAME, "order": [...]}``.

    The schedule must name every node of the graph exactly once, put each node after its inputs
    and the output node last, and keep in-place writes ordered with the other uses of what they
    write. If ``graph_name`` is given, the schedule's "graph" must equal it. Placeholders keep
    their original relative order and come first: their order is the call signature, and the
    memory estimator counts inputs as live from the start anyway. The graph is linted and
    recompiled; the GraphModule is returned.
    """
    if not isinstance(gm, fx.GraphModule):
        raise ArgumentTypeError(f"apply_schedule needs a torch.fx.GraphModule, got {type(gm).__name__}")
    data = load_schedule(schedule_path)
    graph = gm.graph
    scheduled = check_schedule(graph, data["order"], graph_name=graph_name, schedule_graph=data.get("graph"))
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    return place_in_order(gm, placeholders + [n for n in scheduled if n.op != "placeholder"])


def place_in_order(gm: fx.GraphModule, nodes: list[fx.Node]) -> fx.GraphModule:
    """Move ``nodes`` (already checked: inputs first) to the front of ``gm``'s graph in this
    order; nodes not listed keep their place after them. Lints and recompiles ``gm``."""
    graph = gm.graph
    anchor = None
    for node in nodes:
        if anchor is None:
            first = next(iter(graph.nodes))
            if first is not node:
                first.prepend(node)
        else:
            anchor.append(node)
        anchor = node
    graph.lint()
    gm.recompile()
    return gm
