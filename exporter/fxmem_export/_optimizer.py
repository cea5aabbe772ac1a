"""The optimizer state each parameter will hold, read from the optimizer's configuration without
running a step (docs/exporter.md, "Optimizer state"). Each state tensor becomes a storage of
role ``optimizer_state`` labelled ``<parameter> <state>`` (``blocks.0.fc.weight exp_avg``).

The shapes, dtypes and devices are those ``torch.optim`` gives the state when its first step
runs (torch 2.13, ``_init_group`` of each optimizer); where the optimizer already holds state
(a step has run), that state is read as it is."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from .errors import ArgumentTypeError, FxmemExportError
from .format_types import GraphFileDoc


@dataclass(frozen=True)
class StateTensor:
    param: torch.Tensor
    state: str  # "exp_avg", "step", ...
    nbytes: int
    device: str


def _like(p: torch.Tensor) -> tuple[int, str]:
    # zeros_like(p, memory_format=preserve_format) of a dense parameter: its own size.
    return p.numel() * p.element_size(), str(p.device)


def _scalar(p: torch.Tensor, on_param_device: bool) -> tuple[int, str]:
    # torch.optim's `step` (and NAdam's mu_product, ASGD's eta/mu/ax): a 0-dim tensor of
    # _get_scalar_dtype() on the parameter's device when capturable/fused, else on the CPU.
    size = torch.empty((), dtype=torch.float64 if torch.get_default_dtype() == torch.float64 else torch.float32).element_size()
    return size, str(p.device) if on_param_device else "cpu"


def _on_device(group: Mapping[str, Any]) -> bool:
    return bool(group.get("capturable") or group.get("fused"))


def _adam(p: torch.Tensor, g: Mapping[str, Any]) -> list[tuple[str, tuple[int, str]]]:
    out = [("step", _scalar(p, _on_device(g))), ("exp_avg", _like(p)), ("exp_avg_sq", _like(p))]
    if g.get("amsgrad"):
        out.append(("max_exp_avg_sq", _like(p)))
    return out


def _sgd(p: torch.Tensor, g: Mapping[str, Any]) -> list[tuple[str, tuple[int, str]]]:
    return [("momentum_buffer", _like(p))] if g.get("momentum", 0) != 0 else []


def _rmsprop(p: torch.Tensor, g: Mapping[str, Any]) -> list[tuple[str, tuple[int, str]]]:
    out = [("step", _scalar(p, _on_device(g))), ("square_avg", _like(p))]
    if g.get("momentum", 0) > 0:
        out.append(("momentum_buffer", _like(p)))
    if g.get("centered"):
        out.append(("grad_avg", _like(p)))
    return out


def _adagrad(p: torch.Tensor, g: Mapping[str, Any]) -> list[tuple[str, tuple[int, str]]]:
    return [("step", _scalar(p, bool(g.get("fused")))), ("sum", _like(p))]


def _adamax(p: torch.Tensor, g: Mapping[str, Any]) -> list[tuple[str, tuple[int, str]]]:
    return [("step", _scalar(p, _on_device(g))), ("exp_avg", _like(p)), ("exp_inf", _like(p))]


def _nadam(p: torch.Tensor, g: Mapping[str, Any]) -> list[tuple[str, tuple[int, str]]]:
    return [("step", _scalar(p, _on_device(g))), ("mu_product", _scalar(p, _on_device(g))),
            ("exp_avg", _like(p)), ("exp_avg_sq", _like(p))]


def _radam(p: torch.Tensor, g: Mapping[str, Any]) -> list[tuple[str, tuple[int, str]]]:
    return [("step", _scalar(p, _on_device(g))), ("exp_avg", _like(p)), ("exp_avg_sq", _like(p))]


def _adadelta(p: torch.Tensor, g: Mapping[str, Any]) -> list[tuple[str, tuple[int, str]]]:
    return [("step", _scalar(p, _on_device(g))), ("square_avg", _like(p)), ("acc_delta", _like(p))]


# Exact classes only: a subclass may keep other state.
_RULES: dict[type, Callable[[torch.Tensor, Mapping[str, Any]], list[tuple[str, tuple[int, str]]]]] = {
    torch.optim.Adam: _adam,
    torch.optim.AdamW: _adam,
    torch.optim.SGD: _sgd,
    torch.optim.RMSprop: _rmsprop,
    torch.optim.Adagrad: _adagrad,
    torch.optim.Adamax: _adamax,
    torch.optim.NAdam: _nadam,
    torch.optim.RAdam: _radam,
    torch.optim.Adadelta: _adadelta,
}


def state_tensors(optimizer: torch.optim.Optimizer) -> list[StateTensor]:
    """Every state tensor the optimizer holds, or will hold after its first step, per parameter
    in param_groups order. Raises FxmemExportError for an optimizer fxmem has no rule for and
    that holds no state yet."""
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise ArgumentTypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    rule = _RULES.get(type(optimizer))
    out: list[StateTensor] = []
    for group in optimizer.param_groups:
        for p in group["params"]:
            if not p.requires_grad:
                continue
            held = optimizer.state.get(p)
            if held:
                for key, value in held.items():
                    if isinstance(value, torch.Tensor):
                        out.append(StateTensor(p, key, value.untyped_storage().nbytes(), str(value.device)))
                continue
            if rule is None:
                raise FxmemExportError(
                    f"fxmem knows the state of {', '.join(sorted(t.__name__ for t in _RULES))}, not of "
                    f"{type(optimizer).__name__}: run one optimizer step before saving, so that its state "
                    "exists and can be read"
                )
            for key, (nbytes, device) in rule(p, group):
                out.append(StateTensor(p, key, nbytes, device))
    return out


def names_in(model: Any) -> Callable[[torch.Tensor], str | None]:
    """Parameter -> its qualified name in ``model`` (None: no names)."""
    if model is None:
        return lambda p: None
    if not isinstance(model, torch.nn.Module):
        raise ArgumentTypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    names = {id(p): n for n, p in model.named_parameters(remove_duplicate=False)}
    return lambda p: names.get(id(p))


def add_optimizer_state(doc: GraphFileDoc, optimizer: torch.optim.Optimizer,
                        name_of: Callable[[torch.Tensor], str | None]) -> None:
    """Append the optimizer's state to ``doc["storages"]`` (role ``optimizer_state``), and a
    ``parameter`` storage for each optimized parameter that no captured graph names (it ran
    outside the compiled regions), so that the whole step counts every parameter once."""
    storages = doc["storages"]
    next_id = max((s["id"] for s in storages), default=-1) + 1
    index = {id(p): (gi, pi) for gi, g in enumerate(optimizer.param_groups) for pi, p in enumerate(g["params"])}

    def label(p: torch.Tensor) -> str:
        name = name_of(p)
        if name:
            return name
        gi, pi = index[id(p)]
        return f"param_groups[{gi}][{pi}]"

    add_outside_parameters(doc, [(name_of(p), p) for g in optimizer.param_groups for p in g["params"]])
    next_id = max((s["id"] for s in storages), default=-1) + 1
    for st in state_tensors(optimizer):
        storages.append({"id": next_id, "device": st.device, "nbytes": st.nbytes, "role": "optimizer_state",
                         "label": f"{label(st.param)} {st.state}"})
        next_id += 1


def add_outside_parameters(doc: GraphFileDoc, params: Iterable[tuple[str | None, torch.Tensor]]) -> None:
    """A ``parameter`` storage for each named parameter that no captured graph holds (it ran
    outside the compiled regions), so that the whole step counts every parameter once."""
    storages = doc["storages"]
    next_id = max((s["id"] for s in storages), default=-1) + 1
    named = graph_parameter_names(doc)
    for name, p in params:
        if name is None or name in named:
            continue
        nbytes, device = _like(p)
        storages.append({"id": next_id, "device": device, "nbytes": nbytes, "role": "parameter", "label": name})
        named.add(name)
        next_id += 1


def graph_parameter_names(doc: GraphFileDoc) -> set[str]:
    """Qualified names of the parameters the file's graphs hold: labels of parameter storages,
    with each step entry's module_prefix for the graphs that run under one."""
    labels = {s["id"]: s["label"] for s in doc["storages"] if s.get("role") == "parameter" and s.get("label")}
    # A graph that only runs under module prefixes holds its labels relative to them.
    step = doc.get("step", [])
    only_prefixed = {e["graph"] for e in step if e.get("module_prefix")} - {
        e["graph"] for e in step if not e.get("module_prefix")}
    held = {sid for g in doc["graphs"] if g["name"] not in only_prefixed for node in g["nodes"]
            if node["op"] == "placeholder" for sid in _storage_ids(node["val"])}
    names = {label for sid, label in labels.items() if sid in held}
    prefixed = [(e["graph"], e["module_prefix"]) for e in step if e.get("module_prefix")]
    if prefixed:
        by_graph = {g["name"]: g for g in doc["graphs"]}
        for graph, prefix in prefixed:
            for node in by_graph[graph]["nodes"]:
                if node["op"] != "placeholder":
                    continue
                for sid in _storage_ids(node["val"]):
                    if sid in labels:
                        names.add(f"{prefix}.{labels[sid]}")
    return names


def _storage_ids(val: Any) -> Iterable[int]:
    if isinstance(val, dict):
        if "storage" in val:
            yield val["storage"]
    elif isinstance(val, list):
        for v in val:
            yield from _storage_ids(v)
