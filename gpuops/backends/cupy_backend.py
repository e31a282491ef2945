"""The CuPy backend: each generated ``KernelSpec`` becomes one ``cupy.ElementwiseKernel``.

Kernel objects are built once per (operator, data types, ScaleBias) and kept (cupy#3193:
rebuilding per call reloads the module). CuPy compiles on first launch and caches on disk.
A raw ElementwiseKernel does not copy overlapping inputs (unlike a CuPy ufunc), which is
fine here: ``binding.check_bindings`` only lets an output share an input's buffer when both
tensors have identical layouts, so every element is read before it is written by the same
thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from descriptors import TensorDesc

from ..codegen import KernelSpec

__all__ = ["CupyKernel", "is_usable", "may_overlap", "pointer", "view_maker"]


def is_usable() -> bool:
    try:
        import cupy

        return bool(cupy.is_available())
    except Exception:
        return False


def pointer(buf: Any) -> int:
    return int(buf.data.ptr)


def may_overlap(a: Any, b: Any) -> bool:
    """Whether two C-contiguous buffers' byte ranges intersect."""
    lo_a, lo_b = a.data.ptr, b.data.ptr
    return bool(lo_a < lo_b + b.nbytes and lo_b < lo_a + a.nbytes)


def view_maker(tensor: TensorDesc) -> Callable[[Any], Any]:
    """A function giving the tensor's view of a bound buffer (sizes and element strides)."""
    import cupy

    sizes = tensor.sizes
    if tensor.is_packed:
        count = tensor.element_count
        return lambda buf: buf[:count].reshape(sizes)
    byte_strides = tuple(s * tensor.data_type.itemsize for s in tensor.element_strides)
    return lambda buf: cupy.ndarray(sizes, dtype=buf.dtype, memptr=buf.data, strides=byte_strides)


class CupyKernel:
    """A built ``cupy.ElementwiseKernel`` for one spec."""

    def __init__(self, spec: KernelSpec) -> None:
        import cupy

        self.spec = spec
        self.kernel = cupy.ElementwiseKernel(
            spec.in_params, spec.out_params, spec.operation, spec.name, preamble=spec.preamble
        )

    def run(self, ins: Sequence[Any], out: Any, scalars: Mapping[str, Any], aliased: bool) -> None:
        self.kernel(*ins, *(scalars[n] for n in self.spec.scalar_params), out)
