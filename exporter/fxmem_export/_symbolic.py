"""Symbolic sizes as expressions over the capture's symbols (docs/format.md, "Symbolic sizes").

A capture with dynamic shapes (``torch._dynamo.mark_dynamic``, ``dynamic=True``) has SymInt byte
counts, shapes, strides and offsets. The file keeps their hints (what every analysis uses by
default) and writes beside them the sympy expression of the ShapeEnv, printed in the file's small
grammar (``print_expr``). Every printed expression is parsed back and evaluated at the symbols'
hints (``evaluate``); one that does not print, or does not give the hinted int back, is left out
(the entity keeps only its hinted int) with one warning, so the file never holds an expression a
reader cannot parse or that disagrees with its hinted int.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import sympy
import torch

INT64_MAX = 2**63 - 1
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_FUNCS = {"FloorDiv": 2, "CeilDiv": 2, "Mod": 2, "Max": None, "Min": None}


class Unprintable(ValueError):
    """The expression has a form outside the file's grammar."""


# -- printing ------------------------------------------------------------------------------------
def _int(value: Any) -> str:
    v = int(value)
    if abs(v) > INT64_MAX:
        raise Unprintable(f"the integer {v} does not fit int64")
    return str(v)


def _as_division(arg: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """(a, b) for an argument a / b of a floor or ceiling: PyTorch's IntTrueDiv, or a sympy
    expression whose denominator is a positive integer (``s0/32``)."""
    if type(arg).__name__ == "IntTrueDiv":
        return arg.args[0], arg.args[1]
    num, den = sympy.fraction(sympy.together(arg))
    if not (den.is_Integer and int(den) > 0):
        raise Unprintable(f"{arg} is not an integer divided by a positive integer")
    return num, den


class Printer:
    """Prints PyTorch's size expressions in the file's grammar; ``symbols`` collects the names."""

    def __init__(self) -> None:
        self.symbols: set[sympy.Symbol] = set()

    def __call__(self, expr: sympy.Expr) -> str:
        return self._expr(sympy.sympify(expr))

    def _expr(self, e: sympy.Expr) -> str:
        if e.is_Add:
            out = ""
            for i, term in enumerate(e.as_ordered_terms()):
                negative = term.could_extract_minus_sign()
                text = self._term(-term if negative else term)
                out += (("-" if negative else "") + text) if i == 0 else ((" - " if negative else " + ") + text)
            return out
        return self._term(e)

    def _term(self, e: sympy.Expr) -> str:
        if e.is_Mul:
            coeff, rest = e.as_coeff_Mul()
            if not coeff.is_Integer:
                raise Unprintable(f"the coefficient {coeff} of {e} is not an integer")
            factors = rest.as_ordered_factors() if rest.is_Mul else [rest]
            text = "*".join(self._factor(f) for f in factors)
            if coeff == 1:
                return text
            if coeff == -1:
                return "-" + text
            return _int(coeff) + "*" + text if coeff > 0 else "-" + _int(-coeff) + "*" + text
        if e.is_Integer and e < 0:
            return "-" + _int(-e)
        return self._factor(e)

    def _factor(self, e: sympy.Expr) -> str:
        if e.is_Add or e.is_Mul or (e.is_Integer and e < 0):
            return "(" + self._expr(e) + ")"
        if e.is_Pow or type(e).__name__ == "PowByNatural":
            base, exp = e.args
            if not (exp.is_Integer and int(exp) >= 0):
                raise Unprintable(f"the exponent of {e} is not a non-negative integer")
            base_text = self._atom(base)
            return f"{base_text}**{_int(exp)}"
        return self._atom(e)

    def _atom(self, e: sympy.Expr) -> str:
        if e.is_Integer:
            return _int(e) if e >= 0 else "(" + self._expr(e) + ")"
        if e.is_Symbol:
            if not _NAME.match(e.name):
                raise Unprintable(f"the symbol name {e.name!r} is not a name")
            self.symbols.add(e)
            return str(e.name)
        kind = type(e).__name__
        args = e.args
        if kind in ("FloorDiv", "CleanDiv"):
            return self._floordiv(args[0], args[1])
        if kind in ("FloorToInt", "floor"):
            return self._floordiv(*_as_division(args[0]))
        if kind in ("CeilToInt", "ceiling"):
            a, b = _as_division(args[0])
            return f"CeilDiv({self._expr(a)}, {self._expr(b)})"
        if kind in ("Mod", "PythonMod"):
            return f"Mod({self._expr(args[0])}, {self._expr(args[1])})"
        if kind == "ModularIndexing":  # (x // div) % mod
            return f"Mod({self._floordiv(args[0], args[1])}, {self._expr(args[2])})"
        if kind in ("Max", "Min") and len(args) >= 2:
            return f"{kind}({', '.join(self._expr(a) for a in args)})"
        if e.is_Add or e.is_Mul or e.is_Pow or kind == "PowByNatural":
            return "(" + self._expr(e) + ")"
        raise Unprintable(f"{kind} ({e}) is not in the file's grammar")


    def _floordiv(self, a: sympy.Expr, b: sympy.Expr) -> str:
        # Sums and products in parentheses, as sympy prints them: "((s0 + 6)//7)" reads the same
        # whether "//" is taken as the grammar's (a//b) or as Python's operator.
        return f"({self._factor(a)}//{self._factor(b)})"


def print_expr(expr: sympy.Expr) -> tuple[str, set[sympy.Symbol]]:
    """(text, symbols) of ``expr`` in the file's grammar; raises Unprintable."""
    printer = Printer()
    return printer(expr), printer.symbols


# -- parsing and evaluating the grammar ---------------------------------------------------------
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|//|[-+*(),]))")


class ExprError(ValueError):
    """A string outside the grammar, an unknown symbol, or a zero divisor."""


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ExprError(f"unexpected character {text[pos:].lstrip()[:1]!r} at column {pos + 1}")
        kind = "int" if m.group(1) else "name" if m.group(2) else m.group(3)
        assert m.lastindex is not None  # one of the three alternatives matched
        out.append((kind, m.group(m.lastindex), m.start(m.lastindex) + 1))
        pos = m.end()
    out.append(("end", "", len(text) + 1))
    return out


def evaluate(text: str, binding: dict[str, int]) -> int:
    """The value of ``text`` (the file's EXPR grammar) with Python's unbounded ints: FloorDiv
    floors, CeilDiv rounds up, Mod is Python's %, a zero divisor is an ExprError."""
    toks = _tokens(text)
    i = 0

    def peek() -> str:
        return toks[i][0]

    def take(kind: str) -> str:
        nonlocal i
        if toks[i][0] != kind:
            raise ExprError(f"expected {kind!r} at column {toks[i][2]} of {text!r}")
        i += 1
        return toks[i - 1][1]

    def div(a: int, b: int) -> int:
        if b == 0:
            raise ExprError(f"division by zero in {text!r}")
        return a // b

    def expr() -> int:
        v = term()
        while peek() in ("+", "-"):
            v = v + term() if take(peek()) == "+" else v - term()
        return v

    def term() -> int:
        v = factor()
        while peek() == "*":
            take("*")
            v *= factor()
        return v

    def factor() -> int:
        if peek() == "-":
            take("-")
            return -factor()
        v = atom()
        if peek() == "**":
            take("**")
            v **= int(take("int"))
        return v

    def atom() -> int:
        if peek() == "int":
            return int(take("int"))
        if peek() == "(":
            take("(")
            v = expr()
            if peek() == "//":
                take("//")
                v = div(v, expr())
            take(")")
            return v
        col = toks[i][2]
        name = take("name")
        if peek() != "(":
            if name not in binding:
                raise ExprError(f"unknown symbol {name!r} at column {col} of {text!r}")
            return binding[name]
        if name not in _FUNCS:
            raise ExprError(f"unknown function {name!r} at column {col} of {text!r}")
        take("(")
        args = [expr()]
        while peek() == ",":
            take(",")
            args.append(expr())
        take(")")
        want = _FUNCS[name]
        if (want is not None and len(args) != want) or len(args) < 2:
            raise ExprError(f"{name} takes {want or 'at least 2'} arguments, got {len(args)} in {text!r}")
        if name == "FloorDiv":
            return div(args[0], args[1])
        if name == "CeilDiv":
            return -div(-args[0], args[1])
        if name == "Mod":
            if args[1] == 0:
                raise ExprError(f"Mod by zero in {text!r}")
            return args[0] % args[1]
        return max(args) if name == "Max" else min(args)

    value = expr()
    take("end")
    return value


# -- the symbols of one document ----------------------------------------------------------------
def _source_name(source: Any) -> str:
    name = getattr(source, "name", "")
    return str(name() if callable(name) else name)


def _bound(value: Any) -> int | None:
    """A range bound as an int; None for an infinite one (PyTorch's int_oo, sympy's oo)."""
    if isinstance(value, int):
        return value
    if value is None or not getattr(value, "is_Integer", False):
        return None
    return int(value)


class SymbolTable:
    """The expressions of one document and the symbols they use (name, hint, source, range).

    ``text(value, hinted)`` is the expression of a SymInt whose hinted int is ``hinted``, or None
    when ``value`` is not symbolic, or when its expression cannot be written (warned once)."""

    def __init__(self) -> None:
        self.symbols: dict[str, dict[str, Any]] = {}  # name -> the file's symbol entry
        self._envs: dict[str, int] = {}  # name -> id of its ShapeEnv
        self._order: dict[str, tuple[int, int]] = {}  # name -> (env rank, creation rank)
        self._env_rank: dict[int, int] = {}
        self._cache: dict[tuple[int, Any], str | None] = {}
        self._warned = False

    def text(self, value: Any, hinted: int, what: str) -> str | None:
        if not isinstance(value, torch.SymInt):
            return None
        node = value.node
        if node.shape_env is None or not getattr(node.expr, "free_symbols", None):
            return None
        text = self._print_or_none(node, what)
        if text is not None:
            try:
                got: int | str = evaluate(text, {n: s["hint"] for n, s in self.symbols.items()})
            except ExprError as e:
                got = str(e)
            if got != hinted:
                self._warn(what, f"{text} is {got} at the hints, the hinted int is {hinted}")
                return None
        return text

    def _print_or_none(self, node: Any, what: str) -> str | None:
        """The expression of a SymInt's node (``expr``, ``shape_env``) once per document, or None
        (warned once) when it is outside the grammar."""
        key = (id(node.shape_env), node.expr)
        if key not in self._cache:
            try:
                self._cache[key] = self._print(node.shape_env, node.expr)
            except (Unprintable, ExprError) as e:
                self._warn(what, str(e))
                self._cache[key] = None
            except Exception as e:  # noqa: BLE001 - a ShapeEnv we do not understand: the hint stands
                self._warn(what, f"{type(e).__name__}: {e}")
                self._cache[key] = None
        return self._cache[key]

    def _print(self, env: Any, expr: sympy.Expr) -> str:
        try:
            expr = env.replace(expr)  # a symbol a guard made equal to another is written as that one
        except Exception:  # noqa: BLE001 - the expression as it stands is as valid
            pass
        text, used = print_expr(expr)
        new = {}
        for sym in used:  # every symbol checked before any is listed
            if sym.name in self.symbols:
                if self._envs[sym.name] != id(env):
                    raise Unprintable(f"the symbol {sym.name} comes from two ShapeEnvs (two compiled regions)")
            else:
                new[sym.name] = self._symbol_entry(env, sym)
        if not new:
            return text
        rank = self._env_rank.setdefault(id(env), len(self._env_rank))
        backed_map = getattr(env, "backed_var_to_val", None)  # torch 2.13's name of var_to_val
        backed = list(env.var_to_val if backed_map is None else backed_map)
        for sym in used:
            if sym.name in new:
                self.symbols[sym.name] = new[sym.name]
                self._envs[sym.name] = id(env)
                self._order[sym.name] = (rank, backed.index(sym) if sym in backed else len(backed))
        return text

    @staticmethod
    def _symbol_entry(env: Any, sym: sympy.Symbol) -> dict[str, Any]:
        name = sym.name
        hint = int(env.optimization_hint(sym))
        vr = env.var_to_range.get(sym)
        if vr is None:
            raise Unprintable(f"the symbol {name} has no range in its ShapeEnv")
        low, high = _bound(vr.lower), _bound(vr.upper)
        if low is None or low < 0:  # a size's range starts at 0 or 2; fxmem's reader refuses less
            raise Unprintable(f"the symbol {name} has no lower bound at 0 or above (got {low})")
        if not (-INT64_MAX - 1 <= low <= hint and (high is None or hint <= high <= INT64_MAX)):
            raise Unprintable(f"the hint {hint} of {name} is outside its range [{low}, {high}]")
        sources = getattr(env, "var_to_sources", {}).get(sym) or []
        return {"name": name, "hint": hint, "source": _source_name(sources[0]) if sources else "",
                "min": low, "max": high}

    def _warn(self, what: str, why: str) -> None:
        if not self._warned:
            self._warned = True
            warnings.warn(f"fxmem_export: {what}: its symbolic size is written as its hint only ({why}); "
                          "the file gives the hinted number for it at every size", stacklevel=4)

    def entries(self) -> list[dict[str, Any]]:
        """The file's "symbols", in the order the ShapeEnv created them (batch before sequence
        for a tensor marked dynamic in both)."""
        return [self.symbols[n] for n in sorted(self.symbols, key=lambda n: (*self._order[n], n))]
