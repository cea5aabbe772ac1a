"""The exported file alone reproduces PyTorch's numbers (no fxmem-cli needed): an independent
Python reading of the file (file_model.py) against memory_estimator on the same GraphModules."""

from __future__ import annotations

import random

import pytest

from fxmem_export import examples
from fxmem_export.reference import intended_peak_memory, torch_profile, torch_tracker

from conftest import random_topological_order
from file_model import FileGraph, pair_peak


@pytest.mark.parametrize("name", examples.NAMES)
def test_file_reproduces_torch(exported, name):
    ex = exported[name]
    for graph in ("forward", "backward"):
        g = ex.graph(graph)
        fg = FileGraph(ex.doc, graph)
        assert fg.profile() == torch_profile(g)
        rng = random.Random(name + graph)
        for order in [list(g.nodes)] + [random_topological_order(g, rng) for _ in range(10)]:
            assert fg.score([n.name for n in order]) == torch_tracker(g, order)
    assert pair_peak(ex.doc) == intended_peak_memory(ex.forward.graph, ex.backward.graph)
