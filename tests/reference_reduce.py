"""Independent references and tolerances for the reductions: REDUCE (twelve functions), ARGMAX, ARGMIN.

``REFERENCES[row][selector value](values, axes)`` returns the reduction of ``values`` over
``axes`` with the reduced axes kept as size 1. Written from the semantics stated in
``descriptors/ops/reduce.py`` (the row module docstring), never from the op table's NumPy
forms (``ops/reduce_numpy.py``):

- ``values`` of a float type are the *logical* values as float64 (a float16/bfloat16/float32
  tensor converted exactly); the result is float64. Sums, sums of squares and products are
  computed exactly (floats are dyadic rationals, so with Python integers) and rounded once
  to float64; LOG_SUM_EXP uses ``math.fsum`` on float64 ``exp`` terms.
- ``values`` of an integer type are passed in that type; the result is exact (Python
  integers) and then wrapped modulo ``2**bits`` to the type (SUM, MULTIPLY, L1, SUM_SQUARE).
  AVERAGE takes the exact sum wrapped to the 64-bit accumulator (signed for signed types,
  as documented: "AVERAGE's sum wraps modulo 2**64 in the accumulator"), divides by ``n``
  truncating toward zero, then wraps to the type. The 64-bit wrap only matters for INT64 and
  UINT64 (smaller types cannot overflow 64 bits), so this equals "exact sum // n truncated
  toward zero" whenever the exact sum fits.
- ARG references return int64 indices over the reduced axes jointly, row-major in axis
  order (the axes are sorted first), NaN winning over every number; ties (equal values,
  ``-0.0 == +0.0``, or several NaN) go to the first index (INCREASING) or the last
  (DECREASING). REDUCE's ARGMAX/ARGMIN functions take the first.
- MAX and MIN propagate NaN. Where both +0 and -0 occur the sign of a zero result is
  unspecified (the test accepts either). LOG_SUM of a negative sum is NaN, of 0 -inf.
  LOG_SUM_EXP: any NaN gives NaN, any +inf gives +inf, all -inf gives -inf.

``tolerance(row, variant, values64, axes, out_dtype)`` is the absolute error allowed per
output element: the row's stated bound ``Reduction.error = (kind, c)`` as its docstring
states it (``u`` the unit roundoff of the accumulator: float32 for 16/32-bit floats,
float64 for float64), plus half an ulp of the output type at the reference value (one ulp
for float16 and bfloat16 outputs), plus the output type's smallest normal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import ml_dtypes
import numpy as np

from descriptors import DataType, row_of

__all__ = ["REFERENCES", "Ref", "rows_of", "tolerance"]

Axes = tuple[int, ...]
Ref = Callable[[np.ndarray, Axes], np.ndarray]


def _is_float(dtype: np.dtype) -> bool:
    """float16/32/64 and ml_dtypes' bfloat16 (whose NumPy kind is "V")."""
    return dtype.kind == "f" or dtype == ml_dtypes.bfloat16


# ---------------------------------------------------------------------------------------------
# Layout: the reduced elements of each output as rows of a 2-D array.


def rows_of(values: np.ndarray, axes: Sequence[int]) -> tuple[np.ndarray, tuple[int, ...]]:
    """``(rows, out_shape)``: one row per output element (row-major over the kept axes), holding
    that element's reduced values row-major over the sorted reduced axes; ``out_shape`` keeps
    the reduced axes as 1."""
    red = sorted({int(a) for a in axes})
    kept = [i for i in range(values.ndim) if i not in red]
    n = math.prod(values.shape[a] for a in red)
    rows = np.transpose(values, kept + red).reshape(-1, n)
    out_shape = tuple(1 if i in red else s for i, s in enumerate(values.shape))
    return rows, out_shape


def _per_row(values: np.ndarray, axes: Axes, f: Callable[[np.ndarray], object], dtype: object) -> np.ndarray:
    rows, shape = rows_of(values, axes)
    return np.array([f(r) for r in rows], dtype=dtype).reshape(shape)


# ---------------------------------------------------------------------------------------------
# Exact float arithmetic: every finite float is num / 2**k.


def _dyadic(x: float) -> tuple[int, int]:
    num, den = float(x).as_integer_ratio()
    return num, den.bit_length() - 1


def _to_float(q: Fraction) -> float:
    """``q`` rounded once to float64 (overflow to an infinity)."""
    try:
        return float(q)
    except OverflowError:
        return math.copysign(math.inf, q)


