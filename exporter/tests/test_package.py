"""The package's boundaries (issue 24): one error hierarchy, __all__ on every public module, the
version written once, py.typed shipped, and the TypedDicts describing what the writer writes."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
from pathlib import Path
from typing import get_type_hints

import pytest
import torch
import torch.fx as fx

import fxmem_export
from fxmem_export import errors, format_types
from fxmem_export._serialize import build_document

PACKAGE = Path(fxmem_export.__file__).parent


def public_modules() -> list[str]:
    names = ["fxmem_export"]
    for info in pkgutil.walk_packages([str(PACKAGE)], "fxmem_export."):
        if not any(part.startswith("_") and part not in ("__main__",) for part in info.name.split(".")[1:]):
            names.append(info.name)
    return names


def test_the_public_modules_are_the_expected_ones():
    assert {"fxmem_export.remat", "fxmem_export.overlap", "fxmem_export.errors", "fxmem_export.format_types",
            "fxmem_export.examples", "fxmem_export.examples.__main__"} <= set(public_modules())


@pytest.mark.parametrize("name", public_modules())
def test_every_public_module_has_an_all_of_names_it_defines(name):
    module = importlib.import_module(name)
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__"
    assert len(set(module.__all__)) == len(module.__all__), name
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names {missing}, which it does not define"


def test_every_error_class_is_an_fxmem_export_error_with_its_builtin_base():
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, BaseException)]
    assert sorted(c.__name__ for c in classes) == sorted(errors.__all__)
    for c in classes:
        assert issubclass(c, errors.FxmemExportError), c
    builtin = {"RematPlanError": ValueError, "NodeSetChanged": RuntimeError, "ArgumentError": ValueError,
               "ArgumentTypeError": TypeError, "CaptureError": RuntimeError, "UnknownExampleError": KeyError}
    for name, base in builtin.items():
        assert issubclass(getattr(errors, name), base), name
    # The old homes still export them.
    from fxmem_export.overlap import NodeSetChanged
    from fxmem_export.remat import RematPlanError

    assert RematPlanError is errors.RematPlanError and NodeSetChanged is errors.NodeSetChanged


def test_no_builtin_exception_is_raised_to_the_caller():
    """Every ``raise`` of a builtin exception in the package is an internal check (AssertionError)."""
    names = set(errors.__all__) | {"AssertionError"}
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        local = set(re.findall(r"^class (\w+)\(", text, re.M))  # a module's own exceptions, caught there
        for line_no, line in enumerate(text.splitlines(), 1):
            m = re.match(r"\s*raise ([A-Z]\w*)\(", line)  # a class (not a variable holding one)
            if m and m.group(1) not in names | local:
                raise AssertionError(f"{path.name}:{line_no}: raise {m.group(1)}: use an fxmem_export.errors class")


def test_an_unknown_example_reads_as_its_message():
    from fxmem_export import examples

    with pytest.raises(KeyError) as info:
        examples.capture("no_such_model")
    assert str(info.value).startswith("unknown example 'no_such_model'; choose one of ")


def test_the_version_is_written_once_and_py_typed_ships():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "fxmem_export.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", fxmem_export.__version__)
    assert (PACKAGE / "py.typed").is_file()


def _keys(td: type) -> tuple[set[str], set[str]]:
    hints = get_type_hints(td)
    return set(td.__required_keys__) & set(hints), set(td.__optional_keys__) & set(hints)


def _check(doc: dict, td: type, where: str) -> None:
    required, optional = _keys(td)
    assert required <= set(doc), f"{where}: {td.__name__} lacks {required - set(doc)}"
    assert set(doc) <= required | optional, f"{where}: {set(doc) - required - optional} not in {td.__name__}"


def test_a_written_document_has_the_keys_of_its_typed_dicts():
    """The writer's output against format_types: every required key there, no key unknown to it."""
    def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return (x @ w).relu().sum()

    from torch.fx.experimental.proxy_tensor import make_fx

    gm = make_fx(f, tracing_mode="fake")(torch.randn(4, 8), torch.randn(8, 3))
    doc = json.loads(json.dumps(build_document([("forward", "forward", gm.graph)], [], reference=True,
                                               producer={"test": True})))
    _check(doc, format_types.GraphFileDoc, "file")
    for s in doc["storages"]:
        _check(s, format_types.StorageDoc, "storage")
    for g in doc["graphs"]:
        _check(g, format_types.GraphDoc, "graph")
        for node in g["nodes"]:
            _check(node, format_types.NodeDoc, f"node {node['name']}")
            if isinstance(node["val"], dict) and "storage" in node["val"]:
                _check(node["val"], format_types.TensorDoc, f"val of {node['name']}")
            if "meta" in node:
                _check(node["meta"], format_types.NodeMetaDoc, f"meta of {node['name']}")
    _check(doc["reference"], format_types.ReferenceDoc, "reference")
    for g in doc["reference"]["graphs"].values():
        _check(g, format_types.ReferenceGraphDoc, "reference graph")
    assert isinstance(gm, fx.GraphModule)
