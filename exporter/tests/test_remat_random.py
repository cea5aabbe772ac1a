"""Differential test of recompute plans on random small models (SLOW: about 4.5 s per model on a
loaded core). The test command draws 13 seeds that together hold every kind of block (0-11 and 33,
which adds chunk); set FXMEM_REMAT_RANDOM_N=N to run seeds 0..N-1 instead (50 for the long sweep).

Each model is a random stack of blocks on a (batch, time, features) tensor: linear layers,
1-d convolutions, LayerNorm, an RMS norm, BatchNorm (training), activations, dropout, softmax,
gates, residuals, views (reshape, transpose, chunk + cat), causal or full attention
(``F.scaled_dot_product_attention``) and GRU/LSTM/RNN cells unrolled over time. For each:

1. capture it on ``meta`` with ``fxmem_export.backend(path, target="cpu")``;
2. ``fxmem-cli remat`` writes a plan (with node keys);
3. capture it again with ``backend(..., remat=PLAN)``: PyTorch's min-cut partitioner, handed the
   joint graph tagged by the plan, must save exactly the plan's values (the backend raises
   RematPlanError otherwise), the backward is put in the plan's order, and PyTorch's estimator
   on the pair gives fxmem's predicted forward peak, backward peak and pair peak to the byte;
4. the plan tags a copy of the joint graph whose nodes are all renamed the same way as the
   original (the keys, not the names, find the nodes).
"""

from __future__ import annotations

import json
import os
import random
import subprocess

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import fxmem_export
from fxmem_export._joint import copy_graph_module
from fxmem_export.reference import intended_peak_memory
from fxmem_export.remat import load_plan, tag_joint_graph
from torch.utils.checkpoint import CheckpointPolicy

# Every kind of block random_model draws: the default seeds must hold each one.
KINDS = {"act", "attention", "batchnorm", "chunk", "conv", "dropout", "gate", "gru", "layernorm", "linear", "lstm",
         "reshape", "residual", "rmsnorm", "rnn", "transpose"}
SEEDS = (list(range(int(os.environ["FXMEM_REMAT_RANDOM_N"]))) if "FXMEM_REMAT_RANDOM_N" in os.environ
         else [*range(12), 33])


class Act(nn.Module):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return {"relu": F.relu, "gelu": F.gelu, "silu": F.silu, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
                "softmax": lambda t: t.softmax(-1)}[self.kind](x)


