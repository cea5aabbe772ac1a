"""The capture equals what a real training run compiles.

For each model, a real CPU ``torch.compile`` training step (real tensors, Inductor, caches off)
gives the pair Inductor partitions (real_run.real_cpu_pair). The same model built on ``meta``
and captured with ``fxmem_export.backend(path, target="cpu")`` must give the same pair: the same
op multisets, the same saved values, the same pair peak to the byte with PyTorch's estimator
counting every device. The same holds for every row of a sweep.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.utils.checkpoint as checkpoint

import fxmem_export
from fxmem_export.examples.models import Block, build

import real_run


class GRUUnrolled(nn.Module):
    """A GRU cell run over 6 steps, then a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.GRUCell(16, 32)
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.zeros(x.shape[0], 32, device=x.device)
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return self.head(h)


class Checkpointed(nn.Module):
    """Two MLP blocks, the first under torch.utils.checkpoint (non-reentrant)."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64))
        self.b = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + checkpoint.checkpoint(self.a, x, use_reentrant=False)
        return x + self.b(x)


class CheckpointedAttention(nn.Module):
    """An attention block under torch.utils.checkpoint: the fused kernel is a random op, so the
    recompute saves and restores the generator's state (run_and_save_rng_state)."""

    def __init__(self) -> None:
        super().__init__()
        self.block = Block(64, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint.checkpoint(self.block, x, use_reentrant=False)


class TinyViT(nn.Module):
    """Patch embedding (conv), class token, position embedding, 2 attention blocks, head."""

    def __init__(self, d: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, d, 4, stride=4)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.zeros(1, 17, d))
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(2))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x[:, 0]))


class ConvNeXtBlock(nn.Module):
    """ConvNeXt's block: a depthwise 7x7 convolution, LayerNorm over channels last, an MLP."""

    def __init__(self, d: int = 16) -> None:
        super().__init__()
        self.dw = nn.Conv2d(d, d, 7, padding=3, groups=d)
        self.norm = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.fc2(nn.functional.gelu(self.fc1(self.norm(y))))
        return x + y.permute(0, 3, 1, 2)


