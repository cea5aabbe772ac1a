"""Symbolic sizes (issue 25): three models captured once with a dynamic batch and sequence length,
evaluated at other sizes. The ground truth is PyTorch's estimator (memory_estimator's
build_memory_profile and the pair's interactions, fxmem_export.reference) run on the captured
GraphModules with ``size_of`` substituting the binding into PyTorch's own symbolic byte counts;
the file's expressions, evaluated at the same binding, must give the same bytes, and so must
fxmem-cli's ``--set`` (pair and whole step) and ``fit``."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sympy
import torch
import torch.fx as fx
import torch.nn as nn
import torch.nn.functional as F
from torch._inductor.fx_passes import memory_estimator as me

import fxmem_export
from fxmem_export._symbolic import ExprError, SymbolTable, Unprintable, evaluate, print_expr
from fxmem_export.examples.llama import LlamaNextToken
from fxmem_export.examples.models import GPT, MLP
from fxmem_export.reference import intended_peak_memory

from file_model import pair_peak

HINT = (8, 48)  # batch, sequence length the captures are traced at
# (batch, sequence): the hint, the smallest sizes the ranges allow, odd sizes, and one far away.
BINDINGS = [HINT, (2, 2), (3, 17), (16, 333), (64, 1024)]
GiB = 1024**3


class GPTNextToken(GPT):
    """The small GPT on next-token prediction of its one input (targets: the tokens shifted by one),
    with a position table long enough for 1024 tokens."""

    def forward(self, idx: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        return super().forward(idx, idx.roll(-1, dims=1))


class TokenMLP(nn.Module):
    """An MLP applied to every token of a (batch, sequence, 256) input."""

    def __init__(self) -> None:
        super().__init__()
        self.mlp = MLP()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.mlp(x)).sum()


def _model(name: str) -> tuple[nn.Module, torch.Tensor]:
    with torch.device("meta"):
        if name == "llama":
            return LlamaNextToken(max_seq=4096, layers=2), torch.randint(0, 256, HINT)
        if name == "gpt":
            return GPTNextToken(ctx=1024), torch.randint(0, 1024, HINT)
        return TokenMLP(), torch.randn(*HINT, 256)


@dataclass
class Capture:
    path: Path
    doc: dict[str, Any]
    forward: fx.Graph
    backward: fx.Graph
    symbols: dict[str, sympy.Symbol]  # the ShapeEnv's symbols by name
    warnings: list[str]


def _capture(name: str, path: Path) -> Capture:
    torch._dynamo.reset()
    torch.manual_seed(0)
    model, x = _model(name)
    torch._dynamo.mark_dynamic(x, 0)
    torch._dynamo.mark_dynamic(x, 1)
    be = fxmem_export.backend(None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.compile(model, backend=be, fullgraph=True)(x).backward()
        doc = be.save(path)
    graphs = {kind: gm.graph for _, kind, gm in be.graphs()}
    env = next(n.meta["val"].fake_mode.shape_env for n in graphs["forward"].find_nodes(op="placeholder")
               if isinstance(n.meta.get("val"), torch.Tensor))
    torch._dynamo.reset()
    return Capture(path, doc, graphs["forward"], graphs["backward"], {str(s): s for s in env.var_to_range},
                   [str(w.message) for w in caught])


@pytest.fixture(scope="module")
def captures(tmp_path_factory) -> dict[str, Capture]:
    out = tmp_path_factory.mktemp("symbolic")
    return {name: _capture(name, out / f"{name}.fxmem.json") for name in ("llama", "gpt", "mlp")}


def _names(cap: Capture) -> tuple[str, str]:
    """(batch, sequence) symbol names, found by their sources."""
    by_source = {s["source"]: s["name"] for s in cap.doc["symbols"]}
    source = "L['tokens']" if "L['tokens'].size()[0]" in by_source else "L['idx']" if "L['idx'].size()[0]" in by_source \
        else "L['x']"
    return by_source[f"{source}.size()[0]"], by_source[f"{source}.size()[1]"]


def _binding(cap: Capture, batch: int, seq: int) -> dict[str, int]:
    b, s = _names(cap)
    return {b: batch, s: seq}


# -- the oracle: PyTorch's estimator with size_of substituting the binding -----------------------
def _size_of(cap: Capture, binding: dict[str, int]):
    subs = {cap.symbols[name]: sympy.Integer(v) for name, v in binding.items()}
    memo: dict[Any, int] = {}

    def size_of(nbytes: int | torch.SymInt) -> int:
        if not isinstance(nbytes, torch.SymInt):
            return int(nbytes)
        expr = nbytes.node.expr
        if expr not in memo:
            value = expr.xreplace(subs)
            assert value.is_Integer, f"{expr} at {binding} is {value}"
            memo[expr] = int(value)
        return memo[expr]

    return size_of


_PAIRS: dict[tuple[Path, tuple[tuple[str, int], ...]], dict[str, int]] = {}


def torch_pair(cap: Capture, binding: dict[str, int]) -> dict[str, int]:
    """PyTorch's estimator on the pair at ``binding``, run once per capture and binding: the file,
    CLI and whole-step checks at one binding, and the two limits' scans, ask for the same ones."""
    key = (cap.path, tuple(sorted(binding.items())))
    if key not in _PAIRS:
        _PAIRS[key] = intended_peak_memory(cap.forward, cap.backward, size_of=_size_of(cap, binding))
    return dict(_PAIRS[key])


