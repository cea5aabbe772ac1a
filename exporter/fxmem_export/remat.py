"""Apply an fxmem recompute plan (``fxmem-cli remat FILE -o PLAN.json``) in PyTorch.

``apply_remat(plan)`` returns a joint-graph pass for
``torch._inductor.config.joint_custom_post_pass``: Inductor runs it on the joint graph right
before the partitioner. It tags every node the primals compute with the
``torch.utils.checkpoint.CheckpointPolicy`` the plan implies (``MUST_RECOMPUTE`` on what the
plan's backward computes, ``MUST_SAVE`` on the rest), so that PyTorch's min-cut partitioner
(``min_cut_rematerialization_partition``) saves what the plan saves.

The plan's node names are those of the file's joint graph *as partitioned*: the partitioner
first removes dead code and merges duplicates (``fx_graph_cse``), and the file records that
graph. The pass therefore looks at the graph as the partitioner will (a copy, with the same dead
code removal and CSE), finds each plan node there by its key (op, innermost module, occurrence
of that (op, module) in graph order; checked against its dtype and shape), or by name in plans
without keys, and tags the nodes of the graph it is given that keep those names.

What a tag can force is the partitioner's own rule (torch/_functorch/partitioners.py):

* ``MUST_RECOMPUTE`` always puts a node in the backward (``solve_min_cut``: an infinite edge to
  the sink), but on a random op (``torch.Tag.nondeterministic_seeded``, the test of
  ``has_recomputable_rng_ops``) the partitioner then saves the RNG state and replays it
  (``functionalize_rng_ops``), a partition the plan does not describe: such plans are refused.
* ``MUST_SAVE`` bans recomputation of a required forward node that is a call, not a getitem
  and not a view op (``should_ban_recomputation`` and ``ban_recomputation_if_allowed``); primals
  are always banned. Any other saved node is the partitioner's choice (``fxmem-cli remat`` only
  writes plans where that choice is the plan's); the report lists them.
* the partitioner's own tag passes (``cleanup_recompute_tags``, ``force_save_collectives``,
  ``force_save_effectful_ops``, ``force_save_bw_mutation_src``) run on the tagged copy first; a
  plan they would overrule is refused, naming the node.
* ``activation_memory_budget`` below 1 makes the partitioner drop tags (at 0 it saves only the
  inputs), so the pass sets the joint graph's budget to 1.0 (``node.meta["memory_budget"]``,
  which ``min_cut_rematerialization_partition`` reads before the config).

``remat_partitioner(plan)`` (for ``torch._inductor.config.custom_partitioner_fn``) also checks
the partition PyTorch made against the plan and puts the backward in the plan's order;
``fxmem_export.backend(path, remat=PLAN)`` does the same in a capture (``PlanApplication``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import operator
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import torch
import torch.fx as fx

from ._json_file import read_json_file, shown
from .errors import RematPlanError  # also importable from here, as before
from .format_types import RematPlanDoc
from .schedule import place_in_order

__all__ = [
    "MAX_PLAN_BYTES", "PLAN_KEYS", "PlanApplication", "RematPlanError", "RematReport", "apply_remat",
    "check_computable", "is_seeded", "load_plan", "min_cut_view", "num_fwd_outputs_of", "remat_partitioner",
    "reorder_backward", "tag_joint_graph",
]

log = logging.getLogger(__name__)

PLAN_KEYS: tuple[Literal["saved", "recomputed", "order"], ...] = ("saved", "recomputed", "order")
MAX_PLAN_BYTES = 256 << 20  # fxmem-cli writes about 100 bytes a node: 2.5 million nodes
MAX_PLAN_DEPTH = 16  # a plan nests 3 levels below its object (nodes, a key, its shape); as the CLI
_TOO_DEEP = f": nested more than {MAX_PLAN_DEPTH} levels deep: not a remat plan"


# -- plan files ---------------------------------------------------------------------------------

def _check_node_key(value: Any, name: str, source: str) -> None:
    """A "nodes" entry: [target, module or null, occurrence, shape or null, dtype or null]."""
    where = f"{source}: nodes[{name!r}]"
    if not isinstance(value, list) or len(value) != 5:
        raise RematPlanError(f"{where} must be [target, module, occurrence, shape, dtype]")
    target, module, occurrence, shape, dtype = value
    if not isinstance(target, str):
        raise RematPlanError(f"{where}: the target must be a string")
    if module is not None and not isinstance(module, str):
        raise RematPlanError(f"{where}: the module must be a string or null")
    if isinstance(occurrence, bool) or not isinstance(occurrence, int) or occurrence < 0:
        raise RematPlanError(f"{where}: the occurrence must be an integer >= 0")
    if shape is not None and not (isinstance(shape, list) and all(isinstance(d, int) and not isinstance(d, bool)
                                                                  for d in shape)):
        raise RematPlanError(f"{where}: the shape must be an array of integers or null")
    if dtype is not None and not isinstance(dtype, str):
        raise RematPlanError(f"{where}: the dtype must be a string or null")


def _is_int(value: Any) -> bool:
    """A JSON integer: not a float (``1.0``) and not a bool (``true``, an int in Python)."""
    return type(value) is int


def _depth_over(value: Any, limit: int) -> bool:
    """Whether a value nests deeper than ``limit`` (the top value is at depth 0, its items at 1)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, (list, dict)):
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def _value(value: Any) -> str:
    """A value for a message: a scalar as JSON writes it (escaped), else its kind."""
    if isinstance(value, (list, dict)):
        return "an array" if isinstance(value, list) else "an object"
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        return f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def load_plan(plan: str | bytes | os.PathLike[str] | Mapping[str, Any]) -> tuple[RematPlanDoc, str]:
    """(plan, source): the plan read from a path (or taken as a mapping) with its shape checked as
    ``fxmem-cli remat --plan`` checks it; ``source`` names it in messages (the path, with control
    characters escaped, or "<plan>"). A path must name a regular file of at most
    ``MAX_PLAN_BYTES`` holding strict JSON (no duplicate keys, no NaN)."""
    if isinstance(plan, Mapping):
        data: Any = dict(plan)
        source = "<plan>"
    elif not isinstance(plan, (str, bytes, os.PathLike)):
        raise RematPlanError(f"a plan is a path or a mapping, got {type(plan).__name__}")
    else:
        path = os.fsdecode(os.fspath(plan))
        source = shown(path)
        data = read_json_file(path, MAX_PLAN_BYTES, RematPlanError, "plan", too_deep=_TOO_DEEP)
    if _depth_over(data, MAX_PLAN_DEPTH):
        raise RematPlanError(f"{source}{_TOO_DEEP}")
    if not isinstance(data, dict):
        raise RematPlanError(f"{source}: a remat plan must be a JSON object")
    if data.get("format") != "fxmem-remat":
        raise RematPlanError(f"{source}: not a remat plan: 'format' must be \"fxmem-remat\"")
    version = data.get("version")
    if not (_is_int(version) and version == 1):
        raise RematPlanError(f"{source}: unsupported plan version {_value(version)} (this build reads version 1)")
    if not isinstance(data.get("joint"), str):
        raise RematPlanError(f"{source}: 'joint' must be the joint graph's name (a string)")
    for key, required in (("saved", True), ("recomputed", False), ("order", False)):
        if key not in data:
            if required:
                raise RematPlanError(f"{source}: missing '{key}'")
            continue
        value = data[key]
        if not isinstance(value, list):
            raise RematPlanError(f"{source}: '{key}' must be an array of node names")
        first: dict[str, int] = {}
        for i, name in enumerate(value):
            if not isinstance(name, str):
                raise RematPlanError(f"{source}: {key}[{i}] must be a node name (a string)")
            if key == "saved" and name in first:  # as fxmem-cli: a value saved twice is a mistake
                raise RematPlanError(f"{source}: saved[{i}]: {name!r} is listed twice (also saved[{first[name]}])")
            first.setdefault(name, i)
    for key in ("peak", "extra_flops"):  # what fxmem-cli predicted: read by the CLI, checked alike
        low = 0 if key == "peak" else -(1 << 63)  # extra_flops may be negative, a peak may not
        if key in data and not (_is_int(data[key]) and low <= data[key] < (1 << 63)):
            raise RematPlanError(
                f"{source}: '{key}' must be an integer from {'0' if low == 0 else '-2^63'} to 2^63-1")
    nodes = data.get("nodes")
    if nodes is None:  # absent or null: no keys, as the CLI reads it
        nodes = {}
    if not isinstance(nodes, dict):
        raise RematPlanError(f"{source}: 'nodes' must be an object: node name -> its key")
    for name, value in nodes.items():
        _check_node_key(value, name, source)
    return cast(RematPlanDoc, data), source  # its shape checked above


