"""fxmem-cli breakdown (--by role / module) on exported examples, checked independently from PyTorch: the model's own
parameters, buffers and inputs, the gradients' sizes, and memory_estimator's profile."""

from __future__ import annotations

from collections import defaultdict

import pytest
import torch
from torch._inductor.fx_passes import memory_estimator as me

from fxmem_export import examples
from fxmem_export.examples.models import build

from conftest import run_cli

NAMES = ["cnn", "gpt", "llama", "fsdp"]


def storage_bytes(tensors) -> int:
    """nbytes of the distinct non-CPU storages of ``tensors`` (what the estimator counts)."""
    seen = {}
    for t in tensors:
        if t.device.type != "cpu":
            seen[(t.untyped_storage()._cdata, str(t.device))] = t.untyped_storage().nbytes()
    return sum(seen.values())


def groups(result) -> dict[str, int]:
    out = {g["key"]: g["bytes"] for g in result["groups"]}
    assert len(out) == len(result["groups"]), "a group key repeats"
    assert sum(out.values()) == result["total"], "groups do not add up to the total"
    assert [g["bytes"] for g in result["groups"]] == sorted(out.values(), reverse=True)
    return out


@pytest.fixture(scope="module")
def models():
    """(model, inputs, options) of each example, built afresh (same names and sizes)."""
    out = {}
    for name in NAMES:
        with examples._environment(name):
            out[name] = examples.fsdp.build("meta") if name == "fsdp" else build(name, "meta")
    return out


@pytest.mark.parametrize("name", NAMES)
def test_forward_step0_by_role_is_the_models_parameters_buffers_and_inputs(exported, cli, models, name):
    """At step 0 every forward input is live (the estimator counts inputs from the start) and
    nothing is computed yet: parameter, buffer and input groups are the model's own."""
    ex = exported[name]
    model, inputs, _ = models[name]
    profile = me.build_memory_profile(ex.forward.graph, me._is_releasable)
    got = run_cli(cli, "breakdown", str(ex.path), "--graph", "forward", "--step", "0", "--by", "role", "--json")
    assert (got["graph"], got["step"], got["by"]) == ("forward", 0, "role")
    assert got["total"] == profile[0]
    by = groups(got)
    assert by.pop("parameter") == storage_bytes(model.parameters())
    assert by.pop("buffer", 0) == storage_bytes(model.buffers())
    assert by.pop("input") == storage_bytes(inputs)
    assert by == {}


@pytest.mark.parametrize("name", NAMES)
def test_forward_peak_by_role(exported, cli, models, name):
    """Without --step: the profile's first peak; parameters stay live through the forward."""
    ex = exported[name]
    model, _, _ = models[name]
    profile = me.build_memory_profile(ex.forward.graph, me._is_releasable)
    got = run_cli(cli, "breakdown", str(ex.path), "--graph", "forward", "--by", "role", "--json")
    assert got["step"] == profile.index(max(profile))
    assert got["total"] == max(profile)
    by = groups(got)
    assert by["parameter"] == storage_bytes(model.parameters())
    assert by["activation"] > 0


@pytest.mark.parametrize("name", NAMES)
def test_backward_last_step_holds_every_gradient(exported, cli, models, name):
    """At the backward's last step every parameter's gradient is live: the gradient group is
    the trainable parameters' sizes."""
    ex = exported[name]
    model, _, _ = models[name]
    profile = me.build_memory_profile(ex.backward.graph, me._is_releasable)
    last = len(profile) - 1
    got = run_cli(cli, "breakdown", str(ex.path), "--graph", "backward", "--step", str(last), "--by", "role", "--json")
    assert got["total"] == profile[last]
    by = groups(got)
    assert by["gradient"] == storage_bytes(p for p in model.parameters() if p.requires_grad)


@pytest.mark.parametrize("name", NAMES)
def test_forward_step0_by_top_level_module(exported, cli, models, name):
    """By module at depth 1, step 0: each top-level module holds its parameters and buffers;
    the root holds the model's inputs (and its own parameters, if any)."""
    ex = exported[name]
    model, inputs, _ = models[name]
    want: dict[str, list[torch.Tensor]] = defaultdict(list)
    for qualified, t in [*model.named_parameters(), *model.named_buffers()]:
        top = qualified.split(".")[0] if "." in qualified else ""
        want[top].append(t)
    want[""].extend(inputs)
    got = run_cli(cli, "breakdown", str(ex.path), "--graph", "forward", "--step", "0", "--by", "module",
                  "--depth", "1", "--json")
    assert groups(got) == {key: storage_bytes(ts) for key, ts in want.items()}
