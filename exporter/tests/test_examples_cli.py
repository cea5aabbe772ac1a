"""python -m fxmem_export.examples"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fxmem_export import examples
from fxmem_export.examples.__main__ import main


def test_list(capsys):
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    from fxmem_export.examples import step

    # llama3_8b is traced on demand, not bundled: listed last
    assert [line.split()[0] for line in out.splitlines()] == examples.NAMES + step.NAMES + ["llama3_8b"]
    assert step.NAMES == ["gpt_break", "gpt_adam"]
    assert set(examples.NAMES) == {"mlp", "cnn", "gpt", "multiout", "inplace", "llama", "dynamic", "fsdp",
                                  "llama_dynamic"}


def test_export_one(tmp_path, capsys):
    path = tmp_path / "mlp.fxmem.json"
    assert main(["mlp", "-o", str(path), "--with-reference"]) == 0
    doc = json.loads(path.read_text())
    assert doc["producer"]["example"] == "mlp" and "reference" in doc
    assert doc["producer"]["target"] == "cuda"  # meta stands for a CUDA GPU by default
    assert {s["device"] for s in doc["storages"]} == {"meta"}
    assert "wrote" in capsys.readouterr().out


def test_usage_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["mlp"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        main(["resnet", "-o", str(tmp_path / "x.json")])
    assert e.value.code == 2
    assert main(["mlp", "-o", str(tmp_path / "no" / "x.json")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "fxmem_export.examples", "--list"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "gpt" in proc.stdout


def eager_pair(name):
    """The forward/backward node names torch's own aot_autograd hands to its compilers for
    example ``name`` on meta with AOTAutograd's default partition (what ``inner="eager"`` is)."""
    import torch
    from functorch.compile import make_boxed_func
    from torch._dynamo.backends.common import aot_autograd

    from fxmem_export.examples.models import build

    torch._dynamo.reset()
    torch.manual_seed(0)
    model, inputs, options = build(name, "meta")
    got = {}

    def keep(kind):
        def compiler(gm, _):
            got[kind] = [n.name for n in gm.graph.nodes]
            return make_boxed_func(gm.forward)
        return compiler

    be = aot_autograd(fw_compiler=keep("forward"), bw_compiler=keep("backward"))
    torch.compile(model, backend=be, fullgraph=True, **options)(*inputs).sum().backward()
    torch._dynamo.reset()
    return got


def inductor_pair(name):
    """The forward/backward node names a real CPU ``torch.compile`` training step of example
    ``name`` partitions (Inductor's decompositions, joint-graph passes and min-cut; taken inside
    min-cut by real_run.real_cpu_pair): what ``inner="partition"`` stands for."""
    import torch

    import real_run
    from fxmem_export.examples.models import build

    torch.manual_seed(0)
    model, inputs, options = build(name, "cpu")
    assert not options
    pair = real_run.real_cpu_pair(model, tuple(inputs))
    return {kind: [n.name for n in getattr(pair, kind).graph.nodes] for kind in ("forward", "backward")}


@pytest.mark.parametrize("inner", [None, "partition", "eager"])
def test_examples_use_min_cut_by_default(tmp_path, inner):
    path = tmp_path / "mlp.fxmem.json"
    assert main(["mlp", "-o", str(path)] + ([] if inner is None else ["--inner", inner])) == 0
    doc = json.loads(path.read_text())
    assert doc["producer"]["inner"] == (inner or "partition")
    names = {g["name"]: [n["name"] for n in g["nodes"]] for g in doc["graphs"]}
    # The default (and "partition") is the pair Inductor really partitions: mlp has no attention,
    # so a real CPU run compiles the same graphs, node for node, as the meta capture.
    expected, other = (eager_pair, inductor_pair) if inner == "eager" else (inductor_pair, eager_pair)
    assert names == expected("mlp")
    assert names["backward"] != other("mlp")["backward"]


def test_examples_joint_and_sweep(tmp_path):
    path = tmp_path / "mlp.fxmem.json"
    assert main(["mlp", "-o", str(path), "--joint"]) == 0
    doc = json.loads(path.read_text())
    assert [(g["name"], g["kind"]) for g in doc["graphs"]] == [
        ("forward", "forward"), ("backward", "backward"), ("joint", "joint")]
    assert doc["pairs"] == [{"forward": "forward", "backward": "backward", "joint": "joint"}]
    path = tmp_path / "mlp_sweep.fxmem.json"
    assert main(["mlp", "--sweep", "--budgets", "1.0,0.0", "-o", str(path), "--with-reference"]) == 0
    doc = json.loads(path.read_text())
    assert [(p["forward"], p["budget"], p["joint"]) for p in doc["pairs"]] == [
        ("budget=1.0.forward", 1.0, "joint"), ("budget=0.0.forward", 0.0, "joint")]
    assert doc["producer"]["example"] == "mlp" and len(doc["reference"]["pairs"]) == 2


def test_llama_sweep_layers(tmp_path):
    """--layers sizes the llama example (the bundled llama_sweep is its 2-layer sweep): the graphs
    hold exactly that many decoder layers and the description says so."""
    from fxmem_export.examples import models

    path = tmp_path / "llama1.fxmem.json"
    assert main(["llama", "--sweep", "--layers", "1", "--budgets", "1.0,0.0", "-o", str(path)]) == 0
    doc = json.loads(path.read_text())
    modules = {n["module"].split(".")[1] for g in doc["graphs"] for n in g["nodes"]
               if n["module"].startswith("layers.")}
    assert modules == {"0"}
    assert doc["producer"]["description"].startswith("small Llama-style decoder (1 layer, dim 64")
    assert models.description("llama") == models.DESCRIPTIONS["llama"]
    assert "(8 layers," in models.DESCRIPTIONS["llama"]
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match="only the llama example"):
            models.build("llama", "meta", layers=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="only the llama example"):
        models.build("mlp", "meta", layers=2)


def test_examples_new_usage_errors(tmp_path, capsys):
    out = str(tmp_path / "x.json")
    for argv in (["mlp", "-o", out, "--joint", "--inner", "eager"], ["mlp", "-o", out, "--budgets", "1.0"],
                 ["mlp", "-o", out, "--sweep", "--inner", "eager"], ["mlp", "-o", out, "--sweep", "--budgets", "a"],
                 ["mlp", "-o", out, "--sweep", "--layers", "2"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2, argv
    assert main(["mlp", "-o", out, "--sweep", "--budgets", "1.5"]) == 1
    assert "not a number in [0, 1]" in capsys.readouterr().err
