"""A schedule path that is not a regular file (issue 28, as for plans): refused before it is
opened, with a ScheduleError naming it, never a hang (a FIFO) or an endless read (/dev/zero)."""

from __future__ import annotations

import os
import signal

import pytest

from fxmem_export.schedule import MAX_SCHEDULE_BYTES, ScheduleError, load_schedule


def _stop(signum: int, frame: object) -> None:
    raise AssertionError("load_schedule still blocked after 60 s")


def test_a_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "order.fifo"
    os.mkfifo(fifo)
    old = signal.signal(signal.SIGALRM, _stop)
    signal.alarm(60)  # a hang fails the test instead of the run
    try:
        with pytest.raises(ScheduleError, match=r"cannot read schedule '.*order\.fifo': it is a FIFO"):
            load_schedule(fifo)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_without_reading_it():
    with pytest.raises(ScheduleError, match=r"^cannot read schedule '/dev/zero': it is a character device"):
        load_schedule("/dev/zero")


def test_a_schedule_over_the_limit_is_refused(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(MAX_SCHEDULE_BYTES + 1)  # sparse: no disk, and nothing of it is read
    with pytest.raises(ScheduleError, match=rf"it has {MAX_SCHEDULE_BYTES + 1} bytes, more than the {MAX_SCHEDULE_BYTES}"):
        load_schedule(big)


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(ScheduleError, match=r"it is a directory, not a regular file"):
        load_schedule(tmp_path)