class TinyConvNeXt(nn.Module):
    """A patchify stem on a channels-last input, two ConvNeXt blocks, pooling, a head: the
    convolutions' outputs are channels-last in a real CPU run."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 4, stride=4)
        self.blocks = nn.Sequential(ConvNeXtBlock(), ConvNeXtBlock())
        self.head = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.stem(x.contiguous(memory_format=torch.channels_last)))
        return self.head(x.mean((2, 3)))


def _custom(name: str, device: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(0)
    with torch.device(device):
        if name == "gru":
            return GRUUnrolled(), (torch.randn(4, 6, 16),)
        if name == "checkpoint":
            return Checkpointed(), (torch.randn(32, 64),)
        if name == "vit":
            return TinyViT(), (torch.randn(2, 3, 16, 16),)
        if name == "checkpoint_attention":
            return CheckpointedAttention(), (torch.randn(2, 16, 64),)
        if name == "convnext":
            return TinyConvNeXt(), (torch.randn(2, 3, 32, 32),)
    raise KeyError(name)


def _model(name: str, device: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    if name in ("gru", "checkpoint", "vit", "checkpoint_attention", "convnext"):
        return _custom(name, device)
    torch.manual_seed(0)
    # llama with 2 of its 8 decoder layers: the layers are alike, and each costs a real CPU step time.
    model, inputs, options = build(name, device, layers=2 if name == "llama" else None)
    assert not options, "these examples compile without options"
    return model, tuple(inputs)


# Every bundled example that compiles in one region with a real CPU step, and the models the
# issue names: attention (gpt, llama, vit), BatchNorm (cnn), a GRU, torch.utils.checkpoint,
# channels-last convolutions (convnext).
MODELS = ["mlp", "cnn", "multiout", "inplace", "gpt", "llama", "gru", "checkpoint", "vit", "checkpoint_attention",
          "convnext"]


@pytest.mark.parametrize("name", MODELS)
def test_meta_capture_equals_real_cpu_partition(name):
    real = real_run.real_cpu_pair(*_model(name, "cpu"))
    captured = real_run.meta_pair(*_model(name, "meta"), target="cpu")
    assert real_run.differences(real, captured) == []
    assert real_run.peak(real) > 0


@pytest.mark.parametrize("name", ["gpt", "llama", "vit"])
def test_autocast_capture_equals_real_cpu_autocast_run(name):
    """torch.autocast("cpu", bfloat16) around the call: the same pair as a real CPU run under it
    (casts, attention chosen on the cast inputs, bf16 activations)."""
    real = real_run.real_cpu_pair(*_model(name, "cpu"), autocast=torch.bfloat16)
    captured = real_run.meta_pair(*_model(name, "meta"), target="cpu", region=("cpu", torch.bfloat16))
    assert real_run.differences(real, captured) == []
    assert any(str(n.meta["val"].dtype) == "torch.bfloat16" for n in captured.forward.graph.nodes
               if isinstance(n.meta.get("val"), torch.Tensor))


def test_math_attention_under_autocast_equals_real_cpu_run():
    """The math path under autocast: its inputs cast, its own ops (softmax) not cast again."""
    real = real_run.real_cpu_pair(*_model("gpt", "cpu"), autocast=torch.bfloat16, sdpa_math=True)
    captured = real_run.meta_pair(*_model("gpt", "meta"), target="cpu", sdpa="math", region=("cpu", torch.bfloat16))
    assert real_run.differences(real, captured) == []


def test_user_cuda_autocast_region_is_honoured_on_meta():
    """A CUDA training loop's torch.autocast("cuda", bfloat16), created after the backend on a
    machine without CUDA: matmuls in bf16, attention on flash (bf16, GQA), fp32 gradients."""
    from fxmem_export.examples import llama3

    be = llama3.capture(layers=1, seq=128)
    graphs = {kind: gm for _, kind, gm in be.graphs()}
    fw = [n for n in graphs["forward"].graph.nodes if n.op == "call_function"]
    assert {str(n.meta["val"].dtype) for n in fw if n.target is torch.ops.aten.mm.default} == {"torch.bfloat16"}
    assert sum(n.target is torch.ops.aten._scaled_dot_product_flash_attention.default for n in fw) == 1
    bw = graphs["backward"].graph
    out = next(iter(bw.find_nodes(op="output")))
    grads = [a for a in out.args[0] if isinstance(a, torch.fx.Node)]
    assert grads and {str(g.meta["val"].dtype) for g in grads} == {"torch.float32"}
    assert be._target_info() == {"target": "cuda"}


def test_checkpointed_attention_runs_on_meta():
    """The captured graphs run on meta although PyTorch's RNG-state wrappers have no meta kernel."""
    from torch._prims.rng_prims import run_and_save_rng_state

    pair = real_run.meta_pair(*_model("checkpoint_attention", "meta"), target="cuda")
    saves = [n for n in pair.forward.graph.nodes if n.target is run_and_save_rng_state]
    assert len(saves) == 1 and "efficient_attention" in str(saves[0].args[0])


def test_sweep_rows_equal_real_runs_at_each_budget(tmp_path):
    budgets = [1.0, 0.4, 0.0]
    model, inputs = _model("vit", "meta")
    from fxmem_export.sweep import partition_sweep

    torch._dynamo.reset()
    sweep = partition_sweep(model, inputs, budgets, target_options={"target": "cpu"})
    graphs = {name: gm for name, _, gm in sweep.graphs}
    assert sweep.target == {"target": "cpu"}
    saved_bytes = []
    for b in budgets:
        row = real_run.Pair(graphs[f"budget={b!r}.forward"], graphs[f"budget={b!r}.backward"])
        real = real_run.real_cpu_pair(*_model("vit", "cpu"), budget=b)
        assert real_run.differences(real, row) == [], f"budget {b}"
        saved_bytes.append(sum(n.meta["val"].untyped_storage().nbytes() for n in row.backward.graph.find_nodes(op="placeholder")
                               if "tangents" not in n.name and isinstance(n.meta.get("val"), torch.Tensor)))
    assert saved_bytes[0] > saved_bytes[1] > saved_bytes[2], "a lower budget saves less"


