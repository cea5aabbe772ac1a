"""A CUDA GPU that Inductor's code generation asks about, on a machine without one.

``program=True`` with ``target="cuda"`` runs Inductor's Triton path (lowering, the scheduler's
fusion, the wrapper's memory planning) on CUDA fake tensors. Inductor asks the device a few
questions while it generates code: is CUDA available, how many devices, the current one, its
properties (multiprocessor count, compute capability, warp size, registers, shared memory) and
whether it supports bf16. Without a GPU (a CPU build of torch) each of those raises. Inside
``stand_in_gpu`` they answer for one GPU of a chosen model (``GPUS``); the patches and
Inductor's caches of the answers are restored when the block ends, so nothing outlives the
capture. Where a real CUDA device is present, nothing is patched and its own answers are used.

The properties are the published ones of each board (NVIDIA's data sheets and the CUDA
programming guide's table of compute capabilities): what ``torch.cuda.get_device_properties``
reports on it, to the precision Inductor reads them.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from .errors import ArgumentError, CaptureError

_lock = threading.RLock()


@dataclass(frozen=True)
class GpuModel:
    """What ``torch.cuda.get_device_properties`` says of one board (the fields Inductor reads)."""

    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int
    regs_per_multiprocessor: int = 65536
    max_threads_per_multi_processor: int = 2048
    max_threads_per_block: int = 1024
    warp_size: int = 32
    shared_memory_per_block: int = 48 * 1024
    shared_memory_per_block_optin: int = 0
    shared_memory_per_multiprocessor: int = 0
    L2_cache_size: int = 0
    is_integrated: int = 0
    gcnArchName: str = "NVIDIA"  # what a CUDA (not ROCm) build reports
    clock_rate_khz: int = 0  # what Triton's driver reports besides (cuDeviceGetAttribute)
    memory_clock_rate_khz: int = 0
    memory_bus_width: int = 0

    @property
    def sm(self) -> str:
        return f"sm{self.major}{self.minor}"

    def describe(self) -> str:
        return f"{self.name}, {self.sm}"


# The boards a capture can stand for (docs/exporter.md lists them). total_memory is the
# board's 80 GB as the CUDA runtime reports it (the driver keeps a part for itself);
# Inductor's code generation does not read it.
GPUS: dict[str, GpuModel] = {
    "h100": GpuModel("NVIDIA H100 80GB HBM3", 9, 0, total_memory=81559 * 2**20, multi_processor_count=132,
                     shared_memory_per_block_optin=227 * 1024, shared_memory_per_multiprocessor=228 * 1024,
                     L2_cache_size=50 * 2**20, clock_rate_khz=1980000, memory_clock_rate_khz=2619000,
                     memory_bus_width=5120),
    "a100": GpuModel("NVIDIA A100-SXM4-80GB", 8, 0, total_memory=81050 * 2**20, multi_processor_count=108,
                     shared_memory_per_block_optin=163 * 1024, shared_memory_per_multiprocessor=164 * 1024,
                     L2_cache_size=40 * 2**20, clock_rate_khz=1410000, memory_clock_rate_khz=1593000,
                     memory_bus_width=5120),
}
DEFAULT_GPU = "h100"


def check_gpu_option(gpu: Any) -> None:
    if gpu not in GPUS:
        raise ArgumentError(f"gpu must be one of {', '.join(map(repr, GPUS))}, got {gpu!r}")


def real_gpu() -> GpuModel | None:
    """The current CUDA device where there is one (its own answers are then used)."""
    if not torch.cuda.is_available():
        return None
    p = torch.cuda.get_device_properties(torch.cuda.current_device())
    return GpuModel(p.name, p.major, p.minor, p.total_memory, p.multi_processor_count)


def _clear_caches() -> None:
    """Inductor's memoized answers about the device (functools caches keyed by device)."""
    from torch._dynamo import device_interface
    from torch._inductor import utils
    from torch._inductor.runtime.hints import DeviceProperties

    import torch.utils._triton as triton_checks

    DeviceProperties.create.cache_clear()
    for fn in vars(triton_checks).values():  # has_triton, TMA support, ...: asked of the device
        if callable(fn) and hasattr(fn, "cache_clear"):
            fn.cache_clear()
    for name in ("is_big_gpu", "get_gpu_shared_memory", "get_max_num_sms", "get_num_sms", "is_gpu"):
        clear = getattr(getattr(utils, name, None), "cache_clear", None)
        if callable(clear):
            clear()
    device_interface.caching_worker_device_properties.pop("cuda", None)
    device_interface.caching_worker_current_devices.pop("cuda", None)


