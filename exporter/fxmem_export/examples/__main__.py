"""python -m fxmem_export.examples NAME -o FILE [--with-reference] [--inner partition|eager] [--joint]
[--sweep [--budgets 1.0,0.5,...]] | --list

llama also takes [--layers N] (default 8; the bundled llama_sweep has 2).

llama3_8b (traced, not bundled) also takes [--sdpa math|efficient|flash|cudnn] [--no-autocast]
[--layers N] [--seq T] [--remat PLAN.json]."""

from __future__ import annotations

import argparse
import sys

from . import DESCRIPTIONS, INNERS, NAMES, export, export_sweep
from . import llama3 as _llama3
from . import step as _step

__all__ = ["main"]

_TRACED = {_llama3.NAME: _llama3.DESCRIPTION}  # traced on demand, not bundled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fxmem_export.examples",
        description="Write the compiled forward/backward graphs of a built-in example model to an fxmem file.",
    )
    parser.add_argument("name", nargs="?", choices=NAMES + _step.NAMES + list(_TRACED), metavar="NAME",
                        help="example model: " + ", ".join(NAMES + _step.NAMES + list(_TRACED)))
    parser.add_argument("-o", "--output", metavar="FILE", help="file to write (e.g. gpt.fxmem.json)")
    parser.add_argument("--with-reference", action="store_true",
                        help="add a \"reference\" block with what torch's memory_estimator computes")
    parser.add_argument("--inner", choices=INNERS, default=INNERS[0],
                        help="partition: PyTorch's min-cut partition, as Inductor (default); "
                        "eager: AOTAutograd's default partition")
    parser.add_argument("--joint", action="store_true",
                        help="also write the joint graph the pair was cut from (needs --inner partition)")
    parser.add_argument("--sweep", action="store_true",
                        help="one min-cut pair per activation memory budget, and the joint graph (fxmem_export.sweep)")
    parser.add_argument("--budgets", metavar="B,B,...", help="the budgets of --sweep (default 1.0,0.9,...,0.0)")
    parser.add_argument("--sdpa", choices=("flash", "efficient", "cudnn", "math"),
                        help="llama3_8b: the attention kernel (default: PyTorch's choice on a CUDA GPU)")
    parser.add_argument("--no-autocast", action="store_true", help="llama3_8b: fp32 throughout (no bf16 autocast)")
    parser.add_argument("--remat", metavar="PLAN.json",
                        help="llama3_8b: apply a recompute plan (fxmem-cli remat -o) to the partition")
    parser.add_argument("--layers", type=int, help="llama3_8b and llama: decoder layers (default 32 and 8)")
    parser.add_argument("--seq", type=int, default=4096, help="llama3_8b: tokens per sequence (default 4096)")
    parser.add_argument("--list", action="store_true", help="list the example models and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, text in {**DESCRIPTIONS, **_step.DESCRIPTIONS, **_TRACED}.items():
            print(f"{name:10} {text}")
        return 0
    if args.name is None or args.output is None:
        parser.error("NAME and -o FILE are required (or use --list)")
    if args.joint and args.inner != "partition":
        parser.error("--joint needs --inner partition")
    if args.budgets is not None and not args.sweep:
        parser.error("--budgets needs --sweep")
    if args.sweep and (args.inner != "partition" or args.joint):
        parser.error("--sweep partitions with min-cut and always writes the joint graph")
    if args.layers is not None and args.name not in ("llama", *_TRACED):
        parser.error(f"--layers is taken by llama and {', '.join(_TRACED)}, not {args.name}")
    budgets = None
    if args.budgets is not None:
        try:
            budgets = [float(b) for b in args.budgets.split(",")]
        except ValueError:
            parser.error(f"--budgets: {args.budgets!r} is not a comma-separated list of numbers")
    from .._serialize import check_writable
    from ..errors import FxmemExportError

    try:
        check_writable(args.output)  # fail before the (slower) capture
        if args.name in _TRACED:
            layers = 32 if args.layers is None else args.layers
            if layers < 1 or args.seq < 1:
                parser.error("--layers and --seq must be at least 1")
            doc = _llama3.export(args.output, sdpa=args.sdpa, autocast=not args.no_autocast, layers=layers,
                                 seq=args.seq, remat=args.remat)
        elif args.name in _step.NAMES:  # a whole step: every region, the step, optimizer state
            doc = _step.export(args.name, args.output, reference=args.with_reference)
        elif args.sweep:
            doc = export_sweep(args.name, args.output, budgets=budgets, reference=args.with_reference,
                               layers=args.layers)
        else:
            _, doc = export(args.name, args.output, reference=args.with_reference, inner=args.inner, joint=args.joint,
                            layers=args.layers)
    except (FxmemExportError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    nodes = {g["name"]: len(g["nodes"]) for g in doc["graphs"]}
    print(f"wrote {args.output}: " + ", ".join(f"{k} {v} nodes" for k, v in nodes.items())
          + f", {len(doc['storages'])} storages"
          + "".join(f", schedule {s['name']!r} of {s['graph']}" for s in doc.get("schedules", [])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
