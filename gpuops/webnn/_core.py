"""The state and shared checks of ``MLGraphBuilder`` (operands, nodes, broadcasting, axes); the operations
are in ``_elementwise.py`` and ``_shapes.py``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from descriptors import (
    DataType,
    desc_class,
    dtype_combinations,
)

from ..errors import UnsupportedError
from ._graph import MLContext
from ._operand import (
    _ANY,
    _NAMES,
    MLOperand,
    Shape,
    _left_pad,
    _pad,
)


class _BuilderCore:
    """What every WebNN operation method of ``MLGraphBuilder`` uses: its context, inputs and node helpers."""

    context: MLContext
    _inputs: dict[str, MLOperand]
    _built: bool
    _serial: int

    def _check_open(self, where: str) -> None:
        if self._built:
            raise RuntimeError(f"{where}: this MLGraphBuilder has built its graph; make a new one")

    def _operand(self, x: object, where: str, what: str, types: Sequence[str] = _ANY) -> MLOperand:
        self._check_open(where)
        if not isinstance(x, MLOperand):
            raise TypeError(f"{where}: {what} must be an MLOperand, got {type(x).__name__}")
        if x.builder is not self:
            raise ValueError(f"{where}: {what} belongs to another MLGraphBuilder")
        if x.dataType not in types:
            raise TypeError(f"{where}: {what} is {x.dataType}; WebNN's {where[6:]} takes {', '.join(types)}")
        return x

    def _node(
        self,
        where: str,
        row: str,
        inputs: Sequence[MLOperand | None],
        reads: Sequence[tuple[Shape, Shape] | None],
        shape: Shape,
        phys: Shape,
        out: DataType,
        **fields: Any,
    ) -> MLOperand:
        """An operator node; checks that gpuops' row takes these data types."""
        names = [f.name for f in _row_inputs(row)]
        given = {n: v.data_type for n, v in zip(names, inputs, strict=True) if v is not None}
        if not any(
            all(c.get(r) is dt for r, dt in given.items()) and c.get("output_tensor", out) is out
            for c in dtype_combinations(row)
        ):
            shown = ", ".join(f"{_NAMES[dt]}" for dt in given.values())
            raise UnsupportedError(f"{where}: WebNN allows {shown} -> {_NAMES[out]} here, but gpuops' {row} does not")
        stage = 0
        for v, read in zip(inputs, reads, strict=True):
            if v is not None and v.kind == "op":
                if read is None:
                    raise TypeError(f"{where}: operand {v!r} has no read shape")
                stage = max(stage, v.stage + (0 if read == (v.phys, v.phys) else 1))
        return MLOperand(
            self, "op", out, shape, phys, row=row, inputs=tuple(inputs), reads=tuple(reads), fields=fields, stage=stage
        )

    def _eltwise(
        self,
        where: str,
        row: str,
        operands: Sequence[MLOperand | None],
        out: DataType | None = None,
        shape: Shape | None = None,
        **fields: Any,
    ) -> MLOperand:
        """An element-wise node over ``operands`` broadcast together (NumPy rules), or to ``shape``."""
        present = [v for v in operands if v is not None]
        if shape is None:
            try:
                shape = tuple(int(s) for s in np.broadcast_shapes(*(v.logical for v in present)))
            except ValueError:
                shapes = " and ".join(str(list(v.logical)) for v in present)
                raise ValueError(f"{where}: shapes {shapes} do not broadcast (NumPy's rules)") from None
        if all(v.logical == shape for v in present):  # no broadcast: any layout of the same elements will do
            phys = next((v.phys for v in present if v.kind == "op"), _pad(shape))
            reads = [None if v is None else (phys, phys) for v in operands]
        else:
            phys = _pad(shape)
            reads = [None if v is None else (_left_pad(v.logical, len(phys)), phys) for v in operands]
        return self._node(where, row, operands, reads, shape, phys, out or present[0].data_type, **fields)

    def _unary(
        self, where: str, row: str, x: object, types: Sequence[str], out: DataType | None = None, **fields: Any
    ) -> MLOperand:
        return self._eltwise(where, row, [self._operand(x, where, "input", types)], out, **fields)

    def _binary(
        self, where: str, row: str, a: object, b: object, types: Sequence[str] = _ANY, out: DataType | None = None
    ) -> MLOperand:
        x = self._operand(a, where, "a", types)
        y = self._operand(b, where, "b", types)
        if x.data_type is not y.data_type:
            raise TypeError(f"{where}: a is {x.dataType} and b is {y.dataType}; WebNN requires one data type")
        return self._eltwise(where, row, [x, y], out)

    def _axes(self, where: str, x: MLOperand, axes: object) -> tuple[int, ...]:
        rank = len(x.logical)
        if isinstance(axes, (str, bytes)) or not isinstance(axes, Sequence):
            raise TypeError(f"{where}: options.axes must be a sequence of integers, got {axes!r}")
        out = tuple(axes)
        bad = [a for a in out if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < rank]
        if bad:
            raise ValueError(
                f"{where}: options.axes {list(out)} holds {bad[0]!r}, out of range for input of rank "
                f"{rank} (allowed: 0 to {rank - 1}, each once)"
            )
        if len(set(out)) != len(out):
            raise ValueError(f"{where}: options.axes {list(out)} names an axis twice")
        return tuple(int(a) for a in out)

    def _axis(self, where: str, x: MLOperand, axis: object) -> int:
        rank = len(x.logical)
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not 0 <= axis < rank:
            raise ValueError(
                f"{where}: axis {axis!r} is out of range for input of rank {rank} (allowed: 0 to {rank - 1})"
            )
        return int(axis)

    def _whole(self, x: MLOperand) -> tuple[Shape, Shape]:
        """``x`` read at its own shape (an operator that reads its input by axis)."""
        return (_pad(x.logical), _pad(x.logical))

    def _broadcast_to(self, where: str, what: str, v: MLOperand, shape: Shape) -> Shape:
        """``shape``, checked that ``v`` broadcasts to it (unidirectionally)."""
        try:
            ok = np.broadcast_shapes(v.logical, shape) == shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"{where}: {what} of shape {list(v.logical)} does not broadcast to {list(shape)}")
        return shape


def _row_inputs(row: str) -> Sequence[Any]:
    return desc_class(row).row.input_fields
