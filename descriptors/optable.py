"""THE op table: one row per operator, read by every layer of gpuops.

Descriptor classes, ``OperatorType``, capability tables, validation, CUDA code generation,
the NumPy backend and the generated tests all come from :data:`ROWS`. Adding an operator
means adding a row to one of the family modules below (``ops/<family>.py``); everything the row
needs (accuracy, backward link, CUDA helpers, NumPy forms) is stated in the row or declared
beside it in its family module, and gathered here explicitly: nothing is added at import.

Out-of-tree operators: ``GPUOPS_OP_MODULES=pkg.my_ops`` adds the rows (and CUDA helpers) of the modules it
names, read once when the table is built; each row then gets everything an in-tree row gets (descriptor
class, ``OperatorType`` member, capability tables, validation, kernels on every backend).
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import keyword
import os
import re
from types import ModuleType

from .cuda_helpers import COMMON_HELPERS, HelperRegistry
from .ops.activation import ACTIVATION_HELPERS, ACTIVATION_ROWS
from .ops.backward import BACKWARD_HELPERS, BACKWARD_ROWS
from .ops.binary import BINARY_HELPERS, BINARY_ROWS
from .ops.composite import COMPOSITE_ROWS
from .ops.reduce import REDUCE_HELPERS, REDUCE_ROWS
from .ops.scan import SCAN_ROWS
from .ops.unary import UNARY_HELPERS, UNARY_ROWS
from .schema import NO_DEFAULT, ElementwiseRow, Family, OpRow, ReductionRow
from .spelling import OperatorNames

__all__ = [
    "COMPOSITE_ROWS",
    "ELEMENTWISE_ROWS",
    "HELPERS",
    "OPERATOR_NAMES",
    "OP_MODULES",
    "OUT_OF_TREE_ROWS",
    "REDUCTION_ROWS",
    "ROWS",
    "ROW_BY_NAME",
    "SCAN_ROWS",
    "OperatorType",
    "row_of",
]

OP_MODULES_VARIABLE = "GPUOPS_OP_MODULES"


def _op_modules() -> list[ModuleType]:
    """The out-of-tree operator modules named by ``GPUOPS_OP_MODULES`` (comma-separated importable names),
    read once, when the table is built. Each exports ``ROWS`` (element-wise rows) and may export ``HELPERS``
    (its CUDA helpers, a ``dict[str, Helper]``), exactly as a family module (``ops/<family>.py``) does."""
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


def _with_forward_defaults(
    backward: tuple[ElementwiseRow, ...], forward: tuple[ElementwiseRow, ...]
) -> tuple[ElementwiseRow, ...]:
    """Backward rows whose ``alpha``/``beta`` default as the first forward row linking to them (``grad=``, in
    table order) defaults its own: ELU's alpha is 1.0 forward and backward, HARD_SWISH's 1/6 and 0.5. A forward
    row without the parameter, or without a default for it (ACTIVATION_RELU for ELTWISE_RELU_GRAD, LINEAR),
    leaves the backward's 0.0."""
    first: dict[str, ElementwiseRow] = {}
    for row in forward:
        for link in (row.grad, row.grad_use_dst):
            if link:
                first.setdefault(link, row)
    out = []
    for row in backward:
        fw = first.get(row.name)
        if fw is not None:
            defaults = {
                f.name: f.default for f in fw.fields if f.name in ("alpha", "beta") and f.default is not NO_DEFAULT
            }
            fields = tuple(
                dataclasses.replace(f, default=defaults[f.name]) if f.name in defaults else f for f in row.fields
            )
            row = dataclasses.replace(row, fields=fields)
        out.append(row)
    return tuple(out)


