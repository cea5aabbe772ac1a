"""capture_ranks' arguments, and which ranks are representative (no compile: cheap).

The capture itself is checked against real multi-process training in test_ranks_real.py."""

from __future__ import annotations

import pytest
import torch
import torch.distributed as dist
import torch.nn as nn

import fxmem_export
from fxmem_export._ranks import _forget_sharding_caches, meshes_of, parameters_of, representative_ranks


def _never(be: object) -> None:
    raise AssertionError("run() must not be called when the arguments are refused")


@pytest.mark.parametrize("kwargs, error, words", [
    ({"world_size": 0}, fxmem_export.ArgumentError, "world_size must be at least 1"),
    ({"world_size": True}, fxmem_export.ArgumentTypeError, "world_size must be an int"),
    ({"world_size": 2, "ranks": [2]}, fxmem_export.ArgumentError, "ranks must list ranks in [0, 2)"),
    ({"world_size": 2, "ranks": []}, fxmem_export.ArgumentError, "ranks must list ranks"),
    ({"world_size": 2, "ranks": "some"}, fxmem_export.ArgumentError, "'representative', 'all'"),
    ({"world_size": 2, "path": "out.json"}, fxmem_export.ArgumentError, "path must have {rank} in it"),
])
def test_bad_arguments_are_refused_before_any_capture(kwargs: dict[str, object], error: type, words: str) -> None:
    with pytest.raises(error, match=None) as info:
        fxmem_export.capture_ranks(_never, **kwargs)  # type: ignore[arg-type]
    assert words in str(info.value)


def _sharded(rank: int, world: int, hidden: int) -> tuple[nn.Module, list[tuple[int, ...]]]:
    """A Linear(16, hidden) under fully_shard on a fake process group of rank ``rank``; its
    meshes and the local shapes of its parameters."""
    from torch.distributed.fsdp import fully_shard
    from torch.testing._internal.distributed.fake_pg import FakeStore
    import torch.distributed.device_mesh as dm

    _forget_sharding_caches()  # as capture_ranks does per rank: else rank 3 gets rank 0's mesh
    dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world)
    try:
        mesh = dm.init_device_mesh("cpu", (world,), mesh_dim_names=("dp",))
        model = nn.Linear(16, hidden)
        fully_shard(model, mesh=mesh)
        return model, [tuple(p.to_local().shape) for p in model.parameters()]
    finally:
        dist.destroy_process_group()


def test_the_last_rank_is_representative_when_a_shard_is_uneven() -> None:
    model, local = _sharded(0, 4, 63)  # 63 rows over 4 ranks: 16, 16, 16, 15
    assert local == [(16, 16), (16,)]
    assert representative_ranks(model, 4) == [0, 3]
    model, _ = _sharded(0, 4, 64)
    assert representative_ranks(model, 4) == [0]
    model, local = _sharded(3, 4, 63)
    assert local == [(15, 16), (15,)]
    assert meshes_of(model) == [{"device_type": "cpu", "shape": [4], "dim_names": ["dp"], "coordinate": [3]}]
    assert meshes_of(torch.nn.Linear(2, 2)) == []  # no DTensor parameter: no mesh


def test_each_parameter_shard_counts_fsdp2_padding() -> None:
    # Linear(16, 63) over 4 ranks: dim 0 in chunks of 16 rows, the last rank 15 rows in a
    # storage padded to 16 (FSDP2's padded sharded storage): 16 * 16 * 4 B and 16 * 4 B.
    for rank, rows in ((0, 16), (3, 15)):
        model, _ = _sharded(rank, 4, 63)
        assert parameters_of(model) == [
            {"name": "weight", "shape": [63, 16], "local_shape": [rows, 16], "nbytes": 16 * 16 * 4},
            {"name": "bias", "shape": [63], "local_shape": [rows], "nbytes": 16 * 4},
        ]