# -- the joint graph as the partitioner sees it ------------------------------------------------

def _copy(graph: fx.Graph) -> fx.GraphModule:
    """A copy with the same node names; each node owns a shallow copy of its ``meta``."""
    new = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    for node in graph.nodes:
        env[node] = new.node_copy(node, lambda n: env[n])
    root = graph.owning_module if graph.owning_module is not None else torch.nn.Module()
    return fx.GraphModule(root, new)


def min_cut_view(graph: fx.Graph) -> fx.GraphModule:
    """A copy of the joint graph as ``min_cut_rematerialization_partition`` partitions it: dead
    code removed, then ``fx_graph_cse`` (when ``torch._functorch.config.cse``). Node names are
    kept, so the file's cut joint graph and this copy name the same nodes alike."""
    from torch._functorch import config as functorch_config
    from torch._functorch.compile_utils import fx_graph_cse

    gm = _copy(graph)
    gm.graph.eliminate_dead_code()
    if functorch_config.cse:
        gm.graph = fx_graph_cse(gm.graph)
    return gm


def _output(graph: fx.Graph) -> fx.Node:
    node: fx.Node = next(iter(graph.find_nodes(op="output")))
    return node


def num_fwd_outputs_of(graph: fx.Graph) -> int | None:
    """How many of the joint graph's outputs are forward outputs, from AOTAutograd's output
    descriptors (``meta["desc"]``: the gradients are ``GradAOTOutput``); None without them."""
    from torch.utils import _pytree as pytree

    out = _output(graph)
    descs = out.meta.get("desc")
    if descs is None:
        return None
    try:
        from torch._functorch._aot_autograd.descriptors import GradAOTOutput
    except ImportError:  # pragma: no cover - older torch
        return None
    flat = pytree.arg_tree_leaves(descs)
    if len(flat) != len(pytree.arg_tree_leaves(*out.args)):
        return None
    return next((i for i, d in enumerate(flat) if isinstance(d, GradAOTOutput)), len(flat))


