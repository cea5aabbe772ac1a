"""Unit tests of the file the exporter writes."""

from __future__ import annotations

import json
import os
from collections import defaultdict

import pytest
import torch
import torch.fx as fx
from torch._inductor.fx_passes import memory_estimator as me
from torch._subclasses import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import optimization_hint

import fxmem_export
from fxmem_export.reference import torch_profile


def storage_keys(node: fx.Node):
    return list(me.GraphAliasTracker._get_output_storages(node))


def tensors(val):
    if val is None:
        return []
    if isinstance(val, list):
        return [t for v in val for t in tensors(v)]
    if "storage" in val:
        return [val]
    return []


def file_storage_ids(file_node):
    ids = []
    for t in tensors(file_node["val"]):
        if t["storage"] not in ids:
            ids.append(t["storage"])
    return ids


@pytest.mark.parametrize("name", ["mlp", "cnn", "gpt", "multiout", "inplace", "llama", "dynamic"])
def test_file_structure(exported, name):
    ex = exported[name]
    doc = ex.doc
    assert doc["format"] == "fxmem" and doc["version"] == 1
    ids = [s["id"] for s in doc["storages"]]
    assert ids == list(range(len(ids)))
    assert all(isinstance(s["nbytes"], int) and s["nbytes"] >= 0 for s in doc["storages"])
    assert [g["name"] for g in doc["graphs"]] == ["forward", "backward"]
    assert [g["kind"] for g in doc["graphs"]] == ["forward", "backward"]
    assert doc["pairs"] == [{"forward": "forward", "backward": "backward"}]
    for fg in doc["graphs"]:
        gm = ex.forward if fg["name"] == "forward" else ex.backward
        nodes = list(gm.graph.nodes)
        assert [n["name"] for n in fg["nodes"]] == [n.name for n in nodes]
        seen = set()
        for fn, node in zip(fg["nodes"], nodes):
            assert fn["op"] == node.op
            assert fn["inputs"] == [i.name for i in node.all_input_nodes]
            assert all(i in seen for i in fn["inputs"])
            seen.add(fn["name"])
            for t in tensors(fn["val"]):
                assert 0 <= t["storage"] < len(ids)
                assert len(t["shape"]) == len(t["stride"])
            if node.meta.get("stack_trace"):
                assert fn["stack_trace"] == node.meta["stack_trace"]
        assert fg["nodes"][-1]["op"] == "output"
    assert any("stack_trace" in n for g in doc["graphs"] for n in g["nodes"])
    # The examples' traces name the model file relative to the package, not this machine's path.
    traces = [n["stack_trace"] for g in doc["graphs"] for n in g["nodes"] if "stack_trace" in n]
    assert all('File "fxmem_export/examples/' in t for t in traces), traces[0]
    assert not any(line.strip() and not line.strip(" ^~") for t in traces for line in t.splitlines())


@pytest.mark.parametrize("name", ["mlp", "cnn", "gpt", "multiout", "inplace", "llama", "dynamic"])
def test_storage_ids_follow_storage_identity(exported, name):
    """Two nodes share a storage id iff PyTorch's StorageKeys are equal, across both graphs."""
    ex = exported[name]
    key_to_id: dict = {}
    id_to_key: dict = {}
    for graph_name in ("forward", "backward"):
        fg = ex.file_graph(graph_name)
        for fn, node in zip(fg["nodes"], ex.graph(graph_name).nodes):
            keys = storage_keys(node)
            ids = file_storage_ids(fn)
            assert len(keys) == len(ids), node.name
            for key, sid in zip(keys, ids):
                assert key_to_id.setdefault(key, sid) == sid, f"{node.name}: storage split in two ids"
                assert id_to_key.setdefault(sid, key) == key, f"{node.name}: two storages share id {sid}"
                st = ex.doc["storages"][sid]
                assert st["device"] == str(key.device)
                assert st["nbytes"] == optimization_hint(key.storage.nbytes())


def test_storage_shared_between_forward_and_backward(exported):
    ex = exported["mlp"]
    fwd_ids = {s for n in ex.file_graph("forward")["nodes"] for s in file_storage_ids(n)}
    shared = []
    for node in ex.file_graph("backward")["nodes"]:
        if node["op"] == "placeholder":
            if node["name"].startswith("tangents"):
                assert not set(file_storage_ids(node)) & fwd_ids
            else:  # saved tensors and primals come from the forward
                assert set(file_storage_ids(node)) <= fwd_ids, node["name"]
                shared.append(node["name"])
    assert any(n.startswith("primals") for n in shared) and any(not n.startswith("primals") for n in shared)


