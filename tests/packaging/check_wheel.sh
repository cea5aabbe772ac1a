#!/usr/bin/env bash
# Builds the exporter's wheel as `pip wheel exporter/` would (without fetching build tools) and
# checks that it carries the package, the examples and the torch requirement.
set -euo pipefail
python=$1 src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# From a copy: setuptools writes build/ and *.egg-info beside the sources it builds.
cp -r "$src/exporter" "$out/exporter"
rm -rf "$out/exporter/build" "$out/exporter"/*.egg-info
"$python" -m pip wheel -q --no-deps --no-build-isolation -w "$out" "$out/exporter" >/dev/null
whl=$(ls "$out"/fxmem_export-*.whl)
"$python" - "$whl" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for need in ("fxmem_export/__init__.py", "fxmem_export/examples/__main__.py", "fxmem_export/reference.py"):
    assert need in names, f"{need} missing from {sys.argv[1]}"
meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
text = zipfile.ZipFile(sys.argv[1]).read(meta).decode()
assert "Requires-Dist: torch>=2.10" in text, text
print("wheel ok:", sys.argv[1].rsplit("/", 1)[-1])
PY