def _is_tangent(node: fx.Node) -> bool:
    return node.op == "placeholder" and "tangents" in str(node.target)


def _primal_computable(graph: fx.Graph) -> set[fx.Node]:
    """Nodes the primals alone compute (no tangent among their ancestors)."""
    from torch._functorch.partitioners import _is_primal

    out: set[fx.Node] = set()
    for node in graph.nodes:
        if node.op == "placeholder":
            if _is_primal(node):
                out.add(node)
        elif node.op == "get_attr":
            out.add(node)
        elif node.op != "output" and all(i in out for i in node.all_input_nodes):
            out.add(node)
    return out


def is_seeded(node: fx.Node) -> bool:
    """A random op: the partitioner's test for RNG ops it must functionalize when recomputed
    (``has_recomputable_rng_ops``: ``torch.Tag.nondeterministic_seeded`` on the target)."""
    return hasattr(node.target, "tags") and torch.Tag.nondeterministic_seeded in node.target.tags


def _not_saveable(node: fx.Node) -> bool:
    """A value ``solve_min_cut`` gives infinite weight as a "non-tensor output" (a tuple of a
    multi-output op), as opposed to tensors, symbolic sizes and opaque objects."""
    from torch._functorch.partitioners import BackwardState, FakeScriptObject, is_opaque_node, is_sym_node

    if node.op == "placeholder":
        return False
    val = node.meta.get("val")
    if is_sym_node(node) or is_opaque_node(node) or isinstance(val, (BackwardState, FakeScriptObject)):
        return False
    return ("val" not in node.meta and "tensor_meta" not in node.meta) or ("val" in node.meta and not isinstance(val, torch.Tensor))


def _node_infos(view: fx.GraphModule, num_fwd_outputs: int) -> Any:
    """The partitioner's own classification of the nodes (required forward, backward, ...)."""
    from torch._functorch.partitioners import classify_nodes

    return classify_nodes(view, [], num_fwd_outputs)


# -- keys: (op, module, occurrence) ------------------------------------------------------------

def _modules(graph: fx.Graph, num_fwd_outputs: int | None) -> dict[fx.Node, str | None]:
    """Each node's module as the file writes it (``_serialize.graph_to_json``) without the
    region's prefix: a forward node's innermost ``nn_module_stack``, a backward node's
    ``fwd_nn_module_stack``; None for every node when the graph has no module stacks."""
    from ._joint import phases
    from ._names import innermost_module
    from ._serialize import _has_module_stacks

    if not _has_module_stacks(graph):
        return {n: None for n in graph.nodes}
    phase = phases(graph, num_fwd_outputs) if num_fwd_outputs is not None else {}
    out: dict[fx.Node, str | None] = {}
    for node in graph.nodes:
        backward = phase.get(node.name) == "backward" if phase else "fwd_nn_module_stack" in node.meta
        module = innermost_module(node, backward=backward)
        out[node] = None if module is None else module[0]
    return out


