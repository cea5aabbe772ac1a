"""Each rank's capture under the fake process group equals that rank's real training step.

The truth is real multi-process CPU training: 2 processes, gloo, a CPU device mesh, the model
compiled with Inductor (caches off). Each real rank records the pair Inductor's partitioner
(``min_cut_rematerialization_partition``) cuts, as real_run.real_cpu_pair does for one device.
Then ``fxmem_export.capture_ranks`` captures every rank in this one process (fake process group,
FakeTensorMode, no real tensor). For each rank the two pairs must have the same op multisets,
the same saved values and the same pair peak to the byte with PyTorch's estimator, and the
capture's ``distributed.parameters`` (local shapes, storage bytes with FSDP2's padding) must be
what the real rank holds.

FSDP2 (``fully_shard``) shards unevenly (a hidden size of 63 over 2 ranks: 32 and 31 rows) and
all-gathers the shards into the full parameters the graph sees; tensor parallel
(``ColwiseParallel`` then ``RowwiseParallel``) keeps each rank's local shard in its graph, with
the row-wise all-reduce.
"""

from __future__ import annotations

import json
import os
import socket
from typing import Any

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn

import fxmem_export
import fxmem_export._ranks
from fxmem_export._joint import copy_graph_module

import real_run
from conftest import run_cli

WORLD = 2
DIM, BATCH = 16, 8
# FSDP2 pads the uneven shard; tensor parallel under torch.compile fails on an uneven shard in
# torch 2.13 (the row-wise matmul gets the summed local widths), so its hidden size divides.
HIDDEN = {"fsdp": 63, "tp": 64}
KINDS = ("fsdp", "tp")


