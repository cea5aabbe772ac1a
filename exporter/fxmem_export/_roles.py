"""Storage roles and labels from AOTAutograd's own descriptors (``node.meta["desc"]`` on
placeholders, and the list on the output node that parallels its arguments) and from
Dynamo's input sources. See docs/exporter.md, "Roles and modules"."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch
import torch.fx as fx
from torch._functorch._aot_autograd import descriptors as _d  # torch >= 2.10 (pyproject.toml)

from ._names import InputInfo, qualified_name

# When a storage qualifies for several roles, the first in this list wins: what the storage
# *is* (a parameter, an input) before what the graph does with it; saved for backward before
# returned; a gradient before the tangent it may alias.
PRIORITY = ("parameter", "buffer", "optimizer_state", "input", "unsharded_parameter", "activation", "gradient",
            "tangent", "output", "temporary")
_RANK = {r: i for i, r in enumerate(PRIORITY)}

# Meta keys the backend puts on the GraphModules it captures (see _backend.snapshot).
INPUTS_META = "fxmem_dynamo_inputs"  # list[InputInfo], one per Dynamo graph input
FQN_META = "fxmem_fqn_map"  # Dynamo's flat attribute name -> original qualified name
PREFIX_META = "fxmem_module_prefix"  # "blocks.1.": the region ran in that submodule (_step.py)
ATTR_ROLES_META = "fxmem_attr_roles"  # Dynamo's attribute name -> (role, label), found at run time (_step.py)


def has_descriptors(graph: fx.Graph) -> bool:
    return any("desc" in n.meta for n in graph.find_nodes(op="placeholder")) or any(
        "desc" in n.meta for n in graph.find_nodes(op="output"))


class _Context:
    """Resolves an AOTInput to (role, label) for one captured graph."""

    def __init__(self, graph: fx.Graph) -> None:
        gm = getattr(graph, "owning_module", None)
        meta = getattr(gm, "meta", None) or {}
        self.inputs: Sequence[InputInfo] = meta.get(INPUTS_META) or ()
        self.fqn: Mapping[str, str] = meta.get(FQN_META) or {}
        self.prefix: str = meta.get(PREFIX_META) or ""
        self.attr_roles: Mapping[str, tuple[str, str]] = meta.get(ATTR_ROLES_META) or {}

    def _target(self, target: str) -> str:
        name = self.fqn.get(target, target)
        return self.prefix + (qualified_name(name) or name)

    def input(self, desc: Any) -> tuple[str, str | None]:
        if isinstance(desc, (_d.ParamAOTInput, _d.BufferAOTInput)) and desc.target in self.attr_roles:
            return self.attr_roles[desc.target]
        if isinstance(desc, _d.ParamAOTInput):
            return "parameter", self._target(desc.target)
        if isinstance(desc, _d.BufferAOTInput):
            return "buffer", self._target(desc.target)
        if isinstance(desc, _d.PlainAOTInput):
            if 0 <= desc.idx < len(self.inputs):
                info = self.inputs[desc.idx]
                if info.role in ("parameter", "buffer") and info.label:
                    return info.role, self.prefix + info.label
                return info.role, info.label
            return "input", None
        if isinstance(desc, _d.TangentAOTInput):
            out = self.output_label(desc.output)
            return "tangent", f"tangent of {out}" if out else None
        if isinstance(desc, (_d.SubclassGetAttrAOTInput, _d.ViewBaseAOTInput, _d.SyntheticBaseAOTInput)):
            base = getattr(desc, "base", None) or getattr(desc, "base_of", None)
            role, label = self.input(base)
            return role, label
        return "input", None  # RNG seeds/offsets, effect tokens

    def output_label(self, desc: Any) -> str | None:
        if isinstance(desc, _d.PlainAOTOutput):
            return f"output {desc.idx}"
        if isinstance(desc, _d.InputMutationAOTOutput):
            _, label = self.input(desc.mutated_input)
            return f"new value of {label}" if label else None
        if isinstance(desc, _d.GradAOTOutput):
            _, label = self.input(desc.grad_of)
            return f"grad of {label}" if label else None
        if isinstance(desc, (_d.SubclassGetAttrAOTOutput, _d.IntermediateBaseAOTOutput)):
            return self.output_label(getattr(desc, "base", None) or getattr(desc, "base_of", None))
        return None

    def output(self, desc: Any) -> tuple[str, str | None] | None:
        if isinstance(desc, (_d.SavedForBackwardsAOTOutput, _d.SavedForBackwardsNoVcCheckAOTOutput)):
            return "activation", None
        if desc is not None and desc.is_grad():
            return "gradient", self.output_label(desc)
        if isinstance(desc, (_d.PlainAOTOutput, _d.InputMutationAOTOutput, _d.IntermediateBaseAOTOutput,
                             _d.MetadataMutationAOTOutput, _d.SubclassGetAttrAOTOutput)):
            return "output", self.output_label(desc)
        return None  # tokens, RNG offsets: temporary


def _storages(val: Any, id_of: Callable[[torch.Tensor], int]) -> list[int]:
    fake = torch._subclasses.fake_tensor.FakeTensor
    return [id_of(t) for t in torch.utils._pytree.tree_leaves(val) if isinstance(t, fake)]


def output_descs(graph: fx.Graph) -> list[tuple[Any, Any]]:
    """(argument, descriptor) of the output node, paired by position (AOTAutograd puts a
    list parallel to the output tuple in the output node's meta["desc"])."""
    out = [n for n in graph.find_nodes(op="output")]
    if not out:
        return []
    descs = out[0].meta.get("desc")
    args = out[0].args[0] if out[0].args else ()
    if not isinstance(descs, (list, tuple)) or not isinstance(args, (list, tuple)) or len(descs) != len(args):
        return []
    return list(zip(args, descs))


def storage_roles(graphs: Sequence[tuple[str, fx.Graph]], id_of: Callable[[torch.Tensor], int]) -> dict[int, tuple[str, str | None]]:
    """{storage id: (role, label)} for the storages of the graphs that carry AOTAutograd
    descriptors; ``graphs`` are (kind, graph). Storages only in graphs without descriptors
    get nothing (the reader derives their roles)."""
    best: dict[int, tuple[str, str | None]] = {}

    def offer(sid: int, role: str, label: str | None) -> None:
        # The best-ranked role wins; its label, else a label offered with another role (a
        # saved new value of a buffer is an activation labeled "new value of bn.running_mean").
        old = best.get(sid)
        if old is None:
            best[sid] = (role, label)
        elif _RANK[role] < _RANK[old[0]]:
            best[sid] = (role, label or old[1])
        elif old[1] is None and label:
            best[sid] = (old[0], label)

    for kind, graph in graphs:
        if not has_descriptors(graph):
            continue
        ctx = _Context(graph)
        for node in graph.find_nodes(op="placeholder"):
            desc = node.meta.get("desc")
            if desc is not None:
                role, label = ctx.input(desc)
            elif kind == "backward":
                role, label = "activation", None  # a saved forward value: they carry no descriptor
            else:
                continue
            for sid in _storages(node.meta.get("val"), id_of):
                offer(sid, role, label)
        for arg, desc in output_descs(graph):
            if not isinstance(arg, fx.Node):
                continue
            decided = ctx.output(desc)
            if decided is None:
                continue
            for sid in _storages(arg.meta.get("val"), id_of):
                offer(sid, *decided)
        _collectives(graph, id_of, best, offer)
        for node in graph.nodes:
            for sid in _storages(node.meta.get("val"), id_of):
                offer(sid, "temporary", None)
    return best


_ALL_GATHER = "all_gather_into_tensor"
_REDUCE_SCATTER = "reduce_scatter_tensor"


def _collective(node: fx.Node) -> str | None:
    name = getattr(node.target, "__name__", "") or str(node.target)
    if node.op != "call_function":
        return None
    if _ALL_GATHER in name:
        return _ALL_GATHER
    if _REDUCE_SCATTER in name:
        return _REDUCE_SCATTER
    return None


def _collectives(graph: fx.Graph, id_of: Callable[[torch.Tensor], int], best: Mapping[int, tuple[str, str | None]],
                 offer: Callable[[int, str, str | None], None]) -> None:
    """FSDP's collectives, as FSDPMemTracker names them: a parameter shard all-gathered (and the
    wait_tensor that completes it) is an ``unsharded_parameter``; a gradient reduce-scattered is a
    ``gradient``."""
    kind_of: dict[fx.Node, tuple[str, str | None]] = {}
    for node in graph.nodes:
        kind = _collective(node)
        if kind is None and "wait_tensor" in str(node.target) and node.all_input_nodes:
            src = node.all_input_nodes[0]
            if src in kind_of:
                kind_of[node] = kind_of[src]
        elif kind == _ALL_GATHER and node.all_input_nodes:
            shard = [best.get(sid) for sid in _storages(node.all_input_nodes[0].meta.get("val"), id_of)]
            if shard and shard[0] is not None and shard[0][0] == "parameter":
                label = shard[0][1]
                kind_of[node] = ("unsharded_parameter", f"unsharded {label}" if label else None)
        elif kind == _REDUCE_SCATTER:
            kind_of[node] = ("gradient", None)
    for node, (role, label) in kind_of.items():
        for sid in _storages(node.meta.get("val"), id_of):
            offer(sid, role, label)
