"""Views of bound buffers for the CPU backend: a tensor's view of a buffer, its address, overlap, and the
logical index of a block's elements."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from descriptors import TensorDesc

__all__ = ["logical_index", "may_overlap", "pointer", "view_maker"]


def pointer(buf: np.ndarray) -> int:
    return int(buf.__array_interface__["data"][0])


may_overlap = np.may_share_memory


def view_maker(tensor: TensorDesc, flat: bool = False) -> Callable[[np.ndarray], np.ndarray]:
    """A function giving the tensor's view of a bound buffer (sizes and element strides).

    Packed tensors are a slice and a reshape (sub-microsecond); others an ``np.ndarray``
    over the buffer with byte strides (docs/reference/performance.md 3.8). ``flat=True``
    (all tensors of an element-wise operator packed with one shape): the first
    ``element_count`` elements as they are, 1-D, which the element-wise math does not mind.
    """
    sizes = tensor.sizes
    if flat:
        if not tensor.is_packed:
            raise ValueError(f"view_maker: flat=True takes a packed tensor (sizes {sizes}, strides {tensor.strides})")
        count = tensor.element_count
        return lambda buf: buf if buf.ndim == 1 and buf.shape[0] == count else buf.reshape(-1)[:count]
    if tensor.is_packed:
        count = tensor.element_count
        return lambda buf: buf.reshape(-1)[:count].reshape(sizes)
    byte_strides = tuple(s * tensor.data_type.itemsize for s in tensor.element_strides)
    return lambda buf: np.ndarray(sizes, dtype=buf.dtype, buffer=buf, offset=0, strides=byte_strides)


def logical_index(shape: tuple[int, ...], idx: tuple[Any, ...], block: tuple[int, ...]) -> np.ndarray:
    """The row-major index over ``shape`` of each element of ``out[idx]`` (int64, shaped ``block``).

    ``idx`` is ``()`` (the whole array) or a block of ``threads._chunks``: leading integers, one slice, the inner
    axes whole, so its elements are consecutive in logical order from the block's first element on.
    """
    start = 0
    for d, k in enumerate(idx):
        first = k.start if isinstance(k, slice) else k
        start += int(first) * math.prod(shape[d + 1 :])
    return np.arange(start, start + math.prod(block), dtype=np.int64).reshape(block)


def _strided_inner(ins: Sequence[np.ndarray]) -> bool:
    """Some operand steps through memory along the last axis (a transposed or permuted view)."""
    return any(v.ndim >= 2 and v.strides[-1] not in (0, v.itemsize) for v in ins)