def _unprefix(prefix: str, module: str | None) -> str | None:
    if module is None or not prefix:
        return module
    if module == prefix[:-1]:
        return ""
    return module[len(prefix):] if module.startswith(prefix) else "\0"  # matches no module


def _infer_prefix(plan_modules: set[str], modules: set[str]) -> str:
    """The prefix the file put before every module name (a region compiled inside a submodule:
    ``blocks.1.``), found as the one that makes every plan module a module of this graph."""
    missing = sorted(plan_modules - modules)
    if not missing:
        return ""
    s = missing[0]
    candidates = [s + "."] + [s[: len(s) - len(m)] for m in modules if m and s.endswith("." + m)]
    for prefix in candidates:
        if all(_unprefix(prefix, p) in modules for p in plan_modules):
            return prefix
    return ""


def _shape_text(dtype: str | None, shape: Sequence[int | None] | None) -> str:
    return f"{shown(dtype) if dtype else '?'}{list(shape) if shape is not None else ''}"


def _val_key(node: fx.Node) -> tuple[str | None, list[int | None] | None]:
    """(dtype, shape) of a node's tensor value; None dims are symbolic (not compared)."""
    val = node.meta.get("val")
    if not isinstance(val, torch.Tensor):
        return None, None
    from torch.fx.experimental.symbolic_shapes import is_concrete_int

    dims = [int(d) if is_concrete_int(d) else None for d in val.shape]
    return str(val.dtype).replace("torch.", ""), dims


class _Matcher:
    """Finds the plan's nodes in the graph as the partitioner sees it: by key where the plan
    gives one, else by name."""

    def __init__(self, graph: fx.Graph, num_fwd_outputs: int | None, data: RematPlanDoc, source: str) -> None:
        from ._serialize import target_str

        self.data, self.source = data, source
        self.by_name: dict[str, fx.Node] = {n.name: n for n in graph.nodes}
        self.keys: dict[str, list[Any]] = data.get("nodes") or {}
        plan_modules = {k[1] for k in self.keys.values() if k[1] is not None}
        # A file without modules counted occurrences per target alone.
        modules = _modules(graph, num_fwd_outputs) if plan_modules else {}
        graph_modules = {m for m in modules.values() if m is not None}
        if plan_modules and not graph_modules:
            self.keys = {}  # the graph has no module stacks to match the keys on: names only
        self.groups: dict[tuple[str, str | None], list[fx.Node]] = {}
        for node in graph.nodes:
            self.groups.setdefault((target_str(node), modules.get(node)), []).append(node)
        self.prefix = _infer_prefix(plan_modules, graph_modules)
        self.by_key = 0
        self.by_plan_name = 0
        self.names: dict[str, str] = {}  # plan name -> graph name

    def resolve(self, key: str, i: int, name: str) -> fx.Node:
        where = f"{self.source}: {key}[{i}]"
        entry = self.keys.get(name)
        if entry is None:
            node = self.by_name.get(name)
            if node is None:
                raise RematPlanError(
                    f"{where}: unknown node {name!r}: the joint graph has no such node (is the plan for another "
                    f"graph? it names joint {self.data.get('joint')!r}; apply_remat must be Inductor's "
                    "joint_custom_post_pass, which sees the graph the partitioner cuts)")
            if name not in self.names:
                self.by_plan_name += 1
        else:
            target, module, occurrence, shape, dtype = entry
            group = self.groups.get((target, _unprefix(self.prefix, module)), [])
            if occurrence >= len(group):
                raise RematPlanError(
                    f"{where}: unknown node {name!r}: the joint graph has {len(group)} {shown(target)} in module "
                    f"{module!r}, the plan wants #{occurrence} (is the plan for another graph? it names joint "
                    f"{self.data.get('joint')!r}; apply_remat must be Inductor's joint_custom_post_pass, which "
                    "sees the graph the partitioner cuts)")
            node = group[occurrence]
            got_dtype, got_shape = _val_key(node)
            same_shape = shape is None or (got_shape is not None and len(got_shape) == len(shape) and all(
                g is None or g == s for g, s in zip(got_shape, shape)))
            if not same_shape or (dtype is not None and got_dtype != dtype):
                raise RematPlanError(
                    f"{where}: {name!r} ({shown(target)} #{occurrence} in module {module!r}) is node {node.name!r} of the "
                    f"joint graph, a {_shape_text(got_dtype, got_shape)} where the plan has "
                    f"{_shape_text(dtype, shape)}: the plan is for another model or input shape, or the pass runs "
                    "before Inductor's joint-graph passes (it must be the joint_custom_post_pass)")
            if name not in self.names:
                self.by_key += 1
        self.names[name] = node.name
        return node


