"""PyTorch's min-cut partition of the joint graph Inductor's joint-graph passes leave.

``compile_fx.partition_fn`` runs Inductor's joint-graph passes and then
``min_cut_rematerialization_partition(..., compiler="inductor")``. The backend records the joint
graph the partitioner is handed (after those passes; _inductor_front.py) so that ``sweep`` can
partition the same graph again at another ``activation_memory_budget``, as a real run at that
budget would.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import torch
import torch.fx as fx

from ._inductor_front import RecordingPartitioner
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


def partitioner_for(backend: Any, region: Any) -> RecordingPartitioner:
    """The backend's partitioner for one region: keeps an untouched copy of each joint graph on
    the region (for ``sweep``), tags it per the backend's recompute plan, and records the joint
    graph as partitioned when the backend writes joint graphs."""
    from ._joint import NUM_FWD_META

    plan = None
    if backend.remat is not None:
        from .remat import PlanApplication

        plan = PlanApplication(backend.remat)

    def before(gm: fx.GraphModule, joint_inputs: Any, kwargs: dict[str, Any]) -> None:
        static = kwargs.get("static_lifetime_input_indices")
        region.traced_joint = gm
        region.joint_captures.append(JointCapture(copy_graph_module(gm), joint_inputs, kwargs["num_fwd_outputs"],
                                                  None if static is None else list(static)))
        if plan is not None:
            plan.before(gm, kwargs["num_fwd_outputs"])

    def after(cut: fx.GraphModule, fw: fx.GraphModule, bw: fx.GraphModule) -> tuple[fx.GraphModule, fx.GraphModule] | None:
        if backend.joint:
            cut.meta[NUM_FWD_META] = region.joint_captures[-1].num_fwd_outputs
            backend._record(region, "joint", cut)
        return plan.after(fw, bw) if plan is not None else None

    return RecordingPartitioner(before, after)
