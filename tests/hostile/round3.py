#!/usr/bin/env python3
"""Issue 28's adversarial round on the recompute and whole-step surfaces, as a repeatable test.

Derives hostile variants (seeded, so every run is the same) from the good fixtures and the bundled
examples, runs fxmem-cli's recompute and whole-step commands on each and checks what a user may
rely on: exit 0 with sane output, or exit 1 with one line that names the file and the place; never
a signal, a hang, a traceback, a cut message, raw control characters, or a file of the user's
overwritten. Prints a table (kind, cases, exit 0, exit 1, defects) and exits 1 on any defect.

usage: round3.py FXMEM_CLI [--jobs N] [--seed S] [--flips N] [--keep DIR] [-v]
(FXMEM_CLI may also come from the environment.)
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "tests" / "data" / "good"
EXAMPLES = ROOT / "resources" / "examples"
BASES = {
    "joint": GOOD / "joint.json",
    "joint_sweep": GOOD / "joint_sweep.json",
    "diff_step_old": GOOD / "diff_step_old.json",
    "optimize": GOOD / "optimize.json",
    "gpt_break": EXAMPLES / "gpt_break.fxmem.json",
    "gpt_adam": EXAMPLES / "gpt_adam.fxmem.json",
    "llama_sweep": EXAMPLES / "llama_sweep.fxmem.json",
}
# Far above any case's run (a few ms to ~2 s in Release): reaching it is a hang. A sanitizer
# build may raise it (FXMEM_HOSTILE_TIMEOUT).
TIMEOUT_S = float(os.environ.get("FXMEM_HOSTILE_TIMEOUT", "30"))
REMAT = ["--time-limit", "0.05"]

# Commands, with {F} the case's model file, {P} its plan, {O} a fresh output path.
WHOLE_STEP = [
    ["peak", "{F}", "--whole-step", "--json"],
    ["profile", "{F}", "--whole-step"],
    ["breakdown", "{F}", "--whole-step", "--by", "module", "--json"],
    ["live", "{F}", "--whole-step"],
    ["export", "{F}", "--whole-step", "--perfetto", "{O}"],
    ["export", "{F}", "--whole-step", "--memory-viz", "{O}"],
    ["info", "{F}"],
]
JOINT = [
    ["info", "{F}"],
    ["remat", "{F}", *REMAT],
    ["remat", "{F}", "--json", "--max-extra-percent", "5", *REMAT],
    ["budgets", "{F}", "--json"],
    ["peak", "{F}"],
]
PLAN = [["remat", "{F}", "--plan", "{P}"], ["remat", "{F}", "--plan", "{P}", "--json"]]

# A message names a place: a position in the file, or a named part of the model or plan.
PLACE = re.compile(
    r":\d+:\d+: |graph '|node '|pairs\[\d+\]|step\[\d+\]|storages\[\d+\]|storage id|saved\[\d+\]|order\[\d+\]"
    r"|recomputed\[\d+\]|'(order|saved|recomputed|format|version|joint|peak|extra_flops|nodes)'|duplicate key"
    r"|nested more than|invalid JSON|nodes\['|missing '|has no \"step\"|no pair has|unsupported plan version")
WHOLE_FILE = re.compile(r"the file is empty|not a regular file|is a directory|No such file|no such file|"
                        r"file too large|a remat plan must be a JSON object|not a remat plan|cannot (open|read)|has no \"step\"|: --[a-z-]+[ :]"
                        r"|every storage is on the CPU|rounded up to 512-byte blocks")
CRASH_TEXT = re.compile(r"Traceback|terminate called|what\(\):|Assertion|AddressSanitizer|runtime error:|"
                        r"Segmentation|core dumped|std::")
RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class Case:
    kind: str
    label: str
    files: dict[str, bytes]  # name -> content; "F" is the model, "P" a plan
    cmds: list[list[str]]
    expect: str = "any"  # "error": exit 1 expected (nonsense); "ok": exit 0 expected; "any"
    links: dict[str, str] = field(default_factory=dict)  # extra name -> target name (symlinks)
    usage_ok: bool = False  # exit 2 is a right answer (an -o that is an input)
    strict: tuple[str, ...] = ()  # the commands `expect` holds for (default: all)
    timeout: float = 0.0  # seconds before a run counts as a hang (default TIMEOUT_S)


@dataclass
class Result:
    case: Case
    rcs: list[int] = field(default_factory=list)
    times: list[tuple[float, str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    defects: list[str] = field(default_factory=list)


def dumps(doc) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


def load(name: str):
    return json.loads(BASES[name].read_bytes())


def graph(doc, kind: str, index: int = 0):
    return [g for g in doc["graphs"] if g["kind"] == kind][index]


def node(g, name: str):
    return next(n for n in g["nodes"] if n["name"] == name)


# ---------------------------------------------------------------- joint graphs
def joint_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []

    def add(label, doc, expect="error", base="joint", raw=None, strict=("remat",)):
        # The joint graph's data flow is checked where it is simulated (remat), not on loading;
        # for a file with several joints, remat is pointed at the one changed (the first).
        cmds = JOINT
        if base == "gpt_break":
            cmds = [c + ["--graph", "region0.joint"] if c[0] == "remat" else c for c in JOINT]
        cases.append(Case("joint graph", f"{base}: {label}", {"F": raw if raw is not None else dumps(doc)}, cmds,
                          expect, strict=strict))

    for base in ("joint", "joint_sweep", "gpt_break"):
        for value, expect in ((-1, "error"), (-(2**63), "error"), (3, "error"), (10**6, "error"),
                              (2**31, "error"), (2**63 - 1, "error"), (2**64, "error"), (1.5, "error"),
                              (1.0, "error"), ("1", "error"), (True, "error"), (None, "error"), ([1], "error"),
                              (0, "any")):
            doc = load(base)
            graph(doc, "joint")["num_fwd_outputs"] = value
            strict = ("remat",) if value == 3 and base == "gpt_break" else ()
            add(f"num_fwd_outputs {value!r}", doc, expect, base, strict=strict)
        if base == "gpt_break":
            doc = load(base)
            graph(doc, "joint")["num_fwd_outputs"] = 2  # a gradient said to be a forward output
            add("num_fwd_outputs 2 (a gradient as a forward output)", doc, "error", base)
        doc = load(base)
        j = graph(doc, "joint")
        j["num_fwd_outputs"] = len(j["nodes"][-1]["inputs"])  # every output a forward output
        add("num_fwd_outputs = all outputs (no gradients)", doc, "any", base)

    # phase against the data flow: every node of joint.json flipped, one at a time.
    base_doc = load("joint")
    j0 = graph(base_doc, "joint")
    for i, n in enumerate(j0["nodes"]):
        if n["op"] == "output" or "phase" not in n:
            continue
        doc = copy.deepcopy(base_doc)
        m = graph(doc, "joint")["nodes"][i]
        m["phase"] = "backward" if n["phase"] == "forward" else "forward"
        # forward nodes feed the loss: marked backward they contradict the flow; a node after a
        # tangent marked forward does too. cos (from relu only) marked forward is only
        # not needed by the forward: said or not, both are right.
        needs_tangent = n["name"] in ("tangents_1", "expand", "mul", "threshold_backward", "mm_1")
        expect = "error" if n["phase"] == "forward" and n["op"] != "placeholder" or needs_tangent else "any"
        add(f"phase of '{n['name']}' flipped to {m['phase']}", doc, expect)
    doc = copy.deepcopy(base_doc)
    for n in graph(doc, "joint")["nodes"]:
        n.pop("phase", None)
    add("no phase at all (optional)", doc, "ok")
    for base in ("gpt_break", "gpt_adam"):
        doc = load(base)
        nodes = [n for n in graph(doc, "joint")["nodes"] if n.get("phase") and n["op"] == "call_function"]
        for n in rng.sample(nodes, 6):
            n["phase"] = "backward" if n["phase"] == "forward" else "forward"
        add("six random phases flipped", doc, "any", base)

    # flops
    for value, expect in ((-1, "error"), (-(2**63), "error"), (2**61 + 1, "error"), (2**62, "error"),
                          (2**63 - 1, "error"), (2**63, "error"), (2**64 + 5, "error"), (1.5, "error"),
                          (1e3, "error"), (1e20, "error"), ("64", "error"), (True, "error"), ([64], "error"),
                          (None, "ok"), (2**61 - 2400, "any")):
        doc = load("joint")
        node(graph(doc, "joint"), "mm")["flops"] = value
        add(f"flops of 'mm' {value!r}", doc, expect, strict=())
    for base in ("joint", "gpt_break"):
        doc = load(base)
        for n in graph(doc, "joint")["nodes"]:
            if "flops" in n:
                n["flops"] = 2**60
        add("every node 2^60 FLOPs (sum over 2^61)", doc, "error", base, strict=())
        doc = load(base)
        for g in doc["graphs"]:
            if g["kind"] != "joint":
                for n in g["nodes"]:
                    if "flops" in n:
                        n["flops"] = 2**58
        add("pair graphs' nodes 2^58 FLOPs each", doc, "any", base)
    raw = BASES["joint"].read_bytes().replace(b'"flops": 1000', b'"flops": 1' + b"0" * 400, 1)
    add("flops of 'mm' a 401-digit integer", None, "error", raw=raw, strict=())
    raw = BASES["joint"].read_bytes().replace(b'"flops": 1000', b'"flops": 1e999', 1)
    add("flops of 'mm' 1e999", None, "error", raw=raw, strict=())

    # cycles through the joint, inputs from the backward, order of the placeholders
    doc = load("joint")
    node(graph(doc, "joint"), "mm")["inputs"].append("threshold_backward")
    add("cycle: mm takes threshold_backward", doc, strict=())
    doc = load("joint")
    node(graph(doc, "joint"), "relu")["inputs"].append("relu")
    add("self input: relu takes relu", doc, strict=())
    doc = load("joint")
    j = graph(doc, "joint")
    out = j["nodes"][-1]
    out["inputs"][0] = "expand"  # the forward output computed from a tangent
    add("forward output computed from a tangent", doc)
    doc = load("joint")
    j = graph(doc, "joint")
    names = [n["name"] for n in j["nodes"]]
    leak = copy.deepcopy(node(j, "sin"))
    leak.update(name="leak", inputs=["relu", "cos"], phase="forward", flops=64)
    j["nodes"].insert(names.index("cos") + 1, leak)
    j["nodes"][-1]["inputs"][0] = "leak"
    add("forward-marked node whose input is in the backward, feeding the loss", doc)
    doc = load("joint")
    j = graph(doc, "joint")
    j["nodes"].insert(1, j["nodes"].pop(2))  # tangents_1 before primals_2
    add("a tangent placeholder before a primal", doc, "any")
    doc = load("joint")
    j = graph(doc, "joint")
    j["nodes"].insert(5, j["nodes"].pop())  # output node in the middle
    add("output node not last", doc, strict=())
    doc = load("joint")
    j = graph(doc, "joint")
    j["nodes"][-1]["op"] = "call_function"
    add("joint without an output node", doc, strict=())
    doc = load("joint")
    for p in doc["pairs"]:
        p["joint"] = "budget=1.0.forward"
    add("pair's joint is its forward", doc, strict=())
    doc = load("joint_sweep")
    doc["pairs"][1]["forward"], doc["pairs"][1]["backward"] = doc["pairs"][1]["backward"], doc["pairs"][1]["forward"]
    add("pair with forward and backward swapped", doc, "error", "joint_sweep", strict=())
    doc = load("joint_sweep")
    doc["pairs"][1]["backward"] = doc["pairs"][0]["backward"]
    add("pair whose backward belongs to another pair", doc, "any", "joint_sweep")
    doc = load("joint_sweep")
    doc["pairs"].append(copy.deepcopy(doc["pairs"][0]))
    add("the same pair twice", doc, "any", "joint_sweep")
    return cases


# ---------------------------------------------------------------- plans
def plan_cases(rng: random.Random, plans: dict[str, bytes]) -> list[Case]:
    cases: list[Case] = []
    models = {"joint": BASES["joint"].read_bytes(), "gpt_break": BASES["gpt_break"].read_bytes(),
              "llama_sweep": BASES["llama_sweep"].read_bytes()}

    def add(label, model, plan, expect="error", extra=()):
        cmds = [c + list(extra) for c in PLAN]
        cases.append(Case("plan", label, {"F": models[model], "P": plan if isinstance(plan, bytes) else dumps(plan)},
                          cmds, expect))

    good = json.loads(plans["joint"])
    add("the good plan (control)", "joint", good, "ok")
    add("llama_sweep's plan on joint.json", "joint", plans["llama_sweep"])
    add("joint.json's plan on llama_sweep", "llama_sweep", plans["joint"])
    add("gpt_break region1's plan on region0", "gpt_break", plans["region1"], extra=("--graph", "region0.joint"))
    add("region0's plan with its joint renamed region1.joint", "gpt_break",
        {**json.loads(plans["region0"]), "joint": "region1.joint"})
    add("gpt_break region1's plan (control)", "gpt_break", plans["region1"], "ok", extra=("--graph", "region1.joint"))
    for key in ("saved", "recomputed", "order"):
        for label, mutate in (
                ("a duplicate", lambda a: a + a[:1]),
                ("an unknown node", lambda a: a + ["nope"]),
                ("the output node", lambda a: a + ["output"]),
                ("a tangent", lambda a: a + ["tangents_1"]),
                ("an int", lambda a: a + [3]),
                ("null", lambda a: a + [None]),
                ("a list", lambda a: a + [["relu"]]),
                ("an object", lambda a: a + [{"name": "relu"}]),
                ("an empty name", lambda a: a + [""]),
                ("a NUL in a name", lambda a: a + ["re\u0000lu"]),
                ("ESC and BEL in a name", lambda a: a + ["\u001b[31mrelu\u0007"]),
                ("100000 copies of one name", lambda a: a + ["relu"] * 100000)):
            if key == "recomputed" and label == "a duplicate":
                continue  # the good plan recomputes nothing: "recomputed lists mm twice" below
            plan = copy.deepcopy(good)
            plan[key] = mutate(plan.get(key, []))
            add(f"{key} + {label}", "joint", plan)
        for value in ("relu", 3, None, {}, True):
            plan = copy.deepcopy(good)
            plan[key] = value
            add(f"{key} is {value!r}", "joint", plan, "any" if key != "saved" and value is None else "error")
    plan = copy.deepcopy(good)
    plan["recomputed"] = ["relu"]
    add("relu saved and recomputed", "joint", plan)
    # a plan that recomputes relu (and what it needs), from the saved primals
    base_recompute = {"format": "fxmem-remat", "version": 1, "joint": "joint", "saved": ["primals_1", "primals_2"]}
    add("primals saved, relu recomputed (control)", "joint", base_recompute, "ok")
    add("recomputed lists mm twice", "joint", {**base_recompute, "recomputed": ["mm", "relu", "mm"]})
    add("recomputed misses relu", "joint", {**base_recompute, "recomputed": ["mm"]})
    add("recomputed is a backward node", "joint", {**base_recompute, "recomputed": ["mm", "relu", "cos"]})
    plan = copy.deepcopy(good)
    plan["order"] = plan["order"][:-1]
    add("order misses its last node", "joint", plan)
    plan = copy.deepcopy(good)
    plan["order"] = plan["order"][::-1]
    add("order reversed", "joint", plan)
    plan = copy.deepcopy(good)
    plan["order"] = plan["order"] + ["sin"]
    add("order with an extra forward node", "joint", plan)
    plan = copy.deepcopy(good)
    plan["order"] = ["relu"] + plan["order"]
    add("order names a saved node", "joint", plan)
    for i in range(6):
        plan = copy.deepcopy(good)
        rng.shuffle(plan["order"])
        add(f"order shuffled #{i}", "joint", plan, "any")
    plan = copy.deepcopy(good)
    del plan["order"]
    add("no order (optional)", "joint", plan, "ok")
    plan = copy.deepcopy(good)
    plan["saved"] = []
    add("nothing saved", "joint", plan)
    plan = copy.deepcopy(good)
    plan["saved"] = ["primals_1", "primals_2"]
    plan.pop("recomputed")
    plan.pop("order")
    add("only primals saved, no recomputed/order", "joint", plan, "any")
    # keys
    for label, key in (("shape of relu wrong", ["aten.relu.default", None, 0, [65], "float32"]),
                       ("dtype of relu wrong", ["aten.relu.default", None, 0, [64], "float16"]),
                       ("occurrence 7", ["aten.relu.default", None, 7, [64], "float32"]),
                       ("occurrence -1", ["aten.relu.default", None, -1, [64], "float32"]),
                       ("occurrence 2^63", ["aten.relu.default", None, 2**63, [64], "float32"]),
                       ("occurrence 1.5", ["aten.relu.default", None, 1.5, [64], "float32"]),
                       ("four fields", ["aten.relu.default", None, 0, [64]]),
                       ("a string", "aten.relu.default"),
                       ("shape of strings", ["aten.relu.default", None, 0, ["64"], "float32"]),
                       ("points at sin", ["aten.sin.default", None, 0, [64], "float32"]),
                       ("module not a string", ["aten.relu.default", 5, 0, [64], "float32"])):
        plan = copy.deepcopy(good)
        plan["nodes"]["relu"] = key
        add(f"key: {label}", "joint", plan)
    plan = copy.deepcopy(good)
    plan["nodes"] = {f"n{i}": ["aten.relu.default", None, 0, [64], "float32"] for i in range(50000)}
    add("50000 keys for unnamed nodes", "joint", plan, "any")
    plan = copy.deepcopy(good)
    plan["nodes"] = []
    add("nodes is an array", "joint", plan)
    for label, value in (("peak -1", -1), ("peak 2^63", 2**63), ("peak 1.5", 1.5), ("peak string", "1096")):
        plan = copy.deepcopy(good)
        plan["peak"] = value
        add(label, "joint", plan, "any" if value == -1 else "error")
    for label, value in (("version 2", 2), ("version 1.0", 1.0), ("version '1'", "1"), ("version -1", -1)):
        plan = copy.deepcopy(good)
        plan["version"] = value
        add(label, "joint", plan)
    for label, value in (("joint '' ", ""), ("joint null", None), ("joint 7", 7),
                         ("joint with ESC", "\u001b]0;x\u0007joint"), ("joint with NUL", "joi\u0000nt")):
        plan = copy.deepcopy(good)
        plan["joint"] = value
        add(label, "joint", plan)
    text = plans["joint"]
    add("empty plan", "joint", b"")
    add("plan 'null'", "joint", b"null")
    add("plan truncated in half", "joint", text[: len(text) // 2])
    add("plan with a BOM", "joint", b"\xef\xbb\xbf" + text, "any")
    add("plan with trailing garbage", "joint", text + b"x")
    add("plan with 'saved' twice", "joint", text.replace(b'"saved":', b'"saved": [], "saved":', 1))
    add("plan nested 10000 deep", "joint", b'{"x":' + b"[" * 10000 + b"]" * 10000 + b"}")
    add("plan is the model file", "joint", models["joint"])
    add("plan of 2 MB whitespace then {}", "joint", b" " * (2 << 20) + b"{}")
    # random edits of region1's plan on gpt_break's 358-node joint: a node dropped from or added to
    # saved, two order entries swapped, a key's occurrence moved
    big = json.loads(plans["region1"])
    joint_names = [n["name"] for n in graph(json.loads(models["gpt_break"]), "joint", 1)["nodes"]]
    for i in range(24):
        plan = copy.deepcopy(big)
        how = i % 4
        if how == 0 and plan["saved"]:
            plan["saved"].pop(rng.randrange(len(plan["saved"])))
        elif how == 1:
            plan["saved"].append(rng.choice(joint_names))
        elif how == 2 and len(plan.get("order", [])) > 1:
            a, b = rng.sample(range(len(plan["order"])), 2)
            plan["order"][a], plan["order"][b] = plan["order"][b], plan["order"][a]
        elif plan.get("nodes"):
            name = rng.choice(sorted(plan["nodes"]))
            plan["nodes"][name][2] += rng.choice([1, 2, 100])
        add(f"region1's plan, random edit #{i} (kind {how})", "gpt_break", plan, "any",
            extra=("--graph", "region1.joint"))
    # special plan paths
    cases.append(Case("plan", "plan path is a directory", {"F": models["joint"]},
                      [["remat", "{F}", "--plan", "{D}"]], "error"))
    cases.append(Case("plan", "plan path does not exist", {"F": models["joint"]},
                      [["remat", "{F}", "--plan", "{D}/nope.json"]], "error"))
    cases.append(Case("plan", "plan path is /dev/zero", {"F": models["joint"]},
                      [["remat", "{F}", "--plan", "/dev/zero"]], "error"))
    # -o onto what the user owns
    cases.append(Case("plan", "-o is the --plan file", {"F": models["joint"], "P": plans["joint"]},
                      [["remat", "{F}", "--plan", "{P}", "-o", "{P}"]], "any", usage_ok=True))
    cases.append(Case("plan", "export --perfetto is the model file", {"F": models["joint"]},
                      [["export", "{F}", "--perfetto", "{F}"], ["export", "{F}", "--memory-viz", "{L}"]], "any",
                      links={"L": "F"}, usage_ok=True))
    cases.append(Case("plan", "export --perfetto is the --schedule file",
                      {"F": (GOOD / "single.json").read_bytes(), "S": (GOOD / "single_schedule.json").read_bytes()},
                      [["export", "{F}", "--schedule", "{S}", "--perfetto", "{S}"]], "any", usage_ok=True))
    cases.append(Case("plan", "-o is the model file", {"F": models["joint"]},
                      [["remat", "{F}", *REMAT, "-o", "{F}"]], "any", usage_ok=True))
    cases.append(Case("plan", "-o is a link to the model file", {"F": models["joint"]},
                      [["remat", "{F}", *REMAT, "-o", "{L}"]], "any", links={"L": "F"}, usage_ok=True))
    return cases


def budget_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    cmds = [["budgets", "{F}"], ["budgets", "{F}", "--json"], ["remat", "{F}", *REMAT, "--json"]]
    for base in ("joint_sweep", "llama_sweep"):
        for label, edit, expect in (
                ("two pairs with budget 1.0", lambda ps: ps[1].update(budget=1.0), "any"),
                ("budget 5e-324", lambda ps: ps[-1].update(budget=5e-324), "any"),
                ("budget 0.9999999999999999", lambda ps: ps[0].update(budget=0.9999999999999999), "any"),
                ("budget -0.0", lambda ps: ps[-1].update(budget=-0.0), "any"),
                ("budget 1.0000000000000002", lambda ps: ps[0].update(budget=1.0000000000000002), "error"),
                ("budget -1e-300", lambda ps: ps[-1].update(budget=-1e-300), "error"),
                ("budget null on one pair", lambda ps: ps[-1].update(budget=None), "any"),
                ("extra_flops -5 stored", lambda ps: ps[-1].update(extra_flops=-5), "any"),
                ("extra_flops 2^63 stored", lambda ps: ps[-1].update(extra_flops=2**63), "any"),
                ("no pair of budget 1.0", lambda ps: ps.pop(0), "any"),
                ("every budget dropped", lambda ps: [p.pop("budget", None) for p in ps], "any")):
            doc = load(base)
            edit(doc["pairs"])
            cases.append(Case("budgets", f"{base}: {label}", {"F": dumps(doc)}, cmds, expect, strict=("budgets",)))
    # hostile option values on the whole-step views (exit 2 is a right answer to a bad option)
    for argv in (["live", "{F}", "--whole-step", "--step", "99999999999999999999"],
                 ["live", "{F}", "--whole-step", "--step", "-1"],
                 ["breakdown", "{F}", "--whole-step", "--by", "module", "--depth", "0"],
                 ["breakdown", "{F}", "--whole-step", "--by", "module", "--depth", "18446744073709551617"],
                 ["breakdown", "{F}", "--whole-step", "--step", "755"],
                 ["profile", "{F}", "--whole-step", "--set", "s0=4"],
                 ["remat", "{F}", "--time-limit", "1e308"], ["remat", "{F}", "--time-limit", "nan"],
                 ["remat", "{F}", "--max-extra-percent", "-1"], ["remat", "{F}", "--target-peak", "-5"],
                 ["remat", "{F}", "--graph", "region0.forward", *REMAT]):
        cases.append(Case("options", " ".join(argv[2:]), {"F": BASES["gpt_adam"].read_bytes()}, [argv], "any",
                          usage_ok=True))
    return cases


# ---------------------------------------------------------------- step lists
def step_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []

    def add(label, doc, expect="error", base="diff_step_old", cmds=WHOLE_STEP, raw=None):
        cases.append(Case("step list", f"{base}: {label}", {"F": raw if raw is not None else dumps(doc)}, cmds,
                          expect))

    for base in ("diff_step_old", "gpt_break", "gpt_adam"):
        base_doc = load(base)
        steps = base_doc["step"]
        fwd = steps[0]["graph"]
        bwd = steps[-1]["graph"]
        variants = [
            ("a missing graph", steps + [{"graph": "nope", "call": 0}], "error"),
            ("backward before its forward", [steps[-1]] + steps[:-1], "error"),
            ("a forward run twice with the same call", [steps[0]] + steps, "error"),
            ("a forward whose backward never runs", steps + [{"graph": fwd, "call": 1}], "any"),
            ("a backward with call 1 only", steps[:-1] + [{"graph": bwd, "call": 1}], "error"),
            ("call -1", [{**steps[0], "call": -1}] + steps[1:], "error"),
            ("call 2^31", [{**steps[0], "call": 2**31}] + steps[1:], "error"),
            ("call 2^62", [{**steps[0], "call": 2**62}] + steps[1:], "error"),
            ("call 1.5", [{**steps[0], "call": 1.5}] + steps[1:], "error"),
            ("call '0'", [{**steps[0], "call": "0"}] + steps[1:], "error"),
            ("call missing", [{"graph": fwd}] + steps[1:], "error"),
            ("graph 7", [{"graph": 7, "call": 0}] + steps[1:], "error"),
            ("an entry that is a list", [[fwd, 0]] + steps[1:], "error"),
            ("empty step", [], "any"),
            ("only the backward", [s for s in steps if s["graph"] == bwd], "error"),
            ("module_prefix with ESC/BEL", [{**s, "module_prefix": "\u001b[31mblocks\u0007"} for s in steps], "any"),
            ("module_prefix with a NUL", [{**s, "module_prefix": "bl\u0000ocks"} for s in steps], "any"),
            ("module_prefix of 100k chars", [{**s, "module_prefix": "m." * 50000} for s in steps], "any"),
            ("module_prefix '..'", [{**s, "module_prefix": ".."} for s in steps], "any"),
            ("module_prefix 5", [{**s, "module_prefix": 5} for s in steps], "error"),
            ("forward and backward prefixes differ",
             [{**s, "module_prefix": "a" if s["graph"] == fwd else "b"} for s in steps], "any"),
        ]
        joints = [g["name"] for g in base_doc["graphs"] if g["kind"] == "joint"]
        if joints:
            variants.append(("a joint graph as an entry", steps + [{"graph": joints[0], "call": 0}], "error"))
        for label, new_steps, expect in variants:
            doc = copy.deepcopy(base_doc)
            doc["step"] = new_steps
            add(label, doc, expect, base)
        doc = copy.deepcopy(base_doc)
        doc["step"] = {"graph": fwd, "call": 0}
        add("step is an object", doc, "error", base)
    # self-reference: a pair of a graph with itself, a step whose forward is its backward
    doc = load("diff_step_old")
    doc["pairs"] = [{"forward": "fwd", "backward": "fwd"}]
    add("pair of fwd with itself", doc)
    doc = load("diff_step_old")
    doc["pairs"] = [{"forward": "bwd", "backward": "fwd"}]
    add("pair reversed (backward runs first in its pair)", doc)
    doc = load("diff_step_old")
    doc["step"] = [{"graph": "fwd", "call": 0}, {"graph": "fwd", "call": 1}, {"graph": "bwd", "call": 1},
                   {"graph": "bwd", "call": 0}]
    add("two calls, backwards in reverse (control)", doc, "ok")
    # a region run 10^6 times, written compactly (~50 MB): linear, not a hang.
    n = 10**6
    doc = load("diff_step_old")
    doc["step"] = []
    text = dumps(doc)
    parts = [b'{"graph":"fwd","call":%d}' % i for i in range(n)] + [b'{"graph":"bwd","call":%d}' % i
                                                                     for i in range(n - 1, -1, -1)]
    raw = text.replace(b'"step":[]', b'"step":[' + b",".join(parts) + b"]")
    # 2,000,000 runs and as many table rows: 10 s alone on the shared VM, 18 s beside the other
    # cases; four times TIMEOUT_S before it counts as a hang.
    add("one region called 10^6 times", None, "ok", cmds=[["peak", "{F}", "--whole-step"]], raw=raw)
    cases[-1].timeout = 4 * TIMEOUT_S
    return cases


# ---------------------------------------------------------------- issue 39: fit, diff, layout, export
def round4_cases(rng: random.Random) -> list[Case]:
    """Symbolic ranges and sizes fit must answer or refuse by name (a negative minimum, two symbols of
    one source, sizes that do not grow, FLOPs and intermediates past int64), a CPU-only capture
    diffed against a GPU one, and memory_viz blocks past 2^63."""
    cases: list[Case] = []
    small = json.loads((GOOD / "symbolic_small.json").read_bytes())
    # --json: the text says "range [0, inf)", which the sanity check reads as an infinite number.
    fit = ["fit", "{F}", "--memory", "1000", "--vary", "s0", "--whole-step", "--json"]

    def with_step(doc):
        doc = copy.deepcopy(doc)
        doc["step"] = [{"graph": "g", "call": 0}]
        return doc

    def sym(label, edit, expect, cmds=None):
        doc = with_step(small)
        edit(doc)
        cases.append(Case("round 4", f"symbolic_small: {label}", {"F": dumps(doc)},
                          cmds or [fit, ["peak", "{F}", "--whole-step", "--set", "s0=5"]], expect))

    def storage(expr, nbytes, low=2, high=64):
        def edit(doc):
            doc["storages"][0].update({"nbytes": nbytes, "nbytes_expr": expr})
            doc["symbols"][0].update({"min": low, "max": high})
        return edit

    sym("min -1", storage("Max(s0, 0)", 4, -1, None), "error")
    sym("min -2^63", storage("Max(s0, 0)", 4, -2**63, None), "error")
    sym("Max(s0, 0) from 0", storage("Max(s0, 0)", 4, 0, None), "ok")
    sym("Min(s0**3, 5), unbounded", storage("Min(s0**3, 5)", 5, 2, None), "ok")
    sym("(s0-50)**2", storage("(s0 - 50)**2", 2116), "ok")
    sym("Mod(s0, 7) over 10^5 values", storage("Mod(s0, 7) + 1", 5, 2, 100000), "ok",
        [fit + ["--time-limit", "2"]])

    def flops(doc):
        storage("16*s0", 64, 2, None)(doc)
        doc["graphs"][0]["nodes"][0].update({"flops": 64, "flops_expr": "s0**3"})
    sym("FLOPs past 2^61", flops, "ok", [fit, ["peak", "{F}", "--whole-step", "--set", "s0=4000000000"]])

    def twin(doc):
        doc["symbols"].append({**doc["symbols"][0], "name": "s1"})
        doc["storages"][0]["nbytes_expr"] = "16*s0 + 0*s1"
    sym("two symbols of one source", twin, "error")

    diff_old = json.loads((GOOD / "diff_old.json").read_bytes())
    cpu = json.loads(json.dumps(diff_old).replace('"cuda:0"', '"cpu"'))
    cases.append(Case("round 4", "diff against a CPU capture", {"F": dumps(diff_old), "P": dumps(cpu)},
                      [["diff", "{F}", "{P}"], ["diff", "{P}", "{F}", "--json"]], "error"))
    huge = {"format": "fxmem", "version": 1,
            "storages": [{"id": i, "device": "cuda:0", "nbytes": 2**62 - 511} for i in range(2)],
            "graphs": [{"name": "g", "kind": "inference", "nodes": [
                {"name": f"x{i}", "op": "placeholder", "target": f"x{i}", "inputs": [],
                 "val": {"storage": i, "dtype": "torch.uint8", "shape": [2**62 - 511], "stride": [1], "offset": 0}}
                for i in range(2)] + [{"name": "output", "op": "output", "target": "output",
                                       "inputs": ["x0", "x1"], "val": None}]}]}
    cases.append(Case("round 4", "memory_viz blocks past 2^63", {"F": dumps(huge)},
                      [["export", "{F}", "--memory-viz", "{O}"]], "error"))
    return cases


# ---------------------------------------------------------------- optimizer state
def optimizer_cases(rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    for base in ("gpt_adam", "diff_step_old"):
        base_doc = load(base)
        states = [s for s in base_doc["storages"] if s.get("role") == "optimizer_state"]
        next_id = max(s["id"] for s in base_doc["storages"]) + 1

        def add(label, doc, expect="any"):
            # A state the whole step refuses is refused by its views; `info` reads no whole step.
            cmds = [c for c in WHOLE_STEP if c[0] != "info"] if expect == "error" else WHOLE_STEP
            cases.append(Case("optimizer state", f"{base}: {label}", {"F": dumps(doc)}, cmds, expect))

        # State for a parameter the file does not have is refused, naming the storage (whole_step);
        # the other odd states are for a parameter the file has (the base's first state's).
        param = states[0]["label"].split(" ")[0]
        for label, st, expect in (
                ("state of a parameter that does not exist",
                 {"id": next_id, "device": "cuda:0", "nbytes": 4096, "role": "optimizer_state",
                  "label": "no.such.weight exp_avg"}, "error"),
                ("state without a label", {"id": next_id, "device": "cuda:0", "nbytes": 4096,
                                           "role": "optimizer_state"}, "any"),
                ("state labelled with ESC", {"id": next_id, "device": "cuda:0", "nbytes": 4096,
                                             "role": "optimizer_state", "label": "\u001b[2Jw exp_avg"}, "error"),
                ("state of 2^62 bytes", {"id": next_id, "device": "cuda:0", "nbytes": 2**62,
                                         "role": "optimizer_state", "label": f"{param} exp_avg2"}, "any"),
                ("state on the cpu", {"id": next_id, "device": "cpu", "nbytes": 4096, "role": "optimizer_state",
                                      "label": f"{param} exp_avg2"}, "any"),
                ("state with a non-string label", {"id": next_id, "device": "cuda:0", "nbytes": 4096,
                                                   "role": "optimizer_state", "label": 5}, "error")):
            doc = copy.deepcopy(base_doc)
            doc["storages"].append(st)
            add(label, doc, expect)
        doc = copy.deepcopy(base_doc)
        for s in doc["storages"]:
            if s.get("role") == "optimizer_state":
                s["label"] = "ghost." + s.get("label", "x")
        add("every state's parameter unknown", doc, "error")
        if states:
            # a graph node's tensor in an optimizer-state storage (it is "used by no graph")
            doc = copy.deepcopy(base_doc)
            g = doc["graphs"][0]
            n = next(n for n in g["nodes"] if isinstance(n.get("val"), dict) and "storage" in n["val"]
                     and n["op"] == "call_function")
            n["val"]["storage"] = states[0]["id"]
            add("a forward node writes an optimizer-state storage", doc)
            doc = copy.deepcopy(base_doc)
            for s in doc["storages"]:
                if s.get("role") == "optimizer_state":
                    s["nbytes"] = 2**57
            add("every state 2^57 bytes (sum over 2^63)", doc, "any")
            doc = copy.deepcopy(base_doc)
            doc["storages"] = [s for s in doc["storages"] if s.get("role") != "parameter"]
            ids = {s["id"] for s in doc["storages"]}
            ok = all(not (isinstance(n.get("val"), dict) and n["val"].get("storage") not in ids)
                     for g in doc["graphs"] for n in g["nodes"])
            if ok:
                add("states without any parameter storage", doc)
    return cases


# ---------------------------------------------------------------- random byte edits
def flip_cases(rng: random.Random, per_file: int) -> list[Case]:
    cases: list[Case] = []
    for name, path in BASES.items():
        data = path.read_bytes()
        doc = json.loads(data)
        cmds = [["info", "{F}"]]
        if doc.get("step"):
            cmds += [["peak", "{F}", "--whole-step"], ["breakdown", "{F}", "--whole-step", "--by", "module"]]
        if any(g["kind"] == "joint" for g in doc["graphs"]):
            cmds += [["remat", "{F}", *REMAT]]
        if len(doc.get("pairs", [])) > 1:
            cmds += [["budgets", "{F}"]]
        if not doc.get("step") and not doc.get("pairs"):
            cmds += [["optimize", "{F}", "--time-limit", "0.05"]]
        for i in range(per_file):
            b = bytearray(data)
            how = rng.randrange(5)
            if how == 0:
                cut = rng.randrange(len(b))
                b = b[:cut]
                label = f"truncated at {cut}"
            elif how == 1:
                for _ in range(rng.randint(1, 4)):
                    b[rng.randrange(len(b))] = rng.randrange(256)
                label = "1-4 random bytes"
            elif how == 2:
                # a digit changed: valid JSON, other numbers (sizes, calls, flops, num_fwd_outputs)
                digits = [m.start() for m in re.finditer(rb"\d", data)]
                for _ in range(rng.randint(1, 3)):
                    b[rng.choice(digits)] = rng.choice(b"0123456789-")
                label = "digits changed"
            elif how == 3:
                # a name swapped for another one: valid JSON, references moved
                names = list(set(re.findall(rb'"([A-Za-z_][A-Za-z0-9_.=]*)"', data)))
                a, c = rng.sample(names, 2)
                b = bytearray(data.replace(b'"' + a + b'"', b'"' + c + b'"', rng.randint(1, 3)))
                label = f"name {a[:20]!r} -> {c[:20]!r}"
            else:
                s = rng.randrange(len(b))
                e = min(len(b), s + rng.randint(1, 200))
                b = b[:s] + b[e:] if rng.random() < 0.5 else b[:e] + b[s:e] + b[e:]
                label = f"bytes {s}..{e} deleted or doubled"
            cases.append(Case("byte flips", f"{name}: #{i} {label}", {"F": bytes(b)}, cmds, "any"))
    return cases


# ---------------------------------------------------------------- running
def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "-"


def negative_sizes(obj, key="") -> list[str]:
    """Byte counts and peaks in --json output that are negative or not integers."""
    bad = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            bad += negative_sizes(v, k)
    elif isinstance(obj, list):
        for v in obj:
            bad += negative_sizes(v, key)
    elif re.search(r"peak|bytes|nbytes|size", key) and not isinstance(obj, bool):
        if isinstance(obj, float) or (isinstance(obj, int) and obj < 0):
            bad.append(f"{key}={obj}")
    elif re.search(r"flops", key) and isinstance(obj, int) and obj < -(2**62):
        bad.append(f"{key}={obj}")
    return bad


def run_case(cli: str, case: Case, workdir: Path) -> Result:
    res = Result(case)
    workdir.mkdir(parents=True)
    paths = {}
    for name, content in case.files.items():
        p = workdir / f"{name}.json"
        p.write_bytes(content)
        paths[name] = p
    for name, target in case.links.items():
        (workdir / f"{name}.json").symlink_to(paths[target])
        paths[name] = workdir / f"{name}.json"
    owned = {p: sha(p) for p in paths.values()}
    for k, argv in enumerate(case.cmds):
        out = workdir / f"out{k}"
        subst = {"{F}": str(paths.get("F", "")), "{P}": str(paths.get("P", "")), "{O}": str(out),
                 "{S}": str(paths.get("S", "")),
                 "{D}": str(workdir), "{L}": str(paths.get("L", ""))}
        args = [subst.get(a, a.replace("{D}", str(workdir))) for a in argv]
        shown = " ".join(a.replace(str(workdir) + "/", "") for a in args)
        t0 = time.monotonic()
        try:
            p = subprocess.run([cli, *args], capture_output=True, timeout=case.timeout or TIMEOUT_S)
        except subprocess.TimeoutExpired:
            res.rcs.append(-999)
            res.defects.append(f"hang: '{shown}' ran past {case.timeout or TIMEOUT_S:.0f} s")
            continue
        took = time.monotonic() - t0
        res.times.append((took, shown))
        rc = p.returncode
        res.rcs.append(rc)
        err = p.stderr.decode("utf-8", "replace")
        res.messages.append(f"{shown} -> {rc}: {err.strip()[:400]}")
        both = p.stdout + p.stderr

        expect = case.expect if not case.strict or argv[0] in case.strict else "any"

        def defect(what):
            res.defects.append(f"{what}: '{shown}' (exit {rc}, {took:.2f} s): {err.strip()[:300]!r}")

        if rc < 0 or rc >= 128:
            defect("crash")
        elif CRASH_TEXT.search(err):
            defect("crash text")
        elif RAW_CONTROL.search(both):
            defect("raw control character in output")
        elif rc == 1:
            lines = err.rstrip("\n").split("\n")
            files = [str(v) for v in paths.values()] + [a for a in args if a.startswith("/")]
            if len(lines) != 1 or not lines[0]:
                defect("message not one line")
            elif not any(lines[0].startswith(f) for f in files):
                defect("message does not start with the file")
            elif not (PLACE.search(lines[0]) or WHOLE_FILE.search(lines[0])):
                defect("message names no place")
            elif lines[0].rstrip().endswith((":", ",", "(")):
                defect("message cut")
            elif expect == "ok":
                defect("refused a valid file")
        elif rc == 2:
            if not case.usage_ok:
                defect("usage error on a file problem")
        elif rc == 0:
            if expect == "error":
                defect("accepted nonsense")
            elif "--json" in args:
                try:
                    bad = negative_sizes(json.loads(p.stdout))
                except ValueError as e:
                    bad = [f"invalid JSON output: {e}"]
                if bad:
                    defect(f"insane JSON {bad[:3]}")
            elif re.search(rb"-\d{12,}|\bnan\b|\binf\b", p.stdout):
                defect("insane number in output")
        else:
            defect("unexpected exit status")
        for path, digest in owned.items():
            if sha(path) != digest:
                defect(f"overwrote {path.name}")
                path.write_bytes(case.files[[k for k, v in paths.items() if v == path][0]])
    return res


def make_plans(cli: str, tmp: Path) -> dict[str, bytes]:
    plans = {}
    for key, base, extra in (("joint", "joint", []), ("llama_sweep", "llama_sweep", []),
                             ("region0", "gpt_break", ["--graph", "region0.joint"]),
                             ("region1", "gpt_break", ["--graph", "region1.joint"])):
        out = tmp / f"plan_{key}.json"
        subprocess.run([cli, "remat", str(BASES[base]), "--time-limit", "0.1", "-o", str(out), *extra], check=True,
                       capture_output=True, timeout=TIMEOUT_S)
        plans[key] = out.read_bytes()
    return plans


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cli", nargs="?", default=os.environ.get("FXMEM_CLI"))
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--flips", type=int, default=40, help="random byte edits per good file")
    ap.add_argument("--keep", help="write the cases under this directory and keep them")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every exit-1 message")
    a = ap.parse_args()
    if not a.cli:
        ap.error("give the fxmem-cli path (argument or FXMEM_CLI)")
    rng = random.Random(a.seed)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fxmem-hostile-") as td:
        tmp = Path(a.keep) if a.keep else Path(td)
        tmp.mkdir(parents=True, exist_ok=True)
        plans = make_plans(a.cli, tmp)
        cases = (joint_cases(rng) + plan_cases(rng, plans) + budget_cases(rng) + step_cases(rng) + optimizer_cases(rng)
                 + round4_cases(rng) + flip_cases(rng, a.flips))
        with ThreadPoolExecutor(a.jobs) as pool:
            results = list(pool.map(lambda ic: run_case(a.cli, ic[1], tmp / f"case{ic[0]:04d}"), enumerate(cases)))
        if a.verbose:
            for r in results:
                for m in r.messages:
                    print(f"[{r.case.kind}] {r.case.label}: {m}")
    kinds: dict[str, list[int]] = {}
    for r in results:
        row = kinds.setdefault(r.case.kind, [0, 0, 0, 0])
        row[0] += 1
        row[1] += all(rc == 0 for rc in r.rcs)
        row[2] += any(rc == 1 for rc in r.rcs)
        row[3] += bool(r.defects)
    print(f"{'kind':<16} {'cases':>6} {'exit 0':>7} {'exit 1':>7} {'defects':>8}")
    for kind, (n, ok, err, bad) in kinds.items():
        print(f"{kind:<16} {n:>6} {ok:>7} {err:>7} {bad:>8}")
    total = [sum(v[i] for v in kinds.values()) for i in range(4)]
    print(f"{'total':<16} {total[0]:>6} {total[1]:>7} {total[2]:>7} {total[3]:>8}")
    print(f"({sum(len(r.rcs) for r in results)} fxmem-cli runs in {time.monotonic() - t0:.1f} s; exit 0/1: every "
          "command of the case / at least one)")
    slow = sorted(((t, r.case.label, c) for r in results for t, c in r.times), reverse=True)[:3]
    print("slowest: " + "; ".join(f"{t:.2f} s {label!r} ({c})" for t, label, c in slow))
    for r in results:
        for d in r.defects:
            print(f"DEFECT [{r.case.kind}] {r.case.label}: {d}")
    return 1 if total[3] else 0


if __name__ == "__main__":
    sys.exit(main())
