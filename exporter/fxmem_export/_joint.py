"""The joint forward+backward graph AOTAutograd hands to its partition function, and what the
file says about it: ``num_fwd_outputs`` and each node's phase (see docs/format.md)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
import torch.fx as fx

from .errors import ArgumentError, ArgumentTypeError

# GraphModule meta key: the joint graph's num_fwd_outputs (the partitioner's argument).
NUM_FWD_META = "fxmem_num_fwd_outputs"


@dataclass
class JointCapture:
    """What AOTAutograd passed to the partition function, kept so that the same joint graph can
    be partitioned again (one per memory budget). ``gm`` is an untouched copy: the partitioner
    changes the graph it is given (dead-code elimination, CSE, recompute tags)."""

    gm: fx.GraphModule
    joint_inputs: Any
    num_fwd_outputs: int
    static_lifetime_input_indices: list[int] | None


def copy_graph_module(gm: fx.GraphModule) -> fx.GraphModule:
    """A copy with the same node names whose nodes share ``meta`` values (the same FakeTensors,
    so storage identity is kept) but own their ``meta`` dicts (tags set later stay local)."""
    graph = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    for node in gm.graph.nodes:
        env[node] = graph.node_copy(node, lambda n: env[n])
    for old, new in env.items():
        if old.name != new.name:  # pragma: no cover - a fresh graph keeps the names
            raise AssertionError(f"node {old.name} renamed to {new.name} while copying")
    copy = fx.GraphModule(gm, graph)
    copy.meta = dict(getattr(gm, "meta", None) or {})
    return copy


def _is_forward_input(node: fx.Node) -> bool:
    """A placeholder the forward takes: primals and forward RNG seeds/offsets (AOTAutograd's
    naming; tangents and backward seeds belong to the backward)."""
    if node.op != "placeholder":
        return False
    target = str(node.target)
    return "tangents" not in target and "bwd_seed" not in target and "bwd_base_offset" not in target


def _must_be_in_backward(node: fx.Node) -> bool:
    tag = node.meta.get("partitioner_tag")
    if tag == "must_be_in_backward":
        return True
    mutable = isinstance(node.target, torch._ops.OpOverload) and node.target._schema.is_mutable
    return tag == "is_backward" and mutable


def forward_nodes(graph: fx.Graph, num_fwd_outputs: int) -> set[fx.Node]:
    """The joint graph's forward nodes: those of the graph extracted from the forward inputs to
    the first ``num_fwd_outputs`` outputs (as the min-cut partitioner's "required forward
    nodes"): every forward input, and every node computable from forward inputs alone that a
    forward output, or a side-effecting forward node, needs. One pass forward, one back."""
    computable: set[fx.Node] = set()
    for node in graph.nodes:
        if node.op == "placeholder":
            if _is_forward_input(node):
                computable.add(node)
        elif node.op == "get_attr":
            computable.add(node)
        elif node.op == "call_function" and not _must_be_in_backward(node):
            if all(i in computable for i in node.all_input_nodes):
                computable.add(node)
    outputs = [n for n in graph.nodes if n.op == "output"]
    flat = torch.utils._pytree.arg_tree_leaves(*outputs[0].args) if outputs else []
    impure_random = bool(torch._inductor.config.fallback_random)  # as DCE inside a compile
    roots = [n for n in flat[:num_fwd_outputs] if isinstance(n, fx.Node)]
    roots += [n for n in computable if n.op == "call_function" and n.is_impure(impure_random)]
    needed: set[fx.Node] = set()
    stack = [n for n in roots if n in computable]
    while stack:
        node = stack.pop()
        if node in needed:
            continue
        needed.add(node)
        stack.extend(i for i in node.all_input_nodes if i in computable and i not in needed)
    return {n for n in computable if n.op == "placeholder"} | needed


def distinct_forward_outputs(graph: fx.Graph, num_fwd_outputs: int) -> int:
    """How many of the output node's ``inputs`` in the file (``all_input_nodes``: each node once,
    non-nodes skipped) are forward outputs: the distinct nodes among the first
    ``num_fwd_outputs`` outputs. It equals ``num_fwd_outputs`` unless a forward output is None,
    not a node, or repeated; the file's ``num_fwd_outputs`` is this count, so that a reader
    splits the output node's inputs at it."""
    outputs = [n for n in graph.nodes if n.op == "output"]
    flat = torch.utils._pytree.arg_tree_leaves(*outputs[0].args) if outputs else []
    return len(dict.fromkeys(n for n in flat[:num_fwd_outputs] if isinstance(n, fx.Node)))


def phases(graph: fx.Graph, num_fwd_outputs: int) -> dict[str, str]:
    """{node name: "forward" | "backward"} for every node of a joint graph."""
    fwd = forward_nodes(graph, num_fwd_outputs)
    return {n.name: "forward" if n in fwd else "backward" for n in graph.nodes}


def num_fwd_outputs_of(graph: fx.Graph) -> int | None:
    gm = getattr(graph, "owning_module", None)
    value = (getattr(gm, "meta", None) or {}).get(NUM_FWD_META)
    return value if isinstance(value, int) else None


def attach_joint(joint: Any, num_fwd_outputs: int | None) -> fx.Graph:
    """The graph of a joint GraphModule for ``save(joint=...)``, with ``num_fwd_outputs`` put on
    the module (or the value the backend recorded there)."""
    if not isinstance(joint, fx.GraphModule):
        raise ArgumentTypeError(f"joint must be a torch.fx.GraphModule, got {type(joint).__name__}")
    if joint.graph.owning_module is not joint:  # a graph shared by modules: the reader needs this one
        joint = copy_graph_module(joint)
    if num_fwd_outputs is not None:
        if isinstance(num_fwd_outputs, bool) or not isinstance(num_fwd_outputs, int) or num_fwd_outputs < 0:
            raise ArgumentError(f"num_fwd_outputs must be an integer >= 0, got {num_fwd_outputs!r}")
        joint.meta[NUM_FWD_META] = num_fwd_outputs
    elif num_fwd_outputs_of(joint.graph) is None:
        raise ArgumentError("save(joint=...): pass num_fwd_outputs (the partitioner's argument: how many of "
                            "the joint output's first values are forward outputs)")
    graph: fx.Graph = joint.graph
    return graph
