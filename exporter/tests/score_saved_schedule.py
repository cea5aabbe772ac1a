"""Applies a schedule saved by the fxmem app to a freshly captured example model and prints what
PyTorch's own MemoryTracker says of the reordered graph, as JSON {"peak": int, "after": {node: int}}.

Used by tests/ui/test_schedule_pytorch.cpp (the app saves, PyTorch applies and scores):
    python score_saved_schedule.py EXAMPLE GRAPH SCHEDULE.json
"""

from __future__ import annotations

import json
import sys

from torch._inductor.fx_passes.memory_estimator import MemoryTracker

import fxmem_export
from fxmem_export import examples


def main(example: str, graph: str, schedule: str) -> None:
    cap = examples.capture(example)
    gm = {"forward": cap.forward, "backward": cap.backward}[graph]
    fxmem_export.apply_schedule(gm, schedule, graph_name=graph)
    gm.graph.lint()
    tracker = MemoryTracker(gm.graph)
    after = {}
    for node in gm.graph.nodes:
        tracker.schedule_node(node)
        after[node.name] = tracker.get_current_memory_bytes()
    print(json.dumps({"peak": tracker.peak_memory, "after": after}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
