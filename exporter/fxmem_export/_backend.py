"""A torch.compile backend that records every graph AOTAutograd compiles."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any, cast

import torch
import torch.fx as fx

from ._gpu import DEFAULT_GPU
from ._joint import copy_graph_module
from ._names import dynamo_input_infos
from ._roles import FQN_META, INPUTS_META
from ._serialize import build_document, check_producer, check_writable, write_json_atomic
from ._step import StepRecorder
from .errors import (
    ArgumentError,
    ArgumentTypeError,
    BackwardNotCapturedError,
    ExportWriteError,
    NothingCapturedError,
)
from .format_types import GraphFileDoc


def snapshot(gm: fx.GraphModule) -> fx.GraphModule:
    """A copy of ``gm`` that later compiler passes do not change: the same node names, nodes
    sharing ``meta`` values (the same FakeTensors, so storage identity is kept)."""
    return copy_graph_module(gm)


def dynamo_context(gm: fx.GraphModule) -> dict[str, Any]:
    """What the roles need from the graph Dynamo hands to the backend: each input's source,
    and Dynamo's flat attribute names -> qualified names (for ParamAOTInput targets)."""
    meta = getattr(gm, "meta", None) or {}
    return {INPUTS_META: dynamo_input_infos(gm), FQN_META: dict(meta.get("dynamo_flat_name_to_original_fqn") or {})}


