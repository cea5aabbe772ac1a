"""An independent, file-only reading of memory_estimator.py's semantics (the format v1 contract).

It uses nothing but the JSON file, so agreeing with PyTorch on the GraphModules shows that the
file holds everything the estimator looks at. It doubles as a stand-in for fxmem-cli
(``python file_model.py profile|peak|score ...``) when checking the golden tests themselves.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def _storages_of(val: Any, out: list[int]) -> None:
    if val is None:
        return
    if isinstance(val, list):
        for v in val:
            _storages_of(v, out)
    elif "storage" in val:
        if val["storage"] not in out:
            out.append(val["storage"])


class FileGraph:
    def __init__(self, doc: dict[str, Any], name: str) -> None:
        self.doc = doc
        self.graph = next(g for g in doc["graphs"] if g["name"] == name)
        self.nodes = self.graph["nodes"]
        self.by_name = {n["name"]: n for n in self.nodes}
        self.nbytes = {s["id"]: s["nbytes"] for s in doc["storages"]}
        self.counted = {s["id"]: s["device"].split(":")[0] != "cpu" for s in doc["storages"]}
        self.out: dict[str, list[int]] = {}
        self.fresh: dict[str, list[int]] = {}
        self.allocator: dict[int, str] = {}
        self.uses_of: dict[str, list[int]] = {}
        self.users: dict[int, list[str]] = {}
        for n in self.nodes:
            st: list[int] = []
            _storages_of(n["val"], st)
            self.out[n["name"]] = st
            self.fresh[n["name"]] = [s for s in st if s not in self.allocator]
            for s in self.fresh[n["name"]]:
                self.allocator[s] = n["name"]
            ins: list[int] = []
            for i in n["inputs"]:
                for s in self.out[i]:
                    if s not in ins:
                        ins.append(s)
            self.uses_of[n["name"]] = ins
            for s in ins:
                self.users.setdefault(s, [])
                if n["name"] not in self.users[s]:
                    self.users[s].append(n["name"])
        self.last_used: dict[str, list[int]] = {n["name"]: [] for n in self.nodes}
        seen: set[int] = set()
        for n in reversed(self.nodes):
            for s in self.uses_of[n["name"]]:
                if s not in seen:
                    seen.add(s)
                    self.last_used[n["name"]].append(s)

    def profile(self, releasable=None) -> list[int]:
        releasable = releasable or (lambda name: not name.startswith("primals"))
        cur = 0
        for op in ("placeholder", "get_attr"):
            for n in self.nodes:
                if n["op"] == op:
                    cur += sum(self.nbytes[s] for s in self.fresh[n["name"]] if self.counted[s])
        prof = [cur]
        for n in self.nodes:
            if n["op"] in ("placeholder", "get_attr", "output"):
                continue
            cur += sum(self.nbytes[s] for s in self.fresh[n["name"]] if self.counted[s])
            prof.append(cur)
            for s in self.last_used[n["name"]]:
                if releasable(self.allocator[s]) and self.counted[s]:
                    cur -= self.nbytes[s]
            prof.append(cur)
        return prof

    def score(self, order: list[str]) -> tuple[int, list[int]]:
        live: set[int] = set()
        cur = 0
        for n in self.nodes:
            if n["op"] in ("placeholder", "get_attr"):
                for s in self.fresh[n["name"]]:
                    if self.counted[s]:
                        live.add(s)
                        cur += self.nbytes[s]
        peak = cur
        done: set[str] = set()
        current = []
        for name in order:
            n = self.by_name[name]
            assert name not in done
            done.add(name)
            if n["op"] not in ("placeholder", "get_attr", "output"):
                for s in self.fresh[name]:
                    if self.counted[s] and s not in live:
                        live.add(s)
                        cur += self.nbytes[s]
                peak = max(peak, cur)
                for s in self.uses_of[name]:
                    if not self.counted[s]:
                        continue
                    assert s in live, "all input storages should be currently allocated"
                    if self.allocator[s].startswith("primals"):
                        continue
                    if all(u in done for u in self.users[s]) and s in live:
                        live.remove(s)
                        cur -= self.nbytes[s]
            current.append(cur)
        return peak, current


def pair_peak(doc: dict[str, Any], index: int = 0) -> dict[str, int]:
    pair = doc["pairs"][index]
    fwd, bwd = FileGraph(doc, pair["forward"]), FileGraph(doc, pair["backward"])
    primal = {s for n in fwd.nodes if n["op"] == "placeholder" and n["name"].startswith("primals")
              for s in fwd.fresh[n["name"]]}
    fwd_out = set(fwd.uses_of[fwd.nodes[-1]["name"]])
    keep: set[str] = set()
    bwd_in: set[int] = set()
    for n in bwd.nodes:
        if n["op"] == "placeholder":
            st = set(bwd.out[n["name"]])
            bwd_in |= st
            if st & primal or not st & fwd_out:
                keep.add(n["name"])
    baseline = sum(fwd.nbytes[s] for s in fwd_out - bwd_in if fwd.counted[s])
    fwd_peak = max(fwd.profile())
    bwd_peak = baseline + max(bwd.profile(lambda name: not name.startswith("primals") and name not in keep))
    return {"forward_peak": fwd_peak, "backward_baseline": baseline, "backward_peak": bwd_peak,
            "peak": max(fwd_peak, bwd_peak)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["profile", "peak", "score"])
    p.add_argument("file")
    p.add_argument("--graph")
    p.add_argument("--pair", type=int, default=0)
    p.add_argument("--schedule")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    doc = json.load(open(a.file))
    if a.command == "profile":
        prof = FileGraph(doc, a.graph).profile()
        print(json.dumps({"graph": a.graph, "profile": prof, "peak": max(prof)}))
    elif a.command == "peak":
        print(json.dumps(pair_peak(doc, a.pair)))
    else:
        sched = json.load(open(a.schedule))
        peak, current = FileGraph(doc, a.graph or sched["graph"]).score(sched["order"])
        print(json.dumps({"peak": peak, "current": current}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
