"""Hostile plan inputs to load_plan / apply_remat (issue 28): paths that are not regular files,
huge or deeply nested files, values the CLI refuses (``"version": 1.0``, ``true``, ``"peak":
1.5``), duplicate keys, and control characters in paths and names. Each is a RematPlanError
naming the plan, never a hang, a MemoryError, a RecursionError or a message cut short."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch.fx as fx

from fxmem_export import FxmemExportError, apply_remat
from fxmem_export.remat import MAX_PLAN_BYTES, RematPlanError, load_plan, tag_joint_graph

PLANS = Path(__file__).resolve().parents[2] / "tests" / "data" / "bad" / "plans"

GOOD = {"format": "fxmem-remat", "version": 1, "joint": "joint", "saved": ["primals_2", "relu"], "recomputed": [],
        "order": ["expand", "cos", "mul", "threshold_backward", "t", "mm_1"], "peak": 1096, "extra_flops": 0}


@contextlib.contextmanager
def no_hang(seconds: int = 60) -> Iterator[None]:
    """Turns a blocked call (open() on a FIFO waits for a writer) into a failure, not a hung run."""
    def stop(signum: int, frame: object) -> None:
        raise AssertionError(f"still blocked after {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def expected() -> dict[str, str]:
    lines = (PLANS / "expected.txt").read_text().splitlines()
    return dict(line.split("\t", 1) for line in lines if line and not line.startswith("#"))


def test_every_fixture_has_its_message_and_every_message_its_fixture():
    assert sorted(expected()) == sorted(p.name for p in PLANS.glob("*.json"))


@pytest.mark.parametrize("name", sorted(expected()))
def test_each_hostile_plan_is_refused_naming_the_file(name):
    path = PLANS / name
    with no_hang(), pytest.raises(RematPlanError) as info:
        load_plan(path)
    assert str(info.value).startswith(str(path) + ":"), str(info.value)
    assert expected()[name] in str(info.value)


def test_the_fixtures_differ_from_a_plan_the_reader_takes_only_in_their_defect(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD))
    assert load_plan(good)[0] == GOOD
    good.write_text(json.dumps({**GOOD, "nodes": None}))  # null "nodes": no keys, as the CLI reads it
    assert load_plan(good)[0]["saved"] == GOOD["saved"]


@pytest.mark.parametrize("change, fragment", [
    ({"version": 1.0}, "unsupported plan version 1.0"),
    ({"version": True}, "unsupported plan version true"),
    ({"version": "1"}, 'unsupported plan version "1"'),
    ({"peak": 1.5}, "'peak' must be an integer"),
    ({"peak": True}, "'peak' must be an integer"),
    ({"peak": 1 << 63}, "'peak' must be an integer"),
    ({"extra_flops": None}, "'extra_flops' must be an integer"),
    ({"peak": -1}, "'peak' must be an integer from 0 to 2\\^63-1"),
    ({"saved": GOOD["saved"] + GOOD["saved"][:1]}, r"saved\[\d+\]: '.*' is listed twice \(also saved\[0\]\)"),
    ({"nodes": []}, "'nodes' must be an object"),
])
def test_a_mapping_is_checked_as_the_cli_checks_a_file(change, fragment):
    with pytest.raises(RematPlanError, match=fragment):
        load_plan({**GOOD, **change})


def test_a_fifo_is_refused_without_opening_it(tmp_path):
    fifo = tmp_path / "plan.fifo"
    os.mkfifo(fifo)
    with no_hang(), pytest.raises(RematPlanError, match=r"plan\.fifo: cannot read the plan: it is a FIFO"):
        apply_remat(fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_without_reading_it():
    with pytest.raises(RematPlanError, match=r"^/dev/zero: cannot read the plan: it is a character device"):
        load_plan("/dev/zero")


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(RematPlanError, match=r"cannot read the plan: it is a directory"):
        load_plan(tmp_path)


def test_a_plan_over_the_limit_is_refused_with_its_size(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(MAX_PLAN_BYTES + 1)  # sparse: no disk, and nothing of it is read
    with pytest.raises(RematPlanError, match=rf"big\.json: cannot read the plan: it has {MAX_PLAN_BYTES + 1} bytes, "
                                             rf"more than the {MAX_PLAN_BYTES} a plan may have"):
        load_plan(big)


def test_deep_nesting_is_a_plan_error_not_a_recursion_error(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "fxmem-remat", "saved": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(RematPlanError, match=r"deep\.json: nested more than 16 levels deep: not a remat plan"):
        load_plan(deep)


@pytest.mark.parametrize("arrays, refused", [(15, False), (16, True)])
def test_nesting_is_refused_past_the_clis_limit(arrays, refused, tmp_path):
    """As fxmem-cli: a value more than 16 levels below the plan's object is refused, wherever it is."""
    path = tmp_path / "nested.json"
    path.write_text(json.dumps({**GOOD, "extra": "X"}).replace('"X"', "[" * arrays + "1" + "]" * arrays))
    if refused:
        with pytest.raises(RematPlanError, match="nested more than 16 levels deep"):
            load_plan(path)
    else:
        assert load_plan(path)[0]["saved"] == GOOD["saved"]


def test_a_nul_in_the_path_is_escaped_and_refused():
    with pytest.raises(RematPlanError) as info:
        load_plan("plan\x00.json")
    assert str(info.value).startswith("plan\\x00.json: cannot read the plan: the path contains a NUL character")


def test_control_characters_in_the_path_are_escaped(tmp_path):
    path = tmp_path / "p\x1b[31m\a\n.json"
    path.write_text(json.dumps({**GOOD, "version": 2}))
    with pytest.raises(RematPlanError) as info:
        load_plan(path)
    message = str(info.value)
    assert message.startswith(str(tmp_path) + "/p\\x1b[31m\\x07\\n.json: unsupported plan version 2"), message
    assert not any(ord(c) < 32 or ord(c) == 127 for c in message), message


def test_control_characters_in_a_plan_target_are_escaped():
    graph = fx.Graph()
    graph.placeholder("primals_1")
    graph.output(())
    data = {**GOOD, "saved": ["x"], "nodes": {"x": ["aten.mm\x1b[2J\x00.default", None, 0, None, None]}}
    with pytest.raises(RematPlanError) as info:
        tag_joint_graph(graph, load_plan(data)[0], "<plan>")
    message = str(info.value)
    assert "0 aten.mm\\x1b[2J\\x00.default in module None" in message, message
    assert "\x00" not in message and "\x1b" not in message


def test_the_plan_errors_are_fxmem_errors_and_value_errors():
    assert issubclass(RematPlanError, FxmemExportError) and issubclass(RematPlanError, ValueError)


def test_a_plan_of_the_wrong_type_is_a_plan_error(tmp_path):
    # bytes were iterated as a list of ints, None and 123 not at all: each a TypeError.
    for plan in (None, 123, 1.5, [123], [None]):
        with pytest.raises(RematPlanError, match="a plan is a path"):
            apply_remat(plan)  # type: ignore[arg-type]
    # bytes are a path, as os.fspath takes them: the file's own error, or its plan.
    with pytest.raises(RematPlanError, match="missing.json"):
        apply_remat(os.fsencode(tmp_path / "missing.json"))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(GOOD))
    assert apply_remat(os.fsencode(good)).plan["joint"] == "joint"
