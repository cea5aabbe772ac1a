"""One rank of a sharded training step (FSDP2, tensor parallel), captured on one machine.

``capture_ranks(run, world_size, path)`` runs the user's step once per rank in this process,
each time under PyTorch's fake process group (``FakeStore``, ``init_process_group("fake",
rank=r, world_size=W)``: collectives return at once and move no data) and inside a
``FakeTensorMode``. In that mode the user's own code makes no real tensor: a model built on the
CPU, or built on ``meta`` and materialized with ``to_empty(device=...)``, has fake parameters
that FSDP2 accepts (it refuses ``meta`` ones, ``_validate_no_meta_params``), and the inputs are
fake too. FSDP2's and DTensor's code runs as it does on a real rank: the shard this rank holds,
the graphs Dynamo traces through DTensor (with their collectives), the hooks around them. So
the graphs the backend records are the ones a real rank partitions (exporter/tests/
test_ranks_real.py checks it against real gloo training, rank by rank).

Each rank's file gets the top-level ``distributed`` object (docs/format.md): the rank, the world
size and the device meshes of the model's DTensor parameters with this rank's coordinate.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch
import torch.distributed as dist

from .errors import ArgumentError, ArgumentTypeError, CaptureError
from .format_types import GraphFileDoc, MeshDoc, ParameterShardDoc

__all__ = ["capture_ranks", "meshes_of", "parameters_of", "representative_ranks"]


def _check(world_size: Any, ranks: Any, path: Any) -> None:
    if isinstance(world_size, bool) or not isinstance(world_size, int):
        raise ArgumentTypeError(f"world_size must be an int, got {type(world_size).__name__}")
    if world_size < 1:
        raise ArgumentError(f"world_size must be at least 1, got {world_size}")
    if isinstance(ranks, str):
        if ranks not in ("representative", "all"):
            raise ArgumentError(f"ranks must be 'representative', 'all' or a list of ranks, got {ranks!r}")
    else:
        try:
            listed = list(ranks)
        except TypeError:
            raise ArgumentTypeError(f"ranks must be 'representative', 'all' or a list of ranks, got "
                                    f"{type(ranks).__name__}") from None
        bad = [r for r in listed if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < world_size]
        if bad or not listed:
            raise ArgumentError(f"ranks must list ranks in [0, {world_size}), got {listed!r}")
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(f"path must be a str or os.PathLike with {{rank}} in it, got {type(path).__name__}")
    if path is not None and "{rank}" not in os.fspath(path):
        raise ArgumentError(f"path must have {{rank}} in it (one file per rank), got {os.fspath(path)!r}")


def _dtensor_params(model: Any) -> list[tuple[str, Any]]:
    from torch.distributed.tensor import DTensor

    if not isinstance(model, torch.nn.Module):
        return []
    return [(name, p) for name, p in model.named_parameters() if isinstance(p, DTensor)]


def meshes_of(model: Any) -> list[MeshDoc]:
    """The distinct device meshes of the model's DTensor parameters, in the order first met:
    device type, shape, dimension names (None when unnamed) and this rank's coordinate."""
    out: list[MeshDoc] = []
    seen: list[Any] = []
    for _, p in _dtensor_params(model):
        mesh = p.device_mesh
        if any(mesh is m for m in seen):
            continue
        seen.append(mesh)
        coordinate = mesh.get_coordinate()
        out.append({
            "device_type": str(mesh.device_type),
            "shape": [int(s) for s in mesh.shape],
            "dim_names": list(mesh.mesh_dim_names) if mesh.mesh_dim_names else None,
            "coordinate": [int(c) for c in coordinate] if coordinate is not None else None,
        })
    return out


def parameters_of(model: Any) -> list[ParameterShardDoc]:
    """Each DTensor parameter's shard on this rank: its name, global shape, local shape, and the
    bytes of the local tensor's storage (FSDP2 keeps an uneven shard in a padded storage, so
    the padding is counted)."""
    return [{"name": name, "shape": [int(s) for s in p.shape],
             "local_shape": [int(s) for s in p.to_local().shape],
             "nbytes": int(p.to_local().untyped_storage().nbytes())}
            for name, p in _dtensor_params(model)]


def _uneven(model: Any) -> bool:
    """Whether some DTensor parameter is sharded along a dimension its mesh does not divide
    (then the last rank holds less than rank 0)."""
    from torch.distributed.tensor import Shard

    for _, p in _dtensor_params(model):
        for mesh_dim, placement in enumerate(p.placements):
            if isinstance(placement, Shard) and p.shape[placement.dim] % p.device_mesh.size(mesh_dim):
                return True
    return False


def representative_ranks(model: Any, world_size: int) -> list[int]:
    """Rank 0, and the last rank when the model's sharding is uneven."""
    return [0] if world_size == 1 or not _uneven(model) else [0, world_size - 1]