def _triton_driver(model: GpuModel) -> Any:
    """Triton's CUDA driver for ``model``, answering from its properties: Inductor's Triton
    codegen asks the active driver for the target (``GPUTarget("cuda", 90, 32)``, the backend
    hash in each kernel's metadata) and for the device's limits. Nothing is launched."""
    from triton.backends.nvidia.driver import CudaDriver

    class Utils:
        @staticmethod
        def get_device_properties(device: int) -> dict[str, int]:
            return {"max_shared_mem": model.shared_memory_per_block_optin, "max_num_regs": model.regs_per_multiprocessor,
                    "multiprocessor_count": model.multi_processor_count, "warpSize": model.warp_size,
                    "sm_clock_rate": model.clock_rate_khz, "mem_clock_rate": model.memory_clock_rate_khz,
                    "mem_bus_width": model.memory_bus_width}

    class StandInDriver(CudaDriver):  # type: ignore[misc]  # triton is untyped
        def __init__(self) -> None:  # no CudaUtils: it would load libcuda
            self.utils = Utils()
            self.get_device_capability = lambda device=None: (model.major, model.minor)
            self.get_current_device = lambda: 0
            self.get_current_stream = lambda device=None: 0
            self.set_current_device = lambda device: None

        @staticmethod
        def is_active() -> bool:
            return True

    return StandInDriver()


class _Patches:
    """setattr with every old value kept, restored in reverse order."""

    _INHERITED = object()  # the attribute came from a base class: restored by deleting it

    def __init__(self) -> None:
        self.saved: list[tuple[Any, str, Any]] = []

    def set(self, owner: Any, name: str, value: Any) -> None:
        self.saved.append((owner, name, vars(owner).get(name, self._INHERITED)))
        setattr(owner, name, value)

    def restore(self) -> None:
        for owner, name, value in reversed(self.saved):
            if value is self._INHERITED:
                delattr(owner, name)
            else:
                setattr(owner, name, value)
        self.saved.clear()


@contextlib.contextmanager
def stand_in_gpu(gpu: str = DEFAULT_GPU) -> Iterator[GpuModel]:
    """Inside the block, CUDA device 0 is ``GPUS[gpu]`` for everything Inductor asks (yields the
    model); on a machine with a CUDA device, that device (nothing is patched)."""
    check_gpu_option(gpu)
    real = real_gpu()
    if real is not None:
        yield real
        return
    model = GPUS[gpu]
    from torch._dynamo.device_interface import CudaInterface

    def index_of(device: Any) -> int:
        index = torch.device(device).index if isinstance(device, (str, torch.device)) else device
        if index not in (None, 0):
            raise CaptureError(f"the stand-in GPU is CUDA device 0; Inductor asked about device {index}")
        return 0

    def get_device_properties(device: Any = None) -> GpuModel:
        index_of(device)
        return model

    def exchange(device: int) -> int:  # torch.cuda.device(i): the previous device, -1 for none
        return -1 if device == -1 else index_of(device)

    patches = _Patches()

    def answer(name: str, fn: Callable[..., Any], *, interface: bool = True) -> None:
        """torch.cuda's function, and Dynamo's CudaInterface's (bound when it was imported)."""
        patches.set(torch.cuda, name, fn)
        if interface:
            patches.set(CudaInterface, name, staticmethod(fn))

    with _lock:
        try:
            answer("is_available", lambda: True)
            answer("device_count", lambda: 1)
            answer("current_device", lambda: 0)
            answer("get_device_properties", get_device_properties)
            answer("is_bf16_supported", lambda including_emulation=True: model.major >= 8)
            answer("get_device_capability", lambda device=None: (get_device_properties(device).major, model.minor),
                   interface=False)
            answer("get_device_name", lambda device=None: get_device_properties(device).name, interface=False)
            for name in ("_exchange_device", "_maybe_exchange_device"):
                answer(name, exchange, interface=False)
            for name in ("exchange_device", "maybe_exchange_device"):
                patches.set(CudaInterface, name, staticmethod(exchange))
            # Dynamo saves and restores every available device's RNG state around a compile
            # (preserve_rng_state): the stand-in's is a Philox seed and offset, never drawn from.
            rng = torch.zeros(16, dtype=torch.uint8)
            answer("get_rng_state", lambda device="cuda": rng.clone(), interface=False)
            answer("set_rng_state", lambda new_state, device="cuda": None, interface=False)
            # Tensor.__invert__ is bound by hand with a device guard, which a CPU build has none
            # of for CUDA, even for a fake tensor (decompositions write ``~mask``); bitwise_not is
            # the same op through the dispatcher.
            patches.set(torch.Tensor, "__invert__", lambda self: torch.bitwise_not(self))
            import triton.runtime.driver  # noqa: F401 (the module; triton.runtime.driver is its DriverConfig)

            patches.set(sys.modules["triton.runtime.driver"].driver, "_active", _triton_driver(model))
            _clear_caches()
            yield model
        finally:
            patches.restore()
            _clear_caches()
