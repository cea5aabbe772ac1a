"""The allocations of the program Inductor generates from a captured graph (format: PROGRAM).

Inductor's own lowering, scheduler and wrapper codegen run on the captured graph: the real
``compile_fx_inner`` with the graph's inputs as fake tensors on the target device, stopped
right after ``GraphLowering.codegen`` (kernel source is generated, nothing is compiled or run).
The wrapper's memory-planning lines, as its ``memory_plan_reuse`` left them, say what the
program allocates and frees and in which order:

* ``AllocateLine``: the wrapper allocates a buffer (a generated kernel's or an extern kernel's
  ``out=``); ``ReuseLine``: a new buffer takes over a freed one's allocation (no bytes added);
* ``FreeIfNotReusedLine`` (unless planning reused it) and ``FreeLine`` (a graph input): ``del``;
* ``ExternKernelAllocLine``: an ATen fallback allocates its own outputs when it runs;
* ``ReinterpretLine`` and ``MultiOutputLine``: aliases, no allocation.

The kernel calls between them (``KernelCallLine``, ``ExternKernelOutLine``, ...) are the
program's kernels. A ``del`` of a graph input frees memory only where the program holds the
last reference: which inputs those are is decided with the pair (``input_frees``).

For target cuda Inductor's Triton path runs; without a GPU its device queries are answered for
a stand-in board (_gpu.py), and nothing is autotuned or compiled.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import torch
import torch.fx as fx

from ._gpu import DEFAULT_GPU
from ._joint import copy_graph_module
from .errors import CaptureError

PROGRAM_META = "fxmem_program"  # gm.meta key: the program captured for a recorded graph

_lock = threading.RLock()


# Target cuda: kernels stay source (no worker pool compiles them ahead: compile_threads=1) and
# nothing is benchmarked (autotuning and benchmarked fusion need the GPU; with them off Inductor
# takes its heuristic choices, extern mm/addmm/bmm for matmuls). autotuned_off says which of them
# the user's config had on.
_TRITON_AS_SOURCE: dict[str, Any] = {"compile_threads": 1, "max_autotune": False, "max_autotune_gemm": False,
                                     "max_autotune_pointwise": False, "benchmark_fusion": False,
                                     "benchmark_kernel": False, "triton.cudagraphs": False}


def autotuned_off() -> list[str]:
    """The settings of ``_TRITON_AS_SOURCE`` the current Inductor config has on (compile_threads
    aside): each changes what a GPU run compiles, and is turned off for the capture."""
    config = torch._inductor.config
    return [key for key in _TRITON_AS_SOURCE if key != "compile_threads" and config.get_config_copy().get(key)]


class _Generated(Exception):
    """Raised from ``compile_to_module`` once the wrapper's lines are read: nothing compiles."""

    def __init__(self, program: dict[str, Any]) -> None:
        super().__init__("program captured")
        self.program = program


def _storage_nbytes(buf: Any) -> int:
    from torch._inductor.utils import get_dtype_size
    from torch._inductor.virtualized import V

    size = V.graph.sizevars.optimization_hint(V.graph.get_allocation_storage_size(buf), fallback=0)
    return int(size) * get_dtype_size(buf.get_dtype())


def _origins(buf: Any, names: set[str]) -> list[str]:
    try:
        origins = buf.get_origins()
    except (AttributeError, NotImplementedError):
        origins = getattr(buf, "origins", ())
    return sorted({n.name for n in origins if n.name in names})


def _kind(buf: Any) -> str:
    """Who fills a buffer the wrapper allocates: an extern kernel's ``out=`` or a generated kernel."""
    from torch._inductor import ir

    return "extern" if isinstance(buf, ir.ExternKernel) else "kernel"


def _fallback_outputs(node: Any) -> list[Any]:
    """The buffers an ATen fallback allocates when it runs: itself, or the MultiOutput buffers
    that index its result; outputs that alias an input are no allocation."""
    from torch._inductor import ir
    from torch._inductor.virtualized import V

    if not isinstance(node.layout, ir.MultiOutputLayout):
        return [] if node.get_inputs_that_alias_output() or isinstance(node.layout, ir.NoneLayout) else [node]
    owners = {node.get_name()}
    out = []
    for buf in V.graph.buffers:  # in creation order, which is the order the wrapper indexes them
        source = buf.inputs[0] if isinstance(buf, ir.MultiOutput) and buf.inputs else None
        if isinstance(source, ir.IRNode) and source.get_name() in owners:
            if isinstance(buf.layout, ir.MultiOutputLayout):
                owners.add(buf.get_name())  # a list inside the tuple
            elif not buf.get_inputs_that_alias_output() and not isinstance(buf.layout, ir.NoneLayout):
                out.append(buf)
    return out