def test_views_share_storage(exported):
    ex = exported["gpt"]
    views = 0
    for graph_name in ("forward", "backward"):
        nodes = {n["name"]: n for n in ex.file_graph(graph_name)["nodes"]}
        for n in nodes.values():
            # Inductor's decompositions leave view, permute (for t/transpose), expand, unsqueeze.
            if n["target"] in ("aten.view.default", "aten.permute.default", "aten.expand.default",
                               "aten.unsqueeze.default"):
                (src,) = [i for i in n["inputs"]]
                assert file_storage_ids(n) == file_storage_ids(nodes[src])
                views += 1
    assert views > 20
    # A permute (the heads' transpose(1, 2)) changes strides, not the storage.
    t = next(n for n in ex.file_graph("forward")["nodes"]
             if n["target"] == "aten.permute.default" and len(n["val"]["shape"]) == 4)
    assert t["val"]["stride"] != sorted(t["val"]["stride"], reverse=True)


def test_multi_output_nodes(exported, tmp_path):
    ex = exported["multiout"]
    nodes = {n["name"]: n for n in ex.file_graph("forward")["nodes"]}
    by_target = defaultdict(list)
    for n in nodes.values():
        by_target[n["target"]].append(n)
    (topk,) = by_target["aten.topk.default"]
    assert isinstance(topk["val"], list) and len(topk["val"]) == 2
    assert [t["dtype"] for t in topk["val"]] == ["float32", "int64"]
    assert len(set(file_storage_ids(topk))) == 2
    split, chunk = by_target["aten.split.Tensor"]  # .split(256) then .chunk(2)
    assert len(split["val"]) == 3 and len(chunk["val"]) == 2
    # split returns views: one storage, the one of its input, three offsets
    assert file_storage_ids(split) == file_storage_ids(nodes[split["inputs"][0]])
    assert [t["offset"] for t in split["val"]] == [0, 256, 512]
    # Inductor decomposes layer_norm: var_mean's two outputs are two storages of their own.
    (vm,) = by_target["aten.var_mean.correction"]
    assert len(vm["val"]) == 2 and len(file_storage_ids(vm)) == 2
    assert not set(file_storage_ids(vm)) & set(file_storage_ids(nodes[vm["inputs"][0]]))
    getitems = [n for n in by_target["operator.getitem"] if n["inputs"] == [topk["name"]]]
    assert sorted(file_storage_ids(g)[0] for g in getitems) == sorted(file_storage_ids(topk))
    unbind = by_target["aten.unbind.int"][0]
    assert len(unbind["val"]) == 32 and len(file_storage_ids(unbind)) == 1
    # A node of three outputs, three storages: native_layer_norm, which only AOTAutograd's default
    # partition keeps (inner="eager", no Inductor decompositions); this is the file's
    # serialization of a multi-output node, not a partition.
    from fxmem_export import examples

    cap = examples.capture("multiout", inner="eager")
    eager = fxmem_export.save(tmp_path / "multiout_eager.fxmem.json", cap.forward, cap.backward)
    (ln,) = [n for n in next(g for g in eager["graphs"] if g["name"] == "forward")["nodes"]
             if n["target"] == "aten.native_layer_norm.default"]
    assert len(ln["val"]) == 3 and len(file_storage_ids(ln)) == 3


def test_cpu_and_cuda_devices(tmp_path):
    """Fake CUDA tensors work without a GPU as long as no autograd is involved (make_fx)."""
    with FakeTensorMode():
        a = torch.empty(64, 32, device="cuda")
        w = torch.empty(32, 16, device="cuda")
        c = torch.empty(64, 16)

    def f(a, w, c):
        z = (a @ w).relu()
        return z.cpu() + c, z.view(-1)

    gm = make_fx(f)(a, w, c)
    doc = fxmem_export.save(tmp_path / "dev.json", gm, inference=True, reference=True)
    devices = {s["device"] for s in doc["storages"]}
    assert devices == {"cuda:0", "cpu"}
    (g,) = doc["graphs"]
    assert (g["name"], g["kind"]) == ("inference", "inference")
    assert "pairs" not in doc
    # only non-CPU storages count: inputs a (8192) and w (2048) at the start, mm output next
    profile = doc["reference"]["graphs"]["inference"]["profile"]
    assert profile == torch_profile(gm.graph)
    assert profile[:2] == [8192 + 2048, 8192 + 2048 + 64 * 16 * 4]
    cpu_total = sum(s["nbytes"] for s in doc["storages"] if s["device"] == "cpu")
    assert cpu_total > 0 and max(profile) < sum(s["nbytes"] for s in doc["storages"])


def test_symbolic_nbytes_are_hinted(exported):
    ex = exported["dynamic"]
    symbolic = 0
    for graph_name in ("forward", "backward"):
        fg = ex.file_graph(graph_name)
        for fn, node in zip(fg["nodes"], ex.graph(graph_name).nodes):
            for key, sid in zip(storage_keys(node), file_storage_ids(fn)):
                nbytes = key.storage.nbytes()
                if isinstance(nbytes, torch.SymInt):
                    symbolic += 1
                    assert ex.doc["storages"][sid]["nbytes"] == optimization_hint(nbytes)
    assert symbolic > 0
    first = ex.file_graph("forward")["nodes"]
    sym = [n for n in first if n["op"] == "placeholder" and isinstance(n["val"], dict) and "other" in n["val"]]
    assert sym, "the batch size should be a SymInt placeholder"
    x = next(n for n in first if n["op"] == "placeholder" and tensors(n["val"]) and n["val"]["shape"][:1] == [48])
    assert x["val"]["shape"] == [48, 256] and x["val"]["stride"] == [256, 1]


