"""Print the README's operator table, generated from the op table (``descriptors.ROWS``).

    python tools/gen_readme_ops.py           # print the markdown table
    python tools/gen_readme_ops.py --write   # replace it in README.md between the markers

The README holds the output between ``<!-- ops:begin -->`` and ``<!-- ops:end -->``;
``tests/frontends/test_cli.py`` fails when that copy is out of date.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from descriptors import ROWS, DataType  # noqa: E402
from descriptors.schema import CompositeRow, ElementwiseRow, OpRow, Reduction, ReductionRow, ScanRow  # noqa: E402

BEGIN, END = "<!-- ops:begin -->", "<!-- ops:end -->"
README = ROOT / "README.md"


def _cell(text: str) -> str:
    """Escape what would break a GitHub-flavoured markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _extension(row: OpRow, variant: str | None = None) -> str:
    parts = []
    if row.extension:
        parts.append("gpuops operator")
    ext: set[DataType] = set()
    for types in row.extension_types_for(variant).values():
        ext |= types
    if ext:
        parts.append("types: " + ", ".join(t.name for t in sorted(ext, key=DataType.doc_order)))
    return "; ".join(parts) or "no"


def _accuracy(row: ElementwiseRow | CompositeRow | ScanRow) -> str:
    """The row's stated float32 bound (descriptors/accuracy.py; a composite's or scan's ``error_bound``), or exact /
    one IEEE operation."""
    if isinstance(row, CompositeRow | ScanRow):
        return _cell(row.error_bound)
    acc = row.accuracy
    if acc is None:
        return "exact or 0.5 ulp"
    ulps, atol = acc.bound
    text = "exact" if ulps == 0 and atol == 0 else f"{ulps:g} ulp"
    per = "·\\|dd\\|" if acc.per_dd else ""
    domain = acc.domain
    return text + (f" + {atol:g}{per} absolute" if atol else "") + (f"; domain: {domain}" if domain else "")


# Reduction.error kinds (descriptors/schema.py), as the README states them; u is the unit
# roundoff of the accumulator (float32 for float16, bfloat16 and float32), n the count.
_REDUCE_BOUNDS = {
    "exact": "exact",
    "sum": "{c:g}·n·u·Σ\\|map(x)\\|",
    "mean": "{c:g}·u·(Σ\\|x\\| + \\|result\\|)",
    "relative": "{c:g}·n·u·\\|result\\|",
    "log": "{c:g}·(n·u·Σ\\|x\\| / \\|Σx\\| + 2u·\\|result\\|)",
    "lse": "{c:g}·(n+8)·u·max(1, \\|result\\|)",
}


def _reduce_accuracy(red: Reduction) -> str:
    kind, c = red.error
    bound = _REDUCE_BOUNDS[kind].format(c=c)
    return bound if kind == "exact" else bound + " + rounding"


def _reduction_lines(row: ReductionRow) -> list[str]:
    """Reductions: one line per selector value with its own tables (REDUCE's functions)."""
    lines = []
    for variant, red in row.reductions.items():
        if not row.variants and variant != next(iter(row.reductions)):
            continue
        name = f"`{row.name}` {variant}" if row.variants else f"`{row.name}`"
        summary = red.summary if row.variants else row.summary
        level = row.introduced_for(variant if row.variants else None)
        ext = _extension(row, variant if row.variants else None)
        lines.append(f"| {name} | {_cell(summary)} | FL {level.label} | no | {_reduce_accuracy(red)} | {_cell(ext)} |")
    return lines


def ops_table() -> str:
    """The markdown table: one line per op-table row, in table order."""
    lines = [
        "| operator | formula | introduced | in-place | float32 accuracy | extension |",
        "|---|---|---|---|---|---|",
    ]
    for row in ROWS:
        if isinstance(row, ReductionRow):
            lines += _reduction_lines(row)
            continue
        lines.append(
            f"| `{row.name}` | {_cell(row.summary)} | FL {row.introduced.label} | "
            f"{'yes' if row.in_place else 'no'} | {_accuracy(row)} | {_cell(_extension(row))} |"
        )
    return "\n".join(lines) + "\n"


def readme_table(text: str) -> str:
    """What the README currently holds between the markers."""
    start = text.index(BEGIN) + len(BEGIN)
    return text[start : text.index(END)].strip("\n") + "\n"


def write_readme(path: Path = README) -> bool:
    """Replace the table in the README; True when it changed."""
    text = path.read_text(encoding="utf-8")
    start = text.index(BEGIN) + len(BEGIN)
    end = text.index(END)
    new = text[:start] + "\n" + ops_table() + text[end:]
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"update {README.name} in place")
    args = parser.parse_args(argv)
    if args.write:
        changed = write_readme()
        print(f"{README.name}: {'updated' if changed else 'already up to date'}")
    else:
        sys.stdout.write(ops_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
