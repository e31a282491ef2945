"""What one ``execute`` costs on a GPU: kernel launches and the bytes its kernels read and write (issue 33).

The model is the one a bandwidth-bound kernel's time follows: each kernel reads every distinct element of each
tensor it reads once and writes every element of each tensor it writes once (a broadcast operand's repeated reads,
stride 0, hit the cache: its distinct elements are the product of its sizes over the axes with a non-zero stride).
A GPU kernel's time is then about ``launches * launch latency + (bytes read + bytes written) / bandwidth``, and
``bytes_moved / (2 * output bytes)`` is how many copies of the output the operator costs (an element-wise ADD of
two packed float32 tensors moves 12 bytes per element: 1.5 copies).

A two-pass reduction (``gpuops.layout.reduce_plan``) writes its partial accumulators in pass 1 and reads them in
pass 2; a composite operator or a graph costs the sum of its steps (the workspaces between steps are written by
one and read by the next). The same figures are stated on every backend: they describe the kernels the CuPy
backend launches for this operator (the CPU runs ufunc passes of its own, see ``launch_path``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable

from descriptors import TensorDesc

__all__ = ["Cost", "distinct_bytes"]


@dataclasses.dataclass(frozen=True, slots=True)
class Cost:
    """Kernel launches and device-memory bytes of one ``execute``."""

    launches: int
    bytes_read: int
    bytes_written: int

    @property
    def bytes_moved(self) -> int:
        """Bytes read plus bytes written: what the kernels' time is proportional to at full bandwidth."""
        return self.bytes_read + self.bytes_written

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.launches + other.launches,
            self.bytes_read + other.bytes_read,
            self.bytes_written + other.bytes_written,
        )

    @staticmethod
    def total(costs: Iterable[Cost]) -> Cost:
        out = Cost(0, 0, 0)
        for c in costs:
            out = out + c
        return out


def distinct_bytes(tensor: TensorDesc | None) -> int:
    """Bytes of the distinct elements a tensor reads or writes: its sizes over the axes whose element stride is
    not 0, times its element size (0 for an absent optional tensor)."""
    if tensor is None:
        return 0
    strides = tensor.element_strides
    count = math.prod(s for s, st in zip(tensor.sizes, strides, strict=True) if st != 0)
    return count * tensor.data_type.itemsize


def kernel(reads: Iterable[TensorDesc | None], writes: Iterable[TensorDesc | None], launches: int = 1) -> Cost:
    """One kernel (or ``launches`` kernels over the same data) reading ``reads`` and writing ``writes``."""
    return Cost(launches, sum(distinct_bytes(t) for t in reads), sum(distinct_bytes(t) for t in writes))
