"""PyTorch's min-cut partition of the joint graph, without Inductor and on any device.

``min_cut_rematerialization_partition(..., compiler="inductor")`` is the partition function
Inductor uses. Inductor's own ``compile_fx.partition_fn`` first runs its joint-graph passes
(pattern rewrites, constant folding); on ``meta`` those collapse real models (llama: 95 forward
and 7 backward nodes), so they are not run here. See docs/exporter.md.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch
import torch.fx as fx

from ._joint import JointCapture, copy_graph_module


def _min_cut() -> Callable[..., tuple[fx.GraphModule, fx.GraphModule]]:
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    return min_cut_rematerialization_partition


def partition(joint: JointCapture, budget: float | None = None) -> tuple[fx.GraphModule, fx.GraphModule, fx.GraphModule]:
    """Partition a copy of the captured joint graph with the min-cut partitioner, under
    ``torch._functorch.config.activation_memory_budget = budget`` (None: the current config).
    Returns (forward, backward, cut joint): the cut joint is the copy the partitioner worked on,
    after its dead-code elimination and CSE, whose node names the forward and backward keep."""
    work = copy_graph_module(joint.gm)
    patch = (torch._functorch.config.patch(activation_memory_budget=float(budget)) if budget is not None
             else contextlib.nullcontext())
    # As AOTAutograd calls it: gradients and autocast off.
    with patch, torch.no_grad(), torch._C._DisableAutocast():
        fw, bw = _min_cut()(work, joint.joint_inputs, compiler="inductor", num_fwd_outputs=joint.num_fwd_outputs,
                            static_lifetime_input_indices=joint.static_lifetime_input_indices)
    return fw, bw, work


class RecordingPartition:
    """A ``partition_fn`` for AOTAutograd: the min-cut partition, and ``on_joint(capture, cut)``
    called with an untouched copy of the joint graph and the graph as partitioned."""

    def __init__(self, on_joint: Callable[[JointCapture, fx.GraphModule], None]) -> None:
        self.on_joint = on_joint

    def __call__(self, joint_module: fx.GraphModule, joint_inputs: Any, *, num_fwd_outputs: int,
                 static_lifetime_input_indices: list[int] | None = None, **kwargs: Any) -> Any:
        capture = JointCapture(copy_graph_module(joint_module), joint_inputs, num_fwd_outputs,
                               None if static_lifetime_input_indices is None else list(static_lifetime_input_indices))
        fw, bw = _min_cut()(joint_module, joint_inputs, compiler="inductor", num_fwd_outputs=num_fwd_outputs,
                            static_lifetime_input_indices=static_lifetime_input_indices, **kwargs)
        self.on_joint(capture, joint_module)
        return fw, bw


def partition_fn_for(backend: Any, region: Any) -> RecordingPartition:
    """The backend's partition function for one region: keeps each joint capture on the region
    (for ``sweep``) and, when the backend writes joint graphs, records the cut joint graph."""
    from ._joint import NUM_FWD_META

    def on_joint(capture: JointCapture, cut: fx.GraphModule) -> None:
        region.joint_captures.append(capture)
        if backend.joint:
            cut.meta[NUM_FWD_META] = capture.num_fwd_outputs
            backend._record(region, "joint", cut)

    return RecordingPartition(on_joint)
