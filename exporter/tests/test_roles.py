"""Storage roles/labels and node modules in the exported file, checked against PyTorch itself:
the model's named_parameters()/named_buffers()/named_modules(), and AOTAutograd's descriptors
on the very GraphModules that were exported."""

from __future__ import annotations

import json

import pytest
import torch
import torch.fx as fx
import torch.nn as nn
from torch._functorch._aot_autograd import descriptors as aot_desc
from torch._inductor.fx_passes import memory_estimator as me
from torch.fx.experimental.proxy_tensor import make_fx

import fxmem_export
from fxmem_export import examples
from fxmem_export._names import qualified_name
from fxmem_export.examples.models import DESCRIPTIONS as MODEL_DESCRIPTIONS
from fxmem_export.examples.models import build



def example_model(name: str) -> nn.Module:
    """A fresh instance of example ``name``'s model (same names and sizes as the exported one)."""
    if name in MODEL_DESCRIPTIONS:
        return build(name, "meta")[0]
    with examples._environment(name):
        return examples.fsdp.build("meta")[0]
ROLES = {"parameter", "buffer", "input", "activation", "output", "tangent", "gradient", "temporary",
         "unsharded_parameter", "optimizer_state"}


def key_to_id(doc, graphs: dict[str, fx.Graph]) -> dict:
    """PyTorch's StorageKey -> the file's storage id, node by node (the file lists each node's
    storages in the order memory_estimator collects them)."""
    out: dict = {}
    for name, graph in graphs.items():
        fg = next(g for g in doc["graphs"] if g["name"] == name)
        for fn, node in zip(fg["nodes"], graph.nodes):
            ids = []
            stack = [fn["val"]]
            while stack:
                v = stack.pop(0)
                if isinstance(v, list):
                    stack[:0] = v
                elif isinstance(v, dict) and "storage" in v and v["storage"] not in ids:
                    ids.append(v["storage"])
            keys = list(me.GraphAliasTracker._get_output_storages(node))
            assert len(keys) == len(ids), node.name
            out.update(zip(keys, ids))
    return out


def storages_of(node) -> set:
    return set(me.GraphAliasTracker._get_output_storages(node)) if isinstance(node, fx.Node) else set()


def output_pairs(graph: fx.Graph):
    out = next(iter(reversed(graph.nodes)))
    return list(zip(out.args[0], out.meta["desc"]))


def by_role(doc, role: str) -> dict[int, dict]:
    return {s["id"]: s for s in doc["storages"] if s.get("role") == role}