def _exact_sum(xs: Sequence[float], power: int = 1) -> Fraction:
    """sum(x**power) exactly, for finite floats."""
    terms = [_dyadic(x) for x in xs]
    if not terms:
        return Fraction(0)
    k = max(e for _, e in terms) * power
    total = sum(num**power << (k - e * power) for num, e in terms)
    return Fraction(total, 1 << k)


def _exact_prod(xs: Sequence[float]) -> Fraction:
    terms = [_dyadic(x) for x in xs]
    return Fraction(math.prod(num for num, _ in terms), 1 << sum(e for _, e in terms))


def _finite(row: np.ndarray) -> bool:
    return bool(np.isfinite(row).all())


def _f_sum(row: np.ndarray) -> float:
    return _to_float(_exact_sum(row.tolist())) if _finite(row) else float(np.sum(row))


def _f_average(row: np.ndarray) -> float:
    return _to_float(_exact_sum(row.tolist()) / len(row)) if _finite(row) else float(np.sum(row)) / len(row)


def _f_l1(row: np.ndarray) -> float:
    return _f_sum(np.abs(row))


def _f_sum_square(row: np.ndarray) -> float:
    return _to_float(_exact_sum(row.tolist(), 2)) if _finite(row) else float(np.sum(row * row))


def _f_l2(row: np.ndarray) -> float:
    if not _finite(row):
        return math.sqrt(float(np.sum(row * row)))
    q = _exact_sum(row.tolist(), 2)
    return math.sqrt(_to_float(q))


def _f_log_sum(row: np.ndarray) -> float:
    s = _f_sum(row)
    if math.isnan(s) or s < 0:
        return math.nan
    if s == 0:
        return -math.inf
    return math.log(s)


def _f_log_sum_exp(row: np.ndarray) -> float:
    if np.isnan(row).any():
        return math.nan
    m = float(row.max())
    if math.isinf(m):  # any +inf gives +inf; all -inf gives -inf
        return m
    return m + math.log(math.fsum(math.exp(x - m) for x in row.tolist()))


def _f_multiply(row: np.ndarray) -> float:
    if not _finite(row):
        return float(math.prod(row.tolist()))
    return _to_float(_exact_prod(row.tolist()))


def _f_max(row: np.ndarray) -> float:
    return math.nan if np.isnan(row).any() else max(row.tolist())


def _f_min(row: np.ndarray) -> float:
    return math.nan if np.isnan(row).any() else min(row.tolist())


# ---------------------------------------------------------------------------------------------
# Exact integers, wrapped to the type.


def _wrap(v: int, dtype: np.dtype) -> int:
    bits = dtype.itemsize * 8
    v %= 1 << bits
    if dtype.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _ints(row: np.ndarray) -> list[int]:
    return [int(v) for v in row.tolist()]


def _i_average(row: np.ndarray, dtype: np.dtype) -> int:
    acc = _wrap(sum(_ints(row)), np.dtype(np.int64 if dtype.kind == "i" else np.uint64))
    n = len(row)
    q = abs(acc) // n
    return _wrap(-q if acc < 0 else q, dtype)


_INT: dict[str, Callable[[list[int]], int]] = {
    "SUM": sum,
    "L1": lambda xs: sum(abs(x) for x in xs),
    "SUM_SQUARE": lambda xs: sum(x * x for x in xs),
    "MULTIPLY": math.prod,
    "MAX": max,
    "MIN": min,
}

_FLOAT: dict[str, Callable[[np.ndarray], float]] = {
    "AVERAGE": _f_average,
    "L1": _f_l1,
    "L2": _f_l2,
    "LOG_SUM": _f_log_sum,
    "LOG_SUM_EXP": _f_log_sum_exp,
    "MAX": _f_max,
    "MIN": _f_min,
    "MULTIPLY": _f_multiply,
    "SUM": _f_sum,
    "SUM_SQUARE": _f_sum_square,
}


def _reduce_ref(name: str) -> Ref:
    def ref(values: np.ndarray, axes: Axes) -> np.ndarray:
        dtype = values.dtype
        if _is_float(dtype):
            return _per_row(np.asarray(values, np.float64), axes, _FLOAT[name], np.float64)
        if name == "AVERAGE":
            return _per_row(values, axes, lambda r: _i_average(r, dtype), dtype)
        f = _INT[name]
        return _per_row(values, axes, lambda r: _wrap(f(_ints(r)), dtype), dtype)

    ref.__name__ = f"reduce_{name.lower()}"
    return ref


