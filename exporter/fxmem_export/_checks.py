"""Checks at capture time that explain a surprising result before the user sees it."""

from __future__ import annotations

import warnings
from typing import Any

import torch
import torch.fx as fx

from .errors import MetaInductorError

META_HOWTO = ("build the model and its inputs under `with torch.device('meta'):` and compile with "
              "fxmem_export.backend(path) (target='cuda' by default there)")


def only_cpu(gm: fx.GraphModule) -> bool:
    """True when the graph holds tensors and every one of them is on the CPU."""
    fake = torch._subclasses.fake_tensor.FakeTensor
    seen = False
    for node in gm.graph.nodes:
        for leaf in torch.utils._pytree.tree_leaves(node.meta.get("val")):
            if isinstance(leaf, fake):
                if leaf.device.type != "cpu":
                    return False
                seen = True
    return seen


def warn_cpu_only(name: str) -> None:
    warnings.warn(
        f"fxmem_export: every storage of graph {name!r} is on the CPU. fxmem counts only non-CPU "
        "storages (as PyTorch's memory_estimator does), so its peak reads 0 B (fxmem-cli --devices all "
        f"counts them anyway). To trace a GPU step on a machine without one, {META_HOWTO}",
        stacklevel=4,
    )


def check_inductor_inputs(example_inputs: Any) -> None:
    """Inductor generates kernels for real devices; on meta tensors it fails deep inside with a
    message that names nothing the user did. Say it first."""
    for t in torch.utils._pytree.tree_leaves(list(example_inputs)):
        if isinstance(t, torch.Tensor) and t.device.type == "meta":
            raise MetaInductorError(
                "Inductor cannot compile meta tensors (it generates kernels for a real device): "
                "pass inner='partition' (Inductor's min-cut partition, graphs not compiled) or "
                "inner='eager' (AOTAutograd's default partitioner) to fxmem_export.backend(...) when "
                "the model is on the meta device"
            )


class DataDependentSizesWarning(UserWarning):
    """A captured graph has sizes that depend on the data (unbacked symbols)."""


def data_dependent_sizes(gm: fx.GraphModule) -> dict[str, int]:
    """{symbol: the hint its bytes are counted at} for every unbacked symbol (``u0``: a size
    that depends on the data, e.g. how many tokens a mixture-of-experts routes to an expert)."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    from ._torch.fake import hint_int

    out: dict[str, int] = {}
    for node in gm.graph.nodes:
        for leaf in torch.utils._pytree.tree_leaves(node.meta.get("val")):
            sizes = list(leaf.shape) if isinstance(leaf, torch.Tensor) else [leaf] if isinstance(leaf, torch.SymInt) else []
            for size in sizes:
                if isinstance(size, torch.SymInt):
                    for sym in free_unbacked_symbols(size):
                        if str(sym) not in out and size.node.expr == sym:
                            out[str(sym)] = hint_int(size)
    return out


def warn_data_dependent(name: str, sizes: dict[str, int]) -> None:
    shown = ", ".join(f"{k}={v}" for k, v in list(sizes.items())[:6]) + (" ..." if len(sizes) > 6 else "")
    warnings.warn(
        f"fxmem_export: graph {name!r} has sizes that depend on the data ({shown}); their bytes are counted at "
        "these values, the hints PyTorch's own estimator uses (for nonzero/where on a mask: every element selected, "
        "the largest it can be; for other data-dependent values Inductor's unbacked_symint_fallback), so the peak "
        "is an upper bound for routing that spreads the tokens",
        DataDependentSizesWarning, stacklevel=4)
