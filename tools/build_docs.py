"""Build the API reference from the docstrings with pdoc: a static, searchable HTML site.

    python tools/build_docs.py [--out build/docs]

then open ``build/docs/index.html``. Any warning (from pdoc or from importing the modules) fails
the build with exit code 1, so CI keeps the reference clean. The docstrings are reStructuredText;
pdoc renders most of it, and the simple tables (``=====  =====``) are turned into Markdown tables
here (``simple_tables``), which pdoc does not do itself.
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "build" / "docs"
TEMPLATES = ROOT / "tools" / "pdoc_templates"  # documents __call__ and the DLPack methods (pdoc hides dunders)

# pdoc module specs: the public packages with their public submodules; "!" excludes one.
MODULES = (
    "descriptors",
    "!descriptors.validate",  # the module behind descriptors.validate(), documented on the package page
    "gpuops",
    "gpuops.dask",
    "gpuops.frontends",
    "!gpuops.frontends._common",
)

# Warnings that say nothing about the docstrings. dataclasses.make_dataclass keeps the KW_ONLY
# marker ``_`` in each operator descriptor's __annotations__, where pdoc cannot place it (it is
# private and never rendered).
IGNORED = (re.compile(r"Cannot determine where descriptors\.\w+OperatorDesc\._ is taken from"),)


_BORDER = re.compile(r"^ *=+( +=+)+ *$")


class DocsWarning(Exception):
    """The build emitted warnings; the message lists them."""


def _cells(line: str, starts: Sequence[int]) -> list[str]:
    ends = [*starts[1:], None]
    return [line[a:b].strip().replace("|", "\\|") for a, b in zip(starts, ends, strict=True)]


def _rows(lines: Sequence[str], starts: Sequence[int]) -> list[list[str]]:
    """Table rows; a line with an empty first cell continues the row above."""
    rows: list[list[str]] = []
    for line in lines:
        cells = _cells(line, starts)
        if rows and not cells[0]:
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
    return rows


def simple_tables(text: str) -> str:
    """reST simple tables with a header (border, header, border, body, border) as Markdown tables."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        borders = [i] if _BORDER.match(lines[i]) else []
        j = i + 1
        while borders and len(borders) < 3 and j < len(lines) and lines[j].strip():
            if _BORDER.match(lines[j]):
                borders.append(j)
            j += 1
        if len(borders) < 3:
            out.append(lines[i])
            i += 1
            continue
        starts = [m.start() for m in re.finditer(r"=+", lines[i])]
        head = _rows(lines[borders[0] + 1 : borders[1]], starts)
        body = _rows(lines[borders[1] + 1 : borders[2]], starts)
        out += ["", *(f"| {' | '.join(r)} |" for r in head), "|" + "---|" * len(starts)]
        out += [*(f"| {' | '.join(r)} |" for r in body), ""]
        i = borders[2] + 1
    return "\n".join(out)


def build(out: Path = DEFAULT_OUT, modules: Sequence[str] = MODULES) -> Path:
    """Render ``modules`` into ``out`` (created if missing) and return it; raise ``DocsWarning`` on any warning."""
    import pdoc
    import pdoc.docstrings
    import pdoc.render

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    pdoc.render.configure(docformat="restructuredtext", search=True, show_source=False, template_directory=TEMPLATES)
    if not getattr(pdoc.docstrings.rst, "with_simple_tables", False):
        rst = pdoc.docstrings.rst

        def rst_with_tables(contents: str, source_file: Path | None) -> str:
            return rst(simple_tables(contents), source_file)

        rst_with_tables.with_simple_tables = True  # type: ignore[attr-defined]
        pdoc.docstrings.rst = rst_with_tables
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*modules, output_directory=out)
    problems = [w for w in caught if not any(p.search(str(w.message)) for p in IGNORED)]
    if problems:
        lines = (f"{w.filename}:{w.lineno}: {w.category.__name__}: {w.message}" for w in problems)
        raise DocsWarning(f"{len(problems)} warning(s) while building the API reference:\n" + "\n".join(lines))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    try:
        out = build(args.out)
    except DocsWarning as exc:
        print(f"build_docs: error: {exc}", file=sys.stderr)
        return 1
    print(f"API reference written to {out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
