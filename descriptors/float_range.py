"""Numbers that become a float of a given type: FLOAT fields, ``DML_SCALE_BIAS`` and float
``DML_SCALAR_UNION`` values.

DirectML's FLOAT is a C ``float`` (float32); a ``DML_SCALAR_UNION`` is read as the tensor's
type. A C++ caller cannot pass a finite value beyond the type's range (the conversion is
undefined behaviour, C++ [conv.double]), so gpuops refuses one instead of letting it become an
infinity: NaN and the infinities are taken only when written as such. Values inside the range
round to the nearest representable value (ties to even), as a C conversion does.
"""

from __future__ import annotations

import math
import numbers
import warnings

import ml_dtypes
import numpy as np

from .enums import DataType

__all__ = ["float_problem", "is_number", "show_number", "show_values"]


def is_number(v: object) -> bool:
    """A real number, not a bool (``int``, ``float``, NumPy scalars, ``fractions.Fraction``)."""
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


def show_number(v: object) -> str:
    """``repr(v)`` for a message, except a huge integer, shown by its size (``repr`` of an int
    of more than 4300 digits raises)."""
    if isinstance(v, (int, np.integer)) and not -(2**64) < int(v) < 2**64:
        return f"an integer of {int(v).bit_length()} bits"
    return repr(v)


def show_values(values: object, limit: int = 10) -> str:
    """A sequence for a message, each element as :func:`show_number` shows it, at most ``limit``."""
    if not isinstance(values, (tuple, list)):
        return show_number(values) if isinstance(values, (int, np.integer)) else repr(values)
    shown = ", ".join(show_number(v) for v in values[:limit]) + (", ..." if len(values) > limit else "")
    if isinstance(values, tuple):
        return f"({shown},)" if len(values) == 1 else f"({shown})"
    return f"[{shown}]"


def float_problem(v: object, data_type: DataType = DataType.FLOAT32) -> str | None:
    """Why ``v`` cannot be a value of the float type ``data_type``, or None when it can."""
    if not is_number(v):
        return f"must be a number (got {type(v).__name__} {v!r})"
    if isinstance(v, (float, np.floating)) and not np.isfinite(v):
        return None  # NaN and infinities written as such (np.longdouble's own, not one made by float())
    beyond = f"is a {'positive' if v > 0 else 'negative'} number beyond {data_type.name}'s finite range"  # type: ignore[operator]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # np.longdouble beyond float64
            x = float(v)  # type: ignore[arg-type]
    except OverflowError:  # an int or Fraction beyond float64's range
        return beyond
    if math.isinf(x):
        return beyond
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        rounded = data_type.numpy_dtype.type(x)
    if math.isinf(float(rounded)):
        big = float(ml_dtypes.finfo(data_type.numpy_dtype).max)
        return (
            f"is {x!r}, beyond {data_type.name}'s finite range (largest {big!r}); "
            "pass float('inf') or float('-inf') for an infinity"
        )
    return None
