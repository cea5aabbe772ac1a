"""One definition of the backward's peak: a pair's backward is scored in its pair (its primal
and tangent inputs never freed, as get_peak_memory and the app's schedule editor do), by
`optimize` and `score` alike; a schedule `optimize` saves scores the same in `fxmem-cli score`
and in PyTorch's MemoryTracker after apply_schedule, given the pair's releasability; with
PyTorch's defaults (the graph alone) it is `score --standalone`. The forward's baseline is
stated beside, never mixed in."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from types import SimpleNamespace

import pytest
from torch._inductor.fx_passes import memory_estimator as me

import fxmem_export
from fxmem_export._joint import copy_graph_module
from fxmem_export.reference import intended_fwd_bwd_interactions


def _cli(cli: Path, *args: str) -> dict:
    r = subprocess.run([str(cli), *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


@pytest.mark.parametrize("name", ["gpt", "llama"])
def test_a_saved_backward_schedule_scores_the_same_in_the_cli_and_in_torch(name: str, tmp_path: Path, cli: Path,
                                                                           exported) -> None:
    # The session's capture of the example (conftest.exported); its backward is reordered below, on a copy.
    ex = exported[name]
    path = ex.path
    cap = SimpleNamespace(forward=ex.forward, backward=copy_graph_module(ex.backward))
    sched = tmp_path / "backward.sched.json"
    opt = _cli(cli, "optimize", str(path), "--graph", "backward", "--time-limit", "1", "-o", str(sched))
    assert opt["scored"] == "in_pair"
    in_pair = _cli(cli, "score", str(path), "--schedule", str(sched))
    alone = _cli(cli, "score", str(path), "--schedule", str(sched), "--standalone")
    assert in_pair["scored"] == "in_pair" and alone["scored"] == "standalone"
    assert in_pair["peak"] == opt["peak"]  # optimize and score: one objective

    baseline, do_not_delete = intended_fwd_bwd_interactions(cap.forward.graph, cap.backward.graph)
    assert in_pair["baseline"] == baseline
    fxmem_export.apply_schedule(cap.backward, str(sched), graph_name="backward")

    def torch_peak(is_releasable) -> int:
        tracker = me.MemoryTracker(cap.backward.graph, is_releasable=is_releasable)
        for node in cap.backward.graph.nodes:
            tracker.schedule_node(node)
        return int(tracker.peak_memory)

    pair_rule = lambda n: me._is_releasable(n) and n.name not in do_not_delete  # noqa: E731
    assert torch_peak(pair_rule) == in_pair["peak"]
    assert torch_peak(None) == alone["peak"]
    print(f"{name}: in its pair {in_pair['peak']} B (+ baseline {baseline} B), alone {alone['peak']} B")


def test_breakdown_and_live_of_a_pair_are_the_joined_view(cli: Path) -> None:
    path = str(Path(__file__).resolve().parents[2] / "resources" / "examples" / "llama.fxmem.json")
    peak = _cli(cli, "peak", path)
    fwd_profile = _cli(cli, "profile", path, "--graph", "forward")["profile"]
    at_peak = _cli(cli, "breakdown", path, "--pair", "forward,backward")
    assert at_peak["total"] == peak["peak"] == sum(g["bytes"] for g in at_peak["groups"])
    # The regenerated llama peaks at the end of its forward (6,520,704 B; the backward reaches
    # 6,455,688 B with its 4 B baseline): the joined view says so, with no baseline there.
    assert peak["forward_peak"] > peak["backward_peak"]
    assert at_peak["graph"] == "forward" and at_peak["baseline"] == 0
    joined_name = _cli(cli, "live", path, "--pair", "forward + backward")
    assert joined_name["total"] == peak["peak"] == sum(s["nbytes"] for s in joined_name["storages"])
    for step in (0, len(fwd_profile) // 2, len(fwd_profile) - 1):  # forward steps: the forward's own profile
        b = _cli(cli, "breakdown", path, "--pair", "forward,backward", "--step", str(step))
        assert b["graph"] == "forward" and b["total"] == fwd_profile[step]
    first_bwd = _cli(cli, "breakdown", path, "--pair", "forward,backward", "--step", str(len(fwd_profile)))
    assert first_bwd["graph"] == "backward" and first_bwd["graph_step"] == 0
    assert first_bwd["baseline"] == peak["backward_baseline"]
    r = subprocess.run([str(cli), "breakdown", path, "--pair", "forward"], capture_output=True, text=True)
    assert r.returncode == 2 and "--pair must be a pair's index K, or its graphs FWD,BWD" in r.stderr
    r = subprocess.run([str(cli), "breakdown", path, "--pair", "forward,nope"], capture_output=True, text=True)
    assert r.returncode == 1 and "no pair 'forward' -> 'nope'" in r.stderr


def test_breakdown_with_a_schedule_is_that_order(tmp_path: Path, cli: Path) -> None:
    path = str(Path(__file__).resolve().parents[2] / "resources" / "examples" / "gpt.fxmem.json")
    sched = tmp_path / "f.sched.json"
    _cli(cli, "optimize", path, "--graph", "forward", "--time-limit", "1", "-o", str(sched))
    score = _cli(cli, "score", path, "--schedule", str(sched))
    b = _cli(cli, "breakdown", path, "--schedule", str(sched))
    assert b["total"] == score["peak"] == sum(g["bytes"] for g in b["groups"])
