"""NumPy implementations that need more than one ufunc (the single ufuncs sit in the table).

Each is ``f(x, y, out)``: ``x`` and ``y`` are already in the compute type (see
``descriptors.compute``), ``out`` never aliases them, and nothing here warns: the backend
runs it under ``numpy.errstate(all="ignore")``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["div_trunc", "mean_int", "difference_square", "int_pow", "mean_float"]


def div_trunc(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """Integer division toward zero: ``(x - fmod(x, y)) // y`` is exact (x / 0 -> 0)."""
    np.fmod(x, y, out=out)
    np.subtract(x, out, out=out)
    np.floor_divide(out, y, out=out)


def mean_float(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """(x + y) / 2, one rounding per step as in CUDA."""
    np.add(x, y, out=out)
    np.multiply(out, out.dtype.type(0.5), out=out)


def mean_int(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """trunc((x + y) / 2) without overflow: exact in float64 for the 32-bit types MEAN takes."""
    tmp = np.add(x, y, dtype=np.float64)
    np.multiply(tmp, 0.5, out=tmp)
    np.trunc(tmp, out=tmp)
    np.copyto(out, tmp, casting="unsafe")


def difference_square(x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    """(x - y) * (x - y), wrapping for integers."""
    np.subtract(x, y, out=out)
    np.multiply(out, out, out=out)


def int_pow(x: np.ndarray, e: np.ndarray, out: np.ndarray) -> None:
    """Exact integer power, wrapping modulo 2**bits; negative exponents truncate (see CUDA)."""
    base = x.astype(np.uint64)  # modular: -3 -> 2**64 - 3
    acc = np.ones(x.shape, np.uint64)
    negative = e < 0 if np.issubdtype(e.dtype, np.signedinteger) else np.zeros(e.shape, bool)
    n = np.where(negative, 0, e).astype(np.uint64)
    one = np.uint64(1)
    while n.any():
        odd = (n & one).astype(bool)
        np.multiply(acc, base, out=acc, where=odd)
        np.multiply(base, base, out=base)
        np.right_shift(n, one, out=n)
    np.copyto(out, acc, casting="unsafe")
    if negative.any():
        neg_result = np.where(x == 1, 1, 0).astype(out.dtype)
        if np.issubdtype(x.dtype, np.signedinteger):
            minus_one = x == -1
            odd_e = (e & 1).astype(bool)
            neg_result[minus_one] = np.where(odd_e[minus_one], -1, 1).astype(out.dtype)
        out[negative] = neg_result[negative]
