"""Convert a Web Platform Tests WebNN conformance file (``webnn/conformance_tests/<op>.https.any.js``) to JSON.

    python tools/extract_wpt_webnn.py /tmp/wpt/add.https.any.js --repository servo/servo \\
        --path tests/wpt/tests/webnn/conformance_tests/add.https.any.js --commit <40 hex> \\
        -o tests/conformance/webnn/add.json

A conformance file is JavaScript: a tolerance function, one ``const <name>Tests = [ ... ];`` array of test
cases (object literals: ``name`` and ``graph`` with ``inputs``, ``operators``, ``expectedOutputs``), and the
call that runs them. This script reads the array with a small parser of JavaScript literals, not by
evaluating code:

* objects (keys unquoted, single- or double-quoted, or numeric), arrays, strings (escapes ``\\n \\t \\' \\"
  \\\\ \\xHH \\uXXXX \\u{X...}``), ``true``, ``false``, ``null``;
* numbers as JavaScript reads them (every number a double: ``9223372036854775807`` is 2**63), ``Infinity``,
  ``NaN``, and simple arithmetic on them: unary ``+``/``-``, binary ``+ - * /``, parentheses;
* an identifier that names a top-level ``const NAME = <literal>;`` of the same file (its literal, parsed the
  same way);
* ``//`` and ``/* */`` comments, trailing commas; a ``const`` ends at ``;`` or where automatic semicolon
  insertion ends it (a line break before an identifier, a ``}`` or the end of the text).

Anything else (a function call, a template string, a spread, an array hole, an unknown identifier) stops the
script with the line and column: it refuses what it cannot read rather than guess.

The tolerance rule is read from the call that runs the tests (``webnn_conformance_test(...)``): the function it
names, when the file defines it as ``{float32: 1, float16: 1}``-style ``toleranceValueDict`` with a literal
``metricType``, is recorded as ``{"kind": "per_type", "metricType": "ULP", "values": {...}}``; a reduction
file's ``getReducedElementCount(graphResources) * a + b`` as ``{"kind": "reduced_element_count", ...}`` and
a literal ``value`` as ``{"kind": "constant", ...}``; a function of another form is recorded with its source
text (``{"kind": "js", ...}``), and one the file does not define (the shared ``getPrecisionTolerance`` of
``webnn/resources/utils.js``) as ``{"kind": "utils", ...}``. The test module implements those (a ``js`` rule by
its exact source text) and fails on a rule it does not know.

The JSON holds the source (repository, path, commit, character count and SHA-256 of the text read), the
command line that produced it, the tolerance, and the cases with every value as JavaScript sees it. Numbers
that are integers (and not -0) are written as JSON integers, others as floats (the shortest repr that
reads back to the same double); ``NaN``, ``Infinity`` and ``-Infinity`` as Python's ``json`` writes them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["ExtractError", "JSLiteralParser", "extract", "main"]


class ExtractError(ValueError):
    """The JavaScript holds something this converter does not read."""


_PUNCT = "[]{}(),:+-*/;"
_NUMBER = re.compile(r"(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


class _Tok:
    __slots__ = ("kind", "value", "pos")

    def __init__(self, kind: str, value: Any, pos: int) -> None:
        self.kind = kind  # "num", "str", "ident", "punct", "eof"
        self.value = value
        self.pos = pos


class JSLiteralParser:
    """Parses one JavaScript literal expression of ``text`` starting at ``start``.

    ``resolve(name)`` returns the value of an identifier (or raises ``ExtractError``).
    """

    def __init__(self, text: str, start: int, resolve: Callable[[str, int], Any]) -> None:
        self.text = text
        self.i = start
        self.resolve = resolve
        self.prev_end = start
        self.tok = self._next()

    # -- errors ---------------------------------------------------------------------------------------

    def where(self, pos: int) -> str:
        line = self.text.count("\n", 0, pos) + 1
        col = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return f"line {line}, column {col}"

    def fail(self, what: str, pos: int | None = None) -> ExtractError:
        p = self.tok.pos if pos is None else pos
        snippet = self.text[p : p + 40].split("\n")[0]
        return ExtractError(f"{self.where(p)}: {what} (at {snippet!r})")

    # -- tokens ---------------------------------------------------------------------------------------

    def _skip_space(self) -> None:
        t = self.text
        while self.i < len(t):
            c = t[self.i]
            if c.isspace():
                self.i += 1
            elif t.startswith("//", self.i):
                end = t.find("\n", self.i)
                self.i = len(t) if end < 0 else end + 1
            elif t.startswith("/*", self.i):
                end = t.find("*/", self.i + 2)
                if end < 0:
                    raise self.fail("unterminated /* comment", self.i)
                self.i = end + 2
            else:
                return

    def _next(self) -> _Tok:
        self._skip_space()
        t, i = self.text, self.i
        if i >= len(t):
            return _Tok("eof", None, i)
        c = t[i]
        if c in "'\"":
            return self._string(c)
        if c == "`":
            raise ExtractError(f"{self.where(i)}: template strings are not read")
        if t.startswith("...", i):
            raise ExtractError(f"{self.where(i)}: spread syntax is not read")
        m = _NUMBER.match(t, i)
        if m and (c.isdigit() or c == "."):
            self.i = m.end()
            if self.i < len(t) and (_IDENT.match(t, self.i) or t[self.i] == "n"):
                raise ExtractError(f"{self.where(i)}: number {t[i : self.i + 1]!r} is not read (BigInt or malformed)")
            return _Tok("num", _number(m.group()), i)
        m = _IDENT.match(t, i)
        if m:
            self.i = m.end()
            return _Tok("ident", m.group(), i)
        if c in _PUNCT:
            self.i = i + 1
            return _Tok("punct", c, i)
        raise ExtractError(f"{self.where(i)}: unexpected character {c!r}")

    def _string(self, quote: str) -> _Tok:
        t, start = self.text, self.i
        i = start + 1
        out: list[str] = []
        while True:
            if i >= len(t) or t[i] == "\n":
                raise ExtractError(f"{self.where(start)}: unterminated string")
            c = t[i]
            if c == quote:
                self.i = i + 1
                return _Tok("str", "".join(out), start)
            if c != "\\":
                out.append(c)
                i += 1
                continue
            e = t[i + 1]
            if e in _ESCAPES and not (e == "0" and t[i + 2 : i + 3].isdigit()):
                out.append(_ESCAPES[e])
                i += 2
            elif e == "x":
                out.append(chr(int(t[i + 2 : i + 4], 16)))
                i += 4
            elif e == "u" and t[i + 2] == "{":
                end = t.index("}", i)
                out.append(chr(int(t[i + 3 : end], 16)))
                i = end + 1
            elif e == "u":
                out.append(chr(int(t[i + 2 : i + 6], 16)))
                i += 6
            elif e in "'\"\\/":
                out.append(e)
                i += 2
            else:
                raise ExtractError(f"{self.where(i)}: escape \\{e} is not read")
        # unreachable

    def advance(self) -> _Tok:
        tok = self.tok
        self.prev_end = self.i  # where the token being consumed ends
        self.tok = self._next()
        return tok

    def at_statement_end(self) -> bool:
        """A ``;``, or the end JavaScript's automatic semicolon insertion gives a literal: a line break before a
        token that cannot continue the expression (an identifier, a ``}``, the end of the text)."""
        if self.at(";"):
            return True
        broken = "\n" in self.text[self.prev_end : self.tok.pos]
        return broken and (self.tok.kind in ("ident", "eof") or self.at("}"))

    def expect(self, value: str) -> None:
        if self.tok.kind != "punct" or self.tok.value != value:
            raise self.fail(f"expected {value!r}")
        self.advance()

    def at(self, value: str) -> bool:
        return self.tok.kind == "punct" and self.tok.value == value

    # -- grammar --------------------------------------------------------------------------------------

    def value(self) -> Any:
        """A literal: object, array, string, number expression, true/false/null, or a const's name."""
        tok = self.tok
        if self.at("{"):
            return self._object()
        if self.at("["):
            return self._array()
        if tok.kind == "str":
            self.advance()
            if self.at("+") or self.at("-") or self.at("*") or self.at("/"):
                raise self.fail("string arithmetic is not read")
            return tok.value
        if tok.kind == "ident" and tok.value in ("true", "false", "null"):
            self.advance()
            return {"true": True, "false": False, "null": None}[tok.value]
        if tok.kind == "ident" and tok.value not in ("Infinity", "NaN"):
            self.advance()
            if self.at("(") or self.at("."):
                raise self.fail(f"{tok.value}{self.tok.value}...: calls and member access are not read", tok.pos)
            if self.at("+") or self.at("-") or self.at("*") or self.at("/"):
                raise self.fail(f"arithmetic on identifier {tok.value!r} is not read", tok.pos)
            return self.resolve(tok.value, tok.pos)
        return self._expr()

    def _object(self) -> dict[str, Any]:
        self.expect("{")
        out: dict[str, Any] = {}
        while not self.at("}"):
            tok = self.tok
            if tok.kind in ("ident", "str"):
                key = tok.value
            elif tok.kind == "num":
                key = _js_number_string(tok.value)
            else:
                raise self.fail("expected a property name")
            self.advance()
            if not self.at(":"):
                raise self.fail(f"property {key!r}: shorthand and methods are not read")
            self.advance()
            if key in out:
                raise self.fail(f"property {key!r} given twice", tok.pos)
            out[key] = self.value()
            if self.at(","):
                self.advance()
            elif not self.at("}"):
                raise self.fail("expected ',' or '}'")
        self.advance()
        return out

    def _array(self) -> list[Any]:
        self.expect("[")
        out: list[Any] = []
        while not self.at("]"):
            if self.at(","):
                raise self.fail("array holes are not read")
            out.append(self.value())
            if self.at(","):
                self.advance()
            elif not self.at("]"):
                raise self.fail("expected ',' or ']'")
        self.advance()
        return out

    def _expr(self) -> float:
        v = self._term()
        while self.at("+") or self.at("-"):
            op = self.advance().value
            w = self._term()
            v = v + w if op == "+" else v - w
        return v

    def _term(self) -> float:
        v = self._unary()
        while self.at("*") or self.at("/"):
            op = self.advance().value
            w = self._unary()
            v = v * w if op == "*" else _js_div(v, w)
        return v

    def _unary(self) -> float:
        if self.at("-"):
            self.advance()
            return -self._unary()
        if self.at("+"):
            self.advance()
            return +self._unary()
        tok = self.tok
        if self.at("("):
            self.advance()
            v = self._expr()
            self.expect(")")
            return v
        if tok.kind == "num":
            self.advance()
            return float(tok.value)
        if tok.kind == "ident" and tok.value == "Infinity":
            self.advance()
            return math.inf
        if tok.kind == "ident" and tok.value == "NaN":
            self.advance()
            return math.nan
        raise self.fail("expected a number")