def test_other_values_and_none(tmp_path):
    with FakeTensorMode():
        a = torch.empty(8, 4, device="cuda")
    gm = make_fx(lambda a: (a.max(dim=1), a.sum()))(a)
    node = list(gm.graph.nodes)[-2]  # the last node before output
    node.meta["val"] = [node.meta["val"], None, 3]
    doc = fxmem_export.save(tmp_path / "o.json", gm, inference=True)
    fn = [n for n in doc["graphs"][0]["nodes"] if n["name"] == node.name][0]
    assert fn["val"][1] is None and fn["val"][2] == {"other": "3"}


def test_save_without_backward(tmp_path, exported):
    ex = exported["mlp"]
    doc = fxmem_export.save(tmp_path / "f.json", ex.forward)
    assert [g["name"] for g in doc["graphs"]] == ["forward"] and "pairs" not in doc and "reference" not in doc
    assert doc["producer"]["name"] == "fxmem_export" and doc["producer"]["torch"] == torch.__version__


def test_save_is_atomic_and_replaces(tmp_path, exported):
    ex = exported["mlp"]
    path = tmp_path / "a.json"
    path.write_text("old")
    fxmem_export.save(path, ex.forward, ex.backward)
    assert json.loads(path.read_text())["format"] == "fxmem"
    assert sorted(os.listdir(tmp_path)) == ["a.json"]
    assert oct(path.stat().st_mode & 0o777) != oct(0o600)


def test_graph_without_meta_val(tmp_path):
    gm = fx.symbolic_trace(torch.nn.Linear(4, 4))
    with pytest.raises(fxmem_export.MissingValError, match=r"no meta\['val'\].*FakeTensorProp"):
        fxmem_export.save(tmp_path / "x.json", gm)
    assert not (tmp_path / "x.json").exists()


def test_unwritable_path(tmp_path, exported):
    ex = exported["mlp"]
    with pytest.raises(fxmem_export.ExportWriteError, match="does not exist"):
        fxmem_export.save(tmp_path / "no" / "such" / "dir.json", ex.forward)
    with pytest.raises(fxmem_export.ExportWriteError, match="is a directory"):
        fxmem_export.save(tmp_path, ex.forward)
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    with pytest.raises(OSError, match="is not a directory"):  # ExportWriteError is an OSError
        fxmem_export.save(not_a_dir / "x.json", ex.forward)


def test_bad_arguments(tmp_path, exported):
    ex = exported["mlp"]
    with pytest.raises(TypeError, match="GraphModule"):
        fxmem_export.save(tmp_path / "x.json", object())
    with pytest.raises(ValueError, match="inference"):
        fxmem_export.save(tmp_path / "x.json", ex.forward, ex.backward, inference=True)


def test_reference_block_layout(exported):
    ref = exported["cnn"].doc["reference"]
    assert ref["torch_version"] == torch.__version__
    assert set(ref["graphs"]) == {"forward", "backward"}
    for name, entry in ref["graphs"].items():
        assert entry["tracker_peak"] == max(entry["profile"])
        assert len(entry["tracker_current"]) == len(exported["cnn"].file_graph(name)["nodes"])
    (pair,) = ref["pairs"]
    assert pair["forward"] == "forward" and pair["backward"] == "backward"
    assert pair["peak"] is None and pair["error"].startswith("TypeError")
    assert pair["intended"]["peak"] == max(pair["intended"]["forward_peak"], pair["intended"]["backward_peak"])


def test_real_tensor_vals_warn(tmp_path):
    """Like memory_estimator (tree_map_only(FakeTensor)), only FakeTensors count: warn otherwise."""
    gm = fx.symbolic_trace(torch.nn.Linear(4, 4))
    from torch.fx.passes.shape_prop import ShapeProp
    ShapeProp(gm).propagate(torch.randn(2, 4))
    for node in gm.graph.nodes:
        node.meta["val"] = torch.zeros(node.meta["tensor_meta"].shape) if node.op != "output" else None
    with pytest.warns(UserWarning, match="none is a FakeTensor"):
        doc = fxmem_export.save(tmp_path / "r.json", gm, reference=True)
    assert doc["storages"] == []
    assert all("other" in n["val"] for n in doc["graphs"][0]["nodes"] if n["op"] != "output")
    assert set(doc["reference"]["graphs"]["forward"]["profile"]) == {0}
