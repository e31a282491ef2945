"""DirectML enumerations (directml.h, DML_TARGET_VERSION 0x6400) plus gpuops extensions.

Numbering follows directml.h wherever DirectML defines the member; extension members
(``DataType.BFLOAT16``, ``DataType.BOOL``, extension operator types) are numbered far
above DirectML's range so they can never collide with a future DirectML value.
"""

from __future__ import annotations

import enum

import ml_dtypes
import numpy as np

__all__ = [
    "AxisDirection",
    "DataType",
    "ExecutionFlags",
    "FeatureLevel",
    "IsInfinityMode",
    "ReduceFunction",
    "RoundingMode",
    "TensorFlags",
]


class DataType(enum.IntEnum):
    """``DML_TENSOR_DATA_TYPE`` (directml.h) plus the extensions BFLOAT16 and BOOL.

    DirectML has neither bfloat16 (DirectML#688) nor a bool type; TensorRT and oneDNN
    need both, so gpuops adds them as extensions (queryable like the rest).
    """

    FLOAT32 = 1
    FLOAT16 = 2
    UINT32 = 3
    UINT16 = 4
    UINT8 = 5
    INT32 = 6
    INT16 = 7
    INT8 = 8
    FLOAT64 = 9
    UINT64 = 10
    INT64 = 11
    BFLOAT16 = 0x100  # extension
    BOOL = 0x101  # extension

    @property
    def numpy_dtype(self) -> np.dtype:
        """The ``numpy.dtype`` of this data type (bfloat16 is ``ml_dtypes.bfloat16``)."""
        return _NUMPY[self]

    @property
    def element_bits(self) -> int:
        """Element width in bits, as in DirectMLX's ``DMLCalcBufferTensorSize``."""
        return _NUMPY[self].itemsize * 8

    @property
    def itemsize(self) -> int:
        return _NUMPY[self].itemsize

    @property
    def is_extension(self) -> bool:
        """True for the data types DirectML does not define (BFLOAT16, BOOL)."""
        return self in (DataType.BFLOAT16, DataType.BOOL)

    @property
    def is_float(self) -> bool:
        return self in _FLOATS

    @property
    def is_integer(self) -> bool:
        return self in _SIGNED or self in _UNSIGNED

    @property
    def is_signed_integer(self) -> bool:
        return self in _SIGNED

    @property
    def is_unsigned_integer(self) -> bool:
        return self in _UNSIGNED

    def doc_order(self) -> int:
        """Sort key in DirectML's doc-table order (FLOAT64, FLOAT32, ..., UINT8), extensions last."""
        return _DOC_ORDER.index(self)

    @classmethod
    def parse(cls, value: object, where: str = "data type") -> DataType:
        """The one data-type parser: a ``DataType`` (or its value), its name in any case (``"FLOAT16"``,
        ``"float16"``), a NumPy dtype or scalar type (``np.float32``, ``np.dtype("int8")``, ml_dtypes'
        ``bfloat16``) or a NumPy name (``"int8"``, ``"bool"``). ``DescriptorError`` naming ``where`` otherwise."""
        from .errors import DescriptorError

        if isinstance(value, cls):
            return value
        if isinstance(value, bool):  # an int, but never a DataType
            pass
        elif isinstance(value, int):
            try:
                return cls(value)
            except ValueError:
                pass
        elif isinstance(value, str) and value.strip().upper() in cls.__members__:
            return cls[value.strip().upper()]
        else:
            try:
                return cls.from_numpy(value)
            except TypeError:
                pass
        allowed = ", ".join(d.name for d in cls)
        raise DescriptorError(
            f"{where}: {value!r} is not a data type; allowed: {allowed} (or their NumPy dtypes)", "data_type"
        )

    @classmethod
    def from_numpy(cls, dtype: object) -> DataType:
        """The DataType of a NumPy dtype (or anything ``numpy.dtype`` accepts)."""
        try:
            dt = np.dtype(dtype)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            raise TypeError(f"DataType.from_numpy: {dtype!r} is not a NumPy dtype") from None
        for member, npdt in _NUMPY.items():
            if npdt == dt:
                return member
        raise TypeError(
            f"DataType.from_numpy: no DataType for NumPy dtype {dt} "
            f"(supported: {', '.join(str(d) for d in _NUMPY.values())})"
        )