ELEMENTWISE_ROWS: tuple[ElementwiseRow, ...] = (
    BINARY_ROWS
    + UNARY_ROWS
    + ACTIVATION_ROWS
    + _with_forward_defaults(BACKWARD_ROWS, BINARY_ROWS + UNARY_ROWS + ACTIVATION_ROWS)
    + OUT_OF_TREE_ROWS
)
REDUCTION_ROWS: tuple[ReductionRow, ...] = REDUCE_ROWS
# COMPOSITE_ROWS (ops/composite.py) are computed as plans of the rows above: softmax, mean-variance normalization.
# SCAN_ROWS (ops/scan.py): running tallies along one axis, one kernel walking each line.
ROWS: tuple[OpRow, ...] = ELEMENTWISE_ROWS + REDUCTION_ROWS + COMPOSITE_ROWS + SCAN_ROWS

ROW_BY_NAME: dict[str, OpRow] = {r.name: r for r in ROWS}
if len(ROW_BY_NAME) != len(ROWS):
    _names = [r.name for r in ROWS]
    raise RuntimeError(
        f"duplicate operator names in the op table: {sorted({n for n in _names if _names.count(n) > 1})}"
    )

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
    if unknown:
        raise RuntimeError(f"rows name undeclared CUDA helpers: {unknown}")
    for r in ELEMENTWISE_ROWS:
        for link in (r.grad, r.grad_use_dst):
            if link and ROW_BY_NAME[link].family is not Family.GRAD:
                raise RuntimeError(f"{r.name}: {link} is not a backward row")


_check_links()

# Names the generated kernels and loops declare themselves (``gpuops.codegen``: T, U, O, the fused activation's v;
# fused graph kernels: i<n>, v<k>, o<m>, n<k>_<scalar>; fast kernels and CuPy: _-prefixed; numba loops: np, njit,
# R, i, r, c, s<k>, ...; helpers gpuops_*; scalar arguments p_*): an operand may take none of them.
_TAKEN = re.compile(r"(T|U|O|R|v|i|r|c|np|njit|[iovsnrc]\d+(_\w*)?|_\w*|gpuops_\w*|p_\w*)")


def _check_operands() -> None:
    """Every element-wise row names each input once, by a C and Python identifier that no kernel parameter
    (``codegen.param_name`` of a tensor role) or generated name shadows (``ElementwiseRow.operands``)."""
    for r in ELEMENTWISE_ROWS:
        names = r.operand_names
        params = {f.name.removesuffix("_tensor") for f in r.tensor_fields}
        bad = [
            n
            for n in names
            if not n.isidentifier() or keyword.iskeyword(n) or _TAKEN.fullmatch(n) or n in params or n == "out"
        ]
        if len(names) != len(r.input_fields) or len(set(names)) != len(names) or bad:
            raise ValueError(
                f"{r.name}: operands {names} must name its {len(r.input_fields)} inputs once each, by names no "
                f"kernel declares itself (taken: {bad})"
            )


_check_operands()

# OperatorType is made from the table, so the table is its only source. Values number the
# rows in table order (they are not directml.h's numbers, which gpuops does not need).
OperatorType = enum.Enum(  # type: ignore[misc]
    "OperatorType",
    [(r.name, i + 1) for i, r in enumerate(ROWS)],
    module=__name__,
)
OperatorType.__doc__ = "DML_OPERATOR_TYPE names without the prefix, plus gpuops extensions."
OperatorType.__module__ = "descriptors"

#: The operator-name parser over ``OperatorType`` (``descriptors.names`` offers its answers as functions).
OPERATOR_NAMES: OperatorNames[OperatorType] = OperatorNames(OperatorType)


def row_of(op: OperatorType | str | object) -> OpRow:
    """The op-table row of an operator: an ``OperatorType``, a descriptor class, or a name in any spelling
    ``descriptors.names.operator_type`` reads (``"ELEMENT_WISE_ADD"``, ``"add"``, ``"sub"``)."""
    if isinstance(op, str) and op in ROW_BY_NAME:  # the common case, without the parser
        return ROW_BY_NAME[op]
    return ROW_BY_NAME[OPERATOR_NAMES.operator_type(op).name]
