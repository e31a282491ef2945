"""WebNN's data types, ``MLOperandDescriptor``, ``MLOperand`` and option parsing."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from descriptors import DataType

from ..errors import UnsupportedError

if TYPE_CHECKING:
    from ._core import _BuilderCore


_TYPES: dict[str, DataType] = {
    "float32": DataType.FLOAT32,
    "float16": DataType.FLOAT16,
    "int32": DataType.INT32,
    "uint32": DataType.UINT32,
    "int64": DataType.INT64,
    "uint64": DataType.UINT64,
    "int8": DataType.INT8,
    "uint8": DataType.UINT8,
}
_NAMES = {dt: name for name, dt in _TYPES.items()}
_FLOAT = ("float32", "float16")
_SIGNED = ("float32", "float16", "int32", "int8", "int64")
_SUMMABLE = ("float32", "float16", "int32", "uint32", "int64", "uint64")
_ANY = tuple(_TYPES)
Shape = tuple[int, ...]


def _pad(shape: Shape) -> Shape:
    """DirectML tensors have at least one dimension: a 0-D operand runs as (1,)."""
    return shape or (1,)


def _left_pad(shape: Shape, rank: int) -> Shape:
    return (1,) * (rank - len(shape)) + shape


@dataclasses.dataclass(frozen=True)
class MLOperandDescriptor:
    """An operand's ``dataType`` (``"float32"``, ``"float16"``, ``"int32"``, ``"uint32"``, ``"int64"``,
    ``"uint64"``, ``"int8"``, ``"uint8"``) and ``shape`` (dimensions >= 1; ``()`` is a scalar)."""

    dataType: str
    shape: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        where = "webnn.MLOperandDescriptor"
        if self.dataType in ("int4", "uint4"):
            raise UnsupportedError(f"{where}: dataType {self.dataType!r} is WebNN's, but gpuops has no 4-bit type")
        if self.dataType not in _TYPES:
            raise TypeError(f"{where}: dataType {self.dataType!r} is not one of {', '.join(_TYPES)}")
        shape = self.shape
        if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
            raise TypeError(f"{where}: shape must be a sequence of integers, got {shape!r}")
        dims = tuple(shape)
        if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1 for d in dims):
            raise ValueError(f"{where}: shape {list(dims)} must hold integers >= 1 (WebNN's valid dimensions)")
        object.__setattr__(self, "shape", tuple(int(d) for d in dims))

    @property
    def data_type(self) -> DataType:
        """The gpuops ``DataType``."""
        return _TYPES[self.dataType]


def _descriptor(desc: object, where: str) -> MLOperandDescriptor:
    if isinstance(desc, MLOperandDescriptor):
        return desc
    if isinstance(desc, Mapping):
        unknown = set(desc) - {"dataType", "shape"}
        if unknown or "dataType" not in desc:
            raise TypeError(f"{where}: a descriptor holds dataType and shape, got keys {sorted(desc)}")
        return MLOperandDescriptor(desc["dataType"], desc.get("shape", ()))
    raise TypeError(f"{where}: expected an MLOperandDescriptor or a dict, got {type(desc).__name__}")


class MLOperand:
    """A value of the graph under construction: ``dataType`` and ``shape`` as WebNN gives them."""

    def __init__(
        self,
        builder: _BuilderCore,
        kind: str,
        data_type: DataType,
        shape: Shape,
        phys: Shape | None = None,
        *,
        name: str = "",
        data: np.ndarray | None = None,
        row: str = "",
        inputs: tuple[MLOperand | None, ...] = (),
        reads: tuple[tuple[Shape, Shape] | None, ...] = (),
        fields: dict[str, Any] | None = None,
        stage: int = 0,
    ) -> None:
        self.builder = builder
        self.kind = kind  # "input", "constant" or "op"
        self.data_type = data_type
        self.logical = shape
        self.phys = phys if phys is not None else _pad(shape)  # the sizes of the DirectML tensor holding it
        self.name = name
        self.data = data
        self.row = row
        self.inputs = inputs
        self.reads = reads  # per input: (the packed sizes its buffer is viewed as, the sizes it is read at)
        self.fields = fields or {}
        self.stage = stage  # which compiled graph computes it (a broadcast intermediate starts the next one)
        builder._serial += 1
        self.serial = builder._serial  # creation order: operands come after their inputs (a topological order)

    @property
    def dataType(self) -> str:
        """WebNN's name of the data type (``"float32"``)."""
        return _NAMES[self.data_type]

    @property
    def shape(self) -> tuple[int, ...]:
        """The dimensions (``()`` for a scalar)."""
        return self.logical

    def __repr__(self) -> str:
        what = self.name or self.row or self.kind
        return f"MLOperand({what}, {self.dataType} {list(self.logical)})"


def _is_number(x: object) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float, np.integer, np.floating))


class _Options:
    """A method's options: the dict and the keywords merged, unknown names refused."""

    def __init__(self, where: str, options: Mapping[str, Any] | None, kwargs: dict[str, Any], known: set[str]) -> None:
        if options is not None and not isinstance(options, Mapping):
            raise TypeError(f"{where}: options must be a dict, got {type(options).__name__}")
        self.values = {**(options or {}), **kwargs}
        unknown = set(self.values) - known - {"label"}
        if unknown:
            allowed = ", ".join(sorted(known | {"label"}))
            raise TypeError(f"{where}: unknown option {sorted(unknown)[0]!r} (allowed: {allowed})")
        self.where = where

    def number(self, name: str, default: float) -> float:
        value = self.values.get(name, default)
        if not _is_number(value) or not math.isfinite(float(value)):
            raise TypeError(f"{self.where}: options.{name} must be a finite number, got {value!r}")
        return float(value)

    def flag(self, name: str) -> bool:
        value = self.values.get(name, False)
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{self.where}: options.{name} must be a bool, got {value!r}")
        return bool(value)
