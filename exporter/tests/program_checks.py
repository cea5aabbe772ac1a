"""The rules of docs/format.md's PROGRAM level, checked on a written document (the core reader
refuses a file that breaks one; the exporter must never write one)."""

from __future__ import annotations

from typing import Any


def program_errors(doc: Any) -> list[str]:
    """Every way the document's programs break a rule, in words (empty when none does)."""
    errors: list[str] = []
    for graph in doc["graphs"]:
        program = graph.get("program")
        if program is None:
            continue
        where = f"graph {graph['name']!r}"
        names = {n["name"] for n in graph["nodes"]}
        buffers = program["buffers"]
        if len({b["name"] for b in buffers}) != len(buffers):
            errors.append(f"{where}: buffer names repeat")
        for i, b in enumerate(buffers):
            if not b["name"] or not b["device"] or not isinstance(b["nbytes"], int) or b["nbytes"] < 0:
                errors.append(f"{where}, buffers[{i}]: name, device or nbytes invalid: {b}")
            if not set(b.get("nodes", ())) <= names:
                errors.append(f"{where}, buffers[{i}]: nodes not in the graph: {set(b['nodes']) - names}")
        live = {i for i, b in enumerate(buffers) if b.get("input")}
        born: set[int] = set(live)
        freed: set[int] = set()
        for k, kernel in enumerate(program["kernels"]):
            at = f"{where}, program.kernels[{k}]"
            if not set(kernel.get("nodes", ())) <= names:
                errors.append(f"{at}: nodes not in the graph")
            for i in kernel["alloc"]:
                if not 0 <= i < len(buffers) or i in born or buffers[i].get("input"):
                    errors.append(f"{at}: buffer {i} allocated twice, out of range or an input")
                    continue
                born.add(i)
                reused = buffers[i].get("reuses")
                if reused is not None:
                    old = buffers[reused]
                    if reused not in live or old["device"] != buffers[i]["device"] or old["nbytes"] != buffers[i]["nbytes"]:
                        errors.append(f"{at}: buffer {i} reuses {reused}, which is not live or differs")
                    live.discard(reused)
                    freed.add(reused)
                live.add(i)
            for i in kernel["free"]:
                if i not in live or i in freed:
                    errors.append(f"{at}: buffer {i} freed while not live, or twice")
                live.discard(i)
                freed.add(i)
    return errors
