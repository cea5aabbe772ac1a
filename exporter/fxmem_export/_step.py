"""The step: the order in which the captured graphs ran during one training iteration, and the
module prefix of each call (docs/format.md, "step"; docs/exporter.md, "The step").

The backend wraps the callable it returns for each region (Dynamo graph). Each time Dynamo runs
it, the recorder notes the region's forward (or inference) graph and, through a pre-hook on the
autograd node AOTAutograd made for that call (``CompiledFunctionBackward``), the moment its
backward runs. A region compiled from a submodule's frame (a graph break in a loop over blocks
makes Dynamo compile ``Block.forward`` once and run it for every block) has parameter labels
relative to that submodule; the recorder finds each call's parameters in the model's root
module and so learns the call's prefix (``blocks.1.``)."""

from __future__ import annotations

import sys
import threading
import types
import warnings
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from .format_types import GraphFileDoc, StepEntryDoc

# A recorded step stops growing here (an inference loop without a backward never ends a step).
MAX_ENTRIES = 100_000


@dataclass
class Entry:
    region: int
    kind: str  # "forward", "backward", "inference"
    call: int  # 0-based call of this graph in the step; a backward's is its forward's
    prefix: str = ""  # module prefix of this call ("blocks.1."), "" at the root


@dataclass
class _Step:
    entries: list[Entry] = field(default_factory=list)
    forward_calls: dict[int, int] = field(default_factory=dict)  # region -> forward calls so far
    inference_calls: dict[int, int] = field(default_factory=dict)
    backward_seen: bool = False


def _root_module() -> torch.nn.Module | None:
    """The outermost nn.Module whose method is on the Python stack (the model the user called;
    a compiled model's OptimizedModule stands for the module it wraps)."""
    root = None
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None:
        try:
            obj = frame.f_locals.get("self")
        except Exception:  # pragma: no cover - exotic frames
            obj = None
        if isinstance(obj, torch.nn.Module):
            root = obj
        frame = frame.f_back
    orig = getattr(root, "_orig_mod", None)
    return orig if isinstance(orig, torch.nn.Module) else root


