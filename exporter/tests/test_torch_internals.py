"""PyTorch's internals in one place (issue 38): the tested torch range said once and checked at
import, and the package's modules free of import cycles."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

import fxmem_export
from fxmem_export._torch import TESTED, TorchVersionWarning, check_version, release

PACKAGE = Path(fxmem_export.__file__).resolve().parent


def test_the_installed_torch_is_a_tested_release_and_imports_without_a_warning():
    assert release(torch.__version__) in TESTED
    out = subprocess.run([sys.executable, "-W", "error::UserWarning", "-c", "import fxmem_export"],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("version, tested", [("2.13.0", True), ("2.13.1+cpu", True), ("2.12.1", False),
                                             ("2.14.0a0+git1234", False), ("3.13.0", False), ("nightly", False)])
def test_a_release_outside_the_tested_range_warns_once(version, tested):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert check_version(version) is tested
    messages = [str(w.message) for w in caught if issubclass(w.category, TorchVersionWarning)]
    assert messages == ([] if tested else [f"fxmem_export is tested with torch 2.13; this is torch {version}: captures "
                                           "may fail or differ where PyTorch's private APIs changed"])


def test_pyproject_asks_for_the_tested_releases():
    text = (PACKAGE.parent / "pyproject.toml").read_text()
    deps = re.search(r'^dependencies = \["torch>=(\d+)\.(\d+),<(\d+)\.(\d+)"\]', text, re.M)
    assert deps, "pyproject.toml: no torch range"
    low, high = (int(deps[1]), int(deps[2])), (int(deps[3]), int(deps[4]))
    assert [low] == list(TESTED) and high == (low[0], low[1] + 1)


def _imports(path: Path) -> set[str]:
    """The package modules ``path`` imports anywhere: an import inside a function is how a cycle
    hides (_serialize imported _flops in its functions while _flops imported _serialize)."""
    tree = ast.parse(path.read_text())
    here = path.relative_to(PACKAGE.parent).with_suffix("").parts
    package = here[:-1] if path.name != "__init__.py" else here[:-1]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names = [f"{target}.{a.name}" for a in node.names]
            out.update(n for n in [target, *names] if _is_module(n))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("fxmem_export") and _is_module(a.name))
    return out


def _is_module(name: str) -> bool:
    rel = Path(*name.split(".")[1:])
    return (PACKAGE / rel).with_suffix(".py").is_file() or (PACKAGE / rel / "__init__.py").is_file()


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_package_has_no_import_cycle():
    graph = {_name(p): _imports(p) - {_name(p)} for p in PACKAGE.rglob("*.py")}
    # A package imports its parent's __init__ on the way; only module-to-module edges matter here.
    for name in graph:
        graph[name] = {t for t in graph[name] if t in graph and not name.startswith(t + ".")}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle.extend(path[path.index(nxt):] + [node, nxt] if nxt in path else [node, nxt])
                return True
            if nxt not in state and visit(nxt, path + [node]):
                return True
        state[node] = 2
        return False

    for name in sorted(graph):
        if name not in state and visit(name, []):
            break
    assert not cycle, " -> ".join(cycle)
    assert "fxmem_export._torch.fake" in graph["fxmem_export._flops"]
    assert "fxmem_export._flops" in graph["fxmem_export._serialize"]
