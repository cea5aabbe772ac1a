"""Conversion of FX graphs to the fxmem file format, version 1 (see docs/exporter.md)."""

from __future__ import annotations

import json
import operator
import os
import stat
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, cast

import torch
import torch.fx as fx

from ._flops import FlopCounter, symbolic_flops
from ._names import innermost_module
from ._roles import PREFIX_META, storage_roles
from ._symbolic import SymbolTable
from ._torch.fake import fake_tensor_type, hint_int
from .errors import ArgumentError, ExportWriteError, MissingValError, ProducerError
from .format_types import GraphDoc, GraphFileDoc, NodeDoc, NodeMetaDoc, PairInfo, StorageDoc, TensorDoc, ValDoc

FORMAT_NAME = "fxmem"
FORMAT_VERSION = 1
# GraphModule meta key: class name of the model's root module (nodes outside any submodule).
ROOT_TYPE_META = "fxmem_root_type"

# torch >= 2.10 (pyproject.toml), what torch/_inductor/fx_passes/memory_estimator.py uses


def target_str(node: fx.Node) -> str:
    """Readable, stable name of a node's target."""
    t = node.target
    if isinstance(t, str):
        return t
    if isinstance(t, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return str(t)
    if t is operator.getitem:
        return "operator.getitem"
    module = getattr(t, "__module__", None)
    name = getattr(t, "__qualname__", None) or getattr(t, "__name__", None)
    if module == "_operator":
        module = "operator"
    if module and name:
        return f"{module}.{name}"
    return str(t)


class StorageRegistry:
    """Gives every distinct storage (PyTorch's StorageKey: untyped storage ``_cdata`` and
    device) an id. Holds a reference to every storage it has seen, so that no ``_cdata``
    (a StorageImpl address) can be reused by another storage while exporting."""

    def __init__(self) -> None:
        self._ids: dict[tuple[int, str], int] = {}
        self._keep: list[Any] = []
        self.entries: list[StorageDoc] = []
        self.symbols = SymbolTable()  # the expressions of symbolic sizes, and their symbols

    def id_of(self, tensor: torch.Tensor) -> int:
        storage = tensor.untyped_storage()
        device = str(tensor.device)
        key = (storage._cdata, device)
        sid = self._ids.get(key)
        if sid is None:
            sid = len(self.entries)
            self._ids[key] = sid
            self._keep.append(storage)
            nbytes = storage.nbytes()
            entry: StorageDoc = {"id": sid, "device": device, "nbytes": hint_int(nbytes)}
            expr = self.symbols.text(nbytes, entry["nbytes"], f"storage {sid}")
            if expr is not None:
                entry["nbytes_expr"] = expr
            self.entries.append(entry)
        return sid


def _size_exprs(val: Any, out: TensorDoc, symbols: SymbolTable) -> None:
    """Add "shape_expr", "stride_expr" and "offset_expr" to the TENSOR entry ``out`` when one of
    its sizes is symbolic (an int entry is a constant); nothing when one cannot be written."""
    values = [*val.shape, *val.stride(), val.storage_offset()]
    if not any(isinstance(v, torch.SymInt) and v.node.expr.free_symbols for v in values):
        return
    hinted = [*out["shape"], *out["stride"], out["offset"]]
    what = f"a tensor of storage {out['storage']}"
    texts: list[int | str] = []
    for v, h in zip(values, hinted):
        text = symbols.text(v, h, what)
        if text is None and isinstance(v, torch.SymInt) and v.node.expr.free_symbols:
            return
        texts.append(h if text is None else text)
    rank = len(out["shape"])
    out["shape_expr"], out["stride_expr"], out["offset_expr"] = texts[:rank], texts[rank:2 * rank], texts[-1]


def val_to_json(val: Any, registry: StorageRegistry) -> ValDoc:
    """VAL of the format. Only FakeTensors become TENSOR entries, like memory_estimator's
    ``tree_map_only(FakeTensor, ...)``; lists and tuples (named tuples, structseqs) become
    lists; dict values become a list in insertion (pytree) order; None becomes null;
    everything else ``{"other": str(v)}``."""
    if val is None:
        return None
    if isinstance(val, fake_tensor_type()):
        out: TensorDoc = {
            "storage": registry.id_of(val),
            "dtype": str(val.dtype).replace("torch.", ""),
            "shape": [hint_int(s) for s in val.shape],
            "stride": [hint_int(s) for s in val.stride()],
            "offset": hint_int(val.storage_offset()),
        }
        _size_exprs(val, out, registry.symbols)
        return out
    if isinstance(val, (list, tuple)):
        return [val_to_json(v, registry) for v in val]
    if isinstance(val, Mapping):
        return [val_to_json(v, registry) for v in val.values()]
    if isinstance(val, torch.Tensor):
        kind = type(val).__name__
        return {"other": f"{kind}(shape={list(val.shape)}, dtype={val.dtype}, device={val.device})"}
    return {"other": str(val)}


def _node_meta(node: fx.Node) -> NodeMetaDoc:
    meta: NodeMetaDoc = {}
    if "original_aten" in node.meta and node.meta["original_aten"] is not None:
        meta["original_aten"] = str(node.meta["original_aten"])
    if isinstance(node.meta.get("seq_nr"), int):
        meta["seq_nr"] = node.meta["seq_nr"]
    # A random op: the min-cut partitioner does not recompute it without replaying its RNG state
    # (has_recomputable_rng_ops); fxmem-cli remat keeps it saved.
    if node.op == "call_function" and torch.Tag.nondeterministic_seeded in getattr(node.target, "tags", ()):
        meta["nondeterministic_seeded"] = True
    return meta


def _returns_nothing(node: fx.Node) -> bool:
    """An op whose schema returns nothing (``_assert_scalar``, ``_assert_async``,
    ``sym_constrain_range_for_size``, ...): it has no value, and no storage, to record."""
    schema = getattr(node.target, "_schema", None)
    return node.op == "call_function" and schema is not None and not schema.returns


def check_graph(graph: fx.Graph, name: str) -> None:
    """Raise MissingValError if a node (other than output, or an op that returns nothing) has no
    meta["val"]."""
    missing = [n.name for n in graph.nodes if n.op != "output" and "val" not in n.meta and not _returns_nothing(n)]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise MissingValError(
            f"graph {name!r}: {len(missing)} node(s) have no meta['val'] ({shown}). fxmem needs the "
            "FakeTensor of every node: export the graphs AOTAutograd hands to a compiler "
            "(use fxmem_export.backend(...) with torch.compile), or trace with make_fx / "
            "torch.export, or fill the values with torch.fx.passes.fake_tensor_prop.FakeTensorProp."
        )
    fake = fake_tensor_type()
    has_tensor = False
    for n in graph.nodes:
        for leaf in torch.utils._pytree.tree_leaves(n.meta.get("val")):
            if isinstance(leaf, fake):
                return
            if isinstance(leaf, torch.Tensor):
                has_tensor = True
    if has_tensor:
        warnings.warn(
            f"graph {name!r}: meta['val'] holds tensors but none is a FakeTensor; like PyTorch's "
            "memory_estimator, fxmem counts only FakeTensor storages, so this graph uses no memory",
            stacklevel=3,
        )


def _has_module_stacks(graph: fx.Graph) -> bool:
    return any("nn_module_stack" in n.meta or "fwd_nn_module_stack" in n.meta for n in graph.nodes)


def _root_type(graph: fx.Graph) -> str | None:
    gm = getattr(graph, "owning_module", None)
    return (getattr(gm, "meta", None) or {}).get(ROOT_TYPE_META)


def _module_prefix(graph: fx.Graph) -> str:
    gm = getattr(graph, "owning_module", None)
    return (getattr(gm, "meta", None) or {}).get(PREFIX_META) or ""


def graph_to_json(graph: fx.Graph, name: str, kind: str, registry: StorageRegistry,
                  flops: Any = None) -> GraphDoc:
    """``flops``: a _flops.FlopCounter shared by the document's graphs (None: a new one)."""
    check_graph(graph, name)
    # Modules only for graphs traced with module stacks; there a node without one ran in the root.
    modules = _has_module_stacks(graph)
    root_type = _root_type(graph)
    prefix = _module_prefix(graph)
    extra = _graph_extras(graph, name, kind, flops)
    phase = extra.pop("phase", {})
    node_flops = extra.pop("flops", {})
    nodes = []
    for node in graph.nodes:
        entry: NodeDoc = {
            "name": node.name,
            "op": node.op,
            "target": target_str(node),
            "inputs": [i.name for i in node.all_input_nodes],
            "val": val_to_json(node.meta.get("val"), registry),
        }
        trace = node.meta.get("stack_trace")
        if isinstance(trace, str) and trace:
            entry["stack_trace"] = trace
        if modules:
            module = innermost_module(node, backward=(kind == "backward" or phase.get(node.name) == "backward"))
            if module is not None:  # None: a path in an unknown spelling, better nothing than it
                entry["module"] = (prefix + module[0]) if module[0] else prefix.rstrip(".")
                module_type = module[1] or (root_type if module[0] == "" else None)
                if module_type:
                    entry["module_type"] = module_type
        meta = _node_meta(node)
        if meta:
            entry["meta"] = meta
        if node.name in phase:
            entry["phase"] = phase[node.name]
        if node.name in node_flops:
            entry["flops"] = node_flops[node.name]
            if registry.symbols.symbols:  # a capture with symbolic sizes: its FLOPs may be too
                expr = registry.symbols.text(symbolic_flops(node), entry["flops"],
                                             f"graph {name!r} node {node.name!r} (FLOPs)")
                if expr is not None:
                    entry["flops_expr"] = expr
        nodes.append(entry)
    return cast(GraphDoc, {"name": name, "kind": kind, **extra, "nodes": nodes})  # extra: num_fwd_outputs


def _graph_extras(graph: fx.Graph, name: str, kind: str, flops: Any) -> dict[str, Any]:
    """Per-node FLOPs (forward, backward and joint graphs) and, for a joint graph, its
    num_fwd_outputs and each node's phase: {"num_fwd_outputs", "phase", "flops"}."""
    from ._joint import distinct_forward_outputs, num_fwd_outputs_of, phases

    extra: dict[str, Any] = {}
    if kind == "joint":
        nfo = num_fwd_outputs_of(graph)
        if nfo is None:
            raise ArgumentError(f"joint graph {name!r}: its GraphModule has no num_fwd_outputs")
        extra["num_fwd_outputs"] = distinct_forward_outputs(graph, nfo)  # splits the output node's inputs
        extra["phase"] = phases(graph, nfo)
    if kind in ("forward", "backward", "joint"):
        extra["flops"] = (flops or FlopCounter()).graph(graph)
    return extra


def producer_info(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    from . import __version__

    info: dict[str, Any] = {"name": "fxmem_export", "version": __version__, "torch": torch.__version__}
    if extra:
        check_producer(extra)
        info.update(extra)
    return info


def check_producer(extra: Mapping[str, Any] | None) -> None:
    """Raise ProducerError naming the key whose value is not plain JSON (NaN, infinity, an
    object json cannot write), so that the failure comes now, not halfway through a write."""
    if extra is None:
        return
    if not isinstance(extra, Mapping):
        raise ProducerError(f"producer must be a mapping of str to JSON values, got {type(extra).__name__}")
    for key, value in extra.items():
        if not isinstance(key, str):
            raise ProducerError(f"producer key {key!r} must be a str")
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as e:
            shown = repr(value)
            shown = shown if len(shown) <= 80 else shown[:38] + "..." + shown[-38:]
            raise ProducerError(f"producer[{key!r}] cannot be written as JSON: {e} (the value is {shown}; use "
                                "str, int, finite float, bool, None, lists and dicts of those)") from None


def build_document(
    graphs: list[tuple[str, str, fx.Graph]],
    pairs: Sequence[tuple[str, str] | tuple[str, str, PairInfo]],
    *,
    reference: bool,
    producer: Mapping[str, Any] | None = None,
) -> GraphFileDoc:
    """The whole file as a dict. ``graphs``: (name, kind, graph) in file order."""
    names = [g[0] for g in graphs]
    if len(set(names)) != len(names):
        raise ArgumentError(f"graph names must be unique, got {names}")

    registry, flops = StorageRegistry(), FlopCounter()
    out_graphs = [graph_to_json(g, name, kind, registry, flops) for name, kind, g in graphs]
    for sid, (role, label) in storage_roles([(kind, g) for _, kind, g in graphs], registry.id_of).items():
        registry.entries[sid]["role"] = role
        if label:
            registry.entries[sid]["label"] = label
    doc: dict[str, Any] = {  # a GraphFileDoc, its keys in the file's order
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "producer": producer_info(producer),
        **({"symbols": registry.symbols.entries()} if registry.symbols.symbols else {}),
        "storages": registry.entries,
        "graphs": out_graphs,
    }
    if pairs:  # (forward, backward) or (forward, backward, {"joint": ..., "budget": ...})
        doc["pairs"] = [{"forward": p[0], "backward": p[1], **(p[2] if len(p) > 2 else {})} for p in pairs]
    if reference:
        from .reference import reference_block

        by_name = {name: g for name, _, g in graphs}
        doc["reference"] = reference_block(by_name, [(p[0], p[1]) for p in pairs])
    return cast(GraphFileDoc, doc)


def _write_target(path: Any) -> str:
    """The file a write to ``path`` replaces: ``path``, or the file a symbolic link ``path``
    points to (the link is kept, its target written). Raises ExportWriteError for a path that is
    not a str/PathLike of str, an empty one, a dangling link, or a target that exists and is not
    a regular file (a directory, a FIFO, a device): those are never replaced."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise ExportWriteError(22, f"cannot write to {path!r}: the path must be a str or an os.PathLike, "
                               f"not {type(path).__name__}") from None
    if not isinstance(path, str):
        raise ExportWriteError(22, f"cannot write to {path!r}: the path must be a str, not bytes "
                               "(decode it, e.g. os.fsdecode(path))")
    if not path:
        raise ExportWriteError(2, "cannot write to '': empty path (give a file name, e.g. 'model.fxmem.json')")
    target = path
    if os.path.islink(path):
        target = os.path.realpath(path)
        if not os.path.exists(target):
            raise ExportWriteError(2, f"cannot write {path!r}: it is a symbolic link to {target!r}, which does "
                                   "not exist (give the target's path)")
    try:
        st = os.stat(target)
    except OSError:
        return target
    if stat.S_ISDIR(st.st_mode):
        raise ExportWriteError(21, f"cannot write {path!r}: it is a directory (give a file name, e.g. "
                               f"{os.path.join(path, 'model.fxmem.json')!r})")
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else "a character device" if stat.S_ISCHR(st.st_mode)
                else "a block device" if stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode)
                else "not a regular file")
        what = f"it is {kind}" if target == path else f"it is a symbolic link to {target!r}, which is {kind}"
        raise ExportWriteError(22, f"cannot write {path!r}: {what}, not a regular file (choose another path)")
    return target


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise ExportWriteError now if ``path`` cannot be written later."""
    target = _write_target(path)
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise ExportWriteError(20, f"cannot write {path!r}: {directory!r} is not a directory (choose another path)")
    if not os.path.isdir(directory):
        raise ExportWriteError(2, f"cannot write {path!r}: the directory {directory!r} does not exist (create it first)")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ExportWriteError(13, f"cannot write {path!r}: the directory {directory!r} is not writable (choose another path)")


def write_json_atomic(path: str | os.PathLike[str], doc: Any) -> None:
    """Write ``doc`` as JSON to ``path`` through a temporary file and os.replace. A symbolic link
    is written through (its target gets the file); an existing file keeps its permission bits."""
    check_writable(path)
    target = _write_target(path)
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    try:
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=directory)
    except OSError as e:
        raise ExportWriteError(
            e.errno, f"cannot write {path!r}: {e.strerror} (does the directory {directory!r} exist and is it "
            "writable? create it or choose another path)"
        ) from e
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, separators=(",", ":"), allow_nan=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise ExportWriteError(
                e.errno, f"cannot write {path!r}: {e.strerror or e} (choose a writable path)"
            ) from e
        raise