@contextlib.contextmanager
def _real_meshes() -> Iterator[None]:
    """Device meshes made with real rank maps inside the fake mode: a mesh is the layout of the
    ranks (its tensor is read with ``tolist``), not model memory. ``init_device_mesh`` (looked
    up at call time) and ``DeviceMesh(...)`` run with the fake mode unset."""
    import torch.distributed.device_mesh as dm
    from torch._subclasses.fake_tensor import FakeTensor, unset_fake_temporarily

    real_init, real_make = dm.DeviceMesh.__init__, dm.init_device_mesh

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, FakeTensor)]
        if tensors:
            raise CaptureError("capture_ranks: a DeviceMesh was given a tensor made inside the fake mode; make "
                               "the mesh with torch.distributed.device_mesh.init_device_mesh called as "
                               "dm.init_device_mesh (looked up when run() runs) or from a list of ranks")
        with unset_fake_temporarily():
            real_init(self, *args, **kwargs)

    def make(*args: Any, **kwargs: Any) -> Any:
        with unset_fake_temporarily():
            return real_make(*args, **kwargs)

    dm.DeviceMesh.__init__ = init  # type: ignore[method-assign]
    dm.init_device_mesh = make
    try:
        yield
    finally:
        dm.DeviceMesh.__init__ = real_init  # type: ignore[method-assign]
        dm.init_device_mesh = real_make


def _forget_sharding_caches() -> None:
    """Empty DTensor's sharding-propagation caches (C++ and Python). They are keyed by specs
    whose meshes compare equal across ranks (a mesh's rank is not in its key), so a cached
    result of the previous rank would hand this rank a DTensor on that rank's mesh."""
    from torch.distributed.tensor import DTensor

    clear = getattr(torch._C, "_clear_DTensor_sharding_propagator_cache", None)
    if clear is not None:
        clear()
    propagator = DTensor._op_dispatcher.sharding_propagator
    propagator.propagate_op_sharding.cache_clear()
    propagator._propagate_tensor_meta_cached.cache_clear()


def _capture_one(run: Callable[..., Any], rank: int, world_size: int,
                 backend_options: dict[str, Any]) -> tuple[GraphFileDoc, Any]:
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.testing._internal.distributed.fake_pg import FakeStore  # registers the "fake" backend

    from ._backend import backend

    if dist.is_initialized():
        raise CaptureError("capture_ranks makes a fake process group per rank: destroy the default process "
                           "group first (torch.distributed.destroy_process_group())")
    torch._dynamo.reset()
    _forget_sharding_caches()
    be = backend(None, **backend_options)
    dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world_size)
    try:
        with _real_meshes(), FakeTensorMode(allow_non_fake_inputs=True):
            model = run(be)
        be.check_complete()
        doc = be.document()
        doc["distributed"] = {"rank": rank, "world_size": world_size, "meshes": meshes_of(model),
                              "parameters": parameters_of(model)}
        return doc, model
    finally:
        dist.destroy_process_group()
        torch._dynamo.reset()
        _forget_sharding_caches()


def capture_ranks(run: Callable[..., Any], world_size: int, path: str | os.PathLike[str] | None = None,
                  ranks: str | Iterable[int] = "representative", **backend_options: Any) -> dict[int, GraphFileDoc]:
    """Capture a sharded training step for each of ``ranks`` of ``world_size``, one after the
    other in this process, without real tensors or a second process.

    ``run(backend)`` is the user's step: it builds the model (on the CPU or the target device,
    or on ``meta`` and then ``to_empty``), shards it (``fully_shard``, ``parallelize_module``,
    on a device mesh made from the default process group), compiles it with
    ``torch.compile(..., backend=backend)``, runs a forward and backward, and returns the model
    (its DTensor parameters give the meshes). It runs inside a ``FakeTensorMode`` with the
    default process group a fake one of rank r.

    ``ranks``: "representative" (rank 0, plus the last rank when some parameter's sharding is
    uneven), "all", or a list. ``path``: a file name with ``{rank}`` in it, one file per rank.
    ``backend_options``: passed to :func:`fxmem_export.backend` (e.g. ``target="cpu"``).
    Returns each captured rank's document.
    """
    from ._serialize import write_json_atomic

    _check(world_size, ranks, path)
    if not callable(run):
        raise ArgumentTypeError(f"run must be a callable run(backend) -> model, got {type(run).__name__}")
    if "path" in backend_options:
        raise ArgumentError("pass path to capture_ranks itself (a name with {rank} in it), not as a backend option")
    wanted: list[int] = (list(range(world_size)) if ranks == "all" else [] if isinstance(ranks, str)
                         else [int(r) for r in ranks])
    docs: dict[int, GraphFileDoc] = {}
    first = wanted[0] if wanted else 0
    docs[first], model = _capture_one(run, first, world_size, backend_options)
    if ranks == "representative":
        wanted = representative_ranks(model, world_size)
    for rank in wanted:
        if rank not in docs:
            docs[rank] = _capture_one(run, rank, world_size, backend_options)[0]
    if path is not None:
        for rank, doc in docs.items():
            write_json_atomic(os.fspath(path).replace("{rank}", str(rank)), doc)
    return {rank: docs[rank] for rank in sorted(docs)}

