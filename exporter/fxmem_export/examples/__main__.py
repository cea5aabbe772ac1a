"""python -m fxmem_export.examples NAME -o FILE [--with-reference] | --list"""

from __future__ import annotations

import argparse
import sys

from . import DESCRIPTIONS, NAMES, export
from . import step as _step


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fxmem_export.examples",
        description="Write the compiled forward/backward graphs of a built-in example model to an fxmem file.",
    )
    parser.add_argument("name", nargs="?", choices=NAMES + _step.NAMES, metavar="NAME",
                        help="example model: " + ", ".join(NAMES + _step.NAMES))
    parser.add_argument("-o", "--output", metavar="FILE", help="file to write (e.g. gpt.fxmem.json)")
    parser.add_argument("--with-reference", action="store_true",
                        help="add a \"reference\" block with what torch's memory_estimator computes")
    parser.add_argument("--list", action="store_true", help="list the example models and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, text in {**DESCRIPTIONS, **_step.DESCRIPTIONS}.items():
            print(f"{name:10} {text}")
        return 0
    if args.name is None or args.output is None:
        parser.error("NAME and -o FILE are required (or use --list)")
    from .._serialize import check_writable
    from ..errors import FxmemExportError

    try:
        check_writable(args.output)  # fail before the (slower) capture
        if args.name in _step.NAMES:  # a whole step: every region, the step, optimizer state
            doc = _step.export(args.name, args.output, reference=args.with_reference)
        else:
            cap, doc = export(args.name, args.output, reference=args.with_reference)
    except FxmemExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    nodes = {g["name"]: len(g["nodes"]) for g in doc["graphs"]}
    print(f"wrote {args.output}: " + ", ".join(f"{k} {v} nodes" for k, v in nodes.items())
          + f", {len(doc['storages'])} storages"
          + "".join(f", schedule {s['name']!r} of {s['graph']}" for s in doc.get("schedules", [])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
