"""The documents fxmem_export writes and reads, as TypedDicts (docs/format.md is the contract).

A graph file is a :class:`GraphFileDoc`; ``save``, ``backend(...).save`` and ``sweep`` return
one. A SCHED file (``apply_schedule``) is a :class:`ScheduleFileDoc`; a remat plan
(``fxmem-cli remat -o``, ``apply_remat``) is a :class:`RematPlanDoc`. ``NotRequired`` marks
the keys a writer may leave out; a reader ignores keys it does not know, so these are what
fxmem_export writes, not all a file may hold. Free-form JSON (``producer``, a node's ``meta``
beyond its known keys) is ``Any``.
"""

import sys
from typing import Any, List, Optional, Union

if sys.version_info >= (3, 11):
    from typing import NotRequired, TypedDict
else:  # typing_extensions: a dependency of torch
    from typing_extensions import NotRequired, TypedDict

__all__ = [
    "GraphDoc",
    "GraphFileDoc",
    "IntendedPeakDoc",
    "NodeDoc",
    "NodeMetaDoc",
    "OtherDoc",
    "PairDoc",
    "PairInfo",
    "PlanNodeKey",
    "ReferenceDoc",
    "ReferenceGraphDoc",
    "ReferencePairDoc",
    "ReferenceScheduleDoc",
    "RematPlanDoc",
    "ScheduleDoc",
    "ScheduleFileDoc",
    "StepEntryDoc",
    "StorageDoc",
    "SymbolDoc",
    "TensorDoc",
    "ValDoc",
]

# -- the graph file ---------------------------------------------------------------------------


class SymbolDoc(TypedDict):
    """An entry of ``symbols``: a size symbol of a capture with dynamic shapes."""

    name: str
    hint: int
    source: str
    min: int
    max: Optional[int]


class StorageDoc(TypedDict):
    """STORAGE. ``role`` is one of docs/format.md's roles (``optimizer_state`` for what the
    optimizer keeps)."""

    id: int
    device: str
    nbytes: int
    role: NotRequired[str]
    label: NotRequired[str]
    nbytes_expr: NotRequired[str]  # symbolic sizes: the byte count as an expression of ``symbols``


class TensorDoc(TypedDict):
    """TENSOR: a FakeTensor's view of its storage (hinted ints when its sizes are symbolic)."""

    storage: int
    dtype: str
    shape: list[int]
    stride: list[int]
    offset: int
    shape_expr: NotRequired[list[Union[int, str]]]  # symbolic sizes: ints and expressions
    stride_expr: NotRequired[list[Union[int, str]]]
    offset_expr: NotRequired[Union[int, str]]


class OtherDoc(TypedDict):
    """What is not a FakeTensor (a SymInt, an int, a real tensor), as text."""

    other: str


ValDoc = Union[None, TensorDoc, OtherDoc, List["ValDoc"]]
"""VAL: null, a TENSOR, ``{"other": ...}`` or a list of VALs."""


class NodeMetaDoc(TypedDict, total=False):
    """The node ``meta`` fxmem_export writes (a reader keeps any object)."""

    original_aten: str
    seq_nr: int
    nondeterministic_seeded: bool


class NodeDoc(TypedDict):
    """NODE."""

    name: str
    op: str
    target: str
    inputs: list[str]
    val: ValDoc
    stack_trace: NotRequired[str]
    meta: NotRequired[NodeMetaDoc]
    module: NotRequired[str]
    module_type: NotRequired[str]
    phase: NotRequired[str]  # joint graphs: "forward" or "backward"
    flops: NotRequired[int]
    flops_expr: NotRequired[Union[int, str]]  # symbolic sizes: the FLOPs as an expression


class ProgramBufferDoc(TypedDict):
    """BUFFER of a PROGRAM: one allocation of the compiled program (or a graph input)."""

    name: str
    device: str
    nbytes: int
    nbytes_expr: NotRequired[str]
    input: NotRequired[bool]
    storage: NotRequired[int]  # input buffers: the STORAGE id of the input's value
    kind: NotRequired[str]
    nodes: NotRequired[list[str]]
    reuses: NotRequired[int]
    stream: NotRequired[int]


class ProgramKernelDoc(TypedDict):
    """KERNEL of a PROGRAM, in run order."""

    name: str
    nodes: NotRequired[list[str]]
    alloc: list[int]
    free: list[int]


class ProgramGpuDoc(TypedDict):
    """PROGRAM's ``gpu``: the GPU a cuda program was generated for."""

    name: str
    sm: int
    stand_in: bool


