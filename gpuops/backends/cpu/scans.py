"""Scans on the CPU: CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT as NumPy's ``accumulate``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..fpstate import ignore, restore

if TYPE_CHECKING:
    from ...lowering import Lowering
    from ..runs import ViewMaker

__all__ = ["NumpyScanKernel"]


class NumpyScanKernel:
    """A scan row (CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT) on NumPy: the row's ufunc ``accumulate`` along the
    axis (sequential, as the CUDA kernel's walk), in the CUDA kernel's accumulator type (``codegen.scan``:
    float32 for 16-bit floats, the unsigned type of at least 32 bits for integers, so products and sums wrap),
    reversed for DECREASING, shifted by the identity for the exclusive forms; cast once into the output view.
    ``views``: the backend's view maker (``views.view_maker``), as the runs of ``gpuops.backends.runs`` take it."""

    launch_path = "numpy"

    def __init__(self, lowering: Lowering, views: ViewMaker) -> None:
        row = lowering.scan_row
        self.lowering = lowering
        ((self.position, tensor),) = lowering.inputs
        (self.axis,) = lowering.axes
        self.in_view = views(tensor, False)
        self.out_view = views(lowering.output, False)
        self.acc = lowering.scan_accumulator.numpy_dtype
        self.identity = self.acc.type(int(row.identity))
        self.accumulate = row.numpy
        _, reverse, exclusive = lowering.scan_args
        self.reverse, self.exclusive = bool(reverse), bool(exclusive)

    @property
    def source(self) -> str:
        """The scan's CUDA kernel (``codegen.scan``), made when first read: the CPU does not run it."""
        return self.lowering.spec.source

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        axis = self.axis
        token = ignore()
        try:
            x = self.in_view(inputs[self.position]).astype(self.acc)  # a copy: in-place bindings stay safe
            if self.reverse:
                x = np.flip(x, axis)
            if self.exclusive:
                index = [slice(None)] * x.ndim
                index[axis] = slice(0, -1)
                head = np.full_like(x, self.identity)
                index_rest = list(index)
                index_rest[axis] = slice(1, None)
                head[tuple(index_rest)] = x[tuple(index)]
                x = head
            result = self.accumulate(x, axis=axis, dtype=self.acc)
            if self.reverse:
                result = np.flip(result, axis)
            np.copyto(self.out_view(outputs[0]), result, casting="unsafe")
        finally:
            restore(token)
