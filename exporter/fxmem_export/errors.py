"""Exceptions raised by fxmem_export. Every message says what to do about it."""

from __future__ import annotations


class FxmemExportError(Exception):
    """Base class of every error raised by fxmem_export."""


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
