"""NumPy implementations of the unary rows that are not a plain ufunc.

Same conventions as ``numpy_impl.py``: ``f(x, out=out, **parameters)`` on operands in the
compute type; ``out`` never aliases ``x`` unless the row declares a single ufunc.
"""

from __future__ import annotations

import numpy as np

__all__ = ["identity"]


def identity(x: np.ndarray, *, out: np.ndarray) -> None:
    """A copy through both tensors' strides (alias-safe: in place it copies onto itself)."""
    np.copyto(out, x, casting="unsafe")
