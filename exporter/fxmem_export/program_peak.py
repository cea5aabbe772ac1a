"""The allocated profile of a PROGRAM level (docs/format.md), and a training step's allocated
peak composed from its forward and backward programs, in pure Python.

What a real step holds, measured against the CPU allocator's events (tests/test_program_real.py):

* the forward starts with its inputs live (parameters, buffers, the user's inputs); its ``del``
  of an input frees nothing (the module and the caller hold them);
* everything the forward program does not free stays live into the backward: the saved values
  and the user's outputs;
* the backward starts with that, plus its tangents (the autograd engine allocates them; they are
  freed when the backward has returned, not at the program's ``del``);
* the backward's ``del`` of a saved value frees it: AOTAutograd clears the autograd context's
  saved tensors (``ctx.maybe_clear_saved_tensors``) and hands them to the program in a list it
  steals, so the program holds the last reference. Parameters, and saved values that are the
  user's outputs, stay held.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

__all__ = ["profile", "tangent_bytes", "pair_peak"]


def _key(buffer: Mapping[str, Any], index: int) -> Any:
    """Input buffers with the same storage are one allocation."""
    return ("storage", buffer["storage"]) if buffer.get("input") and "storage" in buffer else index


def profile(program: Mapping[str, Any]) -> list[int]:
    """The allocated profile of a PROGRAM (docs/format.md): index 0 the input buffers; 1 + 2k
    after kernel k's ``alloc`` list, 2 + 2k after its ``free`` list."""
    buffers: Sequence[Mapping[str, Any]] = program["buffers"]
    holders: dict[Any, int] = {}  # allocation -> how many live buffers hold it
    size: dict[Any, int] = {}
    owner: dict[int, Any] = {}

    def hold(i: int, key: Any) -> int:
        owner[i] = key
        holders[key] = holders.get(key, 0) + 1
        if holders[key] > 1:
            return 0
        size[key] = int(buffers[i]["nbytes"])
        return size[key]

    def drop(i: int) -> int:
        key = owner.pop(i)
        holders[key] -= 1
        return size[key] if holders[key] == 0 else 0

    cur = sum(hold(i, _key(b, i)) for i, b in enumerate(buffers) if b.get("input"))
    out = [cur]
    for kernel in program["kernels"]:
        for i in kernel["alloc"]:
            reused = buffers[i].get("reuses")
            if reused is None:
                cur += hold(i, i)
            else:
                key = owner[int(reused)]
                holders[key] += 1
                cur -= drop(int(reused))
                owner[i] = key
        out.append(cur)
        for i in kernel["free"]:
            cur -= drop(i)
        out.append(cur)
    return out


def tangent_bytes(backward: Mapping[str, Any]) -> int:
    """The backward's tangents: the autograd engine allocates them when the backward starts."""
    return sum(int(b["nbytes"]) for b in backward["buffers"] if b.get("input") and b["name"].startswith("tangents"))


def pair_peak(forward: Mapping[str, Any], backward: Mapping[str, Any], *, outside: int = 0) -> int:
    """The allocated peak of a training step whose forward and backward programs these are
    (PROGRAM levels as written in the file). ``outside``: bytes live at the start that no
    forward input holds."""
    fw = profile(forward)
    bw = profile(backward)
    after_forward = outside + fw[-1]
    return max(outside + max(fw), after_forward + tangent_bytes(backward) + max(bw) - bw[0])