class StepRecorder:
    """Records the step of the regions of one backend. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._current = _Step()
        self._root: weakref.ref[torch.nn.Module] | None = None
        self._names: dict[int, str] = {}  # id(parameter or buffer) -> name from the root
        self.optimizer: Any = None  # the backend's optimizer=: names its gradients and state

    # -- names ---------------------------------------------------------------------------------
    def _learn_root(self) -> None:
        root = _root_module()
        if root is None:
            return
        if self._root is not None and self._root() is root:
            return
        self._root = weakref.ref(root)
        names: dict[int, str] = {}
        for name, p in root.named_parameters(remove_duplicate=False):
            names.setdefault(id(p), name)
        for name, b in root.named_buffers(remove_duplicate=False):
            names.setdefault(id(b), name)
        self._names = names

    def root(self) -> torch.nn.Module | None:
        return self._root() if self._root is not None else None

    def name_of(self, tensor: Any) -> str | None:
        return self._names.get(id(tensor))

    def _prefix(self, args: Sequence[Any], infos: Sequence[Any]) -> str:
        """The prefix that turns this region's labels into names from the root, found from the
        first parameter or buffer argument whose root name ends with its label."""
        for arg, info in zip(args, infos):
            if getattr(info, "role", None) not in ("parameter", "buffer") or not info.label:
                continue
            full = self._names.get(id(arg))
            if full is None:
                continue
            if full == info.label:
                return ""
            if full.endswith("." + info.label):
                return full[: len(full) - len(info.label)]
        return ""

    def _identify(self, args: Sequence[Any], infos: list[Any]) -> None:
        """Name the inputs of a region by what they are at run time: a compiled optimizer step
        gets the parameters (Dynamo's source is ``param_groups[0]['params'][3]``), their
        gradients and the optimizer's state as arguments. Replaces the region's InputInfo in
        place (the captured graphs share the list)."""
        from ._names import InputInfo

        extra = self._optimizer_tensors()
        for i, (arg, info) in enumerate(zip(args, infos)):
            if info.role in ("parameter", "buffer") and info.label and self._names.get(id(arg)) is not None:
                full = self._names[id(arg)]
                if full == info.label or full.endswith("." + info.label):
                    continue  # a module's own name: the prefix machinery qualifies it
                infos[i] = InputInfo(info.role, full)
            elif id(arg) in self._names:
                infos[i] = InputInfo("parameter", self._names[id(arg)])
            elif id(arg) in extra:
                infos[i] = InputInfo(*extra[id(arg)])

    def _optimizer_tensors(self) -> dict[int, tuple[str, str]]:
        """id(tensor) -> (role, label) for the optimizer's parameters' gradients and state."""
        extra: dict[int, tuple[str, str]] = {}
        opt = self.optimizer
        if opt is None:
            return extra
        for group in opt.param_groups:
            for p in group["params"]:
                name = self._names.get(id(p))
                if name is None:
                    continue
                if p.grad is not None:
                    extra[id(p.grad)] = ("gradient", f"grad of {name}")
                for key, value in opt.state.get(p, {}).items():
                    if isinstance(value, torch.Tensor):
                        extra[id(value)] = ("optimizer_state", f"{name} {key}")
        return extra

    def attribute_roles(self, gm: Any) -> dict[str, tuple[str, str]]:
        """Dynamo's flat attribute name -> (role, label) for the tensors Dynamo installed on the
        graph module that are the model's parameters or the optimizer's state (a compiled
        ``opt.step`` reads them as attributes: ``self___param_groups_0__params___0``)."""
        self._learn_root()
        extra = self._optimizer_tensors()
        out: dict[str, tuple[str, str]] = {}
        try:
            named = list(gm.named_parameters(remove_duplicate=False)) + list(gm.named_buffers(remove_duplicate=False))
        except Exception:  # pragma: no cover - a graph module without the usual attributes
            return out
        for attr, t in named:
            if id(t) in extra:
                out[attr] = extra[id(t)]
            elif id(t) in self._names and self.optimizer is not None and attr.startswith("self___param_groups"):
                out[attr] = ("parameter", self._names[id(t)])
        return out

    # -- recording -----------------------------------------------------------------------------
    def wrap(self, compiled: Callable[..., Any], region: Any) -> Callable[..., Any]:
        """``compiled`` (what the backend returns to Dynamo for ``region``) wrapped so that every
        call is recorded. Dynamo calls it with the graph's inputs as positional arguments."""
        recorder = self

        def run(*args: Any, **kwargs: Any) -> Any:
            infos: list[Any] = region.meta.get("fxmem_dynamo_inputs") or []
            recorder._learn_root()
            if not region.meta.get("fxmem_identified"):
                region.meta["fxmem_identified"] = True
                recorder._identify(args, infos)
            prefix = recorder._prefix(args, infos)
            grad = torch.is_grad_enabled()
            out = compiled(*args, **kwargs)
            recorder._after_call(region, prefix, out, grad)
            return out

        return run

    def _after_call(self, region: Any, prefix: str, out: Any, grad: bool) -> None:
        nodes = _backward_nodes(out) if grad else []
        with self._lock:
            step = self._current
            if nodes and region.graphs["forward"]:
                if step.backward_seen:  # a forward after a backward: the next iteration
                    self._current = step = _Step()
                call = step.forward_calls.get(region.index, 0)
                step.forward_calls[region.index] = call + 1
                self._append(step, Entry(region.index, "forward", call, prefix))
                entry_step = step
                for node in nodes:
                    node.register_prehook(self._backward_hook(entry_step, region.index, call, prefix))
                    break  # one call has one CompiledFunctionBackward
            elif region.graphs["inference"]:
                call = step.inference_calls.get(region.index, 0)
                step.inference_calls[region.index] = call + 1
                self._append(step, Entry(region.index, "inference", call, prefix))

    def _backward_hook(self, step: _Step, region: int, call: int, prefix: str) -> Callable[..., None]:
        def hook(grad_outputs: Any) -> None:
            with self._lock:
                if self._current is step:  # an older iteration's graph ran late: not this step
                    step.backward_seen = True
                    self._append(step, Entry(region, "backward", call, prefix))
            return None

        return hook

    @staticmethod
    def _append(step: _Step, entry: Entry) -> None:
        if len(step.entries) < MAX_ENTRIES:
            step.entries.append(entry)

    # -- output --------------------------------------------------------------------------------
    def entries(self) -> list[Entry]:
        with self._lock:
            return list(self._current.entries)

    def missing_backwards(self) -> list[Entry]:
        """Forward calls of the recorded step whose backward never ran."""
        with self._lock:
            done = {(e.region, e.call) for e in self._current.entries if e.kind == "backward"}
            return [e for e in self._current.entries if e.kind == "forward" and (e.region, e.call) not in done]


def _backward_nodes(out: Any) -> list[Any]:
    """The CompiledFunctionBackward autograd nodes reachable from ``out``'s grad_fns within a few
    hops (an output that AOTAutograd regenerates as a view has a view node in front)."""
    found: list[Any] = []
    seen: set[int] = set()
    frontier = [t.grad_fn for t in torch.utils._pytree.tree_leaves(out)
                if isinstance(t, torch.Tensor) and t.grad_fn is not None]
    for _ in range(4):
        nxt: list[Any] = []
        for node in frontier:
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if "CompiledFunction" in type(node).__name__ or "CompiledFunction" in node.name():
                found.append(node)
                continue
            nxt.extend(fn for fn, _ in node.next_functions if fn is not None)
        if found:
            return found
        frontier = nxt
    return found


def step_json(entries: Sequence[Entry], names: dict[int, dict[str, str]], uniform: dict[int, str]) -> list[StepEntryDoc]:
    """The file's ``step``: ``names[region][kind]`` is the graph's name in the file; a prefix
    that all calls of a region share is baked into its graphs (``uniform``), others go on the
    entry as ``module_prefix``."""
    out = []
    for e in entries:
        graph = names.get(e.region, {}).get(e.kind)
        if graph is None:
            continue
        item: StepEntryDoc = {"graph": graph, "call": e.call}
        if e.prefix and uniform.get(e.region) != e.prefix:
            item["module_prefix"] = e.prefix.rstrip(".")
        out.append(item)
    return out


def uniform_prefixes(entries: Sequence[Entry]) -> dict[int, str]:
    """{region: prefix} for the regions all of whose calls in the step share one prefix."""
    seen: dict[int, set[str]] = {}
    for e in entries:
        seen.setdefault(e.region, set()).add(e.prefix)
    return {r: next(iter(p)) for r, p in seen.items() if len(p) == 1}


def warn_missing_backwards(missing: Sequence[Entry], regions: Sequence[Any]) -> None:
    names = graph_names(regions)
    if not missing:
        return
    shown = ", ".join(f"{names.get(e.region, {}).get('forward', f'region{e.region}.forward')} (call {e.call}"
                      + (f", {e.prefix.rstrip('.')}" if e.prefix else "") + ")" for e in missing[:5])
    more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
    warnings.warn(
        f"the backward of {shown}{more} never ran in the recorded step: its saved activations are "
        "counted until the end of the step. Run loss.backward() through every compiled region "
        "(a region whose outputs do not reach the loss has no backward)",
        stacklevel=3,
    )


def graph_names(regions: Sequence[Any]) -> dict[int, dict[str, str]]:
    """{region index: {kind: the name of its first graph of that kind in the file}}."""
    return {r.index: {kind: f"{r.prefix}.{kind}" for kind, gms in r.graphs.items() if gms} for r in regions}


def annotate_regions(regions: Sequence[Any], recorder: StepRecorder) -> list[StepEntryDoc]:
    """Put each region's common module prefix on its graphs (read by _serialize and _roles) and
    return the file's ``step``."""
    from ._roles import PREFIX_META

    entries = recorder.entries()
    uniform = uniform_prefixes(entries)
    for r in regions:
        for gms in r.graphs.values():
            for gm in gms:
                gm.meta[PREFIX_META] = uniform.get(r.index, "")
    return step_json(entries, graph_names(regions), uniform)


def add_root_parameters(doc: GraphFileDoc, recorder: StepRecorder) -> None:
    """Parameters of the model that no captured graph holds still live through the step: the
    file gets a parameter storage for each (the whole step counts them once)."""
    from ._optimizer import add_outside_parameters

    root = recorder.root()
    if root is None or not doc.get("step"):
        return
    add_outside_parameters(doc, [(n, p) for n, p in root.named_parameters()])


def warn_outside_graphs(doc: GraphFileDoc, recorder: StepRecorder) -> None:
    """Name the root module's parameters that no captured graph uses: the code that uses them ran
    eagerly (Dynamo skips a whole frame with a graph break inside a loop), so the activations it
    makes are in no graph and not counted."""
    from ._optimizer import graph_parameter_names

    root = recorder.root()
    if root is None or not doc.get("step"):
        return
    named = graph_parameter_names(doc)
    outside = [n for n, p in root.named_parameters() if p.requires_grad and n not in named]
    if not outside:
        return
    shown = ", ".join(outside[:6]) + (f" and {len(outside) - 6} more" if len(outside) > 6 else "")
    warnings.warn(
        f"parameters used outside every captured graph: {shown}. The code that uses them ran eagerly "
        "(Dynamo skips the frame of a function with a graph break inside a loop), so the memory of that "
        "code is not in the file; move the graph break out of the loop (or call the blocks without a "
        "loop) to capture it",
        stacklevel=3,
    )