class _ProgramBuilder:
    """Turns the wrapper's planned lines into PROGRAM's buffers and kernels."""

    def __init__(self, names: set[str]) -> None:
        self.names = names  # the captured graph's node names (origins outside it are dropped)
        self.buffers: list[dict[str, Any]] = []
        self.index: dict[str, int] = {}  # wrapper name -> buffer index, while it names one
        self.kernels: list[dict[str, Any]] = []
        self.pending: list[int] = []  # allocated since the last kernel call
        self.input_frees: dict[int, int] = {}  # input buffer -> kernel after which it is deleted
        self.externs: list[tuple[int, Any]] = []  # (kernel, IR node) of extern kernels and fallbacks

    def add(self, buf: Any, **extra: Any) -> int:
        entry: dict[str, Any] = {"name": buf.get_name(), "device": str(buf.get_device()),
                                 "nbytes": _storage_nbytes(buf)}
        entry.update(extra)
        nodes = _origins(buf, self.names)
        if nodes:
            entry["nodes"] = nodes
        self.index[buf.get_name()] = len(self.buffers)
        self.buffers.append(entry)
        return len(self.buffers) - 1

    def add_inputs(self, graph_inputs: Mapping[str, Any], placeholders: Mapping[str, int]) -> None:
        """Graph inputs, with their storages' sizes: saved views (q, k, v of one projection)
        share a storage larger than each view's extent."""
        from torch._inductor import ir

        for name, storage_nbytes in placeholders.items():
            box = graph_inputs.get(name)
            if isinstance(box, ir.TensorBox) and isinstance(box.data, ir.StorageBox) and box.data.is_input_buffer():
                self.add(box.data.data, input=True, nodes=[name] if name in self.names else [])
                self.buffers[-1]["nbytes"] = storage_nbytes
                if not self.buffers[-1]["nodes"]:
                    del self.buffers[-1]["nodes"]

    def kernel(self, name: str, allocated: Sequence[int] = ()) -> None:
        alloc = self.pending + list(allocated)
        nodes = sorted({n for i in alloc for n in self.buffers[i].get("nodes", ())})
        self.kernels.append({"name": name, "nodes": nodes, "alloc": alloc, "free": []})
        self.pending = []

    def free(self, name: str) -> None:
        i = self.index.pop(name, None)
        if i is None:
            return  # a tuple, an alias or a name that was handed to a reuse
        if self.pending or not self.kernels:
            self.kernel("")  # the allocations before this free happen first: a step of their own
        if self.buffers[i].get("input"):
            self.input_frees[i] = len(self.kernels) - 1
            return
        self.kernels[-1]["free"].append(i)

    def line(self, line: Any, outputs: set[str]) -> None:
        from torch._inductor.codegen import wrapper as w

        if isinstance(line, w.AllocateLine):
            self.pending.append(self.add(line.node, kind=_kind(line.node)))
        elif isinstance(line, w.ReuseLine):
            old = self.index.pop(line.node.get_name(), None)
            if old is None:
                raise CaptureError(f"the wrapper reuses {line.node.get_name()!r}, which holds no allocation here")
            if line.node.get_name() in outputs or not line.delete_old:
                # The old name stays bound (a graph output): the allocation now has two names.
                self.index[line.node.get_name()] = old
            new = self.add(line.reused_as, reuses=old, kind=_kind(line.reused_as))
            self.pending.append(new)
        elif isinstance(line, w.FreeIfNotReusedLine):
            if not line.is_reused:
                self.free(line.node.get_name())
        elif isinstance(line, w.FreeLine):
            self.free(line.node.get_name())
        elif isinstance(line, w.ExternKernelAllocLine):
            allocated = [self.add(b, kind="fallback") for b in _fallback_outputs(line.node)]
            self.kernel(line.node.get_kernel_name() if hasattr(line.node, "get_kernel_name") else line.node.get_name(),
                        allocated)
            self.externs.append((len(self.kernels) - 1, line.node))
        elif isinstance(line, w.KernelCallLine):
            self.kernel(line.kernel_name)
        elif isinstance(line, (w.ExternKernelOutLine, w.ExternKernelMultiOutLine, w.IndexPutFallbackLine,
                               w.ScatterFallbackLine)):
            node = line.node
            self.kernel(node.get_kernel_name() if hasattr(node, "get_kernel_name") else type(node).__name__)
            self.externs.append((len(self.kernels) - 1, node))

    def add_scratch(self) -> int:
        """Each extern kernel's and fallback's own temporaries, run once on the CPU (_scratch.py):
        a "scratch" buffer allocated with the kernel and freed after it. Returns how many
        kernels could not be run for it."""
        from ._scratch import origin_op, scratch_bytes

        missed = 0
        for k, node in self.externs:
            origin = origin_op(node)
            nbytes = scratch_bytes(origin, list(getattr(node, "inputs", []))) if origin is not None else None
            if origin is None or nbytes is None:
                missed += 1
                continue
            if nbytes == 0:
                continue
            i = len(self.buffers)
            self.buffers.append({"name": f"scratch{k}", "device": str(node.get_device()), "nbytes": nbytes,
                                 "kind": "scratch", "nodes": [origin.name] if origin.name in self.names else []})
            if not self.buffers[i]["nodes"]:
                del self.buffers[i]["nodes"]
            self.kernels[k]["alloc"].append(i)
            self.kernels[k]["free"].insert(0, i)
        return missed

    def finish(self, outputs: set[str]) -> None:
        """The program returns: every name but the outputs goes out of scope (the wrapper drops
        the trailing ``del`` lines as pointless, ``memory_plan_reuse``)."""
        if self.pending:
            self.kernel("")
        for name in [n for n in self.index if n not in outputs]:
            self.free(name)
        for k in self.kernels:
            if not k["nodes"]:
                del k["nodes"]


