"""Numbers into data types for ``GraphBuilder``: a Python or NumPy number (or a constant's data) becomes a value
of the data type it must take only when it converts exactly (``GraphBuilder`` states the rule): integers and
integral floats in range for integer types, 0 or 1 for BOOL, any number for float types rounded once to nearest
even (NumPy's NEP 50 and WebNN round so), a finite number that would round to inf refused.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from descriptors import DataType, DescriptorError

__all__ = ["ConstantConversionError", "allowed", "array_as", "is_number", "number_as"]


class ConstantConversionError(DescriptorError):
    """A number (or a constant's data) that does not convert exactly to the data type it must take
    (``GraphBuilder`` states the rule). A ``DescriptorError``, so a ``ValueError``; ``field`` names the
    operand (``"b_tensor"``) or ``"data"``."""


def allowed(dt: DataType) -> str:
    """What a number operand of data type ``dt`` may be, for messages."""
    if dt is DataType.BOOL:
        return "BOOL takes 0 or 1 (False or True)"
    if dt.is_float:
        big = float(ml_dtypes.finfo(dt.numpy_dtype).max)
        return (
            f"{dt.name} takes any number, rounded to nearest (even), NaN and ±inf as they are; a finite number "
            f"that would round to ±inf is refused (the largest finite {dt.name} is {big:.8g})"
        )
    info = np.iinfo(dt.numpy_dtype)
    return f"{dt.name} takes integers (or floats with an integral value) in [{info.min}, {info.max}]"


def _odd64(v: int) -> float:
    """``v`` as a float64 rounded to odd (an exact one unchanged; OverflowError beyond float64), so that one more
    round-to-nearest to a float of at most 51 bits of precision rounds ``v`` correctly (no double rounding)."""
    d = float(v)
    if int(d) == v:
        return d
    other = math.nextafter(d, math.inf if int(d) < v else -math.inf)
    return d if int(np.array(d).view(np.int64)) & 1 else other


def _float32_odd(d: np.ndarray) -> np.ndarray:
    """float64 ``d`` rounded to odd in float32 (inexact results get an odd last bit), for one correct rounding on
    to bfloat16 (ml_dtypes converts float64 through float32, rounding twice)."""
    with np.errstate(over="ignore", invalid="ignore"):
        f = d.astype(np.float32).reshape(-1)
    flat = d.reshape(-1)
    fix = np.isfinite(f) & (f.astype(np.float64) != flat) & ((f.view(np.uint32) & 1) == 0)
    if fix.any():
        toward = np.where(flat[fix] > f[fix], np.float32(np.inf), np.float32(-np.inf)).astype(np.float32)
        f[fix] = np.nextafter(f[fix], toward)
    return f.reshape(d.shape)


def _round_float(d: np.ndarray, dt: DataType) -> np.ndarray:
    """float64 ``d`` rounded to nearest (even) in the float type ``dt``, once; overflow gives ±inf (checked by
    the caller)."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        if dt is DataType.BFLOAT16:
            return _float32_odd(d).astype(dt.numpy_dtype)
        return d.astype(dt.numpy_dtype)


def is_number(x: object) -> bool:
    """A Python bool, int or float, or a NumPy scalar of a dtype some DataType has (ml_dtypes' bfloat16 too)."""
    if isinstance(x, bool | int | float):
        return True
    if isinstance(x, np.generic):
        try:
            DataType.from_numpy(x.dtype)
        except TypeError:
            return False
        return True
    return False


def number_as(value: object, dt: DataType) -> tuple[np.ndarray | None, str]:
    """``value`` (``_is_number``) as a one-element array of ``dt`` when it converts exactly (the rule of
    ``GraphBuilder``), else None and why not."""
    # float(): exact for every float DataType
    v: int | float = int(value) if isinstance(value, bool | np.bool_ | int | np.integer) else float(value)  # type: ignore[arg-type]
    if dt is DataType.BOOL:
        if v == 0 or v == 1:
            return np.array([v == 1], np.bool_), ""
        return None, "it is neither 0 nor 1"
    if not dt.is_float:
        if isinstance(v, float):
            if not math.isfinite(v) or not v.is_integer():
                return None, "it is not an integer"
            v = int(v)
        info = np.iinfo(dt.numpy_dtype)
        if not info.min <= v <= info.max:
            return None, f"it is outside {dt.name}'s range"
        return np.array([v], dt.numpy_dtype), ""
    try:
        d = v if isinstance(v, float) else float(v) if dt is DataType.FLOAT64 else _odd64(v)
    except OverflowError:
        return None, "it is beyond even float64's range"
    out = _round_float(np.array([d], np.float64), dt)
    if math.isfinite(d) and not np.isfinite(out[0]):
        return None, f"it would round to {'-' if d < 0 else ''}inf in {dt.name}"
    return out, ""


def array_as(arr: np.ndarray, dt: DataType) -> tuple[np.ndarray | None, str]:
    """A numeric array as ``dt`` when every element converts exactly (the rule of ``GraphBuilder``), else None and
    the first element that does not, and why."""
    src = DataType.from_numpy(arr.dtype)
    if src is dt:
        return arr, ""
    flat = arr.reshape(-1)

    def first(bad: np.ndarray, why: str) -> tuple[None, str]:
        k = int(np.flatnonzero(bad)[0])
        index = ", ".join(str(int(i)) for i in np.unravel_index(k, arr.shape))
        where = f"element [{index}]" if arr.ndim else "the value"
        return None, f"{where}, {flat[k].item()!r}, {why}"

    if not dt.is_float:  # integers and BOOL: integral values in range, converted exactly
        values = flat.astype(np.float64) if src.is_float else flat
        if src.is_float:
            with np.errstate(invalid="ignore"):
                bad = ~np.isfinite(values) | (values != np.trunc(values))
            if bad.any():
                return first(bad, "is not an integer")
        lo, hi = (
            (0, 1) if dt is DataType.BOOL else (int(np.iinfo(dt.numpy_dtype).min), int(np.iinfo(dt.numpy_dtype).max))
        )
        if src.is_float:  # lo and hi + 1 are powers of two (or 0, 2): exact in float64
            bad = (values < lo) | (values >= hi + 1)
        else:
            bad = (values < lo) | (values > hi) if src is not DataType.BOOL else np.zeros(flat.shape, bool)
        if bad.any():
            return first(bad, f"is outside {dt.name}'s range")
        return flat.astype(dt.numpy_dtype).reshape(arr.shape), ""
    if src.is_float or src is DataType.BOOL:
        d = flat.astype(np.float64)  # exact
    elif dt is DataType.FLOAT64:
        d = flat.astype(np.float64)  # one rounding to nearest
    else:  # integers beyond 2^53 go through float64 rounded to odd, so the one rounding to dt is correct
        d = flat.astype(np.float64)
        for k in np.flatnonzero(np.abs(d) > 2.0**53):
            d[k] = _odd64(int(flat[k]))
    out = _round_float(d, dt)
    bad = np.isfinite(d) & ~np.isfinite(out.astype(np.float64))
    if bad.any():
        return first(bad, f"overflows {dt.name} (it would round to ±inf)")
    return out.reshape(arr.shape), ""
