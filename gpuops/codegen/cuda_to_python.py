"""CUDA expression text -> Python text for numba: the translator of the NumPy backend's compiled tier.

Pure string work. Accepts only operations IEEE 754 rounds exactly (``+ - * /``, ``sqrt``, ``fabs``, comparisons,
``&& || !``, ``?:``, the casts ``T(...)``, CUDA's ``__fadd_rn``-style intrinsics and gpuops' one-expression helpers
made of those, inlined from ``descriptors/cuda_helpers.py``); anything else raises :class:`Untranslatable`. C's rules
where Python's differ: every binary operation is parenthesized, ``c ? a : b`` becomes ``(a if c else b)``, an integer
literal becomes ``T(n)`` and a floating literal is only accepted as the argument of ``T(...)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from descriptors.optable import HELPERS

__all__ = ["Untranslatable", "translate"]

# C functions with correctly rounded results in both libm/NVRTC and NumPy: their numba forms.
_FUNCTIONS = {"sqrt": "np.sqrt", "fabs": "abs"}
# CUDA's round-to-nearest intrinsics (never contracted into an FMA): plain operators here.
_ROUNDED = {"__fadd_rn": "+", "__dadd_rn": "+", "__fmul_rn": "*", "__dmul_rn": "*"}
# gpuops' one-expression CUDA helpers (``descriptors.cuda_helpers``), inlined from their own source:
# ``[template <typename F>] __device__ __forceinline__ R name(params) { return <expr>; }``.
_HELPER_DEF = re.compile(
    r"(?:template\s*<typename (?P<tp>\w+)>\s*)?__device__ __forceinline__ \w+ (?P<name>gpuops_\w+)"
    r"\((?P<params>[^)]*)\)\s*\{\s*return (?P<body>[^;{}]*);\s*\}"
)


def _helpers() -> dict[str, tuple[tuple[str, ...], str, str | None]]:
    """name -> (parameter names, body expression, template type name) of each one-expression
    helper (the first overload: the float and double ones differ only in intrinsic names)."""
    out: dict[str, tuple[tuple[str, ...], str, str | None]] = {}
    for source, _ in HELPERS.values():
        for m in _HELPER_DEF.finditer(source):
            params = tuple(p.split()[-1] for p in m["params"].split(",") if p.strip())
            out.setdefault(m["name"], (params, m["body"], m["tp"]))
    return out


_HELPERS = _helpers()


class Untranslatable(ValueError):
    """The expression uses something the compiled tier does not translate (it stays on NumPy)."""


_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\.\d+(?:[eE][-+]?\d+)?|\d+)"
    r"|(?P<name>[A-Za-z_]\w*)|(?P<op>&&|\|\||==|!=|<=|>=|[-+*/<>!?:(),]))"
)
# Binary operators by C precedence, loosest first, with their Python spelling.
_BINARY = (
    {"||": "or"},
    {"&&": "and"},
    {"==": "==", "!=": "!="},
    {"<": "<", ">": ">", "<=": "<=", ">=": ">="},
    {"+": "+", "-": "-"},
    {"*": "*", "/": "/"},
)


class _Parser:
    """Recursive descent over the C expression subset; each method returns Python source."""

    def __init__(self, text: str, names: Mapping[str, str], casts: frozenset[str] = frozenset({"T"})) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise Untranslatable(f"cannot read {text[pos:]!r}")
            kind = m.lastgroup
            if kind is None:  # every alternative of _TOKEN is a named group
                raise Untranslatable(f"cannot read {text[pos:]!r}")
            self.tokens.append((kind, m.group(kind)))
            pos = m.end()
        self.i = 0
        self.names = names
        self.casts = casts  # T, and a helper's template type (its arguments' type: T here too)

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise Untranslatable("unexpected end of expression")
        tok = self.tokens[self.i]
        if expected is not None and tok[1] != expected:
            raise Untranslatable(f"expected {expected!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def parse(self) -> str:
        out = self.ternary()
        if self.i != len(self.tokens):
            raise Untranslatable(f"unexpected {self.tokens[self.i][1]!r}")
        return out

    def ternary(self) -> str:
        cond = self.binary(0)
        if self.peek() != "?":
            return cond
        self.take("?")
        a = self.ternary()
        self.take(":")
        b = self.ternary()
        return f"({a} if {cond} else {b})"

    def binary(self, level: int) -> str:
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            op = _BINARY[level][self.take()[1]]
            right = self.binary(level + 1)
            left = f"({left} {op} {right})"
        return left

    def unary(self) -> str:
        if self.peek() == "-":
            self.take()
            return f"(-{self.unary()})"
        if self.peek() == "!":
            self.take()
            return f"(not {self.unary()})"
        return self.primary()

    def primary(self) -> str:
        kind, text = self.take()
        if text == "(":
            inner = self.ternary()
            self.take(")")
            return f"({inner})"
        if kind == "num":
            if not text.isdigit():
                raise Untranslatable(f"floating literal {text} outside T(...)")
            return f"T({text})"
        if kind != "name":
            raise Untranslatable(f"unexpected {text!r}")
        if self.peek() == "(":
            return self.call(text)
        if text not in self.names:
            raise Untranslatable(f"unknown name {text!r}")
        return self.names[text]

    def call(self, fn: str) -> str:
        self.take("(")
        if fn in self.casts:
            if self.tokens[self.i][0] == "num" and self.i + 1 < len(self.tokens) and self.tokens[self.i + 1][1] == ")":
                literal = self.take()[1]
                self.take(")")
                return f"T({literal})"
            inner = self.ternary()
            self.take(")")
            return f"T({inner})"
        args = [self.ternary()]
        while self.peek() == ",":
            self.take(",")
            args.append(self.ternary())
        self.take(")")
        if fn in _FUNCTIONS and len(args) == 1:
            return f"T({_FUNCTIONS[fn]}({args[0]}))"
        if fn in _ROUNDED and len(args) == 2:
            return f"({args[0]} {_ROUNDED[fn]} {args[1]})"
        if fn in _HELPERS:
            params, body, tp = _HELPERS[fn]
            if len(params) != len(args):
                raise Untranslatable(f"{fn} takes {len(params)} arguments, given {len(args)}")
            casts = self.casts | ({tp} if tp else set())
            return f"({_Parser(body, dict(zip(params, args, strict=True)), frozenset(casts)).parse()})"
        raise Untranslatable(f"function {fn!r} is not exactly rounded everywhere")


def translate(expr: str, names: Mapping[str, str]) -> str:
    """The C expression ``expr`` as a Python (numba) expression; ``names`` maps C names to Python ones.

    Raises :class:`Untranslatable` for anything outside the exactly rounded subset.
    """
    return _Parser(expr, names).parse()
