"""The CPU's tiers, per row kind: each kind tries its tiers in order and the first that applies runs it.

============  =================================================================================================
row kind      tiers, in order
============  =================================================================================================
element-wise  fast execute (``fast.fast_paths``), numba loop (:func:`numba_tier`), ufunc (:func:`ufunc_tier`)
fused group   numba loop (:func:`fused_numba_tier`), one blocked ufunc pass (:func:`fused_ufunc_tier`)
reduction     fast execute (``fast.fast_paths``), pairwise numba (``pairwise.pairwise_rows``), ufunc
scan          ufunc (``scans.NumpyScanKernel``)
============  =================================================================================================

``NumpyBackend.compile`` calls its row kind's builder here (``NumpyBackend.COMPILE``, by ``Lowering.kind``), which
picks the tier of its run (:data:`ELEMENTWISE`, :data:`FUSED`); ``CompiledOperator`` then asks for a fast execute in
front of that run (``NumpyBackend.fast_paths``: an operator the ufunc tier runs as one ufunc below
``CpuPolicy.heavy_min`` and ``thread_min`` elements, a reduction the pairwise tier runs on this thread), and a
reduction picks its tier per call (``NumpyReduceKernel.reduce``). Every tier gives the same bits; the thresholds
are ``CpuPolicy``'s.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from descriptors import DataType

from ... import kernels
from ..runs import BufferRun, ElementwiseRun, ReduceRun
from . import policy as _policy
from . import threads as _threads
from .fused import _FusedRun
from .reductions import NumpyReduceKernel
from .scans import NumpyScanKernel
from .ufunc_kernels import NumpyKernel
from .views import view_maker

if TYPE_CHECKING:
    from ...lowering import FusedLowering, Lowering

__all__ = [
    "ELEMENTWISE",
    "FUSED",
    "compile_elementwise",
    "compile_fused",
    "compile_reduction",
    "compile_scan",
]


def _numba_run(
    lowering: Lowering | FusedLowering,
    key: tuple[Any, ...],
    make_spec: Callable[[], Any],
    dtypes: Mapping[str, DataType],
    scalar_types: Sequence[DataType],
    direct: bool = False,
) -> Any:
    """A compiled-tier runner: the flat loop over 1-D views (every tensor packed alike), or the rows loop over
    the bound buffers for what the GPU planner coalesces to two dimensions with unit or zero column strides
    (row, column and scalar broadcasts, padded rows), with its parallel driver compiled from
    ``CpuPolicy.par_min`` elements on where native threads are usable (``numba_loops.native_threads``). None
    where the tier does not apply (too small, numba absent, another layout, ``make_spec`` gives None) or numba
    refuses the loop: the ufunc path gives the same bits.

    ``direct``: the operator is one ufunc (``NumpyKernel.direct``). On packed tensors the serial loop does
    not beat it: the tier takes it from ``CpuPolicy.direct_min`` elements on, where its parallel driver is
    ready; other rows layouts (column broadcasts, padding) stay on the ufunc. A row broadcast
    (``numba_loops.row_broadcast``) the rows loop runs faster than NumPy's broadcasting ufunc at every size
    the tier takes (float32 add 32 x 32: 3.7 vs 6.9 us per execute; 64 x 1024: 5.9 vs 12.1 us for the loop
    alone, one thread), so the tier takes it from ``CpuPolicy.numba_min_elements`` on."""
    from .. import numba_loops

    p = _policy.POLICY
    count = lowering.output.element_count
    if count < p.numba_min_elements or not numba_loops.available():
        return None
    layout = None
    if not lowering.flat:
        plan = lowering.layout
        layout = numba_loops.rows_layout(plan) if plan is not None else None
        if layout is None:
            return None
    row_broadcast = layout is not None and numba_loops.row_broadcast(layout)
    if direct and not row_broadcast:  # packed tensors: worth it only on native threads
        if layout is not None or count < p.direct_min:
            return None
        if numba_loops._native is False or _threads.threads() < 2:
            return None
    lspec = make_spec()
    if lspec is None:
        return None
    kind = "flat" if layout is None else "rows"
    try:
        loop = kernels.get_or_build(
            key, lambda: numba_loops.NumbaLoopKernel(lspec, dtypes, scalar_types), lambda: lspec.source
        )
        loop.compile(kind)
    except Exception as exc:  # numba refused the loop
        numba_loops.log.warning("gpuops: %s stays on ufuncs, numba failed: %s", lspec.name, exc)
        return None
    native = False
    if count >= p.par_min:
        try:
            native = loop.compile_native(kind)
        except Exception as exc:  # numba refused the parallel driver: the serial loop and the Python pool
            numba_loops.log.warning("gpuops: %s runs without native threads, numba failed: %s", lspec.name, exc)
    if direct and not native and not row_broadcast:
        return None
    if layout is None:
        return ElementwiseRun(loop, lowering, "numba", view_maker)
    return BufferRun(loop, lowering, "numba", layout, "run_rows")


Tier = Callable[..., Any]


def numba_tier(lowering: Lowering, kernel: NumpyKernel, key: tuple[Any, ...]) -> Any:
    """The numba loop of an operator NumPy runs as several passes (float16/bfloat16 conversions,
    ScaleBias, a fused activation, a multi-step expression), or as one ufunc (``kernel.direct``) from
    ``CpuPolicy.direct_min`` elements on where native threads are usable; or None (see :func:`_numba_run`)."""
    from ...codegen.numba import loop_spec

    return _numba_run(
        lowering,
        (*key, "numba"),
        lambda: loop_spec(lowering.row, lowering.dtypes, lowering.has_scale_bias, lowering.fused, lowering.impl),
        lowering.dtypes,
        [t for _, t in lowering.scalar_types],
        direct=kernel.direct,
    )


def ufunc_tier(lowering: Lowering, kernel: NumpyKernel, key: tuple[Any, ...]) -> Any:
    """The ufunc kernel over views of the bound buffers: applies to every element-wise operator."""
    return ElementwiseRun(kernel, lowering, "numpy", view_maker)


def fused_numba_tier(fused: FusedLowering, node_kernels: Sequence[NumpyKernel]) -> Any:
    """The compiled tier's one loop for a fused group writing one value (``codegen.numba.fused_loop_spec``),
    or None (see :func:`_numba_run`)."""
    from ...codegen.numba import fused_loop_spec

    if len(fused.outputs) != 1:
        return None
    step = fused.step
    name = "loop_" + fused.spec.name.removeprefix("gpuops_")
    return _numba_run(
        fused,
        ("numpy", *fused.key, "numba"),
        lambda: fused_loop_spec(fused.nodes, step.operands, [k for k, _, _ in step.outputs], name),
        {f"i{n}": t.data_type for n, t in fused.inputs} | {"o0": fused.output.data_type},
        [t for low in fused.nodes for _, t in low.scalar_types],
    )


def fused_ufunc_tier(fused: FusedLowering, node_kernels: Sequence[NumpyKernel]) -> Any:
    """One blocked pass running each node's ufunc kernel (``_FusedRun``): applies to every fused group."""
    return _FusedRun(fused, node_kernels)