# -- the plan's partition ----------------------------------------------------------------------

def _backward_of(graph: fx.Graph, saved: set[fx.Node], num_fwd_outputs: int | None, source: str) -> tuple[set[fx.Node], set[fx.Node]]:
    """(nodes the backward computes, saved values it uses): what the saved values and the
    tangents compute for the gradients (``_extract_graph_with_inputs_outputs`` for the backward,
    dead code removed). Raises RematPlanError naming a gradient the saved set cannot compute and
    the value it lacks. Without num_fwd_outputs every output that needs a tangent is a gradient."""
    from torch._functorch.partitioners import _must_be_in_forward
    from torch.utils import _pytree as pytree

    valid: dict[fx.Node, bool] = {}
    for node in graph.nodes:
        if node in saved or _is_tangent(node):
            valid[node] = True
        elif node.op == "placeholder" or _must_be_in_forward(node):
            valid[node] = False
        elif node.op == "get_attr":
            valid[node] = True
        elif node.op != "output":
            valid[node] = all(valid[i] for i in node.all_input_nodes)
    outputs = [o for o in pytree.arg_tree_leaves(*_output(graph).args) if isinstance(o, fx.Node)]
    if num_fwd_outputs is not None:
        grads = [o for o in pytree.arg_tree_leaves(*_output(graph).args)[num_fwd_outputs:] if isinstance(o, fx.Node)]
    else:
        computable = _primal_computable(graph)
        grads = [o for o in outputs if o not in computable]
    # Dead-code removal keeps the impure nodes the backward can compute (its in-place ops).
    impure_random = bool(torch._inductor.config.fallback_random)  # as DCE inside a compile
    roots = grads + [n for n in graph.nodes
                     if n.op == "call_function" and n not in saved and valid[n] and n.is_impure(impure_random)]
    needed: set[fx.Node] = set()
    used: set[fx.Node] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node in needed or node in used:
            continue
        if node in saved or _is_tangent(node):
            used.add(node)
            continue
        if not valid[node]:
            lack = node
            while lack.op != "placeholder":
                bad = [i for i in lack.all_input_nodes if not valid[i]]
                if not bad:
                    break
                lack = bad[0]
            raise RematPlanError(
                f"{source}: the saved values leave the backward unable to compute {node.name!r}: it needs "
                f"{lack.name!r}, which is neither saved nor computable from saved values")
        needed.add(node)
        stack.extend(node.all_input_nodes)
    return needed, {n for n in used if not _is_tangent(n)}


@dataclass
class RematReport:
    """What ``apply_remat`` did to one joint graph (``str()`` is a one-line summary)."""

    source: str
    nodes: int = 0  # nodes of the joint graph as the partitioner sees it
    by_key: int = 0  # plan nodes found by their key (op, module, occurrence)
    by_name: int = 0  # found by name (plans without keys)
    names: dict[str, str] = field(default_factory=dict)  # plan name -> node name in this graph
    saved: list[str] = field(default_factory=list)  # the values the plan saves (node names, graph order)
    recomputed: list[str] = field(default_factory=list)  # forward nodes the plan's backward computes again
    must_save: int = 0
    must_recompute: int = 0
    left_to_partitioner: list[str] = field(default_factory=list)  # saved values no tag can force
    budget: float | None = None  # the activation_memory_budget the pass overrode (None: it was 1.0)

    @property
    def renamed(self) -> dict[str, str]:
        return {k: v for k, v in self.names.items() if k != v}

    def __str__(self) -> str:
        text = (f"{self.source}: {self.by_key + self.by_name} plan nodes matched ({self.by_key} by key, "
                f"{self.by_name} by name")
        if self.renamed:
            first = next(iter(self.renamed.items()))
            text += f"; {len(self.renamed)} renamed, e.g. {first[0]} -> {first[1]}"
        text += (f") in a joint graph of {self.nodes} nodes; saves {len(self.saved)} values, recomputes "
                 f"{len(self.recomputed)} forward nodes; tagged {self.must_save} MUST_SAVE, {self.must_recompute} MUST_RECOMPUTE")
        if self.left_to_partitioner:
            text += f"; {len(self.left_to_partitioner)} saved values left to the partitioner ({self.left_to_partitioner[0]}, ...)"
        if self.budget is not None:
            text += f"; activation_memory_budget {self.budget} set to 1.0 for this graph"
        return text