class ProgramDoc(TypedDict):
    """PROGRAM: what the program Inductor generates from a graph allocates and frees."""

    target: str
    source: NotRequired[str]
    gpu: NotRequired[ProgramGpuDoc]
    buffers: list[ProgramBufferDoc]
    kernels: list[ProgramKernelDoc]


class GraphDoc(TypedDict):
    """GRAPH."""

    name: str
    kind: str
    nodes: list[NodeDoc]
    num_fwd_outputs: NotRequired[int]  # joint graphs
    program: NotRequired[ProgramDoc]


class PairInfo(TypedDict, total=False):
    """What a pair carries beyond its two graphs (``sweep``: the joint graph, the budget and
    what recomputation costs)."""

    joint: str
    budget: float
    extra_flops: int


class PairDoc(PairInfo):
    """PAIR."""

    forward: str
    backward: str


class StepEntryDoc(TypedDict):
    """STEP: one graph run of the training step."""

    graph: str
    call: int
    module_prefix: NotRequired[str]


class ScheduleDoc(TypedDict):
    """SCHEDULE: a named complete order of a graph (``overlap=True``: Inductor's)."""

    name: str
    graph: str
    order: list[str]
    source: NotRequired[Optional[str]]


class ReferenceGraphDoc(TypedDict):
    """PyTorch's estimator on one graph (``reference=True``); ``None`` and an ``*_error`` where
    it raised."""

    profile: Optional[list[int]]
    profile_error: NotRequired[str]
    tracker_peak: Optional[int]
    tracker_current: Optional[list[int]]
    tracker_error: NotRequired[str]


class IntendedPeakDoc(TypedDict):
    """``get_peak_memory`` as intended (reference.intended_peak_memory)."""

    forward_peak: int
    backward_baseline: int
    backward_peak: int
    peak: int


class ReferencePairDoc(TypedDict):
    forward: str
    backward: str
    peak: Optional[int]
    error: Optional[str]
    intended: Optional[IntendedPeakDoc]
    intended_error: NotRequired[str]


class ReferenceScheduleDoc(TypedDict):
    """MemoryTracker on a stored schedule's order."""

    name: str
    graph: str
    tracker_peak: int
    tracker_current: list[int]


class ReferenceDoc(TypedDict):
    """The ``reference`` block: PyTorch's own numbers, which readers ignore."""

    torch_version: str
    estimator: str
    graphs: dict[str, ReferenceGraphDoc]
    pairs: list[ReferencePairDoc]
    schedules: NotRequired[list[ReferenceScheduleDoc]]


class MeshDoc(TypedDict):
    """One device mesh of a sharded step (docs/format.md, "distributed")."""

    device_type: str
    shape: list[int]
    dim_names: Optional[list[str]]
    coordinate: Optional[list[int]]


class ParameterShardDoc(TypedDict):
    """One DTensor parameter's shard on the rank (docs/format.md, "distributed")."""

    name: str
    shape: list[int]
    local_shape: list[int]
    nbytes: int


class DistributedDoc(TypedDict):
    """The rank a file was captured for (docs/format.md, "distributed")."""

    rank: int
    world_size: int
    meshes: list[MeshDoc]
    parameters: NotRequired[list[ParameterShardDoc]]


class GraphFileDoc(TypedDict):
    """The graph file (docs/format.md, "Top level")."""

    format: str
    version: int
    producer: dict[str, Any]
    symbols: NotRequired[list[SymbolDoc]]
    storages: list[StorageDoc]
    graphs: list[GraphDoc]
    pairs: NotRequired[list[PairDoc]]
    schedules: NotRequired[list[ScheduleDoc]]
    reference: NotRequired[ReferenceDoc]
    step: NotRequired[list[StepEntryDoc]]
    distributed: NotRequired[DistributedDoc]


# -- the other documents ----------------------------------------------------------------------


class ScheduleFileDoc(TypedDict):
    """A SCHED file: ``{"graph": NAME, "order": [every node name once]}``."""

    graph: NotRequired[Optional[str]]
    order: list[str]


PlanNodeKey = List[Any]
"""A plan's KEY: ``[target, module or null, occurrence, shape or null, dtype or null]`` (a JSON
array of mixed types; load_plan checks each place)."""


class RematPlanDoc(TypedDict):
    """A remat plan (docs/format.md, "Remat plans")."""

    format: str
    version: int
    joint: str
    saved: list[str]
    recomputed: NotRequired[list[str]]
    order: NotRequired[list[str]]
    peak: NotRequired[int]
    extra_flops: NotRequired[int]
    nodes: NotRequired[Optional[dict[str, PlanNodeKey]]]
