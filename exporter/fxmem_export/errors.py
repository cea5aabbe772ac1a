"""Exceptions raised by fxmem_export. Every message says what to do about it.

Every error fxmem_export raises for its caller is a :class:`FxmemExportError`; each also keeps
the builtin base it had before (ValueError, TypeError, RuntimeError, OSError), so
``except ValueError`` around a call still catches what it caught. Internal consistency checks
stay ``AssertionError`` (a bug in fxmem_export, not in the input)."""

from __future__ import annotations

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "BackwardNotCapturedError",
    "CaptureError",
    "ExportWriteError",
    "FxmemExportError",
    "LostGradientError",
    "MetaInductorError",
    "MissingValError",
    "NodeSetChanged",
    "NothingCapturedError",
    "ProducerError",
    "RematPlanError",
    "ScheduleError",
    "UnknownExampleError",
]


class FxmemExportError(Exception):
    """Base class of every error raised by fxmem_export."""


class ArgumentError(FxmemExportError, ValueError):
    """An argument has a value fxmem_export does not take (an unknown option, a bad combination)."""


class ArgumentTypeError(FxmemExportError, TypeError):
    """An argument has a type fxmem_export does not take."""


class CaptureError(FxmemExportError, RuntimeError):
    """A capture cannot go on: the model does what the target device refuses (as PyTorch would
    refuse it there), or a pass lacks what it needs (a process group, a free dispatch key)."""


class LostGradientError(CaptureError):
    """The capture traced an op without its derivative where a real device has one (PyTorch's
    "an autograd kernel was not registered" fallback), so trainable parameters would get no
    gradient; the message names the op and the parameters."""


class UnknownExampleError(FxmemExportError, KeyError):
    """A name that is not one of the example models (``fxmem_export.examples``)."""

    def __str__(self) -> str:  # KeyError's own str() is the repr of its message
        return str(self.args[0]) if self.args else ""


class MissingValError(FxmemExportError, ValueError):
    """A graph node has no ``meta["val"]`` (the graph was not traced with fake tensors)."""


class BackwardNotCapturedError(FxmemExportError, RuntimeError):
    """The backend compiled a forward graph whose backward has not been compiled yet."""


class NothingCapturedError(FxmemExportError, RuntimeError):
    """The backend has not compiled any graph yet."""


class ExportWriteError(FxmemExportError, OSError):
    """The output file could not be written."""


class ScheduleError(FxmemExportError, ValueError):
    """A schedule file is unreadable, belongs to another graph or does not fit the graph."""


class MetaInductorError(FxmemExportError, ValueError):
    """inner="inductor" was asked to compile a graph on the ``meta`` device."""


class ProducerError(FxmemExportError, ValueError):
    """A ``producer`` value cannot be written as JSON (NaN, infinity, an arbitrary object)."""


class RematPlanError(FxmemExportError, ValueError):
    """A plan file that is malformed or does not fit the graph it is applied to."""


class NodeSetChanged(FxmemExportError, RuntimeError):
    """Inductor's overlap pass added or removed nodes, so its order is not an order of the
    exported graph (see :func:`fxmem_export.overlap.overlap_order`)."""
