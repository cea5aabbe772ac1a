"""A parameter belongs to the module its label names, even when a parent's functional call uses
it (nn.MultiheadAttention hands out_proj.weight to F.multi_head_attention_forward): at forward
step 0 each module's own parameters and buffers equal named_parameters()/named_buffers() of it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import torch
import torch.nn as nn

import fxmem_export
from fxmem_export.examples import models

REPO = Path(__file__).resolve().parents[2]


def _own_bytes(model: nn.Module) -> dict[str, int]:
    out = {}
    for name, m in model.named_modules():
        tensors = list(m.parameters(recurse=False)) + list(m.buffers(recurse=False))
        if name and tensors:
            out[name] = sum(t.numel() * t.element_size() for t in tensors)
    return out


def _module_groups(cli: Path, path: Path, graph: str) -> dict[str, int]:
    r = subprocess.run([str(cli), "breakdown", str(path), "--graph", graph, "--step", "0", "--by", "module", "--json"],
                       capture_output=True, text=True, check=True)
    return {g["key"]: g["bytes"] for g in json.loads(r.stdout)["groups"]}


def test_multihead_attention_out_proj_owns_its_parameters(tmp_path: Path, cli: Path) -> None:
    torch._dynamo.reset()
    with torch.device("meta"):
        model = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True, dropout=0.0)
        x = torch.randn(2, 8, 64)
    be = fxmem_export.backend(None, inner="eager")
    torch.compile(model, backend=be, fullgraph=True)(x).sum().backward()
    path = tmp_path / "enc.fxmem.json"
    be.save(path)
    groups = _module_groups(cli, path, "region0.forward")
    expected = _own_bytes(model)
    assert expected["self_attn.out_proj"] == 64 * 64 * 4 + 64 * 4
    for name, size in expected.items():
        assert groups.get(name, 0) == size, name
    torch._dynamo.reset()


@pytest.mark.parametrize("name", ["mlp", "cnn", "gpt", "multiout", "inplace", "llama", "dynamic"])
def test_bundled_examples_own_their_parameters(name: str, cli: Path) -> None:
    path = REPO / "resources" / "examples" / f"{name}.fxmem.json"
    doc = json.loads(path.read_text())
    forward = next(g["name"] for g in doc["graphs"] if g["kind"] == "forward")
    model, _, _ = models.build(name, "meta")
    groups = _module_groups(cli, path, forward)
    for module, size in _own_bytes(model).items():
        assert groups.get(module, 0) == size, (name, module)
