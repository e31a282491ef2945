"""Metadata grids checked in one test each, every mismatch reported at once (issue 34).

A grid of pure metadata (op-table rows x feature levels x data types) costs microseconds a point to check, and one
pytest item a point costs far more (collection, xdist scheduling, reporting) while overstating how many behaviours
are checked. :func:`check_grid` runs a check at every point, goes on past a failing point, and then fails once,
listing each failing point with what its check said::

    3 of 2055 grid points mismatch:
      ELEMENT_WISE_ADD at FL_4_1: assert {'FLOAT32'} == {'FLOAT32', 'INT64'} / Extra items in the right set: ...
      ...

The checks themselves are plain ``assert`` statements in the test modules (pytest rewrites them, so the message
shows the values compared) or ``pytest.raises`` blocks; an exception other than a failed check is a mismatch too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

import pytest

__all__ = ["MAX_LINES", "check_grid", "describe"]

P = TypeVar("P")

#: Failing points listed in full; the rest are counted.
MAX_LINES = 50
#: Characters kept of one point's message, and of each ``+ where ...`` line of pytest's explanation in it.
MAX_CHARS = 400
MAX_WHERE = 120
# Lines of pytest's assertion explanation that only advise on verbosity.
_ADVICE = ("Use -v", "Full diff", "Omitting ", "...Full output truncated")


def describe(exc: BaseException) -> str:
    """One line for a failed check: its message's lines joined (pytest's advice lines left out), cut short."""
    lines = [ln.strip() for ln in str(exc).splitlines()]
    lines = [_cut(ln, MAX_WHERE) if ln.startswith("+") else ln for ln in lines if ln and not ln.startswith(_ADVICE)]
    text = " / ".join(lines)
    if not isinstance(exc, (AssertionError, pytest.fail.Exception)):
        text = f"{type(exc).__name__}: {text}"
    return _cut(text, MAX_CHARS)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_grid(points: Iterable[P], check: Callable[[P], object], label: Callable[[P], str] = str) -> int:
    """Run ``check(point)`` at every point; fail listing every point whose check failed.

    ``label(point)`` names a point in the report. Returns the number of points checked; an empty grid fails (a
    grid that checks nothing must not pass).
    """
    failed: list[str] = []
    count = 0
    for point in points:
        count += 1
        try:
            check(point)
        except (Exception, pytest.fail.Exception) as exc:
            failed.append(f"{label(point)}: {describe(exc)}")
    if not count:
        pytest.fail("the grid has no points: nothing was checked", pytrace=False)
    if failed:
        shown = failed[:MAX_LINES]
        more = [f"  ... and {len(failed) - len(shown)} more"] if len(failed) > len(shown) else []
        head = f"{len(failed)} of {count} grid points mismatch:"
        pytest.fail("\n".join([head, *(f"  {line}" for line in shown), *more]), pytrace=False)
    return count
