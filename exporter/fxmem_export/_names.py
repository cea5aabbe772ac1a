"""Qualified names as users write them (``blocks.0.attn``), from Dynamo's spellings of module
paths and graph-input sources (``L['self']._modules['blocks']._modules['0']``,
``L['self'].blocks[0]``, ``getattr(L['self'].blocks, '0')``) and from torch.export's
already-qualified paths."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch.fx as fx

# The root object of a Dynamo path: a frame local (L['self']), a global (G['model']), or the
# mangled / bare spellings older paths use.
_ROOT = re.compile(r"""^(?:[LG]\[(['"])(?P<local>[^'"\]]+)\1\]|L__self__|self)""")
_GETATTR = re.compile(r"""getattr\(([^()]*?),\s*(['"])([^'"]*)\2\)""")
_TOKEN = re.compile(r"""\.(?P<attr>\w+)|\[(?P<int>-?\d+)\]|\[(['"])(?P<key>[^'"\]]*)\3\]""")
_CONTAINERS = {"_modules", "_parameters", "_buffers"}
_QUALIFIED = re.compile(r"^(?:[A-Za-z_0-9]+(?:\.[A-Za-z_0-9]+)*)?$")


def _parts(path: str) -> tuple[str | None, list[str]] | None:
    """(root local name or None, attribute/key parts) of a Dynamo path; None if unparseable."""
    s = path.strip()
    while True:  # getattr(X, 'name') -> X.name, innermost first
        t = _GETATTR.sub(lambda m: f"{m.group(1)}.{m.group(3)}" if m.group(3).isidentifier()
                         else f"{m.group(1)}[{m.group(2)}{m.group(3)}{m.group(2)}]", s)
        if t == s:
            break
        s = t
    root = _ROOT.match(s)
    if root is None:
        return None
    parts: list[str] = []
    pos = root.end()
    while pos < len(s):
        m = _TOKEN.match(s, pos)
        if m is None:
            return None
        parts.append(m.group("attr") or m.group("int") or m.group("key") or "")
        pos = m.end()
    # _modules['x'], _parameters['x'], _buffers['x'] are the containers behind attribute access.
    out = [p for i, p in enumerate(parts) if not (p in _CONTAINERS and i + 1 < len(parts))]
    return root.group("local"), out


def qualified_name(path: Any) -> str | None:
    """``blocks.0.attn`` for a module path in any spelling Dynamo or torch.export writes;
    ``""`` for the root (``L['self']``); None if ``path`` is not recognizably a path."""
    if not isinstance(path, str):
        return None
    parsed = _parts(path)
    if parsed is not None:
        return ".".join(parsed[1])
    if _QUALIFIED.match(path):  # torch.export: already qualified
        return path
    return None


def class_name(module_type: Any) -> str | None:
    """``Linear`` for the class or for a dotted type name (torch.export writes strings)."""
    if isinstance(module_type, type):
        return module_type.__name__
    if isinstance(module_type, str) and module_type:
        return module_type.rsplit(".", 1)[-1]
    return None


def innermost_module(node: fx.Node, backward: bool) -> tuple[str, str | None] | None:
    """(qualified name, class name) of the innermost module a node was traced in.

    A forward node's ``nn_module_stack``; a backward node's ``fwd_nn_module_stack`` (the stack
    of the forward op it differentiates), else its ``nn_module_stack`` (saved values and
    recomputed forward ops keep the forward's). ``("", None)`` (the root) for a node without
    a stack or with an empty one; None if the innermost path is in no known spelling."""
    keys = ("fwd_nn_module_stack", "nn_module_stack") if backward else ("nn_module_stack",)
    for key in keys:
        stack = node.meta.get(key)
        if stack is None:
            continue
        if not isinstance(stack, Mapping) or not stack:
            return ("", None)
        last = list(stack.values())[-1]
        if isinstance(last, tuple) and len(last) >= 2:
            name = qualified_name(last[0])
            if name is not None:
                return (name, class_name(last[1]))
        return None
    return ("", None)


@dataclass(frozen=True)
class InputInfo:
    """What a Dynamo graph input is: role ``parameter``, ``buffer`` or ``input``, and its
    label (the parameter's/buffer's qualified name, or the argument's name)."""

    role: str
    label: str | None


def dynamo_input_infos(gm: fx.GraphModule) -> list[InputInfo]:
    """One InputInfo per placeholder of the graph Dynamo hands to a backend, from the sources
    Dynamo records (``meta["grapharg"].source``). AOTAutograd's ``PlainAOTInput(idx)`` is
    the idx-th of these when the module is inlined (torch.compile's default)."""
    import torch

    infos = []
    for node in gm.graph.find_nodes(op="placeholder"):
        arg = node.meta.get("grapharg")
        source = getattr(arg, "source", None)
        path = getattr(source, "name", None)
        if callable(path):  # older torch: Source.name() is a method
            path = path()
        parsed = _parts(path) if isinstance(path, str) else None
        example = getattr(arg, "example", None)
        if parsed is None:
            infos.append(InputInfo("input", None))
            continue
        local, parts = parsed
        raw = path or ""
        if "._buffers[" in raw:
            role = "buffer"
        elif "._parameters[" in raw or isinstance(example, torch.nn.Parameter):
            role = "parameter"
        else:
            role = "input"
        if role == "input":
            # An argument as the function's code spells it: x, args[0], batch['ids'].
            root = _ROOT.match(raw)
            label = local + raw[root.end():] if local and root else None
        else:
            # Relative to the root object, like the module names (model.named_parameters()).
            label = ".".join(parts) or local
        infos.append(InputInfo(role, label or None))
    return infos