#: An element-wise operator's tiers, in order: ``tier(lowering, ufunc kernel, kernel key)``, the run or None.
ELEMENTWISE: tuple[Tier, ...] = (numba_tier, ufunc_tier)
#: A fused group's tiers, in order: ``tier(fused lowering, the nodes' ufunc kernels)``, the run or None.
FUSED: tuple[Tier, ...] = (fused_numba_tier, fused_ufunc_tier)


def _first(tiers: Sequence[Tier], *args: Any) -> Any:
    """The run of the first tier that applies (the last one always does)."""
    for tier in tiers:
        run = tier(*args)
        if run is not None:
            return run
    raise AssertionError("the last tier applies to every lowering")  # pragma: no cover


def compile_elementwise(backend: str, lowering: Lowering) -> Any:
    """An element-wise operator's run: its ufunc kernel is built first (once per kernel key, ``gpuops.kernels``),
    as the numba tier asks it whether the operator is one ufunc."""
    key = (backend, *lowering.key)
    kernel = kernels.get_or_build(key, functools.partial(NumpyKernel.of, lowering), lambda: lowering.spec.source)
    return _first(ELEMENTWISE, lowering, kernel, key)


def compile_fused(backend: str, fused: FusedLowering) -> Any:
    """A fused group's run: each node's ufunc kernel is built first (the blocked pass runs them)."""

    def node_kernel(low: Lowering) -> NumpyKernel:
        build = functools.partial(NumpyKernel.of, low)
        kernel: NumpyKernel = kernels.get_or_build((backend, *low.key), build, lambda: low.spec.source)
        return kernel

    node_kernels = [node_kernel(low) for low in fused.nodes]
    return _first(FUSED, fused, node_kernels)


def compile_reduction(backend: str, lowering: Lowering) -> Any:
    """A reduction's run: ``NumpyReduceKernel``, which picks its tier per call; the pairwise tier's numba loops
    are compiled now (not on the first execute) where it may run (``CpuPolicy.reduce_numba_min``)."""
    key = (backend, *lowering.key)
    build = functools.partial(NumpyReduceKernel.of, lowering)
    reduce_kernel = kernels.get_or_build(key, build, lambda: lowering.spec.source)
    (_, source), *_ = lowering.inputs
    if reduce_kernel.pairwise is not None and source.element_count >= _policy.POLICY.reduce_numba_min:
        reduce_kernel.warm_up()  # the numba tier's loops compiled now, not on the first execute
    return ReduceRun(reduce_kernel, lowering, "numpy", view_maker, None)


def compile_scan(backend: str, lowering: Lowering) -> Any:
    """A scan's run: ``NumpyScanKernel`` (NumPy's ``accumulate``; one tier)."""
    return NumpyScanKernel(lowering, view_maker)
