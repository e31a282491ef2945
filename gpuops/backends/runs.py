"""Runners: a built kernel bound to one ``Lowering``, callable as ``gpuops.backends.base.Kernel``.

Every backend runs its kernels one of three ways, so the three shapes live here once: over views with the
tensors' sizes and strides (``ElementwiseRun``, ``ReduceRun``), or over the bound buffers themselves with a
planned layout (``BufferRun``: gpuops' flat/rows kernels, the numba rows loop). A backend passes its view
maker (``cpu.views.view_maker``, or ``cupy_backend.view_maker`` bound to its array module).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from descriptors import TensorDesc

if TYPE_CHECKING:
    from ..lowering import FusedLowering, Lowering

__all__ = ["BufferRun", "ElementwiseRun", "ReduceRun", "ViewMaker"]

#: ``views(tensor, flat)`` -> a function giving the tensor's view of a bound buffer.
ViewMaker = Callable[[TensorDesc, bool], Callable[[Any], Any]]


class ElementwiseRun:
    """``kernel.run(input views, output view, prepared scalars, aliased)``."""

    def __init__(self, kernel: Any, lowering: Lowering | FusedLowering, launch_path: str, views: ViewMaker) -> None:
        self.kernel = kernel
        self.launch_path = launch_path
        self.prepared = kernel.prepare(lowering.scalars)
        self.in_views = tuple((k, views(t, lowering.flat)) for k, t in lowering.inputs)
        self.out_view = views(lowering.output, lowering.flat)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        ins = [make(inputs[k]) for k, make in self.in_views]
        self.kernel.run(ins, self.out_view(outputs[0]), self.prepared, aliased)


class BufferRun:
    """``kernel.<method>(bound input buffers, output buffer, prepared scalars, layout)``: the kernel indexes
    the buffers itself from ``layout`` (``launch_plan.FastPlan``, ``numba_loops.RowsLayout``)."""

    def __init__(self, kernel: Any, lowering: Lowering | FusedLowering, launch_path: str, layout: Any, method: str):
        self.kernel = kernel
        self.launch_path = launch_path
        self.layout = layout
        self.run = getattr(kernel, method)
        self.prepared = kernel.prepare(lowering.scalars)
        self.positions = tuple(k for k, _ in lowering.inputs)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        self.run([inputs[k] for k in self.positions], outputs[0], self.prepared, self.layout)


class ReduceRun:
    """``kernel.reduce(input view, output view, axes, count, two_pass)`` (``two_pass``: the GPU's plan, or None)."""

    def __init__(self, kernel: Any, lowering: Lowering, launch_path: str, views: ViewMaker, two_pass: Any) -> None:
        self.kernel = kernel
        self.launch_path = launch_path
        ((self.position, tensor),) = lowering.inputs
        self.in_view = views(tensor, False)
        self.out_view = views(lowering.output, False)
        self.axes, self.count, self.two_pass = lowering.axes, lowering.count, two_pass

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        x = self.in_view(inputs[self.position])
        self.kernel.reduce(x, self.out_view(outputs[0]), self.axes, self.count, self.two_pass)
