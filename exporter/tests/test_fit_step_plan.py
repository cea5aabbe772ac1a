"""fit's whole-step answer with a recompute plan, against PyTorch: the plan ``fit -o`` writes for
the answer's batch, applied by the exporter's backend (its tags on the joint graph, PyTorch's
min-cut partitioner, the plan's backward order), gives a step whose peak at that batch is the
one fit predicted (tests/data/good/step_dynamic.json; the C++ tests check fit against a brute
force over the values)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from conftest import REPO, run_cli

FIXTURE = REPO / "tests" / "data" / "good" / "step_dynamic.json"


def _maker():
    spec = importlib.util.spec_from_file_location("step_dynamic", REPO / "tests" / "data" / "make" / "step_dynamic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_step_recaptured_under_fits_plan_peaks_where_fit_said(cli, tmp_path: Path):
    # The limit: the plain step's peak at batch 600, so the plan must carry the batch past it.
    limit = run_cli(cli, "peak", str(FIXTURE), "--whole-step", "--set", "batch=600", "--json")["peak"]
    plan = tmp_path / "plan.json"
    answer = run_cli(cli, "fit", str(FIXTURE), "--memory", str(limit), "--vary", "batch", "--max-extra-percent",
                     "100", "-o", str(plan), "--json")
    assert answer["measure"] == "whole_step" and answer["max_value"] == 600
    with_plan = answer["with_recompute"]
    batch = with_plan["max_value"]
    assert batch > 600 and with_plan["plan_used"]
    assert json.loads(plan.read_text())["recomputed"], "the plan recomputes nothing"

    recaptured = tmp_path / "under_plan.json"
    _maker().capture(recaptured, remat=str(plan))
    step = run_cli(cli, "peak", str(recaptured), "--whole-step", "--set", f"batch={batch}", "--json")
    assert step["peak"] == with_plan["peak_at_max"] <= limit
    pair = run_cli(cli, "peak", str(recaptured), "--set", f"batch={batch}", "--json")
    assert pair["peak"] == with_plan["plan_pair_peak"]
    # One batch more does not fit under the plan fit finds there.
    assert with_plan["peak_at_next"] is None or with_plan["peak_at_next"] > limit