def _number(text: str) -> float:
    """A JavaScript numeric literal's value (a double)."""
    low = text.lower()
    if low.startswith("0x"):
        return float(int(text[2:], 16))
    if low.startswith("0o"):
        return float(int(text[2:], 8))
    if low.startswith("0b"):
        return float(int(text[2:], 2))
    if len(text) > 1 and text[0] == "0" and text[1].isdigit():
        raise ExtractError(f"legacy octal-looking literal {text!r} is not read")
    return float(text)


def _js_div(a: float, b: float) -> float:
    if b == 0:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _js_number_string(v: float) -> str:
    return str(int(v)) if v.is_integer() else repr(v)


def _jsonable(v: Any) -> Any:
    """Numbers as JSON: integral doubles (not -0) as integers, the rest as floats."""
    if isinstance(v, float):
        if math.isfinite(v) and v.is_integer() and not (v == 0 and math.copysign(1.0, v) < 0):
            return int(v)
        return v
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v


_CONST = re.compile(r"^(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*", re.M)


def _top_level_consts(text: str) -> dict[str, int]:
    """Name -> offset of the value of each ``const NAME = `` at the start of a line."""
    return {m.group(1): m.end() for m in _CONST.finditer(text)}


def parse_const(text: str, name: str) -> Any:
    """The literal value of the top-level ``const name = ...;`` of ``text``."""
    consts = _top_level_consts(text)
    busy: set[str] = set()
    cache: dict[str, Any] = {}

    def resolve(ident: str, pos: int) -> Any:
        if ident in cache:
            return cache[ident]
        if ident not in consts:
            raise ExtractError(f"identifier {ident!r} (offset {pos}) is not a top-level const of this file")
        if ident in busy:
            raise ExtractError(f"const {ident!r} refers to itself")
        busy.add(ident)
        p = JSLiteralParser(text, consts[ident], resolve)
        value = p.value()
        if not p.at_statement_end():
            raise p.fail(f"const {ident}: expected ';' (or a line break) after the literal")
        busy.discard(ident)
        cache[ident] = value
        return value

    return resolve(name, consts.get(name, -1))