def _check_against_partitioner_passes(view: fx.GraphModule, policy: dict[str, Any], source: str) -> None:
    """Run the partitioner's own tag passes on the tagged copy; refuse a plan they overrule."""
    from torch._functorch import config as functorch_config
    from torch._functorch import partitioners as p

    for node in view.graph.nodes:
        if node.name in policy:
            node.meta["recompute"] = policy[node.name]
    passes: list[tuple[str, Callable[[fx.GraphModule], Any]]] = [
        ("cleanup_recompute_tags", lambda gm: p.cleanup_recompute_tags(gm, is_default_partition=False))]
    if not functorch_config.unsafe_allow_optimization_of_collectives:
        passes.append(("force_save_collectives", p.force_save_collectives))
    passes += [("force_save_effectful_ops", p.force_save_effectful_ops),
               ("force_save_bw_mutation_src", p.force_save_bw_mutation_src)]
    for name, run in passes:
        run(view)
        for node in view.graph.nodes:
            want = policy.get(node.name)
            if want is not None and node.meta.get("recompute") != want:
                raise RematPlanError(
                    f"{source}: the plan {'recomputes' if 'RECOMPUTE' in str(want) else 'saves'} {node.name!r} but "
                    f"PyTorch's partitioner ({name}) would {'save' if 'RECOMPUTE' in str(want) else 'recompute'} it")


def tag_joint_graph(graph: fx.Graph, data: RematPlanDoc, source: str = "<plan>",
                    num_fwd_outputs: int | None = None) -> RematReport:
    """Tag ``graph`` (a joint graph, as Inductor hands it to the partitioner) per the plan and
    return what was done. ``num_fwd_outputs`` defaults to what AOTAutograd's output descriptors
    say. Raises RematPlanError naming the plan and the node when the plan does not fit: a node
    the graph lacks or whose dtype or shape differs, a saved value that needs a tangent, a saved
    set that cannot compute a gradient, a ``recomputed`` list other than the saved set implies,
    a random op to recompute, a tag the partitioner would overrule."""
    from torch._functorch import config as functorch_config
    from torch._functorch.partitioners import _is_primal, get_default_op_list
    from torch.utils.checkpoint import CheckpointPolicy

    view = min_cut_view(graph)
    vg = view.graph
    nfo = num_fwd_outputs if num_fwd_outputs is not None else num_fwd_outputs_of(vg)
    matcher = _Matcher(vg, nfo, data, source)
    resolved = {key: [matcher.resolve(key, i, name) for i, name in enumerate(data.get(key, []))] for key in PLAN_KEYS}
    computable = _primal_computable(vg)
    for i, node in enumerate(resolved["saved"]):
        if node not in computable or node.op == "output":
            raise RematPlanError(f"{source}: saved[{i}]: {data['saved'][i]!r} cannot be saved: it needs a tangent")
        if _not_saveable(node):
            raise RematPlanError(f"{source}: saved[{i}]: {data['saved'][i]!r} cannot be saved: its value is not a tensor "
                                 "(the partitioner saves the getitems of a multi-output op, not the op)")
    backward, used = _backward_of(vg, set(resolved["saved"]), nfo, source)
    recompute = {n for n in backward if n in computable and n.op == "call_function"}
    info = _node_infos(view, nfo) if nfo is not None else None
    recomputed = [n for n in vg.nodes if n in recompute and (info is None or info.is_required_fw(n))]
    if "recomputed" in data and info is not None:  # given, even empty: exactly what the saved set implies
        listed = set(resolved["recomputed"])
        extra = [n for n in resolved["recomputed"] if n not in recompute or not info.is_required_fw(n)]
        if extra:
            i = resolved["recomputed"].index(extra[0])
            raise RematPlanError(f"{source}: recomputed[{i}]: {data['recomputed'][i]!r} is not recomputed by the "
                                 "plan's saved set")
        lacking = [n for n in recomputed if n not in listed]
        if lacking:
            raise RematPlanError(f"{source}: 'recomputed' lacks {lacking[0].name!r}, which the plan's saved set recomputes")
    for node in recomputed:
        if is_seeded(node):
            raise RematPlanError(
                f"{source}: the plan recomputes {node.name!r} ({node.target}), a random op (tag "
                "nondeterministic_seeded): PyTorch's partitioner would save and replay its RNG state "
                "(functionalize_rng_ops), a partition the plan does not describe; save it instead")

    # A random op outside the required forward is the backward's anyway; a tag would only make
    # the partitioner functionalize its RNG.
    policy = {n.name: CheckpointPolicy.MUST_RECOMPUTE if n in recompute and not is_seeded(n) else CheckpointPolicy.MUST_SAVE
              for n in vg.nodes if n.op == "call_function" and n in computable}
    _check_against_partitioner_passes(view, policy, source)

    report = RematReport(source, nodes=len(vg.nodes), by_key=matcher.by_key, by_name=matcher.by_plan_name,
                         names=dict(matcher.names))
    report.saved = [n.name for n in vg.nodes if n in used]
    report.recomputed = [n.name for n in recomputed]
    report.must_recompute = sum(1 for v in policy.values() if v == CheckpointPolicy.MUST_RECOMPUTE)
    report.must_save = len(policy) - report.must_recompute
    if info is not None:
        op_types = get_default_op_list()
        for node in vg.nodes:
            if node not in used or _is_primal(node):
                continue
            forced = (node.op == "call_function" and node.target is not operator.getitem and not op_types.is_view(node)
                      and info.is_required_fw(node))
            # A getitem of a call that cannot be recomputed is saved with it.
            getitem_of_banned = node.target is operator.getitem and policy.get(node.all_input_nodes[0].name) == CheckpointPolicy.MUST_SAVE
            if not (forced or getitem_of_banned):
                report.left_to_partitioner.append(node.name)

    # The tags go on the nodes of the graph the partitioner is handed that keep the names.
    for node in graph.nodes:
        if node.name in policy and node.op == "call_function":
            node.meta["recompute"] = policy[node.name]
    budget = functorch_config.activation_memory_budget
    first = next(iter(graph.nodes), None)
    if first is not None:
        if budget != 1.0 or first.meta.get("memory_budget") not in (None, 1.0):
            report.budget = float(first.meta.get("memory_budget", budget))
        first.meta["memory_budget"] = 1.0
    log.info("%s", report)
    return report