def _read_wrapper(graph: Any, names: set[str], placeholders: Mapping[str, int]) -> dict[str, Any]:
    from torch._inductor.codegen import wrapper as w

    known = (w.AllocateLine, w.ReuseLine, w.FreeIfNotReusedLine, w.FreeLine, w.ExternKernelAllocLine,
             w.KernelCallLine, w.ExternKernelOutLine, w.ExternKernelMultiOutLine, w.IndexPutFallbackLine,
             w.ScatterFallbackLine, w.NullLine, w.ReinterpretLine, w.MultiOutputLine, w.KernelDefinitionLine,
             w.CommentLine, w.AssertSizeStrideLine, w.UnbackedSymbolDefsLine, w.SymbolicCallArgLine, w.DynamicScalarLine,
             w.AssertDivByZeroLine, w.EnterDeviceContextManagerLine, w.ExitDeviceContextManagerLine)
    builder = _ProgramBuilder(names)
    builder.add_inputs(graph.graph_inputs, placeholders)
    outputs = set(graph.get_output_names())
    unknown: set[str] = set()
    for line in graph.wrapper_code.lines:
        if isinstance(line, w.WrapperLine) and not isinstance(line, known):
            unknown.add(type(line).__name__)
        builder.line(line, outputs)
    builder.finish(outputs)
    missed = builder.add_scratch() if set(graph.device_types) <= {"cpu"} else None
    return {"buffers": builder.buffers, "kernels": builder.kernels,
            "input_frees": {builder.buffers[i]["name"]: k for i, k in builder.input_frees.items()},
            "unknown_lines": sorted(unknown), "scratch_missed": missed}


def _output_name(out: Any) -> str | None:
    """The buffer (or graph input) an output of the program holds, through views."""
    try:
        return str(out.get_name())
    except Exception:
        return None


def _output_strides(graph: Any) -> list[tuple[str, ...] | None]:
    """The strides of the program's outputs, as ``codegen_and_compile`` records them for the
    TracingContext (a layout optimisation may make them differ from the FX graph's)."""
    from torch._inductor.ir import IRNode
    from torch.fx.experimental.symbolic_shapes import SymExprPrinter, free_unbacked_symbols

    printer = SymExprPrinter()
    out: list[tuple[str, ...] | None] = []
    for o in graph.graph_outputs or []:
        if isinstance(o, IRNode) and o.has_tensor_output() and not free_unbacked_symbols(o.get_stride()):
            out.append(tuple(printer.doprint(s) for s in o.get_layout().stride))
        else:
            out.append(None)
    return out


def _hand_output_strides(strides: list[tuple[str, ...] | None], inputs: Sequence[Any]) -> None:
    """Give AOTAutograd the forward program's output strides, as a compiled forward does
    (``set_tracing_context_output_strides``): it restrides the backward's saved inputs with
    them, so the backward is generated for the layouts the forward really produces."""
    from torch._inductor.utils import shape_env_from_inputs

    context = torch._guards.TracingContext.try_get()
    if context is None or context.output_strides is None or len(context.output_strides) != 0:
        return
    shape_env = shape_env_from_inputs(inputs)
    for exprs in strides:
        if exprs is None:
            context.output_strides.append(None)
        elif shape_env is None:
            context.output_strides.append(tuple(int(e) for e in exprs))
        else:
            context.output_strides.append(tuple(shape_env.evaluate_symexpr(e) for e in exprs))  # type: ignore[misc]