# -- tolerance --------------------------------------------------------------------------------------------

_RUNNER = re.compile(r"webnn_conformance_test\s*\(([^()]*)\)", re.S)
_DICT = re.compile(r"toleranceValueDict\s*=\s*(\{[^{}]*\})")
_METRIC = re.compile(r"metricType\s*:\s*'(ULP|ATOL)'")


def _function_source(text: str, name: str) -> str | None:
    """The text of ``const name = (...) => { ... };`` (braces matched), or None."""
    m = re.search(rf"^const\s+{re.escape(name)}\s*=", text, re.M)
    if m is None:
        return None
    start = text.index("{", m.end())
    depth = 0
    for j in range(start, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                end = text.find(";", j)
                return text[m.start() : (end + 1 if end >= 0 else j + 1)]
    raise ExtractError(f"function {name}: unbalanced braces")


def tolerance_rule(text: str) -> dict[str, Any]:
    """The tolerance function the file's ``webnn_conformance_test`` calls name, as data (see the module doc)."""
    calls = {tuple(a.strip() for a in m.group(1).split(",")) for m in _RUNNER.finditer(text)}
    names = {a for args in calls for a in args if a.endswith("Tolerance")}
    if len(names) != 1:
        raise ExtractError(f"expected one tolerance function in webnn_conformance_test calls, found {sorted(names)}")
    name = names.pop()
    source = _function_source(text, name)
    if source is None:
        return {"kind": "utils", "function": name}
    dicts, metrics = _DICT.findall(source), set(_METRIC.findall(source))
    simple = (
        len(dicts) == 1
        and len(metrics) == 1
        and "toleranceValueDict[expectedDataType]" in source
        and source.count("toleranceValueDict") == 2
    )
    if simple:
        try:
            values = JSLiteralParser(dicts[0], 0, _no_identifiers).value()
        except ExtractError:  # a table of computed values: the function is recorded as written
            values = None
        if values is not None:
            return {"kind": "per_type", "function": name, "metricType": metrics.pop(), "values": _jsonable(values)}
    m = _REDUCED.fullmatch(source.split("=>", 1)[1].strip()) if "=>" in source else None
    if m:
        return {
            "kind": "reduced_element_count",
            "function": name,
            "metricType": m.group(1),
            "multiplier": int(m.group(2) or 1),
            "offset": int(m.group(3) or 0),
            "source": source,
        }
    m = _CONSTANT.fullmatch(source.split("=>", 1)[1].strip()) if "=>" in source else None
    if m:
        value = JSLiteralParser(m.group(2), 0, _no_identifiers).value()
        return {"kind": "constant", "function": name, "metricType": m.group(1), "value": _jsonable(value)}
    return {"kind": "js", "function": name, "source": source}


# A rule of one value for every case: ``{return {metricType: 'ULP', value: 0};}``.
_CONSTANT = re.compile(r"\{\s*return\s*\{\s*metricType:\s*'(ULP|ATOL)',\s*value:\s*([-+.\d/eE ]+?)\s*,?\s*\};?\s*\};?")

# A reduction file's rule: ``{metricType, value: getReducedElementCount(graphResources) [* a] [+ b]}``.
_REDUCED = re.compile(
    r"\{\s*return\s*\{\s*metricType:\s*'(ULP|ATOL)',\s*value:\s*getReducedElementCount\(graphResources\)"
    r"\s*(?:\*\s*(\d+))?\s*(?:\+\s*(\d+))?\s*,?\s*\};?\s*\};?"
)


def _no_identifiers(name: str, pos: int) -> Any:
    raise ExtractError(f"identifier {name!r} in a tolerance table is not read")


# -- the file ---------------------------------------------------------------------------------------------

_TESTS = re.compile(r"^const\s+([A-Za-z_$][\w$]*Tests)\s*=\s*\[", re.M)


def extract(text: str) -> dict[str, Any]:
    """``{"arrays": [names], "tolerance": rule, "tests": [cases]}`` of a conformance file's text."""
    names = [m.group(1) for m in _TESTS.finditer(text)]
    if not names:
        raise ExtractError("no top-level 'const <name>Tests = [' array")
    tests: list[Any] = []
    for name in names:
        value = parse_const(text, name)
        for case in value:
            if not isinstance(case, dict) or set(case) - {"name", "graph"} or "graph" not in case:
                raise ExtractError(f"{name}: a case is not {{name, graph}}: {str(case)[:80]}")
            graph = case["graph"]
            if set(graph) != {"inputs", "operators", "expectedOutputs"}:
                raise ExtractError(f"{name}: case {case.get('name')!r} has graph keys {sorted(graph)}")
        tests.extend(value)
    seen: set[str] = set()
    for case in tests:
        if case["name"] in seen:
            raise ExtractError(f"case name {case['name']!r} appears twice")
        seen.add(case["name"])
    return {"arrays": names, "tolerance": tolerance_rule(text), "tests": _jsonable(tests)}


def dumps(value: Any, indent: str = "") -> str:
    """JSON, indented by one space a level, with lists of numbers/strings kept on one line."""
    inner = indent + " "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {dumps(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(inner + dumps(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("js", type=Path, help="the conformance file's text (read with the search tool's read_file)")
    ap.add_argument("--repository", default="servo/servo")
    ap.add_argument("--path", required=True, help="the file's path in the repository")
    ap.add_argument("--commit", required=True, help="the commit id of the version read")
    ap.add_argument("-o", "--output", type=Path, required=True)
    args = ap.parse_args(argv)
    if not re.fullmatch(r"[0-9a-f]{40}", args.commit):
        ap.error(f"--commit must be 40 lowercase hex digits, got {args.commit!r}")
    raw = args.js.read_bytes()
    text = raw.decode("utf-8")
    try:
        data = extract(text)
    except ExtractError as exc:
        print(f"{args.js}: {exc}", file=sys.stderr)
        return 1
    command = shlex.join(["python", "tools/extract_wpt_webnn.py", *(sys.argv[1:] if argv is None else argv)])
    out = {
        "source": {
            "repository": args.repository,
            "path": args.path,
            "commit": args.commit,
            "chars": len(text),
            "sha256": hashlib.sha256(raw).hexdigest(),
        },
        "command": command,
        **data,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(dumps(out) + "\n", encoding="utf-8")
    print(f"{args.output}: {len(data['tests'])} cases from {', '.join(data['arrays'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
