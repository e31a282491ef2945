"""The CPU backend's fast execute: a compiled operator's own ``execute`` (and convenience call) for the common
binding, chosen once at compile time in front of the run its tier gave (``tiers``): an operator the ufunc tier
runs as one ufunc below ``CpuPolicy.heavy_min`` and ``thread_min`` elements, or a reduction the pairwise numba
tier runs on this thread. Anything else goes to the general path, which decides as before."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ... import config
from .. import fpstate
from ..base import Execute, FastPaths
from ..runs import ElementwiseRun, ReduceRun
from . import policy as _policy
from .reductions import NumpyReduceKernel
from .ufunc_kernels import NumpyKernel

if TYPE_CHECKING:
    from ...binding import BindingPlan
    from ...lowering import Lowering

__all__ = ["FastPaths", "fast_paths"]


_OUT_BY_KEYWORD = (np.maximum, np.minimum)


def fast_paths(run: Any, lowering: Lowering, plan: BindingPlan, general: Execute) -> FastPaths | None:
    """A compiled operator's specialised ``execute`` and convenience call for the common case, or None.

    For an operator NumPy runs as one ufunc straight on the bound buffers (``NumpyKernel.direct``: every tensor
    packed alike, all present, below ``CpuPolicy.heavy_min`` and ``thread_min`` elements: from there on the general
    path decides on threads), built once at compile time. The common binding, as the plan's exact-buffer predicate
    decides it (``BindingPlan.fast_check``: exact ``np.ndarray`` buffers of the tensors' own dtype objects and 1-D
    shapes, the output writeable and apart from every input), runs the ufunc under the silenced floating-point
    state, with none of the general path's lists, views and frames. Anything else, every error included, goes to
    ``general`` (``binding.BindingPlan.check`` and the kernel), which decides as before. At 1000 float32 elements
    on a 2-vCPU VM ``execute`` went from 4.3 to about 1.4 us (np.add(out=) alone ~0.55 us) and
    ``compiled(a, b, out=c)`` from 19 to about 1.6 us; binding through the plan's predicate instead of checks
    written out here costs ``execute`` one call, about 0.06 us.
    """
    if type(run) is ReduceRun:
        return _reduce_fast_path(run, lowering, plan, general)
    kernel = getattr(run, "kernel", None)
    check = plan.fast_check()
    if (
        type(run) is not ElementwiseRun
        or type(kernel) is not NumpyKernel
        or not kernel.direct
        or kernel.bits
        or kernel.slots is not None
        or not lowering.flat
        or check is None
        or fpstate.FAST is None
        or plan.array_type is not np.ndarray
    ):
        return None
    do, no = check.output
    p = _policy.POLICY
    if no >= min(p.heavy_min, p.thread_min) or tuple(k for k, _ in run.in_views) != tuple(range(len(check.inputs))):
        return None
    params = run.prepared.params
    impl = kernel.impl
    # A plain ufunc takes the output positionally: no keyword dictionary per call (about 80 ns). Not np.maximum and
    # np.minimum: NumPy 2.4 deprecates a third positional argument to them (DeprecationWarning).
    plain = isinstance(impl, np.ufunc) and not params and impl not in _OUT_BY_KEYWORD
    ufunc: Callable[..., Any] = impl if plain else lambda *xs: impl(*xs[:-1], out=xs[-1], **params)
    set_state, reset_state, quiet = fpstate.FAST
    accepts, accepts_buffers, accepts_inputs = check.accepts, check.accepts_buffers, check.accepts_inputs
    n = len(check.inputs)
    # One execute per arity: the ufunc's arguments unpacked, not starred (a starred call costs ~0.1 us).
    if n == 2:

        def execute(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
            if accepts(inputs, outputs):
                a, b = inputs
                token = set_state(quiet)
                try:
                    ufunc(a, b, outputs[0])
                finally:
                    reset_state(token)
                return
            general(inputs, outputs)

    elif n == 1:

        def execute(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
            if accepts(inputs, outputs):
                token = set_state(quiet)
                try:
                    ufunc(inputs[0], outputs[0])
                finally:
                    reset_state(token)
                return
            general(inputs, outputs)

    else:

        def execute(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
            if accepts(inputs, outputs):
                token = set_state(quiet)
                try:
                    ufunc(*inputs, outputs[0])
                finally:
                    reset_state(token)
                return
            general(inputs, outputs)

    if n != 2:
        return FastPaths(execute, None)
    nd = np.ndarray
    # The convenience call's arrays: shaped like the tensors (their sizes), or the flat buffer itself.
    sizes = tuple(lowering.output.sizes)
    flat = (no,)
    one_d = sizes == flat

    def call2(inputs: Sequence[Any], out: Any) -> Any:
        if len(inputs) != 2:
            return None
        a, b = inputs
        if not one_d:  # arrays shaped like the tensors are bound as their flat views (gpuops.arrays)
            if type(a) is not nd or type(b) is not nd or a.shape != sizes or b.shape != sizes:
                return None
            a, b = a.reshape(flat), b.reshape(flat)  # a copy of one that is not C-contiguous, as gpuops.arrays
        if out is None:
            if not accepts_inputs(a, b):
                return None
            o = np.empty(flat, do)  # every element is written (no padding); apart from every input
        else:
            if one_d:
                o = out
            elif type(out) is nd and out.shape == sizes and out.flags.c_contiguous:  # written through: not a copy
                o = out.reshape(flat)
            else:
                return None
            if not accepts_buffers(a, b, o):
                return None
        token = set_state(quiet)
        try:
            ufunc(a, b, o)
        finally:
            reset_state(token)
        return out if out is not None else o if one_d else o.reshape(sizes)

    return FastPaths(execute, call2)


def _reduce_fast_path(run: ReduceRun, lowering: Lowering, plan: BindingPlan, general: Execute) -> FastPaths | None:
    """REDUCE's own ``execute`` for SUM, L1 and SUM_SQUARE of float32/float64 over the last axes of a packed tensor
    into a packed output of that type, from ``CpuPolicy.reduce_numba_min`` to below ``reduce_numba_native_min``
    and ``thread_min`` input elements (the sizes ``pairwise.pairwise_rows`` runs on this thread), or None.

    The common binding (the plan's exact-buffer predicate, as for :func:`fast_paths`) calls
    ``numba_reduce.row_sums`` on the bound buffers themselves, with the plan of NumPy's pairwise tree made once
    here: the same kernel and arguments as the general path, so the same bits, without its views, lists and frames
    (SUM over [64, 2048] float32: about 10 us of Python around a 10 us kernel there). Anything else, the numba tier
    switched off (``config.override(numba=False)``) included, goes to ``general``."""
    kernel = run.kernel
    check = plan.fast_check()
    if (
        type(kernel) is not NumpyReduceKernel
        or kernel.pairwise is None
        or kernel.variant == "AVERAGE"
        or check is None
        or len(check.inputs) != 1
        or run.position != 0
        or plan.array_type is not np.ndarray
    ):
        return None
    ((di, size),), (do, rows_out) = check.inputs, check.output
    p = _policy.POLICY
    if (
        di != kernel.compute
        or do != di
        or not p.reduce_numba_min <= size < min(p.reduce_numba_native_min, p.thread_min)
    ):
        return None
    sizes = tuple(lowering.inputs[0][1].sizes)
    axes, ndim = tuple(lowering.axes), len(sizes)
    if not axes or axes != tuple(range(ndim - len(axes), ndim)):
        return None
    n = math.prod(sizes[ndim - len(axes) :])
    rows = size // n if n else 0
    if rows != rows_out or 1 < rows < p.reduce_numba_rows or rows == 0:
        return None
    from .. import numba_loops

    if not numba_loops.available():
        return None
    from .. import numba_reduce

    lo, ln, prog, depth = numba_reduce.plan(n)
    zero = di.type(0)
    mode = kernel.pairwise
    row_sums = numba_reduce.row_sums
    warm = numba_reduce.plan(16)  # compiled now for writeable buffers (the general path passes read-only views)
    row_sums(np.zeros(16, di), 1, 16, *warm, np.zeros(1, di), 1, mode, zero, False)
    settings = config.settings
    accepts = check.accepts

    def execute(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        if accepts(inputs, outputs) and settings().numba:
            row_sums(inputs[0], rows, n, lo, ln, prog, depth, outputs[0], 1, mode, zero, False)
            return
        general(inputs, outputs)

    return FastPaths(execute, None)
