"""The capture-vs-real table: for each model, the pair peak (PyTorch's estimator, every device
counted) of a real CPU torch.compile training step, of fxmem's capture on meta with
target="cpu", and of the capture before it ran Inductor's front half (AOTAutograd with min-cut
only, as fxmem_export 0.1's inner="partition" did).

    .venv/bin/python scripts/capture_vs_real.py [MODEL ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "exporter" / "tests"))
import real_run  # noqa: E402
from test_capture_real import MODELS, _model  # noqa: E402


def min_cut_only_pair(model: torch.nn.Module, inputs: tuple) -> real_run.Pair:
    """The old capture: AOTAutograd's default decompositions, no joint passes, then min-cut."""
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    graphs = {}

    def keep(kind):
        def compiler(gm, _):
            graphs[kind] = gm
            return make_boxed_func(gm.forward)
        return compiler

    def cut(gm, joint_inputs, **kwargs):
        return min_cut_rematerialization_partition(gm, joint_inputs, compiler="inductor", **kwargs)

    torch._dynamo.reset()
    be = aot_autograd(fw_compiler=keep("fw"), bw_compiler=keep("bw"), partition_fn=cut)
    real_run._loss(torch.compile(model, backend=be, fullgraph=True)(*inputs)).backward()
    torch._dynamo.reset()
    return real_run.Pair(graphs["fw"], graphs["bw"])


def nodes(pair: real_run.Pair) -> str:
    return f"{len(pair.forward.graph.nodes)} + {len(pair.backward.graph.nodes)}"


def main(names: list[str]) -> None:
    print("| model | real CPU run | capture now | before (min-cut only) | nodes real / now / before |")
    print("|---|---:|---:|---:|---|")
    for name in names or MODELS:
        real = real_run.real_cpu_pair(*_model(name, "cpu"))
        now = real_run.meta_pair(*_model(name, "meta"), target="cpu")
        before = min_cut_only_pair(*_model(name, "meta"))
        same = "=" if not real_run.differences(real, now) else "≠"
        print(f"| {name} | {real_run.peak(real):,} | {real_run.peak(now):,} {same} | {real_run.peak(before):,} | "
              f"{nodes(real)} / {nodes(now)} / {nodes(before)} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