def _plan_uuid(data: Any) -> str:
    with open(__file__, "rb") as f:
        code = f.read()
    return hashlib.sha256(code + json.dumps(data, sort_keys=True).encode()).hexdigest()


def apply_remat(plan: str | bytes | os.PathLike[str] | Mapping[str, Any]
                | Sequence[str | bytes | os.PathLike[str] | Mapping[str, Any]]
                ) -> Any:
    """A joint-graph pass (an Inductor ``CustomGraphPass``, so the FX graph cache keys on the
    plans) that tags the joint graph per ``plan`` (a path to a plan file or its mapping):

        torch._inductor.config.joint_custom_post_pass = fxmem_export.apply_remat("plan.json")

    A list of plans (one per region of a model with graph breaks) tags each joint graph with the
    first plan that fits it; a joint graph no plan fits raises RematPlanError with each plan's
    reason. Plans are read and checked now; a malformed plan raises RematPlanError naming the
    file. After each joint graph the pass has run on, ``.report`` is its RematReport
    (``.reports``: all of them); the summary is also logged (logger ``fxmem_export.remat``)."""
    from torch._inductor.custom_graph_pass import CustomGraphPass  # here: torch._inductor takes a second

    if isinstance(plan, (str, bytes, os.PathLike, Mapping)):  # bytes: a path, not a list of ints
        plans = [load_plan(plan)]
    elif isinstance(plan, Sequence):
        # Each element is checked by load_plan (an int of a list is a RematPlanError there).
        items: Sequence[Any] = plan
        plans = [load_plan(p) for p in items]
    else:
        raise RematPlanError(f"apply_remat: a plan is a path, a mapping or a list of them, got {type(plan).__name__}")
    if not plans:
        raise RematPlanError("apply_remat: no plan given")

    class RematPass(CustomGraphPass):
        def __init__(self) -> None:
            self.plan, self.source = plans[0]
            self.plans = plans
            self.report: RematReport | None = None
            self.reports: list[RematReport] = []

        def __call__(self, graph: fx.Graph) -> None:
            errors = []
            for data, source in self.plans:
                try:
                    self.report = tag_joint_graph(graph, data, source)
                    break
                except RematPlanError as e:
                    if len(self.plans) == 1:
                        raise
                    errors.append(str(e))
            else:
                raise RematPlanError("no plan fits this joint graph:\n  " + "\n  ".join(errors))
            self.reports.append(self.report)

        def uuid(self) -> str:
            return _plan_uuid([data for data, _ in self.plans])

    return RematPass()