def check_against_torch(doc, model: nn.Module, fwd: fx.GraphModule, bwd: fx.GraphModule, fw_name: str, bw_name: str) -> None:
    ids = key_to_id(doc, {fw_name: fwd.graph, bw_name: bwd.graph})
    used = set()
    for name in (fw_name, bw_name):
        used |= {t["storage"] for n in next(g for g in doc["graphs"] if g["name"] == name)["nodes"]
                 for t in _tensors(n["val"])}
    assert {doc["storages"][i].get("role") for i in used} <= ROLES

    # parameter / buffer labels are the model's own qualified names, nbytes its storages'.
    params = dict(model.named_parameters())
    buffers = dict(model.named_buffers())
    p_files = {s["label"]: s for s in by_role(doc, "parameter").values()}
    b_files = {s["label"]: s for s in by_role(doc, "buffer").values()}
    assert set(p_files) == set(params)
    assert set(b_files) == set(buffers)
    for label, s in [*p_files.items(), *b_files.items()]:
        t = params.get(label, buffers.get(label))
        assert s["nbytes"] == t.untyped_storage().nbytes(), label

    # activation = storages of forward outputs AOTAutograd saves for backward, minus the
    # forward's inputs (a saved weight stays a parameter).
    inputs = set().union(*(storages_of(n) for n in fwd.graph.find_nodes(op="placeholder")))
    saved = set().union(*(storages_of(a) for a, d in output_pairs(fwd.graph)
                          if isinstance(d, (aot_desc.SavedForBackwardsAOTOutput, aot_desc.SavedForBackwardsNoVcCheckAOTOutput))))
    assert set(by_role(doc, "activation")) == {ids[k] for k in saved - inputs}
    # ... which are also the backward's inputs that are neither primals nor tangents.
    bw_saved = set().union(*(storages_of(n) for n in bwd.graph.find_nodes(op="placeholder") if n.meta.get("desc") is None))
    assert {ids[k] for k in bw_saved - inputs} == set(by_role(doc, "activation"))

    # gradient = backward outputs whose descriptor is a gradient; labeled with the parameter.
    grads = [(a, d) for a, d in output_pairs(bwd.graph) if isinstance(a, fx.Node) and d is not None and d.is_grad()]
    # ... and, as FSDPMemTracker counts them, reduce-scattered gradients before they are returned.
    scattered = {k for n in bwd.graph.nodes if "reduce_scatter_tensor" in str(n.target) for k in storages_of(n)}
    assert set(by_role(doc, "gradient")) == {ids[k] for a, _ in grads for k in storages_of(a)} | {ids[k] for k in scattered}
    want = {f"grad of {n}" for n, p in params.items() if p.requires_grad}
    got = {s.get("label") for s in by_role(doc, "gradient").values()}
    assert want <= got
    for s in by_role(doc, "gradient").values():
        if s.get("label", "").removeprefix("grad of ") in params:
            assert s["nbytes"] == params[s["label"].removeprefix("grad of ")].untyped_storage().nbytes()

    # tangents: the backward's tangent placeholders.
    tangents = set().union(*(storages_of(n) for n in bwd.graph.find_nodes(op="placeholder")
                             if isinstance(n.meta.get("desc"), aot_desc.TangentAOTInput)))
    assert set(by_role(doc, "tangent")) == {ids[k] for k in tangents} - set(by_role(doc, "gradient"))

    # modules: names of the model's modules, with their class names.
    modules = dict(model.named_modules())
    for name in (fw_name, bw_name):
        for n in next(g for g in doc["graphs"] if g["name"] == name)["nodes"]:
            assert "module" in n, n["name"]
            assert n["module"] in modules, n["module"]
            assert n["module_type"] == type(modules[n["module"]]).__name__, n["name"]
        assert any(n["module"] for n in next(g for g in doc["graphs"] if g["name"] == name)["nodes"])

    # A forward op that reads a parameter runs in the module that owns it (Linear's addmm, t,
    # LayerNorm, Conv, Embedding): an independent link between labels and modules.
    param_ids = {s["id"]: s["label"] for s in by_role(doc, "parameter").values()}
    file_fwd = {n["name"]: n for n in next(g for g in doc["graphs"] if g["name"] == fw_name)["nodes"]}
    checked = 0
    for node in fwd.graph.nodes:
        if node.op != "call_function":
            continue
        owners = {param_ids[ids[k]].rpartition(".")[0] for i in node.all_input_nodes for k in storages_of(i)
                  if ids.get(k) in param_ids}
        if len(owners) == 1:
            assert file_fwd[node.name]["module"] == owners.pop(), node.name
            checked += 1
    assert checked >= 1


def _tensors(val):
    if isinstance(val, list):
        return [t for v in val for t in _tensors(v)]
    return [val] if isinstance(val, dict) and "storage" in val else []


@pytest.mark.parametrize("name", examples.NAMES)
def test_examples_roles_and_modules_agree_with_torch(exported, name):
    ex = exported[name]
    model = example_model(name)
    check_against_torch(ex.doc, model, ex.forward, ex.backward, "forward", "backward")


def test_cnn_batchnorm_new_buffer_values(exported):
    """BatchNorm in training mode: the running stats are mutated buffers. Inductor's capture
    keeps input mutations in the graph, so each buffer's new value is written into the buffer's
    own storage by one copy_ in the forward (no "new value of" output, as AOTAutograd's default
    returns; that labeling is checked with inner="eager" in test_small_model_through_the_backend)."""
    doc = exported["cnn"].doc
    labels = {s.get("label"): s.get("role") for s in doc["storages"]}
    storage_of = {s.get("label"): s["id"] for s in doc["storages"]}
    fwd = {n["name"]: n for n in next(g for g in doc["graphs"] if g["name"] == "forward")["nodes"]}
    copies = [n for n in fwd.values() if n["target"] == "aten.copy_.default"]
    model, _, _ = build("cnn", "meta")
    for name, buf in model.named_buffers():
        assert labels.get(name) == "buffer"
        assert f"new value of {name}" not in labels, name
        into = [c for c in copies if c["val"]["storage"] == storage_of[name]]
        assert len(into) == 1, name
        dst, src = (fwd[i] for i in into[0]["inputs"])
        assert dst["op"] == "placeholder" and dst["val"]["storage"] == storage_of[name]
        assert src["op"] == "call_function" and src["val"]["storage"] != storage_of[name]
        assert (src["val"]["shape"], src["val"]["dtype"]) == (list(buf.shape), str(buf.dtype).removeprefix("torch."))
    assert len(copies) == len(list(model.buffers())) == 9
    user_out = [s for s in doc["storages"] if s.get("label") == "output 0"]
    assert [s["role"] for s in user_out] == ["output"]