@contextlib.contextmanager
def _stop_after_codegen(names: set[str], placeholders: Mapping[str, int]) -> Iterator[None]:
    from torch._inductor.graph import GraphLowering

    def compile_to_module(self: GraphLowering) -> Any:
        self.codegen()
        program = _read_wrapper(self, names, placeholders)
        program["output_strides"] = _output_strides(self)
        program["outputs"] = [_output_name(o) for o in self.graph_outputs or []]
        raise _Generated(program)

    with _lock:
        saved = GraphLowering.compile_to_module
        setattr(GraphLowering, "compile_to_module", compile_to_module)
        try:
            yield
        finally:
            setattr(GraphLowering, "compile_to_module", saved)


def _on_device(gm: fx.GraphModule, inputs: Sequence[Any], device: torch.device) -> tuple[fx.GraphModule, list[Any]]:
    """A copy of ``gm`` and fake inputs on ``device`` where the capture holds ``meta`` tensors
    (``meta`` stands for the target device); inputs that shared a storage still share one."""
    from torch._subclasses.fake_tensor import FakeTensor
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    fake_mode = next((t.fake_mode for t in inputs if isinstance(t, FakeTensor)), None)
    if fake_mode is None or not any(isinstance(t, torch.Tensor) and t.device.type == "meta" for t in inputs):
        return gm, list(inputs)
    meta = torch.device("meta")

    def move(a: Any) -> Any:
        if isinstance(a, torch.device) and a == meta:
            return device
        if isinstance(a, str) and a == "meta":
            return str(device)
        return a

    work = copy_graph_module(gm)
    for node in work.graph.nodes:
        node.args = fx.node.map_aggregate(node.args, move)
        node.kwargs = fx.node.map_aggregate(node.kwargs, move)
    from torch._inductor.fx_passes.post_grad import view_to_reshape

    view_to_reshape(work)  # as Inductor does first: saved inputs may have the forward program's layouts
    work.recompile()
    bases: dict[int, torch.Tensor] = {}
    moved: list[Any] = []
    with fake_mode:
        for t in inputs:
            if not isinstance(t, torch.Tensor) or t.device.type != "meta":
                moved.append(t)
                continue
            st = t.untyped_storage()
            key = id(st) if not hasattr(st, "_cdata") else st._cdata
            if key not in bases:
                bases[key] = torch.empty(st.nbytes(), dtype=torch.uint8, device=device)
            base = bases[key]
            flat = base.view(t.dtype) if t.dtype.itemsize == 1 or base.numel() % t.dtype.itemsize == 0 else base
            view = torch.as_strided(flat, t.shape, t.stride(), t.storage_offset())
            view.requires_grad_(False)
            moved.append(view)
        FakeTensorProp(work, fake_mode).propagate_dont_convert_inputs(*moved)
    return work, moved


def _generated_in(e: BaseException | None) -> _Generated | None:
    seen = 0
    while e is not None and seen < 8:
        if isinstance(e, _Generated):
            return e
        e = getattr(e, "inner_exception", None) or e.__cause__ or e.__context__
        seen += 1
    return None


def capture_program(gm: fx.GraphModule, inputs: Sequence[Any], target: str, graph_kwargs: Mapping[str, Any],
                    gpu: str = DEFAULT_GPU) -> dict[str, Any]:
    """The program Inductor generates from ``gm`` for ``target`` ("cpu" or "cuda"), read from
    its wrapper codegen: {"target", "source", "buffers", "kernels", "input_frees"}."""
    from torch._inductor.compile_fx import compile_fx_inner
    from torch._inductor.utils import BoxedBool

    from ._gpu import stand_in_gpu
    from ._torch.fake import hint_int

    names = {n.name for n in gm.graph.nodes}
    kwargs = {k: v for k, v in graph_kwargs.items() if k in ("is_backward", "is_inference", "static_input_idxs",
                                                            "graph_id", "boxed_forward_device_index", "layout_opt")}
    kwargs["cudagraphs"] = BoxedBool(False)
    device = stand_in_gpu(gpu) if target == "cuda" else contextlib.nullcontext()
    with device as standing:
        work, moved = _on_device(gm, inputs, torch.device(target))
        placeholders = {n.name: hint_int(t.untyped_storage().nbytes())
                        for n, t in zip(work.graph.find_nodes(op="placeholder"), moved) if isinstance(t, torch.Tensor)}
        with _stop_after_codegen(names, placeholders), \
                torch._inductor.config.patch(fx_graph_cache=False, **(_TRITON_AS_SOURCE if target == "cuda" else {})):
            try:
                compile_fx_inner(copy_graph_module(work), moved, **kwargs)
            except Exception as e:  # Inductor wraps what compile_to_module raised in InductorError
                done = _generated_in(e)
                if done is None:
                    raise
                program = done.program
            else:
                raise CaptureError("Inductor compiled the graph without generating its wrapper code")
    strides = program.pop("output_strides")
    if not kwargs.get("is_backward"):
        _hand_output_strides(strides, inputs)
    program["target"] = target
    if standing is not None:
        program["gpu"] = {"name": standing.name, "sm": standing.major * 10 + standing.minor,
                          "stand_in": not torch.cuda.is_available()}
        program["source"] = f"torch._inductor {torch.__version__} (triton, {standing.describe()})"
    else:
        program["source"] = f"torch._inductor {torch.__version__} (cpp)"
    return program