def test_target_recorded_and_meta_default_said_once(tmp_path, recwarn):
    import fxmem_export._target as target

    target._said_meta_default = False
    model, inputs = _model("mlp", "meta")
    path = tmp_path / "m.fxmem.json"
    be = fxmem_export.backend(path)
    torch._dynamo.reset()
    torch.compile(model, backend=be, fullgraph=True)(*inputs).sum().backward()
    doc = be.save()
    assert doc["producer"]["target"] == "cuda" and doc["producer"]["inner"] == "partition"
    said = [w for w in recwarn.list if issubclass(w.category, target.MetaTargetNote)]
    assert len(said) == 1 and "target='cpu'" in str(said[0].message)
    torch._dynamo.reset()
    be2 = fxmem_export.backend(None, target="cpu", sdpa="math")
    torch.compile(model, backend=be2, fullgraph=True)(*inputs).sum().backward()
    assert be2._target_info() == {"target": "cpu", "sdpa": "math"}
    assert len([w for w in recwarn.list if issubclass(w.category, target.MetaTargetNote)]) == 1


@pytest.mark.parametrize("bad", [{"target": "tpu"}, {"sdpa": "fast"}, {"autocast": torch.float32}])
def test_bad_target_options_refused(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        fxmem_export.backend(None, **bad)


def test_joint_passes_behave_on_meta_as_on_a_device():
    """The two passes that treated meta as data-less: outputs kept, constants folded on the CPU."""
    from fxmem_export._inductor_front import meta_as_device
    from torch._inductor.fx_passes.joint_graph import constant_fold_uniform_value

    def graph(device: str) -> torch.fx.GraphModule:
        def f(x):
            ones = torch.full((8, 8), 1.0, device=device) * 2.0 + 1.0  # a constant chain: one full(3.0)
            return (x * ones).relu()

        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.fx.experimental.proxy_tensor import make_fx

        with FakeTensorMode():
            x = torch.empty(8, 8, device=device)
            return make_fx(f)(x)

    def fold(gm: torch.fx.GraphModule) -> list[str]:
        constant_fold_uniform_value(gm)
        gm.graph.eliminate_dead_code()
        return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]

    cpu = fold(graph("cpu"))
    with meta_as_device():
        meta = fold(graph("meta"))
    unpatched = fold(graph("meta"))
    assert cpu == meta == ["aten.full.default", "aten.mul.Tensor", "aten.relu.default"]
    assert unpatched != meta  # without it, meta outputs are dropped or the constant chain stays


def test_ops_a_gpu_dispatches_differently_are_said_once():
    import fxmem_export._target as target

    class Cell(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.cell = torch.nn.GRUCell(4, 8)

        def forward(self, x):
            return self.cell(x)

    target._said_dispatch.discard("gru_cell")
    with torch.device("meta"):
        model, x = Cell(), torch.randn(2, 4)
    for tgt, expected in (("cuda", 1), ("cpu", 0)):
        torch._dynamo.reset()
        with pytest.warns() as said:
            be = fxmem_export.backend(None, target=tgt)
            torch.compile(model, backend=be, fullgraph=True)(x).sum().backward()
            import warnings
            warnings.warn("sentinel", UserWarning)  # pytest.warns needs one warning either way
        gru = [w for w in said if issubclass(w.category, target.DispatchDiffersWarning)]
        assert len(gru) == expected and all("_thnn_fused_gru_cell" in str(w.message) for w in gru)
