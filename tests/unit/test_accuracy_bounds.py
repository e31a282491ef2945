"""The op table's stated accuracy equals the tests' pinned table (tests/accuracy_bounds.py), row by row.

A bound loosened (or tightened) in the op table fails here until ``accuracy_bounds.PINNED`` is changed too; a new
row that states a bound fails until it is pinned. The accuracy tests read the pinned table only.
"""

from __future__ import annotations

from accuracy_bounds import HALF_ULPS, PINNED
from grid_check import check_grid

from descriptors import accuracy
from descriptors.optable import ELEMENTWISE_ROWS

STATED = {r.name: r.accuracy for r in ELEMENTWISE_ROWS if r.accuracy is not None}


def _check_pinned(name: str) -> None:
    acc = STATED[name]
    assert name in PINNED, f"states accuracy {acc.bound} in the op table: pin it in tests/accuracy_bounds.py"
    assert acc.bound == PINNED[name], (
        f"the op table states {acc.bound} (ulps, atol), tests/accuracy_bounds.py pins {PINNED[name]}"
    )


def test_stated_bound_is_pinned() -> None:
    """Every row that states a bound: pinned, and equal to the pin."""
    check_grid(sorted(STATED), _check_pinned)


def test_every_pinned_row_states_a_bound() -> None:
    rows = {r.name: r for r in ELEMENTWISE_ROWS}
    stale = sorted(n for n in PINNED if n not in rows or rows[n].accuracy is None)
    assert not stale, f"pinned in tests/accuracy_bounds.py but no op-table row states a bound: {stale}"


def test_half_precision_bound_is_the_stated_one() -> None:
    """HALF_ULPS pins descriptors/accuracy.py's float16/bfloat16 statement: one ulp of their own type."""
    doc = " ".join((accuracy.__doc__ or "").split())
    assert "so they are within one ulp of their own type" in doc, "descriptors/accuracy.py changed its half bound"
    assert HALF_ULPS == {"float16": 1.0, "bfloat16": 1.0}