class Layer(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.bn = nn.BatchNorm1d(d)

    def forward(self, x):
        return torch.relu(self.bn(self.lin(x)))


class Stack(nn.Module):
    """Nested modules in a ModuleList, BatchNorm running stats (mutated buffers), a buffer only
    read, and a parameter that does not require grad."""

    def __init__(self, d: int = 16) -> None:
        super().__init__()
        self.layers = nn.ModuleList(Layer(d) for _ in range(3))
        self.register_buffer("scale", torch.full((d,), 0.5))
        self.frozen = nn.Parameter(torch.ones(d), requires_grad=False)

    def forward(self, x):
        for i in range(len(self.layers)):
            x = self.layers[i](x) * self.scale + self.frozen
        return x.sum()


@pytest.mark.parametrize("how", ["module", "function", "not-inlined"])
def test_small_model_through_the_backend(tmp_path, how):
    """torch.compile on the model itself, on a function that takes the model, or with Dynamo's
    inlining of nn.Modules turned off: the labels and module names are the model's own."""
    torch._dynamo.reset()
    path = tmp_path / "stack.fxmem.json"
    be = fxmem_export.backend(path, inner="eager")
    with torch.device("meta"):
        model = Stack().train()
        x = torch.randn(8, 16)
    if how == "module":
        loss = torch.compile(model, backend=be, fullgraph=True)(x)
    elif how == "not-inlined":
        with torch._dynamo.config.patch(inline_inbuilt_nn_modules=False):
            loss = torch.compile(model, backend=be, fullgraph=True)(x)
    else:
        loss = torch.compile(lambda m, inp: m(inp), backend=be, fullgraph=True)(model, x)
    loss.backward()
    doc = be.save()
    assert json.loads(path.read_text()) == doc
    graphs = be.graphs()
    fwd, bwd = graphs[0][2], graphs[1][2]
    # The root module's class is not known to a backend: root nodes get "" and no type.
    for g in doc["graphs"]:
        for n in g["nodes"]:
            if n["module"] == "":
                n["module_type"] = "Stack"
    check_against_torch(doc, model, fwd, bwd, "region0.forward", "region0.backward")
    labels = {s.get("label"): s.get("role") for s in doc["storages"]}
    assert labels["inp" if how == "function" else "x"] == "input"
    assert "grad of frozen" not in labels
    assert labels["new value of layers.2.bn.num_batches_tracked"] in ("output", "activation")
    torch._dynamo.reset()


def test_no_descriptors_no_roles(tmp_path):
    """Graphs without AOTAutograd descriptors or module stacks (make_fx): no role, no module."""
    def f(x, w):
        return torch.relu(x @ w).sum()

    gm = make_fx(f, tracing_mode="fake")(torch.randn(4, 8), torch.randn(8, 2))
    doc = fxmem_export.save(tmp_path / "f.fxmem.json", gm, inference=True)
    assert doc["storages"] and not any("role" in s or "label" in s for s in doc["storages"])
    assert not any("module" in n or "module_type" in n for g in doc["graphs"] for n in g["nodes"])


@pytest.mark.parametrize("path,want", [
    ("L['self']", ""),
    ("L['self'].blocks.0.ln1", "blocks.0.ln1"),
    ("L['self']._modules['blocks']._modules['0']._modules['attn']", "blocks.0.attn"),
    ("L['self'].blocks[0].attn", "blocks.0.attn"),
    ("getattr(L['self'].blocks, '0').attn", "blocks.0.attn"),
    ("getattr(getattr(L['self'], 'blocks'), '0')", "blocks.0"),
    ("L['model']._modules['layers']._modules['3']", "layers.3"),
    ("blocks.0.attn", "blocks.0.attn"),  # torch.export writes qualified names
    ("", ""),
    ("some(call)", None),
])
def test_qualified_name_spellings(path, want):
    assert qualified_name(path) == want


@pytest.mark.parametrize("name", examples.NAMES)
def test_cli_reads_roles_and_modules(exported, cli, name):
    """fxmem-cli's reader keeps every role, label and module the exporter wrote."""
    from conftest import run_cli

    doc = exported[name].doc
    info = run_cli(cli, "info", str(exported[name].path), "--json")
    assert info["storages_with_role"] == sum("role" in s for s in doc["storages"]) == len(doc["storages"])
    assert info["storages_with_label"] == sum("label" in s for s in doc["storages"]) > 0
    assert info["nodes_with_module"] == sum(len(g["nodes"]) for g in doc["graphs"])


def test_inference_graph_roles(tmp_path):
    """Under no_grad one inference graph: parameters, buffers, the input, outputs (the result and
    the new BatchNorm statistics) and temporaries; nothing is saved, no gradient, no tangent."""
    torch._dynamo.reset()
    be = fxmem_export.backend(tmp_path / "inf.fxmem.json", inner="eager")
    with torch.device("meta"):
        model = Stack().train()
        x = torch.randn(8, 16)
    with torch.no_grad():
        torch.compile(model, backend=be, fullgraph=True)(x)
    doc = be.save()
    torch._dynamo.reset()
    assert [g["kind"] for g in doc["graphs"]] == ["inference"]
    roles = {}
    for s in doc["storages"]:
        roles.setdefault(s["role"], set()).add(s.get("label"))
    assert set(roles) == {"parameter", "buffer", "input", "output", "temporary"}
    assert roles["parameter"] == set(dict(model.named_parameters()))
    assert roles["buffer"] == set(dict(model.named_buffers()))
    assert roles["input"] == {"x"}
    bn_stats = {f"new value of layers.{i}.bn.{b}" for i in range(3)
                for b in ("running_mean", "running_var", "num_batches_tracked")}
    assert roles["output"] == {"output 0"} | bn_stats
    modules = dict(model.named_modules())
    assert {n["module"] for n in doc["graphs"][0]["nodes"]} <= set(modules)


def test_llama_example_structure(exported):
    """The llama example is what it says: 8 decoder layers, each with RMSNorms, rotary
    attention (on meta for the default target "cuda", fp32 SDPA is the kernel a CUDA GPU runs:
    one _scaled_dot_product_efficient_attention per layer, flash having no fp32 kernel) and a
    SwiGLU MLP; the loss is log_softmax (as Inductor decomposes it) and gather."""
    ex = exported["llama"]
    fwd = ex.file_graph("forward")["nodes"]
    by_module: dict[str, set] = {}
    for n in fwd:
        by_module.setdefault(n["module"], set()).add(n["module_type"])
    for i in range(8):
        for sub, kind in [("attention_norm", "RMSNorm"), ("attention", "Attention"), ("attention.rotary", "Rotary"),
                          ("attention.wq", "Linear"), ("ffn_norm", "RMSNorm"), ("feed_forward", "SwiGLU"),
                          ("feed_forward.w1", "Linear"), ("feed_forward.w3", "Linear"), ("feed_forward.w2", "Linear")]:
            assert by_module[f"layers.{i}.{sub}"] == {kind}
        sdpa = [n for n in fwd if n["module"] == f"layers.{i}.attention"
                and n["target"] == "aten._scaled_dot_product_efficient_attention.default"]
        assert len(sdpa) == 1
    assert not any(n["target"] in ("aten.bmm.default", "aten._softmax.default") for n in fwd)  # no math path
    assert "layers.8" not in by_module
    # the cross-entropy at the root: log_softmax's decomposition x - amax - log(sum(exp(x - amax))), gather, mean
    root = [n["target"] for n in fwd if n["module"] == "" and n["op"] == "call_function"]
    assert [t for t in root if t in ("aten.amax.default", "aten.exp.default", "aten.sum.dim_IntList",
                                     "aten.log.default", "aten.gather.default", "aten.mean.default")] == [
        "aten.amax.default", "aten.exp.default", "aten.sum.dim_IntList", "aten.log.default",
        "aten.gather.default", "aten.mean.default"]
    assert ex.path.stat().st_size < 2_000_000


def test_bundled_examples_carry_roles_and_modules_and_stay_small():
    """resources/examples/*.fxmem.json: regenerated with roles and modules, each under 2 MB, the
    llama sweep too (a 2-layer llama at 6 budgets and its joint graph, see docs/exporter.md)."""
    from conftest import REPO

    files = sorted((REPO / "resources" / "examples").glob("*.fxmem.json"))
    assert {f.name.split(".")[0] for f in files} >= set(examples.NAMES)
    for f in files:
        doc = json.loads(f.read_text())
        assert f.stat().st_size < 2_000_000, f
        assert all(s.get("role") in ROLES for s in doc["storages"]), f
        assert all("module" in n for g in doc["graphs"] for n in g["nodes"]), f


def test_fsdp_collectives_are_unsharded_parameters_and_gradients(tmp_path):
    """As FSDPMemTracker names them: all-gathered parameter shards are unsharded parameters,
    reduce-scattered gradients are gradients (they were 'temporary')."""
    from fxmem_export import examples

    _, doc = examples.export("fsdp", tmp_path / "fsdp.fxmem.json")
    role = {s["id"]: s.get("role") for s in doc["storages"]}
    label = {s["id"]: s.get("label") for s in doc["storages"]}
    seen = {"all_gather_into_tensor": set(), "reduce_scatter_tensor": set()}
    for g in doc["graphs"]:
        for n in g["nodes"]:
            for op in seen:
                if op in n["target"]:
                    seen[op].add(role[n["val"]["storage"]])
                    if op == "all_gather_into_tensor":
                        assert label[n["val"]["storage"]].startswith("unsharded blocks.")
    assert seen == {"all_gather_into_tensor": {"unsharded_parameter"}, "reduce_scatter_tensor": {"gradient"}}
