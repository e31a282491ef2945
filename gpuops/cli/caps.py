"""``gpuops caps``: the capability tables as plain text, at most ``WIDTH`` columns wide.

The data-type columns wrap onto continuation lines to fit; ``wide=True`` keeps each tensor on
one line and adds the provenance (the DirectML page each table comes from). ``--json`` prints
``OperatorSupport.to_dict()``, provenance included.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Sequence

from descriptors import ROWS, DataType, FeatureLevel, OperatorSupport, OperatorType, operator_support, row_of
from descriptors.schema import ReductionRow

from .names import parse_level, resolve_operator, short_name

__all__ = ["WIDTH", "add_caps_parser", "cmd_caps", "format_support", "format_table"]

WIDTH = 100


def _dims(counts: Sequence[int]) -> str:
    if not counts:
        return "-"
    lo, hi = min(counts), max(counts)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _types(types: Sequence[DataType]) -> str:
    return " ".join(t.name for t in types) or "-"


def _fit(widths: list[int], floors: list[int], budget: int) -> list[int]:
    """Narrow the widest column that can still shrink until the total fits ``budget``."""
    widths = list(widths)
    while sum(widths) > budget:
        i = max((i for i, w in enumerate(widths) if w > floors[i]), key=lambda i: widths[i], default=None)
        if i is None:
            break  # cannot fit: the words themselves are too long
        widths[i] -= 1
    return widths


def format_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "  ", width: int | None = WIDTH
) -> list[str]:
    """Left-aligned columns two spaces apart; with a ``width``, long cells wrap at spaces to fit it."""
    natural = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    widths = natural
    if width is not None:
        floors = [max(len(h), *(len(w) for r in rows for w in r[i].split()), 1) for i, h in enumerate(headers)]
        widths = _fit(natural, floors, width - len(indent) - 2 * (len(headers) - 1))
    wrapped = [
        [textwrap.wrap(c, w, break_long_words=False) or [""] for c, w in zip(r, widths, strict=True)] for r in rows
    ]
    widths = [max(len(h), *(len(line) for r in wrapped for line in r[i])) for i, h in enumerate(headers)]
    fmt = indent + "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*headers).rstrip(), fmt.format(*("-" * w for w in widths)).rstrip()]
    for cells in wrapped:
        for k in range(max(len(c) for c in cells)):
            lines.append(fmt.format(*(c[k] if k < len(c) else "" for c in cells)).rstrip())
    return lines


def _wrap(text: str, indent: str, width: int | None, hang: str = "  ") -> list[str]:
    """``text`` from ``indent``, continuation lines ``hang`` further in; one line when ``width`` is None."""
    if width is None:
        return [indent + text]
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + hang, break_long_words=False)


def _body(s: OperatorSupport, extensions: bool, width: int | None, indent: str, provenance: bool) -> list[str]:
    """Everything below the title: support line, tensor table, same-type groups, variants."""
    row = row_of(s.operator_type)
    if not s.supported:
        if row.extension and not extensions:
            why = "a gpuops extension operator; extensions are off (--no-extensions)"
        else:
            why = f"introduced at FL {s.introduced.label}"
        return _wrap(f"not supported at FL {s.feature_level.label}: {why}", indent, width)
    lines = _wrap(f"introduced at FL {s.introduced.label}; in-place: {'yes' if s.in_place else 'no'}", indent, width)
    if provenance:
        lines += _wrap(f"source: {s.source}", indent, width)
    headers = ("tensor", "kind", "dims", "DirectML types", "extension types")
    cells = [
        (t.name, t.kind, _dims(t.dimension_counts), _types(t.data_types), _types(t.extension_data_types))
        for t in s.tensors
    ]
    lines += format_table(headers, cells, indent, width)
    groups = "; ".join(", ".join(g) for g in s.same_type)
    if groups:
        lines += _wrap(f"same data type: {groups}", indent, width)
    if s.variants:
        if not isinstance(row, ReductionRow):
            raise TypeError(f"{row.name} has capability variants but is not a reduction (ReductionRow)")
        selector = row.selector
        lines += _wrap(f"the tables above are the union over {selector}; each {selector} accepts:", indent, width)
        for v in s.variants:
            lines.append(f"{indent}{selector} {v.variant}:")
            lines += _body(v, extensions, width, indent + "  ", provenance)
    return lines


def format_support(s: OperatorSupport, extensions: bool = True, width: int | None = WIDTH) -> str:
    """The plain-text capability table of one operator at one level.

    ``width=None`` is the wide form: no wrapping, and each table's source page.
    """
    row = row_of(s.operator_type)
    title = f"{s.operator_type.name} ({short_name(s.operator_type)}): {row.summary}"
    if row.extension:
        title += "  (gpuops extension)"
    lines = _wrap(title, "", width, hang="    ")
    lines += _body(s, extensions, width, "  ", provenance=width is None)
    return "\n".join(lines)


def cmd_caps(args: argparse.Namespace) -> int:
    """Print the tables of the operators asked for (all by default) at one feature level."""
    level = parse_level(args.feature_level)
    names = [*args.operators, *(args.op or ())]
    ops = [resolve_operator(n) for n in names] if names else [OperatorType[r.name] for r in ROWS]
    ops = list(dict.fromkeys(ops))
    supports = [operator_support(op, level, extensions=not args.no_extensions) for op in ops]
    if args.json:
        print(json.dumps([s.to_dict() for s in supports], indent=2))
        return 0
    ext = "off" if args.no_extensions else "on"
    print(f"gpuops capability tables at FL {level.label} (extensions {ext}); dims = allowed dimension counts\n")
    width = None if args.wide else WIDTH
    print("\n\n".join(format_support(s, not args.no_extensions, width) for s in supports))
    return 0


def add_caps_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``caps`` and its options on the main parser's subcommands."""
    caps = sub.add_parser(
        "caps",
        help="per-operator capability tables (dims and data types by feature level)",
        description="Per-operator capability tables: the dimension counts and data types each tensor "
        f"accepts at one feature level. Plain text fits {WIDTH} columns; --wide and --json add provenance.",
        epilog="Operators by short name (add, sub, mul, relu, gelu, reduce, ...), NumPy-style synonym or "
        "DirectML name (ELEMENT_WISE_ADD), in any case. Levels as 5_1, 5.1, FL_5_1 or 0x5100.",
    )
    caps.add_argument("operators", nargs="*", metavar="OP", help="operators to show (default: all)")
    caps.add_argument("--op", action="append", metavar="OP", help="an operator to show (repeatable)")
    caps.add_argument(
        "--level",
        "--feature-level",
        dest="feature_level",
        default=FeatureLevel.FL_6_4.label,
        metavar="LEVEL",
        help=f"DirectML feature level: 5_1, 5.1, FL_5_1 or 0x5100 (default {FeatureLevel.FL_6_4.label})",
    )
    caps.add_argument("--json", action="store_true", help="print a JSON list of OperatorSupport.to_dict()")
    caps.add_argument("--wide", action="store_true", help=f"one line per tensor (wider than {WIDTH}), with sources")
    caps.add_argument("--no-extensions", action="store_true", help="DirectML's own tables only (no gpuops extensions)")
    caps.set_defaults(func=cmd_caps)
