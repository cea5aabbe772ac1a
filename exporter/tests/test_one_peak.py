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

import pytest
from torch._inductor.fx_passes import memory_estimator as me

import fxmem_export
from fxmem_export import examples
from fxmem_export.reference import intended_fwd_bwd_interactions


def _cli(cli: Path, *args: str) -> dict:
    r = subprocess.run([str(cli), *args, "--json"], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


@pytest.mark.parametrize("name", ["gpt", "llama"])
def test_a_saved_backward_schedule_scores_the_same_in_the_cli_and_in_torch(name: str, tmp_path: Path, cli: Path) -> None:
    path = tmp_path / f"{name}.fxmem.json"
    cap, _ = examples.export(name, path)
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