def torch_whole_step(cap: Capture, binding: dict[str, int]) -> int:
    """The whole step of one fullgraph region without an optimizer (docs/estimator.md, "The whole
    step"): the forward's profile, then the backward's in its pair, each with the parameters and
    buffers its graph does not hold as placeholders on top (they live through the step). The
    parameters and buffers are the forward's static-sized placeholders (the one data input has
    symbolic sizes)."""
    size_of = _size_of(cap, binding)
    pair = torch_pair(cap, binding)

    def nbytes(node: fx.Node) -> int:
        return sum(size_of(k.storage.nbytes()) for k in me.GraphAliasTracker._get_output_storages(node)
                   if me.device_filter(k.device))

    state = [n for n in cap.forward.find_nodes(op="placeholder") if isinstance(n.meta.get("val"), torch.Tensor)
             and not any(isinstance(d, torch.SymInt) for d in n.meta["val"].shape)]
    held = {n.name for n in cap.backward.find_nodes(op="placeholder")}
    not_held = sum(nbytes(n) for n in state if n.name not in held)
    return max(pair["forward_peak"], pair["backward_peak"] + not_held)


# -- the file at a binding (its expressions, evaluated by the grammar) ---------------------------
def doc_at(doc: dict[str, Any], binding: dict[str, int]) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    for s in out["storages"]:
        if "nbytes_expr" in s:
            s["nbytes"] = evaluate(s["nbytes_expr"], binding)
    return out


def _hints(doc: dict[str, Any]) -> dict[str, int]:
    return {s["name"]: s["hint"] for s in doc["symbols"]}


def _tensors(val: Any):
    if isinstance(val, list):
        for v in val:
            yield from _tensors(v)
    elif isinstance(val, dict) and "storage" in val:
        yield val


MODELS = ["llama", "gpt", "mlp"]


@pytest.mark.parametrize("name", MODELS)
def test_symbols_are_batch_and_sequence(captures, name):
    cap = captures[name]
    assert not [w for w in cap.warnings if "symbolic size" in w], cap.warnings
    source = {"llama": "L['tokens']", "gpt": "L['idx']", "mlp": "L['x']"}[name]
    symbols = cap.doc["symbols"]
    assert [s["source"] for s in symbols] == [f"{source}.size()[0]", f"{source}.size()[1]"]
    assert [s["hint"] for s in symbols] == list(HINT)
    assert all(s["min"] == 2 for s in symbols)  # PyTorch specializes sizes 0 and 1
    assert symbols[0]["max"] is None  # batch: unbounded
    # llama's rotary tables (4096 rows) bound the sequence length; the others are unbounded.
    assert symbols[1]["max"] == (4096 if name == "llama" else None)
    assert all(cap.symbols[s["name"]] for s in symbols)


@pytest.mark.parametrize("name", MODELS)
def test_every_expression_gives_its_hinted_int(captures, name):
    doc = captures[name].doc
    hints = _hints(doc)
    symbolic = 0
    for s in doc["storages"]:
        if "nbytes_expr" in s:
            symbolic += 1
            assert evaluate(s["nbytes_expr"], hints) == s["nbytes"], s
    assert symbolic > 0
    tensors = flops = 0
    for g in doc["graphs"]:
        for n in g["nodes"]:
            if "flops_expr" in n:
                flops += 1
                assert evaluate(n["flops_expr"], hints) == n["flops"], (g["name"], n["name"])
            for t in _tensors(n["val"]):
                if "shape_expr" not in t:
                    continue
                tensors += 1
                for key in ("shape", "stride"):
                    assert len(t[f"{key}_expr"]) == len(t[key])
                    for e, v in zip(t[f"{key}_expr"], t[key]):
                        assert (e if isinstance(e, int) else evaluate(e, hints)) == v, (n["name"], t)
                e = t["offset_expr"]
                assert (e if isinstance(e, int) else evaluate(e, hints)) == t["offset"]
    assert tensors > 0
    if name != "mlp" or flops:
        assert flops > 0  # matmuls over batch x sequence rows