_NUMPY: dict[DataType, np.dtype] = {
    DataType.FLOAT32: np.dtype(np.float32),
    DataType.FLOAT16: np.dtype(np.float16),
    DataType.UINT32: np.dtype(np.uint32),
    DataType.UINT16: np.dtype(np.uint16),
    DataType.UINT8: np.dtype(np.uint8),
    DataType.INT32: np.dtype(np.int32),
    DataType.INT16: np.dtype(np.int16),
    DataType.INT8: np.dtype(np.int8),
    DataType.FLOAT64: np.dtype(np.float64),
    DataType.UINT64: np.dtype(np.uint64),
    DataType.INT64: np.dtype(np.int64),
    DataType.BFLOAT16: np.dtype(ml_dtypes.bfloat16),
    DataType.BOOL: np.dtype(np.bool_),
}
_DOC_ORDER = [
    DataType[n]
    for n in (
        [
            "FLOAT64",
            "FLOAT32",
            "FLOAT16",
            "INT64",
            "INT32",
            "INT16",
            "INT8",
            "UINT64",
            "UINT32",
            "UINT16",
            "UINT8",
            "BFLOAT16",
            "BOOL",
        ]
    )
]
_FLOATS = frozenset({DataType.FLOAT32, DataType.FLOAT16, DataType.FLOAT64, DataType.BFLOAT16})
_SIGNED = frozenset({DataType.INT8, DataType.INT16, DataType.INT32, DataType.INT64})
_UNSIGNED = frozenset({DataType.UINT8, DataType.UINT16, DataType.UINT32, DataType.UINT64})


class TensorFlags(enum.IntFlag):
    """``DML_TENSOR_FLAGS``."""

    NONE = 0x0
    OWNED_BY_DML = 0x1


class FeatureLevel(enum.IntEnum):
    """``DML_FEATURE_LEVEL``: 0xXY00 for level X.Y (directml.h)."""

    FL_1_0 = 0x1000
    FL_2_0 = 0x2000
    FL_2_1 = 0x2100
    FL_3_0 = 0x3000
    FL_3_1 = 0x3100
    FL_4_0 = 0x4000
    FL_4_1 = 0x4100
    FL_5_0 = 0x5000
    FL_5_1 = 0x5100
    FL_5_2 = 0x5200
    FL_6_0 = 0x6000
    FL_6_1 = 0x6100
    FL_6_2 = 0x6200
    FL_6_3 = 0x6300
    FL_6_4 = 0x6400

    @property
    def label(self) -> str:
        """``"5_1"`` for FL_5_1, the spelling the command line accepts."""
        return self.name[3:]

    @classmethod
    def parse(cls, text: str | int | FeatureLevel, where: str = "") -> FeatureLevel:
        """Accept ``FeatureLevel``, ``0x5100``, ``"5_1"``, ``"5.1"``, ``"FL_5_1"`` or ``"0x5100"``.

        A float (``5.1``) or any other type is a ``TypeError`` (``6.10`` would read as 6.1);
        an unknown level a ``DescriptorError`` listing the known ones. ``where`` prefixes the
        message (``"Device: max_feature_level"``).
        """
        from .errors import DescriptorError

        if isinstance(text, FeatureLevel):
            return text
        allowed = ", ".join(m.label for m in cls)
        if isinstance(text, bool) or not isinstance(text, (str, int, np.integer)):
            raise TypeError(
                f"{where + ': ' if where else ''}a feature level is a FeatureLevel, a string such as '5_1', '5.1' "
                f"or 'FL_5_1', or an integer such as 0x5100 (got {type(text).__name__} {text!r}); "
                "a float is ambiguous, write '5.1'"
            )
        if isinstance(text, str):
            key = text.strip().upper().replace(".", "_")
            if key.startswith("0X"):
                try:
                    return cls.parse(int(key, 16), where)
                except (ValueError, DescriptorError):
                    pass
            else:
                if not key.startswith("FL_"):
                    key = "FL_" + key
                if key in cls.__members__:
                    return cls[key]
        else:
            value = int(text)
            if value in cls._value2member_map_:
                return cls(value)
        raise DescriptorError(
            f"{where + ': ' if where else ''}unknown feature level {text!r}; allowed: {allowed} (or FL_5_1, 0x5100)",
            "feature_level",
        )


class ExecutionFlags(enum.IntFlag):
    """``DML_EXECUTION_FLAGS``."""

    NONE = 0x0
    ALLOW_HALF_PRECISION_COMPUTATION = 0x1
    DISABLE_META_COMMANDS = 0x2
    DESCRIPTORS_VOLATILE = 0x4


class ReduceFunction(enum.IntEnum):
    """``DML_REDUCE_FUNCTION`` (values 0..11 in directml.h order)."""

    ARGMAX = 0
    ARGMIN = 1
    AVERAGE = 2
    L1 = 3
    L2 = 4
    LOG_SUM = 5
    LOG_SUM_EXP = 6
    MAX = 7
    MIN = 8
    MULTIPLY = 9
    SUM = 10
    SUM_SQUARE = 11


class RoundingMode(enum.IntEnum):
    """``DML_ROUNDING_MODE`` (FL 2.1)."""

    HALVES_TO_NEAREST_EVEN = 0
    TOWARD_ZERO = 1
    TOWARD_INFINITY = 2


class IsInfinityMode(enum.IntEnum):
    """``DML_IS_INFINITY_MODE`` (FL 2.1)."""

    EITHER = 0
    POSITIVE = 1
    NEGATIVE = 2


class AxisDirection(enum.IntEnum):
    """``DML_AXIS_DIRECTION`` (FL 3.0): which index ARGMAX/ARGMIN return on ties."""

    INCREASING = 0
    DECREASING = 1
