#!/usr/bin/env bash
# Builds the exporter's wheel as `pip wheel exporter/` would (without fetching build tools) and
# checks that it carries the package, the examples, py.typed (PEP 561), the torch requirement and
# the version written in fxmem_export/__init__.py.
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
for need in ("fxmem_export/__init__.py", "fxmem_export/examples/__main__.py", "fxmem_export/reference.py",
             "fxmem_export/py.typed", "fxmem_export/format_types.py", "fxmem_export/_torch/__init__.py",
             "fxmem_export/_torch/fake.py"):
    assert need in names, f"{need} missing from {sys.argv[1]}"
meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
text = zipfile.ZipFile(sys.argv[1]).read(meta).decode()
assert "Requires-Dist: torch<2.14,>=2.13" in text or "Requires-Dist: torch>=2.13,<2.14" in text, text
# The version is fxmem_export.__version__ (pyproject.toml reads it): the wheel's must be that one.
init = zipfile.ZipFile(sys.argv[1]).read("fxmem_export/__init__.py").decode()
version = next(line.split('"')[1] for line in init.splitlines() if line.startswith("__version__ = "))
assert f"\nVersion: {version}\n" in text, (version, text[:300])
assert sys.argv[1].rsplit("/", 1)[-1].startswith(f"fxmem_export-{version}-"), sys.argv[1]
print("wheel ok:", sys.argv[1].rsplit("/", 1)[-1])
PY