def gpu_decides(kind: str, program: Mapping[str, Any], turned_off: Sequence[str]) -> str:
    """What the cuda ``program`` leaves to the GPU's run (docs/exporter.md, "Target cuda")."""
    externs = collections.Counter(k["name"] for k in program["kernels"] if k["name"] and not k["name"].startswith("triton_"))
    listed = ", ".join(f"{name} x{n}" if n > 1 else name for name, n in sorted(externs.items()))
    gpu = program["gpu"]
    message = (f"the {kind} graph's program for target 'cuda' was generated for {gpu['name']} (sm{gpu['sm']}"
               f"{', a stand-in: this machine has no GPU' if gpu['stand_in'] else ''}); what the GPU decides when "
               "the program runs is not in it: the workspaces extern kernels and ATen fallbacks allocate for "
               "themselves (cuBLAS/cuBLASLt workspaces of matmuls, cuDNN's algorithm and workspace, attention "
               f"kernels' scratch) are not measured ({listed or 'none in this graph'}), and nothing is autotuned "
               "(Triton's launch configurations and max_autotune's choices are made on the GPU)")
    if turned_off:
        message += (f"; turned off for this capture as they need the GPU: {', '.join(turned_off)} (a real compile "
                    "with them may choose other kernels)")
    return message


class ProgramCaptureWarning(UserWarning):
    """A graph's program could not be read in full from Inductor: the graph has no program
    level (``--measure allocated`` refuses it, naming it), or the warning says what is missing."""


def attach_program(gm: fx.GraphModule, inputs: Sequence[Any], target: str, graph_kwargs: Mapping[str, Any],
                   gpu: str = DEFAULT_GPU) -> None:
    """Capture the program of ``gm`` and keep it in ``gm.meta`` (the recorded copy shares it).
    A failure is said in a ProgramCaptureWarning and leaves the graph without a program."""
    kind = "backward" if graph_kwargs.get("is_backward") else "inference" if graph_kwargs.get("is_inference") else "forward"
    turned_off = autotuned_off() if target == "cuda" else []
    try:
        program = capture_program(gm, inputs, target, graph_kwargs, gpu=gpu)
    except Exception as e:  # Inductor's own failure on this graph: said, never hidden
        warnings.warn(ProgramCaptureWarning(
            f"the {kind} graph gets no program level: Inductor's code generation for target {target!r} failed "
            f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"), stacklevel=2)
        return
    if target == "cuda":
        warnings.warn(ProgramCaptureWarning(gpu_decides(kind, program, turned_off)), stacklevel=2)
    unknown = program.pop("unknown_lines")
    if unknown:
        warnings.warn(ProgramCaptureWarning(
            f"the {kind} graph's program has wrapper lines fxmem does not read ({', '.join(unknown)}): "
            "an allocation they make is missing from its program level"), stacklevel=2)
    missed = program.pop("scratch_missed")
    if missed:
        warnings.warn(ProgramCaptureWarning(
            f"the {kind} graph's program: the scratch space of {missed} extern kernel(s) or fallback(s) was not "
            "measured (their tensors exceed fxmem_export._scratch.MAX_BYTES, or their op failed on stand-in values); "
            "what they allocate for themselves while running is missing"), stacklevel=2)
    elif missed is None and target != "cuda":
        warnings.warn(ProgramCaptureWarning(
            f"the {kind} graph's program for target {target!r}: the scratch space extern kernels allocate for "
            "themselves is not measured without the device"), stacklevel=2)
    gm.meta[PROGRAM_META] = program
