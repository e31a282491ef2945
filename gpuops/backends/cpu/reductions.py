"""Reductions on the CPU: ``NumpyReduceKernel`` (the pairwise numba tier first, ``pairwise.pairwise_rows``, then
NumPy's ufunc reductions, shared among the pool's threads from ``CpuPolicy.reduce_thread_min`` on), and
``_ReduceInPasses``, a reduction with fused groups around it run pass by pass."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from descriptors import DataType, TensorDesc
from descriptors.compute import ComputePlan
from descriptors.schema import ReductionRow

from ..fpstate import ignore, restore
from . import policy as _policy
from . import threads as _threads
from .pairwise import PAIRWISE, pairwise_rows
from .views import may_overlap

if TYPE_CHECKING:
    from ...lowering import FusedLowering, Lowering

__all__ = ["NumpyReduceKernel"]


def _reduce_blocks(x: np.ndarray, axes: tuple[int, ...]) -> list[tuple[slice | int, ...]] | None:
    """Index tuples splitting one kept (not reduced) axis of ``x`` into blocks, for ``x[b]`` and ``out[b]``
    alike (``out`` keeps the reduced axes as size 1); None where no kept axis has 4 elements or more (a full
    reduction: splitting the reduced axes would change the order of the sums, so it stays on one thread), and
    None where the only such axes step through memory the least (a reduction over the first axis of ``[R, C]``:
    column blocks cut the contiguous runs NumPy streams, and even 2 of them ran 0.2-0.6x the one-thread float32
    SUM over ``[8192, 1024]``'s first axis; one call on half the columns alone took 1.6x the whole).

    Every block has at least 2 elements along the split axis, so no axis of size 2 or more becomes size 1 in
    a block: NumPy's iterator then sees the same axes, strides and order, coalesces the reduced axes alike and
    keeps the same inner loop (pairwise sums over the same runs, buffered chunks from the same starts), so
    each output element's sum is the same sequence of operations (an argument from NumPy's iterator, checked
    by tests/backends/test_reduce_threads.py, where blocks of 1 column do change bits). The axis: the one that
    gives the most blocks (up to the number wanted), then the outermost in memory (the largest stride: contiguous
    runs per thread)."""
    want = max(2, x.size // _policy.POLICY.reduce_block)
    best: tuple[int, int, int] | None = None
    run = min((abs(x.strides[d]) for d in range(x.ndim) if x.shape[d] > 1), default=0)
    for d in range(x.ndim):
        if d in axes or x.shape[d] < 4 or abs(x.strides[d]) <= run:
            continue
        key = (min(x.shape[d] // 2, want), abs(x.strides[d]), d)
        if best is None or key > best:
            best = key
    if best is None:
        return None
    count, _, axis = best
    size = x.shape[axis]
    lead = (slice(None),) * axis
    cuts = [i * size // count for i in range(count + 1)]
    return [(*lead, slice(a, b)) for a, b in itertools.pairwise(cuts)]


class NumpyReduceKernel:
    """One (reduction row, selector value, data types) lowering for NumPy.

    Runs the row's NumPy form on a strided view of the input (never a copy of it, except
    where ARGMAX/ARGMIN must bring the reduced axes together), accumulating as the CUDA
    kernel does (float32 for 16-bit floats, 64 bits for integers), then casts once into
    the output view. ``plan``: the compute plan (a ``Lowering``'s, see :meth:`of`).
    """

    def __init__(self, row: ReductionRow, dtypes: Mapping[str, DataType], variant: str, plan: ComputePlan) -> None:
        self.row = row
        self.plan = plan
        red = row.reductions[variant]
        self.impl = red.numpy
        self.compute = self.plan.compute.numpy_dtype
        # SUM/MULTIPLY/MAX/MIN whose output has the accumulator's type: one ufunc reduction
        # straight into the output view (no temporary result, no copy).
        self.into: tuple[np.ufunc, np.dtype] | None = None
        shortcut = red.numpy_ufunc
        self.after = shortcut.after if shortcut is not None else None  # MAX/MIN: zero signs
        if shortcut is not None:
            acc = shortcut.accumulator(self.compute)
            if acc == dtypes[row.output_fields[0].name].numpy_dtype:
                self.into = (shortcut.ufunc, acc)
        # Threads from CpuPolicy.reduce_thread_min elements on where NumPy reads the input in its own type (float32,
        # float64, 64-bit integers, or a ufunc reducing in the input's type), else from reduce_thread_min_cast.
        stored = dtypes[row.input_fields[0].name].numpy_dtype
        light = (stored.kind == "f" and stored.itemsize >= 4) or stored.itemsize == 8
        light = light or (self.into is not None and self.into[1] == stored)
        self.cast = not light
        # numba tier (reduce_numba_min): float32/float64 read and summed in their own type
        self.variant = variant
        self.pairwise: int | None = None
        if variant in PAIRWISE and stored == self.compute and stored in (np.dtype(np.float32), np.dtype(np.float64)):
            self.pairwise = PAIRWISE[variant]
        self.best = float("inf")  # the fastest native launch's seconds per element (numba_loops.launch_alone)

    @classmethod
    def of(cls, lowering: Lowering) -> NumpyReduceKernel:
        """The kernel of a reduction's lowering, with the lowering's plan."""
        return cls(lowering.reduction_row, lowering.dtypes, lowering.reduction_variant, lowering.plan)

    def reduce(self, x: np.ndarray, out: np.ndarray, axes: tuple[int, ...], n: int, plan: object = None) -> None:
        """Reduce ``x`` over ``axes`` into ``out`` (``plan``: the GPU's two-pass layout, unused here).

        The tiers, in order. From ``CpuPolicy.reduce_numba_min`` elements on, SUM, AVERAGE, L1 and SUM_SQUARE of
        float32/float64 over contiguous rows (or one contiguous run) take the numba tier
        (:func:`~gpuops.backends.cpu.pairwise.pairwise_rows`: NumPy's pairwise order, the same bits, full
        reductions included, split at the top of NumPy's tree). Otherwise NumPy's ufunc reduction: from
        ``reduce_thread_min`` (input read in its own type) or ``reduce_thread_min_cast`` (cast to a wider
        accumulator: float16, bfloat16, most integer forms) input elements on, blocks of the output's index
        space (slices of one kept axis, :func:`_reduce_blocks`) are shared among the pool's threads
        (``threads._parallel``), each block reduced by the same NumPy calls on sub-views of ``x`` and ``out``: every
        output element is computed as the one-thread call computes it, so the bits are the same
        (``tests/backends/test_reduce_threads.py``). Full reductions stay on this thread here."""
        token = ignore()
        try:
            p = _policy.POLICY
            if self.pairwise is not None and x.size >= p.reduce_numba_min and pairwise_rows(self, x, out, axes, n):
                return
            blocks = None
            least = p.reduce_thread_min_cast if self.cast else p.reduce_thread_min
            if x.size >= least and _threads._thread_count() > 1 and not may_overlap(x, out):
                blocks = _reduce_blocks(x, axes)
            if blocks is None:
                self._reduce(x, out, axes, n)
                return

            def work(mine: Iterable[tuple[slice | int, ...]]) -> None:
                for b in mine:
                    self._reduce(x[b], out[b], axes, n)

            _threads._parallel(blocks, work, max(x.size, p.thread_min))  # the size test is the one made above
        finally:
            restore(token)

    def warm_up(self) -> None:
        """Compile the numba tier's loops for this kernel's type now (``compile_operator``), as the element-wise
        tier does: about 0.9 s the first time in a process, 0.3 s from numba's disk cache."""
        from .. import numba_loops

        if self.pairwise is None or not numba_loops.available():
            return
        from .. import numba_reduce

        numba_reduce.warm_up(self.compute)

    def _reduce(self, x: np.ndarray, out: np.ndarray, axes: tuple[int, ...], n: int) -> None:
        """The one-thread reduction of ``x`` (or a block of it) into ``out`` (the same block)."""
        if self.into is not None:
            ufunc, acc = self.into
            ufunc.reduce(x, axis=axes, dtype=acc, keepdims=True, out=out)
            if self.after is not None:
                self.after(x, out, axes)
            return
        result = self.impl(x, axes, n, self.compute)
        np.copyto(out, result, casting="unsafe")


def _buffer_for(layout: TensorDesc) -> np.ndarray:
    need = layout.total_tensor_size_in_bytes or 0
    return np.empty(-(-need // layout.data_type.itemsize), layout.data_type.numpy_dtype)


class _ReduceInPasses:
    """A reduction with fused groups around it, pass by pass: the prologue into a buffer, the reduction over it
    (into another, when an epilogue follows), the epilogue into the output. The buffers are per thread: one
    compiled graph or composite may run on several threads at once (``gpuops.run`` and ``gpuops.dask`` share
    them)."""

    launch_path = "numpy"

    def __init__(
        self, prologue: Any, reduce_run: Any, epilogue: Any, fused: FusedLowering | None, reduce: Lowering
    ) -> None:
        self.prologue, self.reduce, self.epilogue = prologue, reduce_run, epilogue
        self.kernel_count = 1 + (prologue is not None) + (epilogue is not None)
        self.before_layout = fused.output if fused is not None else None
        self.after_layout = reduce.output if epilogue is not None else None
        self._local = threading.local()
        parts = ["prologue (one pass), then "] if prologue is not None else []
        parts.append(f"{reduce.row.name} {reduce.variant}")
        parts += [", then epilogue (one pass) over its result"] if epilogue is not None else []
        self.source = "// " + "".join(parts) + "\n"

    def _buffers(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """This thread's (prologue value, reduction result) buffers, made on its first call."""
        mine = getattr(self._local, "buffers", None)
        if mine is None:
            mine = self._local.buffers = tuple(
                None if t is None else _buffer_for(t) for t in (self.before_layout, self.after_layout)
            )
        return mine

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        before, after = self._buffers()
        if before is not None:
            self.prologue(inputs, [before], False)
            inputs = [before]
        if after is None:
            self.reduce(inputs, outputs, False)
            return
        self.reduce(inputs, [after], False)
        self.epilogue([after], outputs, False)