def _arg_ref(is_max: bool, last: bool) -> Ref:
    def pick(row: np.ndarray) -> int:
        if row.dtype.kind == "f" and np.isnan(row).any():
            winners = [i for i, v in enumerate(row.tolist()) if math.isnan(v)]
        else:
            vals = row.tolist() if row.dtype.kind == "f" else _ints(row)
            best = max(vals) if is_max else min(vals)
            winners = [i for i, v in enumerate(vals) if v == best]
        return winners[-1] if last else winners[0]

    def ref(values: np.ndarray, axes: Axes) -> np.ndarray:
        v = np.asarray(values, np.float64) if _is_float(values.dtype) else values
        return _per_row(v, axes, pick, np.int64)

    return ref


_REDUCE: dict[str, Ref] = {name: _reduce_ref(name) for name in _FLOAT}
_REDUCE["ARGMAX"] = _arg_ref(True, False)
_REDUCE["ARGMIN"] = _arg_ref(False, False)

REFERENCES: dict[str, dict[str, Ref]] = {
    "REDUCE": dict(sorted(_REDUCE.items())),
    "ARGMAX": {"INCREASING": _arg_ref(True, False), "DECREASING": _arg_ref(True, True)},
    "ARGMIN": {"INCREASING": _arg_ref(False, False), "DECREASING": _arg_ref(False, True)},
}


# ---------------------------------------------------------------------------------------------
# Tolerances.

#: ``map(x)`` of the functions whose bound reads ``sum|map(x)|`` (the "sum" kind).
_MAP: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "AVERAGE": lambda x: x,
    "L1": np.abs,
    "SUM": lambda x: x,
    "SUM_SQUARE": np.square,
    "L2": np.square,
    "LOG_SUM": lambda x: x,
    "MULTIPLY": lambda x: x,
}


def _dtype_of(out_dtype: object) -> np.dtype:
    if isinstance(out_dtype, DataType):
        return out_dtype.numpy_dtype
    return np.dtype(out_dtype)  # type: ignore[call-overload]


def _ulp(ref: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The spacing of ``dtype`` at ``|ref|`` (float64 arithmetic; subnormals included)."""
    info = ml_dtypes.finfo(dtype)
    p = int(info.nmant) + 1
    _, e = np.frexp(np.abs(ref))
    e = np.maximum(e, int(info.minexp) + 1)
    return np.ldexp(1.0, e - p)


def tolerance(row_name: str, variant: str, values64: np.ndarray, axes: Axes, out_dtype: object) -> np.ndarray:
    """Absolute error allowed per output element (keepdims shape); zero for exact results.

    ``values64`` are the logical input values as float64; ``out_dtype`` a DataType or a
    NumPy dtype (the output's; float reductions keep the input's type, so it also decides
    the accumulator: float64 for float64, else float32). The kinds are those of
    ``descriptors.schema.Reduction``'s docstring.
    """
    dtype = _dtype_of(out_dtype)
    kind, c = row_of(row_name).reductions[variant].error
    values64 = np.asarray(values64, np.float64)
    rows, shape = rows_of(values64, axes)
    if not _is_float(dtype) or kind == "exact":
        return np.zeros(shape)
    n = rows.shape[1]
    u = 2.0**-53 if dtype == np.float64 else 2.0**-24
    ref = np.asarray(REFERENCES[row_name][variant](values64, axes), np.float64).reshape(-1)
    with np.errstate(all="ignore"):
        if kind == "sum":
            bound = c * n * u * np.sum(np.abs(_MAP[variant](rows)), axis=1)
        elif kind == "mean":
            bound = c * u * (np.sum(np.abs(rows), axis=1) + np.abs(ref))
        elif kind == "relative":
            bound = c * n * u * np.abs(ref)
        elif kind == "log":
            sums = np.sum(np.abs(rows), axis=1) / np.abs(np.sum(rows, axis=1))
            bound = c * (n * u * sums + 2 * u * np.abs(ref))
        elif kind == "lse":
            bound = c * (n + 8) * u * np.maximum(1.0, np.abs(ref))
        else:
            raise ValueError(f"{row_name} {variant}: unknown error kind {kind!r}")
        rounding = (1.0 if dtype.itemsize == 2 else 0.5) * _ulp(ref, dtype)
        tol = bound + rounding + float(ml_dtypes.finfo(dtype).smallest_normal)
    tol = np.where(np.isfinite(ref), tol, 0.0)
    return np.nan_to_num(tol, nan=0.0, posinf=np.inf).reshape(shape)