class Region:
    """The graphs compiled for one call of the backend (one Dynamo graph)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.graphs: dict[str, list[fx.GraphModule]] = {"forward": [], "backward": [], "inference": [], "joint": []}
        self.meta: dict[str, Any] = {}  # roles' context from Dynamo's graph, put on every capture
        self.write_error: ExportWriteError | None = None  # a write that failed inside the backend call
        self.joint_captures: list[Any] = []  # inner="partition": _joint.JointCapture per partition
        self.traced_joint: fx.GraphModule | None = None  # the last joint graph AOTAutograd traced

    @property
    def prefix(self) -> str:
        return f"region{self.index}"

    def named_graphs(self) -> list[tuple[str, str, fx.GraphModule]]:
        out = []
        for kind in ("forward", "backward", "inference", "joint"):
            for j, gm in enumerate(self.graphs[kind]):
                out.append((f"{self.prefix}.{kind}" + (str(j) if j else ""), kind, gm))
        return out

    def pairs(self) -> list[tuple[Any, ...]]:
        fw, bw, joint = self.graphs["forward"], self.graphs["backward"], self.graphs["joint"]
        out: list[tuple[Any, ...]] = []
        for j in range(min(len(fw), len(bw))):
            suffix = str(j) if j else ""
            pair: tuple[Any, ...] = (f"{self.prefix}.forward{suffix}", f"{self.prefix}.backward{suffix}")
            out.append(pair + ({"joint": f"{self.prefix}.joint{suffix}"},) if j < len(joint) else pair)
        return out

    def missing_backward(self) -> bool:
        return len(self.graphs["backward"]) < len(self.graphs["forward"])


class FxmemBackend:
    """Returned by :func:`fxmem_export.backend`; pass it to ``torch.compile(backend=...)``.

    Each call (one per Dynamo graph, so one per graph break and per recompilation) is a region
    ``regionN``. Its graphs are named ``regionN.forward``, ``regionN.backward`` and
    ``regionN.inference``. The file at ``path`` is rewritten every time a graph is captured, so
    it is always complete and valid; a region's backward is in it only after a backward pass has
    run (AOTAutograd compiles the backward lazily).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        inner: str | Callable[..., Any] = "partition",
        reference: bool = False,
        producer: Mapping[str, Any] | None = None,
        overlap: bool = False,
        overlap_options: Mapping[str, Any] | None = None,
        overlap_estimate: Callable[..., Any] | None = None,
        joint: bool | None = None,
        remat: Any = None,
        optimizer: Any = None,
        target: str | None = None,
        sdpa: str | None = None,
        autocast: Any = None,
        program: bool = False,
        gpu: str = DEFAULT_GPU,
    ) -> None:
        from ._gpu import check_gpu_option
        from ._target import check_target_options

        check_gpu_option(gpu)
        self.gpu = gpu
        check_target_options(target, sdpa, autocast)
        self.target_option, self.sdpa, self.autocast = target, sdpa, autocast
        self.target: str | None = target  # resolved at the first compile (_target.resolve_target)
        if target in (None, "cuda"):
            from ._autocast import honour_user_regions

            honour_user_regions(self)  # the user's torch.autocast("cuda") is built enabled without CUDA
        if isinstance(inner, str) and inner not in ("inductor", "eager", "aot_eager", "partition"):
            raise ArgumentError(f"inner must be 'inductor', 'eager', 'partition' or a compiler callable, got {inner!r}")
        if not (isinstance(inner, str) or callable(inner)):
            raise ArgumentTypeError(f"inner must be a string or a callable, got {type(inner).__name__}")
        if path is not None:
            check_writable(path)  # ExportWriteError now for "", bytes, a directory, a FIFO, ...
        self.path = None if path is None else os.fspath(path)
        check_producer(producer)
        self.inner = inner
        # inner="partition" records the joint graph it partitions (next to the pair) by default.
        self.joint = (inner == "partition") if joint is None else bool(joint)
        if self.joint and inner != "partition":
            raise ArgumentError("joint=True needs inner='partition' (the joint graph is what the min-cut partitioner cuts)")
        self.reference = reference
        if remat is not None and inner != "partition":
            raise ArgumentError("remat=PLAN needs inner='partition' (the plan tags the joint graph the min-cut partitioner cuts)")
        if remat is not None:
            from .remat import load_plan

            load_plan(remat)  # a malformed plan fails now
        self.remat = remat
        self.producer = dict(producer or {})
        self.overlap, self.overlap_options, self.overlap_estimate = overlap, overlap_options, overlap_estimate
        if overlap:
            from .overlap import pass_options

            pass_options(overlap_options)  # a bad option fails now, not at the first capture
        self._overlap_cache: dict[int, Any] = {}  # the pass runs once per captured graph
        self.regions: list[Region] = []
        self.step = StepRecorder()  # the order the graphs ran in (_step.py)
        self.optimizer = optimizer  # its state goes in the file (_optimizer.py)
        self.step.optimizer = optimizer
        if program and inner != "partition":
            raise ArgumentError("program=True needs inner='partition' (Inductor's code generation runs on the graphs it partitions)")
        self.program = bool(program)
        self._warned_cpu = False
        self._warned_data_dependent = False
        self._lock = threading.RLock()
        self._in_call = threading.local()  # .active while Dynamo runs this backend
        self.__name__ = "fxmem_backend"

    # -- capture -----------------------------------------------------------------------------
    def _record(self, region: Region, kind: str, gm: fx.GraphModule) -> None:
        with self._lock:
            copy = snapshot(gm)
            copy.meta = {**getattr(gm, "meta", {}), **region.meta}
            region.graphs[kind].append(copy)
            if not self._warned_data_dependent and kind != "joint":
                from ._checks import data_dependent_sizes, warn_data_dependent

                sizes = data_dependent_sizes(copy)
                if sizes:
                    self._warned_data_dependent = True
                    warn_data_dependent(f"{region.prefix}.{kind}", sizes)
            if not self._warned_cpu:
                from ._checks import only_cpu, warn_cpu_only

                if only_cpu(copy):
                    self._warned_cpu = True
                    warn_cpu_only(f"{region.prefix}.{kind}")
            if self.path is not None:
                try:
                    write_json_atomic(self.path, self.document())
                except ExportWriteError as e:
                    # Raised from inside the backend call, Dynamo would wrap it in its own
                    # BackendCompilerFailed: the compiled function raises it instead (_call_raising).
                    if not getattr(self._in_call, "active", False):
                        raise
                    region.write_error = e

    def __call__(self, gm: fx.GraphModule, example_inputs: list[Any], **kwargs: Any) -> Callable[..., Any]:
        with self._lock:
            region = Region(len(self.regions))
            region.meta = dynamo_context(gm)
            region.meta["fxmem_attr_roles"] = self.step.attribute_roles(gm)  # a compiled opt.step's tensors
            self.regions.append(region)
        self._in_call.active = True
        try:
            self._prepare_for_target(gm, example_inputs)
            from ._gradients import lost_gradient_error, watch_lost_autograd

            with watch_lost_autograd() as lost, self._dispatch_as_target(example_inputs):
                if self.inner == "inductor":
                    compiled = self._compile_inductor(region, gm, example_inputs)
                elif self.inner == "partition":
                    compiled = self._compile_partition(region, gm, example_inputs)
                else:
                    compiled = self._compile_aot(region, gm, example_inputs)
            lost_gradient = lost_gradient_error(lost, region.traced_joint, region.meta, region.prefix)
        finally:
            self._in_call.active = False
        if lost_gradient is not None:
            return _always_raising(lost_gradient)  # Dynamo would wrap an error raised here
        compiled = self.step.wrap(compiled, region)
        return compiled if region.write_error is None else _call_raising(compiled, region)

    def _prepare_for_target(self, gm: fx.GraphModule, example_inputs: list[Any]) -> None:
        """Resolve the target device once, then lower the Dynamo graph's attention (and autocast)
        to what that device's dispatch would run (_target.py)."""
        from ._target import on_target_device, prepare_graph, resolve_target

        with self._lock:
            if self.target is None:
                self.target = resolve_target(example_inputs)
        if on_target_device(example_inputs, self.target) and self.sdpa is None and self.autocast is None:
            return  # PyTorch's own dispatch runs what the target runs
        prepare_graph(gm, target=self.target, sdpa=self.sdpa, autocast=self.autocast)

    def _dispatch_as_target(self, example_inputs: list[Any]) -> contextlib.ExitStack:
        """While AOTAutograd traces: meta's missing autograd kernels (_meta_autograd.py), the CPU
        branches of decompositions and layouts for target "cpu" (_cpu_branches.py), autocast."""
        from ._cpu_branches import cpu_branches
        from ._meta_autograd import meta_autograd

        with contextlib.ExitStack() as stack:  # one that fails to enter leaves the others exited
            stack.enter_context(meta_autograd())
            stack.enter_context(cpu_branches(self.target == "cpu", torch._guards.detect_fake_mode(example_inputs)))
            stack.enter_context(self._autocast_policy())
            return stack.pop_all()

    def _autocast_policy(self) -> contextlib.AbstractContextManager[Any]:
        """The target's autocast policy on meta tensors while AOTAutograd traces (forward and
        backward are traced in the compile): the user's regions and ``autocast=`` (_autocast.py)."""
        if self.target not in ("cuda", "cpu"):
            return contextlib.nullcontext()
        from ._autocast import autocast_capture

        return autocast_capture(self.target, self.autocast)

    def _compile_aot(self, region: Region, gm: fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        from functorch.compile import make_boxed_func
        from torch._dynamo.backends.common import aot_autograd

        inner = self.inner

        def make(kind: str) -> Callable[..., Any]:
            def compiler(g: fx.GraphModule, inputs: list[Any]) -> Callable[..., Any]:
                self._record(region, kind, g)
                if callable(inner):
                    compiled: Callable[..., Any] = inner(g, inputs)
                    return compiled
                from ._inductor_front import runnable

                return make_boxed_func(runnable(g).forward)  # channels-last convolutions keep their layout

            return compiler

        def partition(joint: fx.GraphModule, joint_inputs: Any, **kwargs: Any) -> Any:
            from torch._functorch.partitioners import default_partition

            region.traced_joint = joint
            return default_partition(joint, joint_inputs, **kwargs)

        return aot_autograd(fw_compiler=make("forward"), bw_compiler=make("backward"),
                            inference_compiler=make("inference"), partition_fn=partition)(gm, example_inputs)

    def _compile_partition(self, region: Region, gm: fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        """Inductor's front half (_inductor_front.py): pre-grad passes, Inductor's decompositions,
        its joint-graph passes and min-cut; the graphs are recorded and run as they are."""
        from ._inductor_front import capture_compile, eager_inner_compile
        from ._partition import partitioner_for

        program = None
        if self.program:
            from ._program import attach_program

            program = lambda g, inputs, kwargs: attach_program(g, inputs, self.target or "cuda", kwargs,  # noqa: E731
                                                               gpu=self.gpu)
        return capture_compile(gm, example_inputs, partitioner=partitioner_for(self, region),
                               inner_compile=eager_inner_compile(lambda kind, g: self._record(region, kind, g), program))

    def _compile_inductor(self, region: Region, gm: fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
        from torch._inductor.compile_fx import compile_fx, compile_fx_inner

        from ._checks import check_inductor_inputs

        check_inductor_inputs(example_inputs)

        def inner_compile(g: fx.GraphModule, inputs: Any, *args: Any, **kwargs: Any) -> Any:
            if kwargs.get("is_backward"):
                kind = "backward"
            elif kwargs.get("is_inference"):
                kind = "inference"
            else:
                kind = "forward"
            self._record(region, kind, g)  # before inductor's post-grad passes change g
            return compile_fx_inner(g, inputs, *args, **kwargs)

        # A cache hit would skip inner_compile, so the graphs would never be seen.
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch._functorch.config.patch(enable_autograd_cache=False))
            stack.enter_context(torch._inductor.config.patch(fx_graph_cache=False))
            # compile_fx returns code or weights (its other types) only for AOT Inductor.
            return cast(Callable[..., Any], compile_fx(gm, example_inputs, inner_compile=inner_compile))

    # -- output --------------------------------------------------------------------------------
    def graphs(self) -> list[tuple[str, str, fx.GraphModule]]:
        """(name, kind, GraphModule) of every captured graph, in capture order by region."""
        with self._lock:
            return [g for r in self.regions for g in r.named_graphs()]

    def pairs(self) -> list[tuple[str, str]]:
        with self._lock:
            return [p for r in self.regions for p in r.pairs()]

    def check_complete(self) -> None:
        """Raise if nothing was captured or a forward's backward has not been compiled yet."""
        with self._lock:
            if not self.regions or not any(r.named_graphs() for r in self.regions):
                raise NothingCapturedError(
                    "the fxmem backend has not captured any graph yet: call the model compiled with "
                    "torch.compile(model, backend=fxmem_export.backend(...)) at least once"
                )
            missing = [r.prefix for r in self.regions if r.missing_backward()]
            if missing:
                raise BackwardNotCapturedError(
                    f"no backward graph captured for {', '.join(missing)}: AOTAutograd compiles the "
                    "backward lazily, so run a backward pass (e.g. loss.backward()) once before saving; "
                    "or run the model under torch.no_grad() to capture an inference graph"
                )

    def document(self) -> GraphFileDoc:
        with self._lock:
            named = [(name, kind, gm.graph) for name, kind, gm in self.graphs()]
            producer = {"capture": "torch.compile backend", "inner": self.inner if isinstance(self.inner, str) else getattr(self.inner, "__name__", "callable")}
            producer.update(self._target_info())
            producer.update(self.producer)
            from ._step import annotate_regions

            step = annotate_regions(self.regions, self.step)  # before build_document: prefixes
            doc = build_document(named, self.pairs(), reference=self.reference, producer=producer)
            if self.program:
                from ._program_doc import add_programs

                add_programs(doc, self.graphs())
            if step:
                doc["step"] = step
            if self.optimizer is not None:
                from ._optimizer import add_optimizer_state

                add_optimizer_state(doc, self.optimizer, self.step.name_of)
            if step:
                from ._step import add_root_parameters

                add_root_parameters(doc, self.step)
            if self.overlap:
                from .overlap import add_schedules

                add_schedules(doc, [(name, gm) for name, kind, gm in self.graphs() if kind != "joint"],
                              estimate=self.overlap_estimate,
                              options=self.overlap_options, cache=self._overlap_cache)
            return doc

    def _target_info(self) -> dict[str, Any]:
        """What the file records of the target: the device the capture stands for, and the
        attention and autocast options that were given."""
        info: dict[str, Any] = {}
        if self.target is not None:
            info["target"] = self.target
        if self.sdpa is not None:
            info["sdpa"] = self.sdpa
        if self.autocast is not None:
            info["autocast"] = str(self.autocast).replace("torch.", "")
        return info

    def save(self, path: str | os.PathLike[str] | None = None, *, require_backward: bool = True) -> GraphFileDoc:
        """Write the file now (to ``path``, default the backend's path) and return the document.

        Raises :class:`NothingCapturedError` if no graph was captured, and (unless
        ``require_backward=False``) :class:`BackwardNotCapturedError` if a region's forward
        has no backward yet because no backward pass has run."""
        target = path if path is not None else self.path
        if target is None:
            raise ArgumentError("no path: pass save(path) or create the backend with a path")
        with self._lock:
            if require_backward:
                self.check_complete()
            elif not any(r.named_graphs() for r in self.regions):
                self.check_complete()
            doc = self.document()
            from ._step import warn_missing_backwards, warn_outside_graphs

            warn_missing_backwards(self.step.missing_backwards(), self.regions)
            warn_outside_graphs(doc, self.step)
            write_json_atomic(target, doc)
            return doc


def _call_raising(compiled: Callable[..., Any], region: Region) -> Callable[..., Any]:
    """``compiled``, whose first call raises the write error of ``region`` (our own
    ExportWriteError, as a failed backward write is); later calls run normally."""

    def run(*args: Any, **kwargs: Any) -> Any:
        error, region.write_error = region.write_error, None
        if error is not None:
            raise error
        return compiled(*args, **kwargs)

    return run


def _always_raising(error: Exception) -> Callable[..., Any]:
    """A compiled function that raises ``error`` (our own type, not Dynamo's wrapper) when called."""

    def run(*args: Any, **kwargs: Any) -> Any:
        raise error

    return run


def backend(
    path: str | os.PathLike[str] | None,
    inner: str | Callable[..., Any] = "partition",
    reference: bool = False,
    *,
    producer: Mapping[str, Any] | None = None,
    overlap: bool = False,
    overlap_options: Mapping[str, Any] | None = None,
    overlap_estimate: Callable[..., Any] | None = None,
    joint: bool | None = None,
    remat: Any = None,
    optimizer: Any = None,
    target: str | None = None,
    sdpa: str | None = None,
    autocast: Any = None,
    program: bool = False,
    gpu: str = DEFAULT_GPU,
) -> FxmemBackend:
    """A torch.compile backend that writes every forward/backward (or inference) graph compiled
    through AOTAutograd to the fxmem file ``path``.

    ``inner``: "partition" (the default: Inductor's front half on any device, ``meta`` included:
    its pre-grad passes, decompositions, joint-graph passes and min-cut partition, exactly what
    ``torch.compile`` partitions; the graphs are run as they are, not compiled), "inductor"
    (compile with Inductor on a real device, capturing the graphs Inductor's AOTAutograd hands to
    its inner compiler, before post-grad passes), "eager" (AOTAutograd with the default
    partitioner, graphs run as they are), or a callable ``(gm, example_inputs) -> compiled`` used
    as fw/bw/inference compiler after capture (AOTAutograd's default partitioner).

    ``target``: "cuda" or "cpu", the device the capture stands for (default: the inputs' device;
    on ``meta``, "cuda", said once). On ``meta``, attention is captured as the kernel that
    device's dispatch selects (``sdpa="flash"|"efficient"|"cudnn"|"math"`` overrides it) and
    ``torch.autocast`` regions follow that device's autocast policy; ``autocast=torch.bfloat16``
    applies it to the whole graph. The file's ``producer.target`` records it.

    ``joint``: also write the joint forward+backward graph each pair was partitioned from
    (graph ``regionN.joint``, kind "joint"; the pair's "joint" key). Default: on for
    ``inner="partition"``, which alone allows it.

    ``remat``: a recompute plan (``fxmem-cli remat -o PLAN.json``; a path or its mapping), with
    ``inner="partition"``: the joint graph is tagged per the plan (fxmem_export.remat) before the
    min-cut partition, and the backward is put in the plan's order.

    ``overlap=True``: every captured graph that has collectives (``wait_tensor``) also gets the
    node order of Inductor's ``schedule_overlap_bucketing`` as the schedule "inductor-overlap",
    computed without a GPU (see fxmem_export.overlap; ``overlap_options`` are the pass's keyword
    arguments, ``overlap_estimate(node, override_size) -> ms | None`` replaces the default
    runtime estimate).

    ``program=True`` (with ``inner="partition"``): every forward and backward graph also gets the
    allocations of the program Inductor generates from it for the target (its ``"program"``,
    docs/format.md; fxmem_export/_program.py): Inductor's lowering, scheduler and wrapper
    codegen run on the graph, nothing is compiled. A graph whose code generation fails is said in a
    ``ProgramCaptureWarning`` and has no program level. For target "cuda" Inductor's Triton path
    runs; without a GPU it asks a stand-in for the GPU ``gpu`` names ("h100": H100 SXM 80GB,
    sm90, the default; "a100": A100 SXM4 80GB, sm80; fxmem_export._gpu.GPUS), recorded in each
    program's ``"gpu"``. What only a GPU decides at run time is said in a ProgramCaptureWarning.

    The file's ``step`` lists the graphs in the order they ran in the last training iteration
    (fxmem_export._step). ``optimizer``: a torch.optim optimizer whose state (exp_avg, ...) is
    written as storages of role ``optimizer_state`` (fxmem_export._optimizer).
    """
    return FxmemBackend(path, inner=inner, reference=reference, producer=producer, overlap=overlap,
                        overlap_options=overlap_options, overlap_estimate=overlap_estimate, joint=joint, remat=remat,
                        optimizer=optimizer, target=target, sdpa=sdpa, autocast=autocast,
                        program=program, gpu=gpu)