@pytest.mark.parametrize("name", MODELS)
def test_every_symbolic_storage_has_its_expression(captures, name):
    """Nothing fell back to its hint: each storage PyTorch sizes symbolically has an expression,
    whose symbols are all listed."""
    cap = captures[name]
    listed = set(_hints(cap.doc))
    exprs = [s for s in cap.doc["storages"] if "nbytes_expr" in s]
    symbolic_in_torch = set()
    for graph in (cap.forward, cap.backward):
        for n in graph.nodes:
            for leaf in torch.utils._pytree.tree_leaves(n.meta.get("val")):
                if isinstance(leaf, torch._subclasses.fake_tensor.FakeTensor):
                    nb = leaf.untyped_storage().nbytes()
                    if isinstance(nb, torch.SymInt) and nb.node.expr.free_symbols:
                        symbolic_in_torch.add(str(nb.node.expr))
    assert symbolic_in_torch
    for s in exprs:
        names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", s["nbytes_expr"])) - {"Max", "Min", "Mod", "FloorDiv", "CeilDiv"}
        assert names <= listed, s


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("sizes", BINDINGS, ids=[f"{b}x{s}" for b, s in BINDINGS])
def test_file_at_a_binding_equals_pytorch(captures, name, sizes):
    cap = captures[name]
    binding = _binding(cap, *sizes)
    expected = torch_pair(cap, binding)
    got = pair_peak(doc_at(cap.doc, binding), 0)
    assert got == expected, f"{name} at {sizes}"
    if sizes == HINT:
        assert got == pair_peak(cap.doc, 0)
    print(f"{name} {sizes[0]}x{sizes[1]}: pair peak {expected['peak']} B, whole step {torch_whole_step(cap, binding)} B")


