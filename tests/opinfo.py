"""``OpInfo``: one operator's test record (PyTorch's OpInfo), and the records of out-of-tree operators.

An operator module named by ``GPUOPS_OP_MODULES`` (``descriptors.optable``) may export ``OPINFOS``, a
sequence of mappings with :class:`OpInfo`'s fields; the family reference modules merge them into what the
generated suites read (``reference.REFERENCES`` and ``test_ops_generated``'s data kinds and edge table for
binary rows, ``reference_nary``'s five tables for the others), so one row plus one record is all an
element-wise operator needs to be tested on every data type, layout and backend. Records are plain
mappings so that an operator module never imports test code.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from descriptors.optable import OP_MODULES, row_of
from descriptors.schema import Family

__all__ = ["OpInfo", "out_of_tree"]


@dataclasses.dataclass(frozen=True)
class OpInfo:
    """What the generated tests need beyond the row.

    reference: binary rows ``ref(a, b, out_dtype)``; other rows ``ref(inputs, out_dtype, params,
        scale_bias)`` (``reference_nary``'s convention). Either returns a ``reference.Expected``, or float64
        values compared within ``tolerance``. Written from the operator's formula, never from its row.
    data: binary rows: the ``helpers.random_values`` kinds of A and B (default ``("arith", "arith")``);
        other rows: per-input generators ``gen(dt, shape, rng)``.
    params: parameter sets to run (default: the fields' defaults).
    tolerance: ``(ulps, atol)`` for float32/float64 outputs (other rows; binary rows use ``row.accuracy``).
    edges: literal cases. Binary: ``(data types, a, b, expected, exact)`` as ``test_ops_generated``'s
        ``EDGE_CASES``; others: ``(inputs, params, expected, exact, data types by role)`` as ``reference_nary.EDGES``.
    """

    name: str
    reference: Callable[..., Any]
    data: tuple[Any, ...] = ()
    params: tuple[Mapping[str, Any], ...] = ()
    tolerance: tuple[float, float] | None = None
    edges: tuple[tuple[Any, ...], ...] = ()

    @property
    def family(self) -> Family:
        return row_of(self.name).family

    def expected(self, *args: Any) -> Any:
        """The reference's result as a ``reference.Expected`` (float64 values: compared within a tolerance)."""
        from reference import Expected  # reference.py merges these records at its end: import it late

        got = self.reference(*args)
        return got if isinstance(got, Expected) else Expected(np.asarray(got, dtype=np.float64), False)


def out_of_tree() -> tuple[OpInfo, ...]:
    """The records of the operator modules in ``GPUOPS_OP_MODULES`` (none by default)."""
    records = []
    for module in OP_MODULES:
        for item in getattr(module, "OPINFOS", ()):
            info = item if isinstance(item, OpInfo) else OpInfo(**item)
            row_of(info.name)  # a record needs its row: UnknownOperatorError otherwise
            records.append(info)
    return tuple(records)
