"""fxmem_export: write PyTorch compiled FX graphs to the fxmem file format (v1).

    fxmem_export.save(path, forward=gm, backward=gm2, reference=True)
    torch.compile(model, backend=fxmem_export.backend("model.fxmem.json", inner="partition"))
    fxmem_export.sweep(model, args, "budgets.fxmem.json")   # one min-cut pair per memory budget
    fxmem_export.apply_schedule(gm, "schedule.json")

See docs/exporter.md.
"""

__version__ = "0.1.0"

from ._torch import TorchVersionWarning, check_version

check_version()  # one warning when torch is not a release the package is tested with

from ._backend import FxmemBackend, backend
from ._ranks import capture_ranks
from ._save import save
from ._serialize import FORMAT_VERSION
from .errors import (
    ArgumentError,
    ArgumentTypeError,
    BackwardNotCapturedError,
    CaptureError,
    ExportWriteError,
    FxmemExportError,
    MetaInductorError,
    MissingValError,
    NodeSetChanged,
    NothingCapturedError,
    ProducerError,
    RematPlanError,
    ScheduleError,
    UnknownExampleError,
)
from .remat import apply_remat
from .schedule import apply_schedule
from .sweep import sweep

__all__ = [
    "FORMAT_VERSION",
    "TorchVersionWarning",
    "ArgumentError",
    "ArgumentTypeError",
    "BackwardNotCapturedError",
    "CaptureError",
    "ExportWriteError",
    "FxmemBackend",
    "FxmemExportError",
    "MetaInductorError",
    "MissingValError",
    "NodeSetChanged",
    "NothingCapturedError",
    "ProducerError",
    "RematPlanError",
    "ScheduleError",
    "UnknownExampleError",
    "apply_remat",
    "apply_schedule",
    "backend",
    "capture_ranks",
    "save",
    "sweep",
]

from . import testing  # noqa: E402  (fxmem_export.testing.assert_peak for unit tests)