def _run(cli: Path, *args: str) -> dict[str, Any]:
    """fxmem-cli's JSON answer: any exit but 0 fails (an unknown command or option included)."""
    r = subprocess.run([str(cli), *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"fxmem-cli {' '.join(args)} exited {r.returncode}: {r.stderr.strip()}"
    return json.loads(r.stdout)


def _set(binding: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in binding.items())


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("sizes", BINDINGS, ids=[f"{b}x{s}" for b, s in BINDINGS])
def test_cli_at_a_binding_equals_pytorch(captures, cli, name, sizes):
    cap = captures[name]
    binding = _binding(cap, *sizes)
    expected = torch_pair(cap, binding)
    got = _run(cli, "peak", str(cap.path), "--set", _set(binding), "--json")
    for key in ("forward_peak", "backward_baseline", "backward_peak", "peak"):
        assert got[key] == expected[key], f"{name} at {sizes}: {key} fxmem-cli {got[key]} != torch {expected[key]}"
    whole = _run(cli, "peak", str(cap.path), "--whole-step", "--set", _set(binding), "--json")
    assert whole["peak"] == torch_whole_step(cap, binding), f"{name} at {sizes}: whole step"


def _scan(cap: Capture, measure, limit: int, seq: int) -> int:
    """The largest batch b such that every batch from the range's minimum to b fits in ``limit``,
    by trying them one by one with the oracle."""
    b_name, _ = _names(cap)
    low = next(s["min"] for s in cap.doc["symbols"] if s["name"] == b_name)
    batch = low
    assert measure(cap, _binding(cap, batch, seq)) <= limit, "the smallest batch does not fit"
    while measure(cap, _binding(cap, batch + 1, seq)) <= limit:
        batch += 1
    return batch


@pytest.mark.parametrize("limit", [4 * GiB, 1 * GiB], ids=["4GiB", "1GiB"])
def test_fit_equals_a_brute_force_scan(captures, cli, limit):
    cap = captures["llama"]
    pair = _scan(cap, lambda c, b: torch_pair(c, b)["peak"], limit, 1024)
    whole = _scan(cap, torch_whole_step, limit, 1024)
    print(f"llama, sequence 1024, {limit} B: largest batch {pair} (pair), {whole} (whole step)")
    b_name, s_name = _names(cap)
    for extra, expected in (([], pair), (["--whole-step"], whole)):
        got = _run(cli, "fit", str(cap.path), "--memory", str(limit), "--vary", b_name, "--set", f"{s_name}=1024",
                      *extra, "--json")
        assert got["max_value"] == expected, f"fit {extra} at {limit} B"
        assert got["symbol"] == b_name and got["limit"] == limit


def test_a_static_capture_writes_no_symbols(tmp_path):
    torch._dynamo.reset()
    model, x = _model("mlp")
    be = fxmem_export.backend(None)
    torch.compile(model, backend=be, fullgraph=True)(x).backward()
    doc = be.save(tmp_path / "static.fxmem.json")
    torch._dynamo.reset()
    text = (tmp_path / "static.fxmem.json").read_text()
    assert "symbols" not in doc
    assert "_expr" not in text


# -- the printer and the evaluator, against sympy's own evaluation of PyTorch's functions -------
def test_printed_expressions_evaluate_as_pytorch_does():
    from torch.utils._sympy.functions import (CeilDiv, CeilToInt, FloorDiv, IntTrueDiv, Max, Min, Mod,
                                              ModularIndexing, PowByNatural, PythonMod)

    a, b = sympy.symbols("s0 s1", integer=True, positive=True)
    exprs = [a * (b - 1) + a, 4 * a**2 + 2 * a, a - 1, 7 - 3 * a * b, FloorDiv(a, 4), FloorDiv(a + 6, b),
             CeilDiv(a, 7), 32 * CeilToInt(IntTrueDiv(a, 32)), Max(1, 32 * CeilToInt(IntTrueDiv(a, 32))),
             Min(a, b, 5), Mod(a, 4), PythonMod(a * b, 3), ModularIndexing(a, 2, 5), PowByNatural(a, 3),
             (a + 1) ** 2, 16 * (b - 1) * Max(1, a) + 12, FloorDiv(a * b, 2 * b + 1)]
    for expr in exprs:
        text, used = print_expr(expr)
        assert used <= {a, b}
        for va, vb in ((2, 2), (3, 17), (48, 8), (1024, 64), (4097, 33)):
            want = int(expr.xreplace({a: sympy.Integer(va), b: sympy.Integer(vb)}))
            assert evaluate(text, {"s0": va, "s1": vb}) == want, (str(expr), text, va, vb)


def test_unprintable_forms_are_left_out_with_one_warning():
    class Node:  # a SymInt's node as SymbolTable reads it
        def __init__(self, expr):
            self.expr, self.shape_env = expr, object()

    table = SymbolTable()
    s = sympy.Symbol("s0", integer=True, positive=True)
    for expr in (s / 3, sympy.sqrt(s), 2**s, sympy.Symbol("s 1") + 1):
        with pytest.raises(Unprintable):
            print_expr(expr)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert table._print_or_none(Node(s / 3), "storage 7") is None
        assert table._print_or_none(Node(sympy.sqrt(s)), "storage 8") is None
    assert len(caught) == 1 and "storage 7" in str(caught[0].message)
    assert table.entries() == []


@pytest.mark.parametrize("text", ["s0 +", "s0 ** s1", "Foo(s0)", "Max(s0)", "(s0//0)", "s2", "s0 $ 1", "FloorDiv(s0)",
                                  "Mod(s0, 0)", "(s0", "s0)"])
def test_the_evaluator_refuses_what_is_outside_the_grammar(text):
    with pytest.raises(ExprError):
        evaluate(text, {"s0": 3, "s1": 2})


def test_unbacked_symbols_are_listed_without_a_source(tmp_path):
    """Data-dependent sizes (test_data_dependent's mixture of experts on the CPU): each unbacked
    symbol is listed with source "" and the hint the exporter counts it at, and every expression
    gives its hinted int there."""
    from test_data_dependent import _capture as capture_moe

    doc, _ = capture_moe("cpu", tmp_path / "moe.fxmem.json")
    symbols = doc["symbols"]
    assert symbols and all(s["name"].startswith("u") and s["source"] == "" for s in symbols)
    assert all(s["min"] <= s["hint"] and (s["max"] is None or s["hint"] <= s["max"]) for s in symbols)
    hints = _hints(doc)
    exprs = [s for s in doc["storages"] if "nbytes_expr" in s]
    assert exprs
    for s in exprs:
        assert evaluate(s["nbytes_expr"], hints) == s["nbytes"]
