"""THE op table: one row per operator, read by every layer of gpuops.

Descriptor classes, ``OperatorType``, capability tables, validation, CUDA code generation,
the NumPy backend and the generated tests all come from :data:`ROWS`. Adding an operator
means adding a row to one of the family modules below (``rows_*.py``); everything the row
needs (accuracy, backward link, CUDA helpers, NumPy forms) is stated in the row or declared
beside it in its family module, and gathered here explicitly: nothing is added at import.

Out-of-tree operators: ``GPUOPS_OP_MODULES=pkg.my_ops`` adds the rows (and CUDA helpers) of the modules it
names, read once when the table is built; each row then gets everything an in-tree row gets (descriptor
class, ``OperatorType`` member, capability tables, validation, kernels on every backend).
"""

from __future__ import annotations

import enum
import importlib
import os
from types import ModuleType

from .cuda_helpers import COMMON_HELPERS, HelperRegistry
from .errors import UnknownOperatorError
from .rows_activation import ACTIVATION_HELPERS, ACTIVATION_ROWS
from .rows_backward import BACKWARD_HELPERS, BACKWARD_ROWS
from .rows_binary import BINARY_HELPERS, BINARY_ROWS
from .rows_reduce import REDUCE_HELPERS, REDUCE_ROWS
from .rows_unary import UNARY_HELPERS, UNARY_ROWS
from .schema import ElementwiseRow, Family, OpRow, ReductionRow

__all__ = [
    "ELEMENTWISE_ROWS",
    "HELPERS",
    "OP_MODULES",
    "OUT_OF_TREE_ROWS",
    "REDUCTION_ROWS",
    "ROWS",
    "ROW_BY_NAME",
    "OperatorType",
    "row_of",
]

OP_MODULES_VARIABLE = "GPUOPS_OP_MODULES"


def _op_modules() -> list[ModuleType]:
    """The out-of-tree operator modules named by ``GPUOPS_OP_MODULES`` (comma-separated importable names),
    read once, when the table is built. Each exports ``ROWS`` (element-wise rows) and may export ``HELPERS``
    (its CUDA helpers, a ``dict[str, Helper]``), exactly as a family module (``rows_<family>.py``) does."""
    names = [n.strip() for n in os.environ.get(OP_MODULES_VARIABLE, "").split(",") if n.strip()]
    modules = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise ImportError(f"{OP_MODULES_VARIABLE}: cannot import operator module {name!r}: {exc}") from exc
        rows = getattr(module, "ROWS", None)
        if not isinstance(rows, tuple) or not all(isinstance(r, ElementwiseRow) for r in rows):
            raise TypeError(
                f"{OP_MODULES_VARIABLE}: {name}.ROWS must be a tuple of ElementwiseRow (got {type(rows).__name__})"
            )
        modules.append(module)
    return modules


#: The out-of-tree operator modules (``GPUOPS_OP_MODULES``), imported once; () by default.
OP_MODULES: tuple[ModuleType, ...] = tuple(_op_modules())
#: Rows of the out-of-tree operator modules (``GPUOPS_OP_MODULES``), in the order named; () by default.
OUT_OF_TREE_ROWS: tuple[ElementwiseRow, ...] = tuple(r for m in OP_MODULES for r in m.ROWS)

ELEMENTWISE_ROWS: tuple[ElementwiseRow, ...] = (
    BINARY_ROWS + UNARY_ROWS + ACTIVATION_ROWS + BACKWARD_ROWS + OUT_OF_TREE_ROWS
)
REDUCTION_ROWS: tuple[ReductionRow, ...] = REDUCE_ROWS
ROWS: tuple[OpRow, ...] = ELEMENTWISE_ROWS + REDUCTION_ROWS

ROW_BY_NAME: dict[str, OpRow] = {r.name: r for r in ROWS}
assert len(ROW_BY_NAME) == len(ROWS), "duplicate operator name in the op table"

# Every CUDA helper, each declared once by one family (HelperRegistry refuses a second).
HELPERS = HelperRegistry(
    COMMON_HELPERS,
    BINARY_HELPERS,
    UNARY_HELPERS,
    ACTIVATION_HELPERS,
    BACKWARD_HELPERS,
    REDUCE_HELPERS,
    *(getattr(m, "HELPERS", {}) for m in OP_MODULES),
)


def _check_links() -> None:
    """Every helper a row names is declared; every ``grad=`` names a backward (GRAD) row."""
    named = {h for r in ELEMENTWISE_ROWS for h in r.helpers}
    named |= {h for r in REDUCTION_ROWS for red in r.reductions.values() for h in red.helpers}
    unknown = sorted(named - set(HELPERS))
    assert not unknown, f"rows name undeclared CUDA helpers: {unknown}"
    for r in ELEMENTWISE_ROWS:
        for link in (r.grad, r.grad_use_dst):
            assert not link or ROW_BY_NAME[link].family is Family.GRAD, f"{r.name}: {link} is not a backward row"


_check_links()

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
