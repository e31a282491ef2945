"""NumPy implementations of the activation rows: ``f(x, out=out, **parameters)``.

``x`` is in the compute type, ``out`` is a distinct array of the same type (the backend
guarantees no aliasing unless the row declares a single ufunc), parameters are NumPy
scalars (float32). Formulas mirror the CUDA expressions of ``rows_activation.py``
operation for operation, so both backends round the same way.
"""

from __future__ import annotations

import numpy as np

__all__ = ["elu", "relu", "softplus"]


def relu(x: np.ndarray, *, out: np.ndarray) -> None:
    """max(x, 0), NaN propagating, and +0.0 for -0.0 (as the CUDA expression).

    ``np.maximum(-0.0, 0.0)`` may give either zero (its SIMD loops differ from its scalar
    loop); adding +0.0 afterwards turns -0.0 into +0.0 and leaves every other value as is.
    Alias-safe: the second step reads only ``out``.
    """
    zero = x.dtype.type(0)
    np.maximum(x, zero, out=out)
    np.add(out, zero, out=out)


def elu(x: np.ndarray, *, out: np.ndarray, alpha: np.float32) -> None:
    np.expm1(x, out=out)
    np.multiply(out, x.dtype.type(alpha), out=out)
    np.copyto(out, x, where=x >= 0)


def _softplus(z: np.ndarray, out: np.ndarray) -> None:
    """max(z, 0) + log1p(exp(-|z|)), the CUDA helper's order of operations."""
    np.abs(z, out=out)
    np.negative(out, out=out)
    np.exp(out, out=out)
    np.log1p(out, out=out)
    np.add(out, np.maximum(z, z.dtype.type(0)), out=out)


def softplus(x: np.ndarray, *, out: np.ndarray, steepness: np.float32) -> None:
    s = x.dtype.type(steepness)
    z = np.multiply(x, s)
    _softplus(z, out)
    np.divide(out, s, out=out)