class RMSNorm(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


class BatchNorm(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.bn = nn.BatchNorm1d(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x.transpose(1, 2)).transpose(1, 2)


class Conv(nn.Module):
    def __init__(self, d: int, out: int) -> None:
        super().__init__()
        self.conv = nn.Conv1d(d, out, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x.transpose(1, 2)).transpose(1, 2)


class Attention(nn.Module):
    def __init__(self, d: int, heads: int, causal: bool) -> None:
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2) for y in self.qkv(x).chunk(3, -1))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Recurrent(nn.Module):
    def __init__(self, kind: str, d: int) -> None:
        super().__init__()
        self.kind = kind
        self.cell = {"gru": nn.GRUCell, "lstm": nn.LSTMCell, "rnn": nn.RNNCell}[kind](d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.new_zeros(x.shape[0], x.shape[2])
        c = x.new_zeros(x.shape[0], x.shape[2])
        outs = []
        for t in range(x.shape[1]):
            if self.kind == "lstm":
                h, c = self.cell(x[:, t], (h, c))
            else:
                h = self.cell(x[:, t], h)
            outs.append(h)
        return torch.stack(outs, 1)


class Views(nn.Module):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        if self.kind == "reshape":
            return (x.reshape(b, t * d) * 1.5).reshape(b, t, d)
        if self.kind == "transpose":
            return x.transpose(1, 2).contiguous().mul(0.5).transpose(1, 2) + x
        a, c = x.chunk(2, -1)
        return torch.cat([c * 2, a], -1)


class Gate(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(self.lin(x))


class Residual(nn.Module):
    def __init__(self, inner: nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.inner(x)


class RandomNet(nn.Module):
    def __init__(self, blocks: list[nn.Module], d: int) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(blocks)
        self.head = nn.Linear(d, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def random_model(seed: int) -> tuple[nn.Module, torch.Tensor, list[str]]:
    """A random small model on meta, its input and the names of its blocks."""
    rng = random.Random(seed)
    d = rng.choice([8, 16, 24, 32])
    b, t = rng.choice([2, 4]), rng.choice([3, 4, 6])
    blocks: list[nn.Module] = []
    kinds: list[str] = []
    with torch.device("meta"):
        for _ in range(rng.randint(2, 5)):
            kind = rng.choice(["linear", "act", "layernorm", "rmsnorm", "batchnorm", "conv", "attention", "rnn",
                               "views", "gate", "dropout", "residual"])
            if kind == "linear":
                out = rng.choice([d, 2 * d])
                blocks += [nn.Linear(d, out), Act(rng.choice(["relu", "gelu", "silu", "tanh"]))]
                if out != d:
                    blocks.append(nn.Linear(out, d))
            elif kind == "act":
                blocks.append(Act(rng.choice(["relu", "gelu", "silu", "tanh", "sigmoid", "softmax"])))
            elif kind == "layernorm":
                blocks.append(nn.LayerNorm(d))
            elif kind == "rmsnorm":
                blocks.append(RMSNorm(d))
            elif kind == "batchnorm":
                blocks.append(BatchNorm(d))
            elif kind == "conv":
                blocks.append(Conv(d, d))
            elif kind == "attention":
                blocks.append(Attention(d, rng.choice([1, 2, 4]), rng.random() < 0.5))
            elif kind == "rnn":
                kind = rng.choice(["gru", "lstm", "rnn"])
                blocks.append(Recurrent(kind, d))
            elif kind == "views":
                kind = rng.choice(["reshape", "transpose", "chunk"])
                blocks.append(Views(kind))
            elif kind == "gate":
                blocks.append(Gate(d))
            elif kind == "dropout":
                blocks.append(nn.Dropout(0.1))
            else:
                blocks.append(Residual(nn.Sequential(nn.Linear(d, d), Act(rng.choice(["relu", "gelu"])))))
            kinds.append(kind)
        model = RandomNet(blocks, d).train()
        x = torch.randn(b, t, d)
    return model, x, kinds


def capture(model: nn.Module, x: torch.Tensor, path, **options):
    torch._dynamo.reset()
    be = fxmem_export.backend(path, target="cpu", **options)
    torch.compile(model, backend=be, fullgraph=True)(x).float().square().mean().backward()
    if path is not None:
        be.save()
    torch._dynamo.reset()
    return be


def renamed_copy(gm: torch.fx.GraphModule) -> torch.fx.Graph:
    """A copy of the graph whose every node has another name (placeholders keep theirs: their
    target is their name)."""
    graph = torch.fx.Graph()
    env: dict[torch.fx.Node, torch.fx.Node] = {}
    for node in gm.graph.nodes:
        env[node] = graph.node_copy(node, lambda n: env[n])
        if node.op not in ("placeholder", "output"):
            env[node]._rename("r_" + node.name)
    return graph


def test_plans_on_random_models(cli, tmp_path):
    recomputing = 0
    kinds_seen: set[str] = set()
    for seed in SEEDS:
        model, x, kinds = random_model(seed)
        kinds_seen.update(kinds)
        where = f"model {seed} ({', '.join(kinds)})"
        path = tmp_path / f"m{seed}.fxmem.json"
        be = capture(model, x, path)
        plan_path = tmp_path / f"m{seed}.plan.json"
        run = subprocess.run([str(cli), "remat", str(path), "--time-limit", "0.3", "-o", str(plan_path), "--json"],
                             capture_output=True, text=True, check=False)
        assert run.returncode == 0, f"{where}: {run.stderr}"
        result = json.loads(run.stdout)
        plan = json.loads(plan_path.read_text())
        assert result["reproducible"], where
        recomputing += bool(result["recomputed"])

        # 3. PyTorch partitions under the plan: saved set checked by the backend, then the peaks.
        after = capture(model, x, None, remat=plan_path)
        graphs = {kind: gm for _, kind, gm in after.graphs()}
        fw, bw = graphs["forward"].graph, graphs["backward"].graph
        assert intended_peak_memory(fw, bw) == {
            "forward_peak": result["forward_peak"], "backward_baseline": result["backward_baseline"],
            "backward_peak": result["backward_peak"], "peak": result["peak"]}, where
        assert [n.name for n in bw.nodes if n.op not in ("placeholder", "output")] == plan["order"], where
        recomputed = {n.name for n in fw.nodes} & {n.name for n in bw.nodes if n.op == "call_function"}
        assert recomputed == set(plan["recomputed"]), where

        # 4. The keys find the nodes of a renamed copy of the joint graph, tagged alike.
        joint = be.regions[0].joint_captures[0]  # the joint graph as the partitioner was handed it
        data, source = load_plan(plan_path)
        plain = copy_graph_module(joint.gm)
        renamed = torch.fx.GraphModule(joint.gm, renamed_copy(joint.gm))
        a = tag_joint_graph(plain.graph, data, source, joint.num_fwd_outputs)
        b = tag_joint_graph(renamed.graph, data, source, joint.num_fwd_outputs)
        assert a.by_name == b.by_name == 0 and a.by_key == b.by_key > 0, where
        assert b.names == {k: v if v.startswith(("primals", "tangents")) else "r_" + v for k, v in a.names.items()}, where
        tags = [n.meta.get("recompute") for n in plain.graph.nodes]
        assert tags == [n.meta.get("recompute") for n in renamed.graph.nodes] and CheckpointPolicy.MUST_SAVE in tags, where
    # Most plans recompute something; every kind of block was drawn.
    assert recomputing >= len(SEEDS) // 2, recomputing
    if "FXMEM_REMAT_RANDOM_N" not in os.environ or len(SEEDS) >= 50:
        assert kinds_seen == KINDS, kinds_seen
