"""THE op table: one row per operator, read by every layer of gpuops.

Descriptor classes, ``OperatorType``, capability tables, validation, CUDA code generation,
the NumPy backend and the generated tests all come from :data:`ROWS`. Adding an operator
means adding a row to one of the family modules below (``rows_*.py``), which only hold rows.
"""

from __future__ import annotations

import dataclasses
import enum

from .accuracy import ACCURACY
from .errors import UnknownOperatorError
from .rows_activation import ACTIVATION_ROWS
from .rows_backward import BACKWARD_ROWS
from .rows_binary import BINARY_ROWS
from .rows_reduce import REDUCE_ROWS
from .rows_unary import UNARY_ROWS
from .schema import OpRow

__all__ = ["ROWS", "ROW_BY_NAME", "OperatorType", "row_of"]

ROWS: tuple[OpRow, ...] = tuple(
    dataclasses.replace(r, accuracy=ACCURACY.get(r.name))
    for r in BINARY_ROWS + UNARY_ROWS + ACTIVATION_ROWS + BACKWARD_ROWS + REDUCE_ROWS
)
assert set(ACCURACY) <= {r.name for r in ROWS}, sorted(set(ACCURACY) - {r.name for r in ROWS})

ROW_BY_NAME: dict[str, OpRow] = {r.name: r for r in ROWS}
assert len(ROW_BY_NAME) == len(ROWS), "duplicate operator name in the op table"

# OperatorType is made from the table, so the table is its only source. Values number the
# rows in table order (they are not directml.h's numbers, which gpuops does not need).
OperatorType = enum.Enum(  # type: ignore[misc]
    "OperatorType",
    [(r.name, i + 1) for i, r in enumerate(ROWS)],
    module=__name__,
)
OperatorType.__doc__ = "DML_OPERATOR_TYPE names without the prefix, plus gpuops extensions."
OperatorType.__module__ = "descriptors"


def row_of(op: OperatorType | str) -> OpRow:
    """The op-table row of an operator type (or of its name)."""
    if isinstance(op, str):
        name = op
    elif isinstance(op, OperatorType):
        name = op.name
    else:
        raise TypeError(f"an operator type is an OperatorType or its name (got {type(op).__name__} {op!r})")
    try:
        return ROW_BY_NAME[name]
    except KeyError:
        raise UnknownOperatorError(f"no operator {name!r} in the op table", "operator_type") from None