class MLP(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.up = nn.Linear(DIM, hidden)
        self.down = nn.Linear(hidden, DIM)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(torch.relu(self.up(x)))


def sharded(kind: str) -> nn.Module:
    """The MLP sharded over a 1-D CPU mesh of the default process group."""
    from torch.distributed.device_mesh import init_device_mesh

    mesh = init_device_mesh("cpu", (dist.get_world_size(),), mesh_dim_names=("dp" if kind == "fsdp" else "tp",))
    model = MLP(HIDDEN[kind])
    if kind == "fsdp":
        from torch.distributed.fsdp import fully_shard

        fully_shard(model, mesh=mesh)
    else:
        from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

        parallelize_module(model, mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    return model


def summary(pair: real_run.Pair) -> dict[str, Any]:
    """What the comparison reads of a pair, as JSON (it crosses processes)."""
    return {"forward": dict(real_run.ops(pair.forward)), "backward": dict(real_run.ops(pair.backward)),
            "saved": sorted([list(map(str, k)), n] for k, n in real_run.saved(pair).items()),
            "peak": real_run.peak(pair)}


def _real_rank(rank: int, port: int, out: str) -> None:
    """One real rank: gloo, each model compiled with Inductor (a training step's forward); the
    pair the partitioner cuts, summarized into ``out``.rank.json. The compile stops there
    (real_run._Partitioned): Inductor's code generation is not needed for the pair."""
    import torch._inductor.compile_fx as cfx

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=WORLD)
    real_cut = cfx.min_cut_rematerialization_partition
    taken: list[real_run.Pair] = []

    def cut(gm: Any, joint_inputs: Any, **kwargs: Any) -> Any:
        fw, bw = real_cut(gm, joint_inputs, **kwargs)
        taken.append(real_run.Pair(copy_graph_module(fw), copy_graph_module(bw)))
        raise real_run._Partitioned

    cfx.min_cut_rematerialization_partition = cut
    result: dict[str, Any] = {}
    shards: dict[str, Any] = {}
    try:
        with torch._functorch.config.patch(enable_autograd_cache=False), \
                torch._inductor.config.patch(fx_graph_cache=False):
            for kind in KINDS:
                torch._dynamo.reset()
                taken.clear()
                model = sharded(kind)
                # The shards this real rank holds (real tensors), before the step gathers them.
                shards[kind] = fxmem_export._ranks.parameters_of(model)
                try:
                    torch.compile(model)(torch.randn(BATCH, DIM))
                except Exception as e:  # Dynamo wraps what the partitioner raised
                    if not taken or not isinstance(getattr(e, "inner_exception", e), real_run._Partitioned):
                        raise
                result[kind] = [summary(p) for p in taken]
    finally:
        cfx.min_cut_rematerialization_partition = real_cut
        dist.destroy_process_group()
    with open(f"{out}.{rank}.json", "w") as f:
        json.dump({**result, "shards": shards}, f)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def real_ranks(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    out = str(tmp_path_factory.mktemp("ranks") / "real")
    mp.start_processes(_real_rank, args=(_free_port(), out), nprocs=WORLD, start_method="spawn")
    ranks = {}
    for rank in range(WORLD):
        with open(f"{out}.{rank}.json") as f:
            ranks[rank] = json.load(f)
    return ranks


def _run(kind: str) -> Any:
    def run(be: Any) -> nn.Module:
        model = sharded(kind)
        torch.compile(model, backend=be)(torch.randn(BATCH, DIM)).sum().backward()
        return model

    return run


@pytest.mark.parametrize("kind", KINDS)
def test_each_rank_equals_its_real_partition(kind: str, real_ranks: dict[int, dict[str, Any]], cli: Any,
                                             tmp_path: Any) -> None:
    docs: dict[int, Any] = {}
    pairs: dict[int, real_run.Pair] = {}
    for rank in range(WORLD):
        captured: dict[str, Any] = {}

        def run(be: Any, rank: int = rank) -> nn.Module:
            model = _run(kind)(be)
            captured.update({k: gm for _, k, gm in be.graphs()})
            return model

        docs.update(fxmem_export.capture_ranks(run, WORLD, ranks=[rank], target="cpu"))
        pairs[rank] = real_run.Pair(captured["forward"], captured["backward"])
    for rank in range(WORLD):
        real = real_ranks[rank][kind]
        assert len(real) == 1, f"rank {rank}: the real run partitioned {len(real)} pairs"
        assert summary(pairs[rank]) == real[0], f"{kind} rank {rank}"
        # Each parameter's local shape and storage bytes (FSDP2's padding) as the real rank holds them.
        assert docs[rank]["distributed"]["parameters"] == real_ranks[rank]["shards"][kind], f"{kind} rank {rank}"
        dist_doc = docs[rank]["distributed"]
        assert (dist_doc["rank"], dist_doc["world_size"]) == (rank, WORLD)
        assert dist_doc["meshes"] == [{"device_type": "cpu", "shape": [WORLD], "coordinate": [rank],
                                       "dim_names": ["dp" if kind == "fsdp" else "tp"]}]
    # fxmem-cli peak --ranks over the files capture_ranks writes, CPU storages counted: each rank's
    # peak is PyTorch's estimator on that rank's pair with its device filter opened, and the worst
    # rank is the highest. (PyTorch's get_fwd_bwd_interactions leaves CPU storages out of the
    # backward's baseline whatever the filter, and so does fxmem: docs/exporter.md's known
    # differences; the real-run figure above counts them.)
    for rank, doc in docs.items():
        (tmp_path / f"{kind}.rank{rank}.fxmem.json").write_text(json.dumps(doc))
    listed = run_cli(cli, "peak", str(tmp_path / f"{kind}.rank{{rank}}.fxmem.json"), "--ranks", "--devices", "all",
                     "--json")
    expected = {rank: _torch_peak_every_device(pairs[rank]) for rank in range(WORLD)}
    assert {r["rank"]: r["peak"] for r in listed["ranks"]} == expected
    assert listed["world_size"] == WORLD and listed["peak"] == max(expected.values())
    assert listed["worst_rank"] == min(r for r in expected if expected[r] == listed["peak"])


def _torch_peak_every_device(pair: real_run.Pair) -> int:
    """get_peak_memory's parts with the estimator's device filter accepting every device, and the
    baseline as PyTorch's get_fwd_bwd_interactions computes it (its own fixed check skips CPU)."""
    from torch._inductor.fx_passes import memory_estimator as me

    from fxmem_export.reference import intended_fwd_bwd_interactions

    saved = me.device_filter
    me.device_filter = lambda device: True
    try:
        fwd_peak = max(me.build_memory_profile(pair.forward.graph, me._is_releasable))
        baseline, keep = intended_fwd_bwd_interactions(pair.forward.graph, pair.backward.graph)
        bwd_peak = baseline + max(me.build_memory_profile(
            pair.backward.graph, lambda n: me._is_releasable(n) and n.name not in keep))
    finally:
        me.device_filter = saved
    return int(max(fwd_peak, bwd_peak))
