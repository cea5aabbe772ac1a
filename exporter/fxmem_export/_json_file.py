"""Reading a JSON file someone else wrote (a remat plan): only a regular file of bounded size, as
strict JSON (no duplicate keys, no NaN), every failure an error naming the file."""

from __future__ import annotations

import json
import os
import stat
from typing import Any

from .errors import FxmemExportError


def shown(path: str) -> str:
    """``path`` for a message: characters that are not printable (a NUL, ESC, a newline) escaped
    as ``repr`` escapes them, so a message is neither cut short nor a terminal control sequence."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


class _NotJson(ValueError):
    """Raised by the decoder's hooks; ``detail`` is what is wrong."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _NotJson(f"duplicate key {key!r}")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise _NotJson(f"invalid JSON: {name} is not a JSON value")


def _integer(text: str) -> Any:
    # As nlohmann::json (the CLI's reader): an integer beyond 64 bits is a floating-point number,
    # so both readers refuse it where an integer is due (and Python never converts 5000 digits).
    if len(text) <= 20:
        value = int(text)
        if -(1 << 63) <= value < (1 << 64):
            return value
    return float(text)


def _problem(st: os.stat_result, limit: int, what: str) -> str | None:
    if not stat.S_ISREG(st.st_mode):
        return f"it is {_kind(st.st_mode)}, not a regular file"
    if st.st_size > limit:
        return f"it has {st.st_size} bytes, more than the {limit} a {what} may have"
    return None


def file_problem(path: str, limit: int, what: str) -> str | None:
    """Why the existing ``path`` cannot be read as a ``what`` (not a regular file, over ``limit``
    bytes), or None (fine, or nothing there: opening it says why). Checked before opening,
    which on a FIFO waits for a writer, and on a device never ends."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return _problem(st, limit, what)


def check_regular_file(path: str, limit: int, error: type[FxmemExportError], what: str) -> None:
    """``error`` naming ``path`` unless it is a regular file of at most ``limit`` bytes."""
    name = shown(path)
    try:
        st = os.stat(path)
    except ValueError as e:  # "embedded null byte"
        raise error(f"{name}: cannot read the {what}: the path contains a NUL character") from e
    except OSError as e:
        raise error(f"{name}: cannot read the {what}: {e.strerror or e}") from e
    problem = _problem(st, limit, what)
    if problem is not None:
        raise error(f"{name}: cannot read the {what}: {problem}")


def read_json_file(path: str, limit: int, error: type[FxmemExportError], what: str,
                   too_deep: str = ": invalid JSON: arrays and objects nested too deeply") -> Any:
    """The JSON value in the file ``path``; ``error`` (naming the path, escaped) when it is not a
    regular file, is over ``limit`` bytes, is not UTF-8 or is not strict JSON. ``what`` names the
    file's kind in messages ("plan"); ``too_deep`` follows the path when the nesting is deeper
    than Python's recursion limit allows to read."""
    name = shown(path)
    check_regular_file(path, limit, error, what)
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)  # the file may have grown since stat
    except OSError as e:
        raise error(f"{name}: cannot read the {what}: {e.strerror or e}") from e
    if len(raw) > limit:
        raise error(f"{name}: cannot read the {what}: it has more than the {limit} bytes a {what} may have")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        column = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise error(f"{name}:{line}:{column}: invalid JSON: byte 0x{raw[e.start]:02x} is not UTF-8") from e
    try:
        return json.loads(text, object_pairs_hook=_object, parse_constant=_constant, parse_int=_integer)
    except _NotJson as e:
        raise error(f"{name}: {e.detail}") from e
    except json.JSONDecodeError as e:
        raise error(f"{name}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from e
    except RecursionError as e:
        raise error(f"{name}{too_deep}") from e
