"""Apply an fxmem recompute plan (``fxmem-cli remat FILE -o PLAN.json``) in PyTorch.

``apply_remat(plan)`` returns a joint-graph pass that tags every forward node with the
``torch.utils.checkpoint.CheckpointPolicy`` the plan chose, the tags selective activation
checkpointing uses: ``MUST_RECOMPUTE`` on the nodes the plan recomputes in the backward,
``MUST_SAVE`` on every other node the primals alone compute. The min-cut partitioner
(``min_cut_rematerialization_partition``) then saves what the plan saves. Use it as
``torch._inductor.config.joint_custom_pre_pass`` in a training script, or through
``fxmem_export.backend(path, inner="partition", remat=PLAN)``, which also puts the backward in
the plan's order (as ``apply_schedule`` does) and checks that the partition is the plan's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

import torch.fx as fx

from .schedule import place_in_order


class RematPlanError(ValueError):
    """A plan file that is malformed or does not fit the graph it is applied to."""


def load_plan(plan: str | os.PathLike[str] | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """(plan, source): the plan read from a path (or taken as a mapping) with its shape checked;
    ``source`` names it in messages (the path, or "<plan>")."""
    if isinstance(plan, Mapping):
        data, source = dict(plan), "<plan>"
    else:
        source = os.fspath(plan)
        try:
            with open(source, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as e:
            raise RematPlanError(f"{source}: cannot read the plan: {e.strerror or e}") from e
        except json.JSONDecodeError as e:
            raise RematPlanError(f"{source}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from e
    if not isinstance(data, dict) or data.get("format") != "fxmem-remat":
        raise RematPlanError(f"{source}: not a remat plan: 'format' must be \"fxmem-remat\"")
    if data.get("version") != 1:
        raise RematPlanError(f"{source}: unsupported plan version {data.get('version')!r} (this reads version 1)")
    if not isinstance(data.get("joint"), str):
        raise RematPlanError(f"{source}: 'joint' must be the joint graph's name (a string)")
    for key, required in (("saved", True), ("recomputed", False), ("order", False)):
        if key not in data:
            if required:
                raise RematPlanError(f"{source}: missing '{key}'")
            data[key] = []
        value = data[key]
        if not isinstance(value, list):
            raise RematPlanError(f"{source}: '{key}' must be an array of node names")
        for i, name in enumerate(value):
            if not isinstance(name, str):
                raise RematPlanError(f"{source}: {key}[{i}] must be a node name (a string)")
    return data, source


def _is_tangent(node: fx.Node) -> bool:
    return node.op == "placeholder" and "tangents" in str(node.target)


def _primal_computable(graph: fx.Graph) -> set[fx.Node]:
    """Nodes the primals alone compute (no tangent among their ancestors)."""
    out: set[fx.Node] = set()
    for node in graph.nodes:
        if node.op == "placeholder":
            if not _is_tangent(node) and not any(s in str(node.target) for s in ("seed", "base_offset")):
                out.add(node)
        elif node.op == "get_attr":
            out.add(node)
        elif node.op != "output" and all(i in out for i in node.all_input_nodes):
            out.add(node)
    return out


def tag_joint_graph(graph: fx.Graph, data: Mapping[str, Any], source: str = "<plan>") -> None:
    """Tag ``graph`` (a joint graph) per the plan: MUST_RECOMPUTE on the nodes the plan's backward
    computes (its recomputed nodes, and the nodes in its order that the primals compute), MUST_SAVE
    on every other node the primals compute. Raises RematPlanError naming the plan and the node when a name is not in the graph."""
    from torch.utils.checkpoint import CheckpointPolicy

    by_name = {n.name: n for n in graph.nodes}
    for key in ("saved", "recomputed", "order"):
        for i, name in enumerate(data.get(key, [])):
            if name not in by_name:
                raise RematPlanError(
                    f"{source}: {key}[{i}]: unknown node {name!r}: the joint graph has no such node "
                    f"(is the plan for another graph? it names joint {data.get('joint')!r})")
    computable = _primal_computable(graph)
    saved = set(data["saved"])
    for i, name in enumerate(data["saved"]):
        if by_name[name] not in computable:
            raise RematPlanError(f"{source}: saved[{i}]: {name!r} cannot be saved: it needs a tangent")
    # The backward computes the recomputed nodes and, of the nodes the primals compute, every
    # other one in its order (those the forward outputs do not need): all MUST_RECOMPUTE.
    in_backward = set(data.get("recomputed", [])) | set(data.get("order", []))
    for node in graph.nodes:
        if node.op != "call_function" or node not in computable:
            continue
        recompute = node.name in in_backward and node.name not in saved
        node.meta["recompute"] = CheckpointPolicy.MUST_RECOMPUTE if recompute else CheckpointPolicy.MUST_SAVE


def apply_remat(plan: str | os.PathLike[str] | Mapping[str, Any]) -> Callable[[fx.Graph], None]:
    """A joint-graph pass ``(graph) -> None`` that tags the forward nodes per ``plan`` (a path to
    a plan file or its mapping): for ``torch._inductor.config.joint_custom_pre_pass``. The plan is
    read and checked now; a malformed plan raises RematPlanError naming the file."""
    data, source = load_plan(plan)

    def remat_pass(graph: fx.Graph) -> None:
        tag_joint_graph(graph, data, source)

    remat_pass.plan = data  # type: ignore[attr-defined]
    return remat_pass


def reorder_backward(gm: fx.GraphModule, data: Mapping[str, Any], source: str = "<plan>") -> fx.GraphModule:
    """Put ``gm`` (the backward) in the plan's order: placeholders first, then the plan's "order"
    (every other node exactly once), the output node last. Raises RematPlanError on a mismatch."""
    order = list(data.get("order", []))
    if not order:
        return gm
    graph = gm.graph
    by_name = {n.name: n for n in graph.nodes}
    body = [n for n in graph.nodes if n.op not in ("placeholder", "output")]
    names = {n.name for n in body}
    for i, name in enumerate(order):
        if name not in names:
            raise RematPlanError(f"{source}: order[{i}]: {name!r} is not a node of the backward PyTorch built")
    missing = [n.name for n in body if n.name not in set(order)]
    if missing or len(order) != len(body):
        raise RematPlanError(f"{source}: 'order' does not list the backward's nodes exactly once"
                             + (f" (it lacks {missing[0]!r})" if missing else ""))
    placed: set[fx.Node] = {n for n in graph.nodes if n.op == "placeholder"}
    for i, name in enumerate(order):
        for inp in by_name[name].all_input_nodes:
            if inp not in placed:
                raise RematPlanError(f"{source}: order[{i}]: {name!r} comes before its input {inp.name!r}")
        placed.add(by_name[name])
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    return place_in_order(gm, placeholders + [by_name[name] for name in order])


def check_computable(graph: fx.Graph, data: Mapping[str, Any], num_fwd_outputs: int, source: str = "<plan>") -> None:
    """Raise RematPlanError when the plan's saved values and the tangents cannot compute a gradient
    (the backward would need a forward value that is neither saved nor recomputable from them)."""
    from torch.utils import _pytree as pytree

    out = next(iter(graph.find_nodes(op="output")))
    outputs = pytree.arg_tree_leaves(*out.args)[num_fwd_outputs:]
    inputs = set(data["saved"])
    valid: dict[fx.Node, bool] = {}
    for node in graph.nodes:
        if node.name in inputs or _is_tangent(node) or node.op == "get_attr":
            valid[node] = True
        elif node.op == "placeholder":
            valid[node] = False
        elif node.op != "output":
            valid[node] = all(valid[i] for i in node.all_input_nodes)
    for o in outputs:
        if isinstance(o, fx.Node) and not valid[o]:
            lack = o
            while lack.op != "placeholder":
                bad = [i for i in lack.all_input_nodes if not valid[i]]
                if not bad:
                    break
                lack = bad[0]
            raise RematPlanError(
                f"{source}: the saved values leave the backward unable to compute {o.name!r}: it needs "
                f"{lack.name!r}, which is neither saved nor computable from saved values")


class PlanApplication:
    """A plan applied around the min-cut partition (the backend's ``remat=PLAN``): ``before``
    tags the joint graph and checks that the saved values can compute the gradients; ``after``
    checks that the backward saves exactly the plan's values and puts it in the plan's order."""

    def __init__(self, plan: str | os.PathLike[str] | Mapping[str, Any]) -> None:
        self.data, self.source = load_plan(plan)

    def before(self, joint: fx.GraphModule, num_fwd_outputs: int | None) -> None:
        tag_joint_graph(joint.graph, self.data, self.source)
        if num_fwd_outputs is not None:
            check_computable(joint.graph, self.data, num_fwd_outputs, self.source)

    def after(self, fw: fx.GraphModule, bw: fx.GraphModule) -> tuple[fx.GraphModule, fx.GraphModule]:
        data, source = self.data, self.source
        got = [n.name for n in bw.graph.find_nodes(op="placeholder") if not _is_tangent(n)]
        if set(got) != set(data["saved"]):
            extra = sorted(set(got) - set(data["saved"]))
            lacking = sorted(set(data["saved"]) - set(got))
            raise RematPlanError(
                f"{source}: PyTorch's partition under the plan saves other values than the plan"
                + (f"; also saves {extra[:5]}" if extra else "") + (f"; does not save {lacking[:5]}" if lacking else ""))
        return fw, reorder_backward(bw, data, source)


def remat_partition_fn(inner: Callable[..., Any], plan: str | os.PathLike[str] | Mapping[str, Any]) -> Callable[..., Any]:
    """Wrap a partition function ``inner(joint, joint_inputs, **kwargs) -> (fw, bw)``: tag the
    joint graph per the plan, partition, check that the backward saves exactly the plan's
    values, reorder the backward."""
    application = PlanApplication(plan)

    def partition(joint_module: fx.GraphModule, joint_inputs: Any, **kwargs: Any) -> Any:
        application.before(joint_module, kwargs.get("num_fwd_outputs"))
        fw, bw = inner(joint_module, joint_inputs, **kwargs)
        return application.after(fw, bw)

    return partition
