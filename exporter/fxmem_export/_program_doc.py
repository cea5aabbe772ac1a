"""Writes the programs captured by _program.py into the document: each graph's ``"program"``
(docs/format.md, PROGRAM).

Two things are settled here, where the file's storages and pairs are known:

* a graph input's ``del`` frees memory only where the program holds the last reference. That is
  true of a backward's saved values (AOTAutograd clears the autograd context's saved tensors
  and hands them over in a list the program steals), unless the value's storage is a forward
  input's (a parameter or a view of one) or the user holds it (a forward output of the user's).
  Parameters, buffers and user inputs are held by the module and the caller; tangents by the
  autograd engine until the backward returns. Those frees are left out of the ``free`` lists.
* buffer devices are the capture's: on ``meta`` (standing for the target) they are ``meta``,
  as the graph's storages are, so that the same devices are counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import torch.fx as fx

from ._program import PROGRAM_META
from .format_types import GraphFileDoc, ProgramDoc


def _storage(val: Any) -> int | None:
    return val.get("storage") if isinstance(val, dict) else None


def _output_names(gdoc: Mapping[str, Any]) -> list[str | None]:
    """The forward's outputs in order (None where an output is not a node)."""
    out = next(n for n in reversed(gdoc["nodes"]) if n["op"] == "output")
    return list(out["inputs"])


def _held_saved_values(fw: Mapping[str, Any], bw: Mapping[str, Any], fw_raw: Mapping[str, Any]) -> set[str]:
    """The backward's saved values that outlive the program: the forward program returned a
    graph input for them (a parameter, or a view of one), or the user holds them (a forward
    output before the saved ones). Where the forward program returns a copy (a layout it chose),
    the saved value is that copy, freed by the backward."""
    fw_storage = {n["name"]: _storage(n["val"]) for n in fw["nodes"]}
    saved = [n["name"] for n in bw["nodes"] if n["op"] == "placeholder" and not n["name"].startswith("tangents")]
    outputs = _output_names(fw)
    first_saved = max(0, len(outputs) - len(saved))
    user = outputs[:first_saved]
    user_storages = {fw_storage.get(name) for name in user if name is not None} - {None}
    program_outputs = list(fw_raw.get("outputs") or [])
    inputs = {b["name"] for b in fw_raw["buffers"] if b.get("input")}
    held = set()
    for j, name in enumerate(saved):
        returned = program_outputs[first_saved + j] if first_saved + j < len(program_outputs) else None
        if returned is None or returned in inputs or name in user or fw_storage.get(name) in user_storages:
            held.add(name)
    return held


def program_doc(raw: Mapping[str, Any], gdoc: Mapping[str, Any], storages: Sequence[Mapping[str, Any]],
                frees_inputs: bool, held: Iterable[str] = ()) -> dict[str, Any]:
    """PROGRAM of one graph from the captured ``raw`` program."""
    node_storage = {n["name"]: _storage(n["val"]) for n in gdoc["nodes"] if n["op"] == "placeholder"}
    devices = {storages[sid]["device"] for sid in node_storage.values() if sid is not None}
    capture_device = "meta" if "meta" in devices else None
    buffers = []
    for b in raw["buffers"]:
        entry = {"name": b["name"], "device": capture_device or b["device"], "nbytes": b["nbytes"]}
        if b.get("input"):
            entry["input"] = True
            sid = node_storage.get(b["name"])
            if sid is not None:
                entry["storage"] = sid
        for key in ("kind", "nodes", "reuses"):
            if key in b:
                entry[key] = b[key]
        buffers.append(entry)
    kernels = [{key: list(k[key]) if isinstance(k[key], list) else k[key] for key in k} for k in raw["kernels"]]
    if frees_inputs:
        index = {b["name"]: i for i, b in enumerate(buffers)}
        held = set(held)
        for name, k in raw["input_frees"].items():
            if not name.startswith("tangents") and name not in held:
                kernels[k]["free"].append(index[name])
    doc = {"target": raw["target"], "source": raw["source"]}
    if "gpu" in raw:
        doc["gpu"] = dict(raw["gpu"])
    return {**doc, "buffers": buffers, "kernels": kernels}


def add_programs(doc: GraphFileDoc, graphs: Sequence[tuple[str, str, fx.GraphModule]]) -> None:
    """Give every graph that has a captured program its ``"program"``."""
    by_name = {g["name"]: g for g in doc["graphs"]}
    forward_of = {p["backward"]: p["forward"] for p in doc.get("pairs", [])}
    gms = {name: gm for name, _, gm in graphs}
    for name, kind, gm in graphs:
        raw = gm.meta.get(PROGRAM_META)
        if raw is None:
            continue
        gdoc = by_name[name]
        held: set[str] = {b["name"] for b in raw["buffers"] if b.get("input") and b["name"].startswith("primals")}
        forward_gm = gms.get(forward_of.get(name, ""))
        fw_raw = forward_gm.meta.get(PROGRAM_META) if forward_gm is not None else None
        if kind == "backward" and fw_raw is not None:
            held = _held_saved_values(by_name[forward_of[name]], gdoc, fw_raw)
        program = program_doc(raw, gdoc, doc["storages"], frees_inputs=(kind == "backward"), held=held)
        gdoc["program"] = cast(ProgramDoc, program)
