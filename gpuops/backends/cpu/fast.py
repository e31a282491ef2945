"""The CPU backend's fast execute: a compiled operator's own ``execute`` (and convenience call) for the common
binding, chosen once at compile time in front of the run its tier gave (``tiers``): an operator the ufunc tier
runs as one ufunc below ``CpuPolicy.heavy_min`` and ``thread_min`` elements, or a reduction the pairwise numba
tier runs on this thread. Anything else goes to the general path, which decides as before."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ... import config
from .. import fpstate
from ..runs import ElementwiseRun, ReduceRun
from . import policy as _policy
from .reductions import NumpyReduceKernel
from .ufunc_kernels import NumpyKernel

if TYPE_CHECKING:
    from ...binding import BindingPlan
    from ...lowering import Lowering

__all__ = ["FastPaths", "fast_paths"]


_OUT_BY_KEYWORD = (np.maximum, np.minimum)
Execute = Callable[[Sequence[Any], Sequence[Any]], None]
Call = Callable[[Sequence[Any], Any], Any]


class FastPaths(NamedTuple):
    """A compiled operator's own ``execute(inputs, outputs)``, and its convenience call ``call(inputs, out)``
    (None: not this operator), which returns None for any call it leaves to ``gpuops.convenience.call``."""

    execute: Execute
    call: Call | None


def fast_paths(run: Any, lowering: Lowering, plan: BindingPlan, general: Execute) -> FastPaths | None:
    """A compiled operator's specialised ``execute`` and convenience call for the common case, or None.

    For an operator NumPy runs as one ufunc straight on the bound buffers (``NumpyKernel.direct``: every tensor
    packed alike, all present, below ``CpuPolicy.heavy_min`` and ``thread_min`` elements: from there on the general path
    decides on threads), built once at compile time. The common binding (lists or tuples of the right lengths;
    exact ``np.ndarray`` buffers with the tensors' own dtype object and 1-D shape, C-contiguous (both seen in
    ``strides == (itemsize,)`` and ``len``, cheaper than ``.shape`` and ``.flags``), the output writeable; no
    output sharing memory with an input: an output that owns its memory and inputs with no base (NumPy gives
    every view one) are distinct allocations unless they are the same object, else ``np.may_share_memory`` must
    say no) runs the ufunc under the silenced floating-point state, with none of the
    general path's lists, views and frames. Anything else, every error included, goes to ``general``
    (``binding.BindingPlan.check`` and the kernel), which decides as before. At 1000 float32 elements on a 2-vCPU
    VM ``execute`` went from 4.3 to about 1.4 us (np.add(out=) alone ~0.55 us) and ``compiled(a, b, out=c)`` from
    19 to about 1.6 us.
    """
    if type(run) is ReduceRun:
        return _reduce_fast_path(run, lowering, plan, general)
    kernel = getattr(run, "kernel", None)
    exact = plan.exact_buffers()
    if (
        type(run) is not ElementwiseRun
        or type(kernel) is not NumpyKernel
        or not kernel.direct
        or kernel.bits
        or kernel.slots is not None
        or not lowering.flat
        or exact is None
        or fpstate.FAST is None
        or plan.array_type is not np.ndarray
    ):
        return None
    ins, (do, so) = exact
    p = _policy.POLICY
    if so[0] >= min(p.heavy_min, p.thread_min) or tuple(k for k, _ in run.in_views) != tuple(range(len(ins))):
        return None
    params = run.prepared.params
    impl = kernel.impl
    # A plain ufunc takes the output positionally: no keyword dictionary per call (about 80 ns). Not np.maximum and
    # np.minimum: NumPy 2.4 deprecates a third positional argument to them (DeprecationWarning).
    plain = isinstance(impl, np.ufunc) and not params and impl not in _OUT_BY_KEYWORD
    ufunc: Callable[..., Any] = impl if plain else lambda *xs: impl(*xs[:-1], out=xs[-1], **params)
    set_state, reset_state, quiet = fpstate.FAST
    nd = np.ndarray
    overlap = np.may_share_memory
    # The convenience call's arrays: shaped like the tensors (their sizes), or the flat buffer itself.
    sizes = tuple(lowering.output.sizes)
    one_d = sizes == so
    # A 1-D packed buffer's strides, and its length: one tuple compare and a len() instead of .shape and .flags
    uo, no = (do.itemsize,), so[0]
    if len(ins) == 2:
        (da, sa), (db, sb) = ins
        (ua, na), (ub, nb) = ((da.itemsize,), sa[0]), ((db.itemsize,), sb[0])

        def execute2(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
            ti, to = type(inputs), type(outputs)
            if (ti is list or ti is tuple) and (to is list or to is tuple) and len(inputs) == 2 and len(outputs) == 1:
                a, b = inputs
                o = outputs[0]
                if (
                    type(a) is nd
                    and type(b) is nd
                    and type(o) is nd
                    and a.dtype is da
                    and b.dtype is db
                    and o.dtype is do
                    and a.strides == ua  # 1-D and packed: cheaper than .shape and .flags
                    and b.strides == ub
                    and o.strides == uo
                    and len(a) == na
                    and len(b) == nb
                    and len(o) == no
                ):
                    fo = o.flags
                    if fo.writeable:
                        if fo.owndata and a.base is None and b.base is None:
                            disjoint = o is not a and o is not b
                        else:
                            disjoint = not overlap(o, a) and not overlap(o, b)
                        if disjoint:
                            token = set_state(quiet)
                            try:
                                ufunc(a, b, o)
                            finally:
                                reset_state(token)
                            return
            general(inputs, outputs)

        def call2(inputs: Sequence[Any], out: Any) -> Any:
            if len(inputs) != 2:
                return None
            a, b = inputs
            if type(a) is not nd or type(b) is not nd or a.dtype is not da or b.dtype is not db:
                return None
            if one_d:
                if a.strides != ua or b.strides != ub or len(a) != na or len(b) != nb:
                    return None
            elif a.shape != sizes or b.shape != sizes or not a.flags.c_contiguous or not b.flags.c_contiguous:
                return None
            if out is None:
                o = np.empty(so, do)  # every element is written (no padding): disjoint from every input
            elif type(out) is nd and out.dtype is do and out.shape == sizes:
                fo = out.flags
                if not fo.c_contiguous or not fo.writeable:
                    return None
                if fo.owndata and a.base is None and b.base is None:
                    if out is a or out is b:
                        return None
                elif overlap(out, a) or overlap(out, b):
                    return None
                o = out
            else:
                return None
            token = set_state(quiet)
            try:
                if one_d:
                    ufunc(a, b, o)
                else:  # the same memory as each array's flat view (all are C-contiguous)
                    ufunc(a.reshape(so), b.reshape(so), o.reshape(so))
            finally:
                reset_state(token)
            return o if one_d or out is not None else o.reshape(sizes)

        return FastPaths(execute2, call2)
    if len(ins) == 1:
        ((da, sa),) = ins
        ua, na = (da.itemsize,), sa[0]

        def execute1(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
            ti, to = type(inputs), type(outputs)
            if (ti is list or ti is tuple) and (to is list or to is tuple) and len(inputs) == 1 and len(outputs) == 1:
                a = inputs[0]
                o = outputs[0]
                if (
                    type(a) is nd
                    and type(o) is nd
                    and a.dtype is da
                    and o.dtype is do
                    and a.strides == ua
                    and o.strides == uo
                    and len(a) == na
                    and len(o) == no
                ):
                    fo = o.flags
                    if fo.writeable and ((o is not a) if fo.owndata and a.base is None else not overlap(o, a)):
                        token = set_state(quiet)
                        try:
                            ufunc(a, o)
                        finally:
                            reset_state(token)
                        return
            general(inputs, outputs)

        return FastPaths(execute1, None)
    n = len(ins)

    packed = [(d, (d.itemsize,), sh[0]) for d, sh in ins]

    def execute_n(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        ti, to = type(inputs), type(outputs)
        if (ti is list or ti is tuple) and (to is list or to is tuple) and len(inputs) == n and len(outputs) == 1:
            o = outputs[0]
            if type(o) is nd and o.dtype is do and o.strides == uo and len(o) == no:
                fo = o.flags
                if fo.writeable:
                    owned = fo.owndata
                    for (d, u, m), x in zip(packed, inputs):  # noqa: B905 - lengths checked above
                        if type(x) is not nd or x.dtype is not d or x.strides != u or len(x) != m:
                            break
                        if x is o if owned and x.base is None else overlap(o, x):
                            break
                    else:
                        token = set_state(quiet)
                        try:
                            ufunc(*inputs, o)
                        finally:
                            reset_state(token)
                        return
        general(inputs, outputs)

    return FastPaths(execute_n, None)


def _reduce_fast_path(run: ReduceRun, lowering: Lowering, plan: BindingPlan, general: Execute) -> FastPaths | None:
    """REDUCE's own ``execute`` for SUM, L1 and SUM_SQUARE of float32/float64 over the last axes of a packed tensor
    into a packed output of that type, from ``CpuPolicy.reduce_numba_min`` to below ``reduce_numba_native_min``
    and ``thread_min`` input elements (the sizes ``pairwise.pairwise_rows`` runs on this thread), or None.

    The common binding (as :func:`fast_paths`: exact 1-D buffers of the tensors' dtypes and lengths, the output
    writeable and apart from the input) calls ``numba_reduce.row_sums`` on the bound buffers themselves, with the
    plan of NumPy's pairwise tree made once here: the same kernel and arguments as the general path, so the same
    bits, without its views, lists and frames (SUM over [64, 2048] float32: about 10 us of Python around a 10 us
    kernel there). Anything else, the numba tier switched off (``config.override(numba=False)``) included, goes
    to ``general``."""
    kernel = run.kernel
    exact = plan.exact_buffers()
    if (
        type(kernel) is not NumpyReduceKernel
        or kernel.pairwise is None
        or kernel.variant == "AVERAGE"
        or exact is None
        or len(exact[0]) != 1
        or run.position != 0
    ):
        return None
    ((di, (size,)),), (do, (rows_out,)) = exact
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
    nd = np.ndarray
    overlap = np.may_share_memory
    packed = (di.itemsize,)
    settings = config.settings

    def execute(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        ti, to = type(inputs), type(outputs)
        if (ti is list or ti is tuple) and (to is list or to is tuple) and len(inputs) == 1 and len(outputs) == 1:
            x = inputs[0]
            o = outputs[0]
            if (
                type(x) is nd
                and type(o) is nd
                and x.dtype is di
                and o.dtype is do
                and x.strides == packed
                and o.strides == packed
                and len(x) == size
                and len(o) == rows
                and settings().numba
            ):
                fo = o.flags
                if fo.writeable and ((o is not x) if fo.owndata and x.base is None else not overlap(o, x)):
                    row_sums(x, rows, n, lo, ln, prog, depth, o, 1, mode, zero, False)
                    return
        general(inputs, outputs)

    return FastPaths(execute, None)