def reorder_backward(gm: fx.GraphModule, data: RematPlanDoc, source: str = "<plan>",
                     names: Mapping[str, str] | None = None) -> fx.GraphModule:
    """Put ``gm`` (the backward) in the plan's order: placeholders first, then the plan's "order"
    (every other node exactly once), the output node last. ``names`` maps plan names to the
    graph's (RematReport.names). Raises RematPlanError on a mismatch."""
    order = [(names or {}).get(n, n) for n in data.get("order", [])]
    if not order:
        return gm
    graph = gm.graph
    by_name = {n.name: n for n in graph.nodes}
    body = [n for n in graph.nodes if n.op not in ("placeholder", "output")]
    body_names = {n.name for n in body}
    for i, name in enumerate(order):
        if name not in body_names:
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


def check_computable(graph: fx.Graph, data: RematPlanDoc, num_fwd_outputs: int, source: str = "<plan>") -> None:
    """Raise RematPlanError when the plan's saved values (by name) and the tangents cannot compute
    a gradient (the backward would need a forward value that is neither saved nor recomputable)."""
    by_name = {n.name: n for n in graph.nodes}
    _backward_of(graph, {by_name[s] for s in data["saved"] if s in by_name}, num_fwd_outputs, source)


class PlanApplication:
    """A plan applied around the min-cut partition: ``before`` tags the joint graph (checking
    that the plan fits it); ``after`` checks that PyTorch's backward saves exactly the plan's
    values and puts it in the plan's order. Used by the backend's ``remat=PLAN`` and by
    ``remat_partitioner``."""

    def __init__(self, plan: str | os.PathLike[str] | Mapping[str, Any]) -> None:
        self.data, self.source = load_plan(plan)
        self.report: RematReport | None = None

    def before(self, joint: fx.GraphModule, num_fwd_outputs: int | None) -> RematReport:
        self.report = tag_joint_graph(joint.graph, self.data, self.source, num_fwd_outputs)
        return self.report

    def after(self, fw: fx.GraphModule, bw: fx.GraphModule) -> tuple[fx.GraphModule, fx.GraphModule]:
        source = self.source
        want = set(self.report.saved) if self.report is not None else set(self.data["saved"])
        placeholders = [n for n in bw.graph.find_nodes(op="placeholder") if not _is_tangent(n)]
        # The partitioner also saves the SymInts the backward's shapes need (saved_sym_nodes, from
        # the free symbols of its values): they hold no memory, and a plan names tensors only.
        symbolic = {n.name for n in placeholders if not isinstance(n.meta.get("val"), torch.Tensor)}
        got = {n.name for n in placeholders} - symbolic
        want -= symbolic
        if got != want:
            extra, lacking = sorted(got - want), sorted(want - got)
            raise RematPlanError(
                f"{source}: PyTorch's partition under the plan saves other values than the plan"
                + (f"; also saves {extra[:5]}" if extra else "") + (f"; does not save {lacking[:5]}" if lacking else ""))
        return fw, reorder_backward(bw, self.data, source, self.report.names if self.report is not None else None)


def remat_partitioner(plan: str | os.PathLike[str] | Mapping[str, Any]) -> Any:
    """Inductor's partitioner under the plan, for ``torch._inductor.config.custom_partitioner_fn``:
    tags the joint graph (as ``apply_remat``), runs ``min_cut_rematerialization_partition``,
    checks that the backward saves exactly the plan's values and puts it in the plan's order, the
    order whose peak ``fxmem-cli remat`` predicted. ``.application.report`` is the last RematReport."""
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    application = PlanApplication(plan)

    class RematPartitioner(CustomPartitionerFn):
        def __init__(self) -> None:
            self.application = application

        def __call__(self, gm: fx.GraphModule, joint_inputs: Sequence[object], **kwargs: Any) -> Any:
            from torch._functorch.partitioners import min_cut_rematerialization_partition

            application.before(gm, kwargs.get("num_fwd_outputs"))
            fw, bw = min_cut_rematerialization_partition(gm, joint_inputs, **kwargs)
            return application.after(fw, bw)

        def uuid(self) -> str:
            return _plan_uuid(application.data)

    return RematPartitioner()
