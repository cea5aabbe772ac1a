"""program=True for target cuda on a machine without a GPU: Inductor's Triton path against a
stand-in GPU (fxmem_export._gpu). With no GPU there is no real run to compare with, so the
program level is checked against Inductor's own output, read independently: the wrapper source
``GraphLowering.codegen`` returns (its ``empty_strided_cuda`` allocations, ``# reuse`` lines
and ``del``s, walked by the small reader below), sizes worked out by hand for a chain of
pointwise ops between two matmuls and for CUDA's fused attention, and fxmem-cli's allocated
and reserved measures on the written file."""

from __future__ import annotations

import contextlib
import json
import math
import re
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import fxmem_export
from fxmem_export._program import ProgramCaptureWarning
from fxmem_export.program_peak import pair_peak, profile

import real_run
from conftest import run_cli
from program_checks import program_errors
from test_capture_real import _model

# -- an independent reader of the generated wrapper ----------------------------------------------

_ALLOC = re.compile(r"^\s*(buf\d+) = empty_strided_cuda\(\(([^)]*)\), \(([^)]*)\), torch\.(\w+)\)")
# A reuse takes over a dead buffer's (or a donated input's) allocation, possibly as a view of it.
_REUSE = re.compile(r"^\s*(buf\d+) = (?:reinterpret_tensor\()?(\w+)\b.*; del \2  # reuse$")
_DEL = re.compile(r"^\s*del (buf\d+(?:, buf\d+)*)$")


def _ints(text: str) -> list[int]:
    return [int(v) for v in text.split(",") if v.strip()]


def _storage_bytes(size: list[int], stride: list[int], dtype: str) -> int:
    itemsize = getattr(torch, dtype).itemsize
    if any(s == 0 for s in size):
        return 0
    return (1 + sum((s - 1) * st for s, st in zip(size, stride))) * itemsize


def read_source(source: str) -> dict[str, Any]:
    """What the wrapper's ``call`` allocates with ``empty_strided_cuda`` (bytes, in order), how
    many allocations it reuses, and the peak of those allocations above the inputs (frees at
    ``del``; a reused buffer moves to its new name)."""
    body = source[source.index("    def call(self, args):"):]
    body = body[:body.index("\n        return ")]
    live: dict[str, int] = {}
    allocated: list[int] = []
    reuses = cur = peak = 0
    for line in body.splitlines():
        if m := _ALLOC.match(line):
            nbytes = _storage_bytes(_ints(m[2]), _ints(m[3]), m[4])
            live[m[1]] = nbytes
            allocated.append(nbytes)
            cur += nbytes
            peak = max(peak, cur)
        elif m := _REUSE.match(line):
            live[m[1]] = live.pop(m[2], 0)  # an input's allocation is not the wrapper's to count
            reuses += 1
        elif m := _DEL.match(line):
            for name in m[1].split(", "):
                cur -= live.pop(name, 0)  # a fallback's result (not allocated here) frees nothing counted
    return {"allocated": allocated, "reuses": reuses, "peak": peak}


@contextlib.contextmanager
def wrapper_sources() -> Iterator[list[str]]:
    """The wrapper source of every graph Inductor generates code for inside the block."""
    from torch._inductor.graph import GraphLowering

    sources: list[str] = []
    codegen = GraphLowering.codegen

    def recording(self: GraphLowering) -> Any:
        result = codegen(self)
        sources.append(result[0].value)
        return result

    GraphLowering.codegen = recording  # type: ignore[method-assign]
    try:
        yield sources
    finally:
        GraphLowering.codegen = codegen  # type: ignore[method-assign]


def _programs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The file's programs in the order Inductor generated them (forward first)."""
    order = {"forward": 0, "inference": 0, "backward": 1}
    graphs = sorted((g for g in doc["graphs"] if g.get("program")), key=lambda g: order[g["kind"]])
    return [g["program"] for g in graphs]


def _wrapper_allocated(program: dict[str, Any]) -> list[int]:
    """The program's buffers the wrapper itself allocates (not inputs, reuses or fallbacks)."""
    return [b["nbytes"] for b in program["buffers"]
            if b.get("kind") in ("kernel", "extern") and "reuses" not in b and not b.get("input")]


# -- models ---------------------------------------------------------------------------------------

class Chain(nn.Module):
    """Two matmuls with a chain of pointwise ops between them."""

    def __init__(self, d_in: int, hidden: int, d_out: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden, bias=False)
        self.fc2 = nn.Linear(hidden, d_out, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)) * 2.0 + 1.0)


class Attention(nn.Module):
    """One causal self-attention layer (fp32: CUDA's memory-efficient kernel)."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.view(b, n, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(b, n, d))


def _captured(model: nn.Module, inputs: tuple[Any, ...], **options: Any) -> tuple[dict[str, Any], list[str], list[str]]:
    """(file, wrapper sources, ProgramCaptureWarning messages) of one training step on meta."""
    with warnings.catch_warnings(record=True) as said, wrapper_sources() as sources:
        warnings.simplefilter("always")
        doc = real_run.meta_program_doc(model, inputs, target="cuda", **options)
    return doc, sources, [str(w.message) for w in said if issubclass(w.category, ProgramCaptureWarning)]


@pytest.fixture(scope="module")
def mlp() -> tuple[dict[str, Any], list[str], list[str]]:
    return _captured(*_model("mlp", "meta"))


B, L, DIM, HEADS = 2, 40, 32, 2  # L = 40: the memory-efficient kernel pads logsumexp to 64


@pytest.fixture(scope="module")
def attention() -> tuple[dict[str, Any], list[str], list[str]]:
    torch.manual_seed(0)
    with torch.device("meta"):
        model = Attention(DIM, HEADS)
    return _captured(model, (torch.empty(B, L, DIM, device="meta"),))


# -- tests ----------------------------------------------------------------------------------------

def test_mlp_program_is_what_the_wrapper_allocates(mlp):
    doc, sources, said = mlp
    assert program_errors(doc) == []
    programs = _programs(doc)
    assert len(programs) == len(sources) == 2
    for program, source in zip(programs, sources):
        assert program["target"] == "cuda"
        assert program["gpu"] == {"name": "NVIDIA H100 80GB HBM3", "sm": 90, "stand_in": True}
        read = read_source(source)
        assert read["allocated"], "the wrapper allocates with empty_strided_cuda"
        assert sorted(_wrapper_allocated(program)) == sorted(read["allocated"])
        assert sum("reuses" in b for b in program["buffers"]) == read["reuses"]
        # Triton kernels, not C++ ones, and cuBLAS calls for the matmuls.
        names = [k["name"] for k in program["kernels"]]
        assert any(n.startswith("triton_") for n in names) and "extern_kernels.mm" in names
    # The forward frees no input: its peak above the inputs is the wrapper's own.
    forward = profile(programs[0])
    assert max(forward) - forward[0] == read_source(sources[0])["peak"]
    # What the GPU decides at run time is said, per graph, naming the stand-in and the cuBLAS calls.
    decides = [m for m in said if "what the GPU decides" in m]
    assert len(decides) == 2 and all("a stand-in: this machine has no GPU" in m for m in decides)
    assert all("extern_kernels.mm" in m for m in decides)


def test_pointwise_chain_between_matmuls_fuses_to_one_kernel():
    """By hand: mm -> buf0 (N x H fp32); relu, *2, +1 fuse into one Triton kernel that writes
    in place over buf0 (the wrapper's reuse); mm -> the (N x O) output. Nothing else. The
    user's max_autotune (which needs the GPU) is turned off for the capture, and said."""
    n, d_in, hidden, d_out = 16, 8, 64, 4
    with torch.device("meta"):
        model = Chain(d_in, hidden, d_out)
    torch._dynamo.reset()
    be = fxmem_export.backend(None, program=True, target="cuda", gpu="a100")
    try:
        with warnings.catch_warnings(record=True) as said, torch.no_grad(), \
                torch._inductor.config.patch(max_autotune=True):
            warnings.simplefilter("always")
            torch.compile(model, backend=be, fullgraph=True)(torch.empty(n, d_in, device="meta"))
        doc = be.document()
    finally:
        torch._dynamo.reset()
    assert program_errors(doc) == []
    (program,) = _programs(doc)
    assert program["gpu"] == {"name": "NVIDIA A100-SXM4-80GB", "sm": 80, "stand_in": True}
    (decides,) = [str(w.message) for w in said if issubclass(w.category, ProgramCaptureWarning)]
    assert decides.startswith("the inference graph's program for target 'cuda' was generated for NVIDIA A100-SXM4-80GB")
    assert "turned off for this capture as they need the GPU: max_autotune (" in decides
    kernels = [k["name"] for k in program["kernels"]]
    triton = [k for k in program["kernels"] if k["name"].startswith("triton_poi_")]
    assert len(triton) == 1 and kernels.count("extern_kernels.mm") == 2
    assert {"relu", "mul", "add"} <= set(triton[0]["nodes"])
    made = [b for b in program["buffers"] if not b.get("input")]
    assert [b["nbytes"] for b in made if "reuses" not in b] == [n * hidden * 4, n * d_out * 4]
    assert [b["nbytes"] for b in made if "reuses" in b] == [n * hidden * 4]
    inputs = sum(b["nbytes"] for b in program["buffers"] if b.get("input"))
    assert max(profile(program)) == inputs + n * hidden * 4 + n * d_out * 4


def test_attention_program_has_cuda_sdpa_outputs(attention):
    """The forward calls CUDA's memory-efficient attention as an ATen fallback: its output
    (B, H, L, D) and its logsumexp, which the kernel pads to a multiple of 32 rows (fp32), plus
    the philox seed and offset (int64 scalars); the backward calls its backward kernel."""
    doc, sources, _ = attention
    assert program_errors(doc) == []
    forward, backward = _programs(doc)
    (sdpa,) = [k for k in forward["kernels"] if "_scaled_dot_product_efficient_attention" in k["name"]]
    got = [forward["buffers"][i]["nbytes"] for i in sdpa["alloc"]]
    head = DIM // HEADS
    assert got == [B * HEADS * L * head * 4, B * HEADS * math.ceil(L / 32) * 32 * 4, 8, 8]
    assert all(forward["buffers"][i]["kind"] == "fallback" for i in sdpa["alloc"])
    assert any("_scaled_dot_product_efficient_attention_backward" in k["name"] for k in backward["kernels"])
    # Every allocation of the wrapper's own is in the program, in both graphs.
    for program, source in zip((forward, backward), sources):
        read = read_source(source)
        assert sorted(_wrapper_allocated(program)) == sorted(read["allocated"])
        assert sum("reuses" in b for b in program["buffers"]) == read["reuses"]


def test_cli_measures_a_cuda_capture(attention, cli, tmp_path):
    doc, _, _ = attention
    path = tmp_path / "attention.fxmem.json"
    path.write_text(json.dumps(doc))
    forward, backward = _programs(doc)
    allocated = run_cli(cli, "peak", str(path), "--measure", "allocated", "--json")
    assert allocated["peak"] == pair_peak(forward, backward)
    reserved = run_cli(cli, "peak", str(path), "--measure", "reserved", "--json")
    # The caching allocator rounds every block up to 512 bytes and reserves whole segments.
    assert reserved["allocated_peak"] == allocated["peak"]
    assert reserved["reserved_peak"] >= reserved["allocated_blocks_peak"] >= allocated["peak"]


def test_the_stand_in_is_gone_after_the_capture(mlp):
    """Nothing of the stand-in GPU outlives the capture (the fixture captured already)."""
    from torch._inductor.runtime.hints import DeviceProperties

    assert not torch.cuda.is_available()
    with pytest.raises((AssertionError, RuntimeError)):
        torch.cuda.get_device_properties(0)
    with pytest.raises((AssertionError, RuntimeError)):
        torch.cuda.get_device_capability(0)
    assert DeviceProperties.create.cache_info().currsize == 0
    assert "__invert__" not in vars(torch.Tensor)
    import sys

    assert sys.modules["triton.runtime.driver"].driver._active is None


def test_an_unknown_gpu_is_refused():
    with pytest.raises(ValueError, match="gpu must be one of 'h100', 'a100'"):
        fxmem_export.backend(None, program=True, gpu="v100")
