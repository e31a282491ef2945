"""The NumPy backend: runs each op-table row's NumPy expression with DirectML semantics.

Fast path: a row whose NumPy expression is one ufunc, on operands already in their compute
type, runs as a single ufunc call straight on strided views of the bound buffers (NumPy
handles exact in-place aliasing itself). Every other case (float16/bfloat16 computed in
float32, raw-bit views, ScaleBias, multi-step expressions) runs over chunks of about
64 Ki elements so the float32 intermediates stay in cache (docs/reference/performance.md
3.4, 4.1) and no full-size temporary is ever allocated.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from descriptors import DataType, TensorDesc
from descriptors.compute import compute_plan
from descriptors.schema import Domain, ElementwiseRow, ReductionRow

from .. import config, kernels
from ..codegen import BIAS, FUSED_PREFIX, SCALE
from . import fpstate
from .fpstate import ignore, restore
from .half_convert import MIN_F16, MIN_F32, f16_to_f32, f32_to_f16
from .runs import BufferRun, ElementwiseRun, ReduceRun

if TYPE_CHECKING:
    from ..binding import BindingPlan
    from ..lowering import FusedLowering, Lowering

__all__ = ["NumpyBackend", "NumpyKernel", "NumpyReduceKernel", "may_overlap", "pointer", "view_maker"]

CHUNK = 1 << 16
TILE = 256
# Split a single-ufunc call across threads from this many elements on: NumPy's ufunc loops
# release the GIL, and two threads over halves ran np.add 1.9x faster than one call at 5e7
# on a 2-core machine (docs/reference/performance.md); below a few MiB the pool's
# ~50 us per call costs more than it gains.
THREAD_MIN = 1 << 21
# Blocks of a threaded single-ufunc call: a few hundred microseconds of work each, so the
# threads share the work evenly and a GIL hand-over (tens of microseconds on a VM) is rare.
THREAD_BLOCK = 1 << 18
# Compute-bound ufunc work (EXP, TANH, ERF, ...: about 1 ns an element, against ~0.1 for an add) is shared among
# threads from HEAVY_MIN elements on where this kernel's fastest one-thread call so far (seconds per element,
# measured on calls of HEAVY_MIN elements or more, two at least) puts the call at HEAVY_S or more, unless a
# threaded call was slower per element (NumpyKernel._heavy): a pool hand-off (~80 us on the 2-vCPU VM) then
# costs less than a second thread saves. Float32 EXP with ScaleBias, one thread / two (us):
# 2^18 199 / 248, 2^19 372 / 285, 2^20 947 / 634. Blocks of HEAVY_BLOCK elements.
HEAVY_MIN = 1 << 17
HEAVY_S = 300e-6
HEAVY_BLOCK = 1 << 16


def _thread_count() -> int:
    """``GPUOPS_NUM_THREADS`` as read by ``gpuops.config`` (never parsed here), else the CPUs this process may use."""
    configured = config.settings().num_threads
    if configured is not None:
        return configured
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


_POOL: concurrent.futures.ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_POOL_LOCK = threading.Lock()


def _pool(workers: int) -> concurrent.futures.ThreadPoolExecutor:
    """The shared pool, with at least ``workers`` threads: a larger ``num_threads`` setting
    (``gpuops.config.reload``) gets a larger pool; the old one finishes what it was given, then its
    threads end."""
    global _POOL, _POOL_SIZE
    with _POOL_LOCK:
        if _POOL is None or workers > _POOL_SIZE:
            if _POOL is not None:
                _POOL.shutdown(wait=False)
            _POOL = concurrent.futures.ThreadPoolExecutor(workers, thread_name_prefix="gpuops")
            _POOL_SIZE = workers
        return _POOL


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
        assert tensor.is_packed
        count = tensor.element_count
        return lambda buf: buf if buf.ndim == 1 and buf.shape[0] == count else buf.reshape(-1)[:count]
    if tensor.is_packed:
        count = tensor.element_count
        return lambda buf: buf.reshape(-1)[:count].reshape(sizes)
    byte_strides = tuple(s * tensor.data_type.itemsize for s in tensor.element_strides)
    return lambda buf: np.ndarray(sizes, dtype=buf.dtype, buffer=buf, offset=0, strides=byte_strides)


def _chunks(shape: tuple[int, ...], limit: int | None = None) -> Any:
    """Index tuples that split ``shape`` into blocks of about ``limit`` (default CHUNK) elements."""
    limit = CHUNK if limit is None else limit
    inner = 1
    axis = len(shape) - 1
    while axis > 0 and inner * shape[axis] <= limit:
        inner *= shape[axis]
        axis -= 1
    step = max(1, limit // max(inner, 1))
    outer = [range(n) for n in shape[:axis]]
    for head in itertools.product(*outer):
        for j in range(0, shape[axis], step):
            yield (*head, slice(j, j + step))


def _parallel(blocks: list[Any], work: Callable[[Iterable[Any]], None], size: int) -> None:
    """``work(blocks)`` on this thread, or on this thread and the pool's, blocks claimed one by one.

    Each participant runs ``work`` once, over an iterator that claims the next unclaimed
    block (a shared counter), so a thread the machine slows down takes fewer blocks instead
    of holding every other back (a static split into halves made the median of a 2-thread
    float16 add 1.6x worse than its best on a busy 2-vCPU VM). Blocks are disjoint index
    tuples of the output, and every element is read and written by one thread only, so
    exact in-place aliasing stays safe.
    """
    if size < THREAD_MIN or len(blocks) < 2:
        work(blocks)
        return
    workers = min(_thread_count(), len(blocks))
    if workers < 2:
        work(blocks)
        return
    pool = _pool(_thread_count())
    counter = itertools.count()
    n = len(blocks)

    def claim() -> Iterator[Any]:
        for i in counter:  # next() on an itertools.count is atomic under the GIL
            if i >= n:
                return
            yield blocks[i]

    def helper() -> None:
        token = ignore()
        try:
            work(claim())
        finally:
            restore(token)

    futures = [pool.submit(helper) for _ in range(workers - 1)]
    try:
        work(claim())  # this thread takes part (its floating-point state is already set)
    finally:
        for f in futures:
            if not f.cancel():  # a helper that never started has nothing left to claim (and, called from a
                f.result()  # pool thread while every other one waits too, would never start)


def _tiles(shape: tuple[int, ...]) -> list[Any]:
    """TILE x TILE tiles of the last two axes (for every index of the others).

    A transposed operand read tile by tile touches TILE-element runs of its rows, instead of
    one element per cache line across the whole array (docs/reference/performance.md 4.1:
    the 6-7x cliff, 2.9x back with 256 x 256 tiles).
    """
    *head, rows, cols = shape
    out = []
    for lead in itertools.product(*(range(h) for h in head)):
        for i in range(0, rows, TILE):
            for j in range(0, cols, TILE):
                out.append((*lead, slice(i, i + TILE), slice(j, j + TILE)))
    return out


def logical_index(shape: tuple[int, ...], idx: tuple[Any, ...], block: tuple[int, ...]) -> np.ndarray:
    """The row-major index over ``shape`` of each element of ``out[idx]`` (int64, shaped ``block``).

    ``idx`` is ``()`` (the whole array) or a block of :func:`_chunks`: leading integers, one slice, the inner
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


_F16, _F32 = np.dtype(np.float16), np.dtype(np.float32)


def _cast(src: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = src`` with NumPy's casting; float16 <-> float32 through ``half_convert``
    (bit-identical, and faster than NumPy's element-by-element software cast: ``benchmarks/``)."""
    if src.dtype == _F16 and out.dtype == _F32 and src.size >= MIN_F32:
        f16_to_f32(src, out)
    elif src.dtype == _F32 and out.dtype == _F16 and src.size >= MIN_F16:
        f32_to_f16(src, out)
    else:  # below half_convert's break-even sizes: NumPy's cast, without half_convert's checks
        np.copyto(out, src, casting="unsafe")


class Prepared(NamedTuple):
    """A kernel's arguments for one descriptor: row parameters, fused ones, ScaleBias."""

    params: dict[str, Any]
    fused_params: dict[str, Any]
    scale_bias: tuple[np.float32, np.float32] | None


class NumpyKernel:
    """One (row, data types, ScaleBias present, fused activation) lowering for NumPy.

    The row's NumPy callable is called ``impl(x, y, ..., out=out, **parameters)`` with one positional
    operand per input field (None for an absent optional input), in their compute types; a fused
    activation's callable then runs on the result, still in the compute type, before the one final
    cast to the output type.
    """

    def __init__(
        self,
        row: ElementwiseRow,
        dtypes: Mapping[str, DataType],
        has_scale_bias: bool,
        fused: ElementwiseRow | None = None,
    ) -> None:
        self.row = row
        self.plan = compute_plan(row, dtypes, has_scale_bias)
        self.dtypes = dict(dtypes)
        self.in_roles = tuple(f.name for f in row.input_fields if f.name in dtypes)
        # Where each input field's operand is among the present ones (None: an absent optional input, passed
        # as None in its position so that the fields after it keep theirs); None when every input is present.
        slots = tuple(self.in_roles.index(f.name) if f.name in dtypes else None for f in row.input_fields)
        self.slots = None if None not in slots else slots
        # The input ScaleBias applies to; -1 for a row with no inputs (FILL_VALUE_CONSTANT reads none).
        self.primary_index = self.in_roles.index(row.primary_role) if row.primary_role in self.in_roles else -1
        self.out_role = row.output_fields[0].name
        self.impl = row.exprs.numpy_for(self.plan.value_class)
        self.single = row.exprs.is_single_ufunc(self.plan.value_class)
        self.has_scale_bias = has_scale_bias
        self.fused = fused
        self.fused_impl = fused.exprs.numpy_for("float") if fused is not None else None
        # A fused activation that may write over its own input runs in place on the result.
        self.fused_in_place = fused is not None and fused.exprs.is_single_ufunc("float")
        self.bits = row.domain is Domain.BITS
        in_np = {r: self.plan.inputs[r].numpy_dtype for r in self.in_roles}
        self.in_np = in_np
        self.out_np = self.plan.out_compute.numpy_dtype
        # float16 chunks convert through half_convert: about twenty short ufunc passes per
        # chunk, which two threads ran slower than one (13.9 vs 19.6 ms for a 2**22 float16 add
        # on a 2-vCPU VM: the GIL changes hands at every pass), so those stay on one thread.
        self.float16 = any(dt is DataType.FLOAT16 for dt in dtypes.values())
        # HEAVY_MIN elements or more: the fastest one-thread call's seconds per element (0: none yet), how many
        # were timed, and the fastest threaded call's (0: none yet)
        self.cost = 0.0
        self.timed = 0
        self.cost_threads = 0.0
        self.timed_threads = 0
        self.reads_index = row.reads_index  # the impl takes index= (FILL_VALUE_SEQUENCE): never the direct path
        self.direct = (
            self.single
            and not row.reads_index
            and not has_scale_bias
            and fused is None
            and all(in_np[r] == dtypes[r].numpy_dtype or self.bits for r in self.in_roles)
            and (self.out_np == dtypes[self.out_role].numpy_dtype or self.bits)
        )

    def prepare(self, scalars: Mapping[str, Any]) -> Prepared:
        """The per-descriptor arguments, worked out once per compiled operator, not per call."""
        params = {f.name: scalars[f.kernel_name] for f in self.row.param_fields}
        fparams = {}
        if self.fused is not None:
            fparams = {f.name: scalars[FUSED_PREFIX + f.kernel_name] for f in self.fused.param_fields}
        sb = (np.float32(scalars[SCALE]), np.float32(scalars[BIAS])) if self.has_scale_bias else None
        return Prepared(params, fparams, sb)

    def _args(self, xs: Sequence[np.ndarray]) -> Sequence[np.ndarray | None]:
        """The impl's positional operands: the present inputs, None in an absent optional input's position."""
        return xs if self.slots is None else [None if i is None else xs[i] for i in self.slots]

    def run(self, ins: Sequence[np.ndarray], out: np.ndarray, prepared: Prepared, aliased: bool) -> None:
        token = ignore()
        try:
            self._run(ins, out, prepared, aliased)
        finally:
            restore(token)

    def _run(self, ins: Sequence[np.ndarray], out: np.ndarray, prepared: Prepared, aliased: bool) -> None:
        if self.bits:
            ins = [v.view(self.in_np[r]) for v, r in zip(ins, self.in_roles, strict=True)]
            out = out.view(self.out_np)
        size = out.size
        heavy = HEAVY_MIN <= size < THREAD_MIN and out.ndim >= 1 and self._heavy(size)
        if self.direct:
            params = prepared.params
            if size >= TILE * TILE and out.ndim >= 2 and _strided_inner(ins):
                blocks = _tiles(out.shape)
            elif size >= THREAD_MIN and out.ndim >= 1:
                blocks = list(_chunks(out.shape, THREAD_BLOCK))
            elif heavy:
                blocks = list(_chunks(out.shape, HEAVY_BLOCK))
            elif size < HEAVY_MIN:
                self.impl(*self._args(ins), out=out, **params)
                return
            else:
                self._timed(size, lambda: self.impl(*self._args(ins), out=out, **params))
                return

            def work(part: Iterable[Any]) -> None:
                for idx in part:
                    self.impl(*self._args([v[idx] for v in ins]), out=out[idx], **params)

            if heavy:
                self._timed_threads(size, lambda: _parallel(blocks, work, THREAD_MIN))
            else:
                _parallel(blocks, work, size)
            return
        blocks = [()] if size <= CHUNK else list(_chunks(out.shape))  # () is the whole array
        work = lambda part: self._chunked(ins, out, prepared, aliased, part)  # noqa: E731
        if self.float16:  # one thread: see __init__
            work(blocks)
        elif heavy:
            self._timed_threads(size, lambda: _parallel(blocks, work, THREAD_MIN))
        elif HEAVY_MIN <= size < THREAD_MIN:
            self._timed(size, lambda: work(blocks))
        else:
            _parallel(blocks, work, size)

    def _heavy(self, size: int) -> bool:
        """Whether a call of ``size`` elements (HEAVY_MIN .. THREAD_MIN) goes to the pool: two one-thread calls were
        timed (a first call pays for page faults and cold caches), the fastest puts this one at HEAVY_S or more,
        and fewer than two threaded calls were timed (the first one may start the pool) or the fastest of them was
        faster per element."""
        cost = self.cost
        if self.timed < 2 or size * cost < HEAVY_S:
            return False
        return self.timed_threads < 2 or self.cost_threads < cost

    def _timed(self, size: int, call: Callable[[], object]) -> None:
        """``call()`` on this thread (``size`` elements, HEAVY_MIN or more); its time per element into ``cost``."""
        start = time.perf_counter()
        call()
        took = (time.perf_counter() - start) / size
        if took < self.cost or self.cost == 0.0:
            self.cost = took
        self.timed += 1

    def _timed_threads(self, size: int, call: Callable[[], object]) -> None:
        """``call()``, a threaded call (:meth:`_heavy`); its time per element into ``cost_threads``."""
        start = time.perf_counter()
        call()
        took = (time.perf_counter() - start) / size
        if took < self.cost_threads or self.cost_threads == 0.0:
            self.cost_threads = took
        self.timed_threads += 1

    def _chunked(
        self, ins: Sequence[np.ndarray], out: np.ndarray, prepared: Prepared, aliased: bool, blocks: Iterable[Any]
    ) -> None:
        params, fparams, sb = prepared
        n = min(math.prod(out.shape), CHUNK)  # _chunks never yields more than CHUNK elements
        ws_in: list[np.ndarray | None] = [None] * len(self.in_roles)  # made on first need
        act: Any = self.fused_impl  # the fused activation's NumPy callable, or None
        fused = act is not None
        scale, bias = sb if sb is not None else (np.float32(1), np.float32(0))
        # The result goes straight into the output when it has the compute type, the output
        # does not alias an input of a multi-step expression, and the activation (if any) can
        # run in place there: no workspace, no final copy.
        into_out = out.dtype == self.out_np and (not aliased or self.single) and (not fused or self.fused_in_place)
        ws_out = None if into_out else np.empty(n, self.out_np)
        ws_act = np.empty(n, self.out_np) if fused and not into_out else None
        p = self.primary_index
        # One input, a single ufunc, the result straight into the output: the scaled operand is
        # made in the output chunk too and the ufunc runs there in place (the chain a user would
        # write: multiply, add, op, all into out), with no workspace.
        # (The output chunk must hold the operand's compute type, not merely the result's.)
        scale_in_out = (
            into_out and sb is not None and self.single and len(ins) == 1 and out.dtype == self.in_np[self.in_roles[p]]
        )
        for idx in blocks:
            o = out[idx]
            shape, size = o.shape, o.size
            if self.reads_index:
                params = {**prepared.params, "index": logical_index(out.shape, idx, shape)}
            xs = []
            for i, (v, r) in enumerate(zip(ins, self.in_roles, strict=True)):
                part = v[idx]
                scaled = i == p and sb is not None
                same = part.dtype == self.in_np[r]
                if same and not scaled:
                    xs.append(part)
                    continue
                if scale_in_out:
                    w = o
                else:
                    buf = ws_in[i]
                    if buf is None:
                        buf = ws_in[i] = np.empty(n, self.in_np[r])
                    w = buf[:size].reshape(shape)
                if same:  # scaled, already in the compute type: the multiply reads the operand itself
                    np.multiply(part, scale, out=w)
                else:
                    _cast(part, w)
                    if scaled:
                        np.multiply(w, scale, out=w)
                if scaled:
                    np.add(w, bias, out=w)
                xs.append(w)
            if ws_out is None:
                self.impl(*self._args(xs), out=o, **params)
                if fused:
                    act(o, out=o, **fparams)
                continue
            w = ws_out[:size].reshape(shape)
            self.impl(*self._args(xs), out=w, **params)
            if ws_act is not None:
                a = ws_act[:size].reshape(shape)
                act(w, out=a, **fparams)
                w = a
            _cast(w, o)


# A reduction is shared among threads (NumpyReduceKernel.reduce) from REDUCE_THREAD_MIN input elements on where
# NumPy reads the input in its own type (memory-bound: the 2-thread split of a float32 SUM over rows of 1024 was
# 0.75-0.96x at 2^20 elements, 1.16-1.27x at 2^21, 1.4-1.5x at 2^23 on the 2-vCPU VM; float32 ARGMAX and AVERAGE
# lost at 2^19-2^20 too), and from REDUCE_THREAD_MIN_CAST on where it is cast to a wider accumulator (float16 and
# bfloat16 to float32, most integer forms to 64 bits: compute-bound; the float16 SUM was 1.06x at 2^18,
# 1.26-1.38x at 2^19-2^20, 1.6x at 2^23). A pool round trip costs ~50-80 us there. Blocks of about REDUCE_BLOCK
# input elements: each block's call costs ~3-5 us (a float32 SUM over [8192, 1024] on one thread in 32 blocks took
# 1.07x the one call, in 8 blocks 1.02x), and with the other vCPU busy (load ~1.3) 8 blocks of 2^20 lost 0-5% to
# one thread where 32 blocks of 2^18 lost 10-18% (float32 SUM/MAX/ARGMAX at 2^23); on the idle VM 8 blocks were
# 1.39x, 32 blocks 1.47x.
REDUCE_THREAD_MIN = 1 << 21
REDUCE_THREAD_MIN_CAST = 1 << 19
REDUCE_BLOCK = 1 << 20
# The numba tier (numba_reduce: NumPy's pairwise order, so NumPy's bits): SUM, AVERAGE, L1 and SUM_SQUARE of
# float32/float64 read in their own type, over contiguous rows (the reduced axes innermost and packed, the kept ones
# one uniform stride; REDUCE_NUMBA_ROWS rows or more) or one contiguous run (a full reduction), where numba is
# available (GPUOPS_NUMBA). From REDUCE_NUMBA_MIN input elements on one call on this thread. Rows shared among threads
# (2 or more): from REDUCE_NUMBA_NATIVE_MIN on on numba's native threads (REDUCE_NUMBA_DRIVER "numba":
# numba_reduce.row_sums_parallel through numba_loops.launch_alone, omp/tbb only, paused while launches lose time),
# else from REDUCE_NUMBA_THREAD_MIN on REDUCE_NUMBA_BLOCKS blocks of rows per thread on the pool (_parallel). A full
# reduction: pieces of the top of the pairwise tree, summed apart and combined in the tree's order, on numba's threads
# from REDUCE_NUMBA_NATIVE_FULL_MIN on (numba_reduce.sum_pieces), else on the pool's from REDUCE_NUMBA_THREAD_MIN on
# (float32 2^23, the other vCPU busy: 460 against 1245 us). Float32 SUM over rows of 1024 and of 64, this tier on one
# thread against the ufunc tier (threaded from 2^21), 2-vCPU VM with the other vCPU mostly busy: 0.70-0.97x at 2^15,
# 0.81-1.28x at 2^16, 0.99-1.70x at 2^17, 1.2-2.2x at 2^18, 1.5-3.4x at 2^19..2^21. Float32 SUM over rows of 2048
# (2-vCPU Zen 4 VM, quiet; one thread / numba's 2 threads / the pool's 2 threads / half the rows on one thread, us):
# 2^18 22-29 / 18 / 96 / 15; 2^20 82-114 / 65-70 / 110 / 58; 2^23 870-1350 / 560-670 / 700-730 / 490. The pool pays a
# hand-off (~80 us) that native threads do not (~2-3 us); with the other vCPU busy a native launch took ~8 ms, where
# the guard pauses them and the pool takes over.
REDUCE_NUMBA_MIN = 1 << 17
REDUCE_NUMBA_ROWS = 8
REDUCE_NUMBA_NATIVE_MIN = 1 << 19
REDUCE_NUMBA_NATIVE_FULL_MIN = 1 << 20
REDUCE_NUMBA_THREAD_MIN = 1 << 22
REDUCE_NUMBA_DRIVER = "numba"  # "numba": native threads first; "pool": blocks of rows on _parallel's threads only
REDUCE_NUMBA_BLOCKS = 4  # blocks of rows per thread
# The map numba_reduce applies before summing, per function (AVERAGE divides the sum afterwards, as NumPy does).
_PAIRWISE = {"SUM": 0, "AVERAGE": 0, "L1": 1, "SUM_SQUARE": 2}


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
    by tests/test_reduce_threads.py, where blocks of 1 column do change bits). The axis: the one that gives the most
    blocks (up to the number wanted), then the outermost in memory (the largest stride: contiguous runs per
    thread)."""
    want = max(2, x.size // REDUCE_BLOCK)
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
    the output view.
    """

    def __init__(self, row: ReductionRow, dtypes: Mapping[str, DataType], variant: str) -> None:
        self.row = row
        self.plan = compute_plan(row, dtypes)
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
        # Threads from REDUCE_THREAD_MIN elements on where NumPy reads the input in its own type (float32,
        # float64, 64-bit integers, or a ufunc reducing in the input's type), else from REDUCE_THREAD_MIN_CAST.
        stored = dtypes[row.input_fields[0].name].numpy_dtype
        light = (stored.kind == "f" and stored.itemsize >= 4) or stored.itemsize == 8
        light = light or (self.into is not None and self.into[1] == stored)
        self.cast = not light
        # numba tier (REDUCE_NUMBA_MIN): float32/float64 read and summed in their own type
        self.variant = variant
        self.pairwise: int | None = None
        if variant in _PAIRWISE and stored == self.compute and stored in (np.dtype(np.float32), np.dtype(np.float64)):
            self.pairwise = _PAIRWISE[variant]
        self.best = float("inf")  # the fastest native launch's seconds per element (numba_loops.launch_alone)

    def reduce(self, x: np.ndarray, out: np.ndarray, axes: tuple[int, ...], n: int, plan: object = None) -> None:
        """Reduce ``x`` over ``axes`` into ``out`` (``plan``: the GPU's two-pass layout, unused here).

        From REDUCE_THREAD_MIN (input read in its own type) or REDUCE_THREAD_MIN_CAST (cast to a wider
        accumulator: float16, bfloat16, most integer forms) input elements on, blocks of the output's index
        space (slices of one kept axis, :func:`_reduce_blocks`) are shared among the pool's threads
        (:func:`_parallel`), each block reduced by the same NumPy calls on sub-views of ``x`` and ``out``: every
        output element is computed as the one-thread call computes it, so the bits are the same
        (``tests/test_reduce_threads.py``). Full reductions stay on this thread here. Before all that, SUM,
        AVERAGE, L1 and SUM_SQUARE of float32/float64 over contiguous rows (or one contiguous run) take the numba
        tier from REDUCE_NUMBA_MIN elements on (:meth:`_pairwise_rows`: NumPy's pairwise order, the same bits,
        full reductions included, split at the top of NumPy's tree)."""
        token = ignore()
        try:
            if self.pairwise is not None and x.size >= REDUCE_NUMBA_MIN and self._pairwise_rows(x, out, axes, n):
                return
            blocks = None
            least = REDUCE_THREAD_MIN_CAST if self.cast else REDUCE_THREAD_MIN
            if x.size >= least and _thread_count() > 1 and not may_overlap(x, out):
                blocks = _reduce_blocks(x, axes)
            if blocks is None:
                self._reduce(x, out, axes, n)
                return

            def work(mine: Iterable[tuple[slice | int, ...]]) -> None:
                for b in mine:
                    self._reduce(x[b], out[b], axes, n)

            _parallel(blocks, work, max(x.size, THREAD_MIN))  # the size test is the one made above
        finally:
            restore(token)

    def warm_up(self) -> None:
        """Compile the numba tier's loops for this kernel's type now (``compile_operator``), as the element-wise
        tier does: about 0.9 s the first time in a process, 0.3 s from numba's disk cache."""
        from . import numba_loops

        if self.pairwise is None or not numba_loops.available():
            return
        from . import numba_reduce

        numba_reduce.warm_up(self.compute)

    def _pairwise_rows(self, x: np.ndarray, out: np.ndarray, axes: tuple[int, ...], n: int) -> bool:
        """The numba tier: NumPy's pairwise sums of ``x``'s contiguous rows (:mod:`numba_reduce`), on this thread
        or, with 2 threads or more, on numba's threads from REDUCE_NUMBA_NATIVE_MIN elements on (REDUCE_NUMBA_DRIVER
        "numba", where the launch guard lets it) or on the pool's from REDUCE_NUMBA_THREAD_MIN on; into ``out``
        directly, or through a temporary (AVERAGE's division, another output type or layout). False, with nothing
        written, where it does not apply (see REDUCE_NUMBA_MIN)."""
        if x.dtype != self.compute:
            return False
        from . import numba_loops

        if not numba_loops.available():
            return False
        from . import numba_reduce

        view = numba_reduce.rows_view(x, axes)
        if view is None or 1 < view[1] < REDUCE_NUMBA_ROWS or may_overlap(x, out):
            return False
        flat, rows, length, rstride = view
        target = numba_reduce.out_view(out, rows) if out.dtype == x.dtype and self.variant != "AVERAGE" else None
        temp = None
        if target is None:
            temp = np.empty(rows, x.dtype)
            target = (temp, 1)
        tflat, ostride = target
        mode = self.pairwise or 0
        threads = _thread_count() if x.size >= min(REDUCE_NUMBA_NATIVE_MIN, REDUCE_NUMBA_THREAD_MIN) else 1
        native = (
            REDUCE_NUMBA_DRIVER == "numba"
            and threads > 1
            and x.size >= REDUCE_NUMBA_NATIVE_MIN
            and numba_reduce.parallel_ok()
        )
        # a full reduction: the top levels of NumPy's pairwise tree split it into independent pieces, each
        # summed on its own (raw: no +0.0), then combined in the tree's order (numba_reduce.split)
        levels = max(1, (threads * REDUCE_NUMBA_BLOCKS - 1).bit_length())
        total = None  # a full reduction's sum from numba's threads (None: not run, or the launch guard refused)
        if native and rows == 1 and x.size >= REDUCE_NUMBA_NATIVE_FULL_MIN:
            total = numba_reduce.sum_pieces(flat, length, mode, threads, levels, self)
        if total is not None:
            tflat[0] = total[0]
        elif (
            native
            and rows > 1
            and numba_reduce.sum_rows(flat, rows, length, rstride, tflat, ostride, mode, threads, guard=self)
        ):
            pass  # on numba's threads (False: the launch guard refused, nothing written)
        elif threads > 1 and x.size >= REDUCE_NUMBA_THREAD_MIN and rows == 1:
            pieces, prog = numba_reduce.split(length, levels)
            sums = np.empty(len(pieces), x.dtype)

            def each(mine: Iterable[int]) -> None:
                for i in mine:
                    start, m = pieces[i]
                    numba_reduce.sum_rows(flat[start:], 1, m, m, sums[i:], 1, mode, 1, raw=True)

            _parallel(list(range(len(pieces))), each, max(x.size, THREAD_MIN))
            tflat[0] = numba_reduce.combine(sums, prog)[0]
        elif threads > 1 and x.size >= REDUCE_NUMBA_THREAD_MIN:
            count = min(rows, threads * REDUCE_NUMBA_BLOCKS)
            cuts = [i * rows // count for i in range(count + 1)]

            def work(mine: Iterable[tuple[int, int]]) -> None:
                for r0, r1 in mine:
                    part = tflat[r0 * ostride :]
                    numba_reduce.sum_rows(flat[r0 * rstride :], r1 - r0, length, rstride, part, ostride, mode, 1)

            _parallel(list(itertools.pairwise(cuts)), work, max(x.size, THREAD_MIN))
        else:
            numba_reduce.sum_rows(flat, rows, length, rstride, tflat, ostride, mode, 1)
        if temp is not None:
            if self.variant == "AVERAGE":
                np.divide(temp, temp.dtype.type(n), out=temp)
            np.copyto(out, temp.reshape(out.shape), casting="unsafe")
        return True

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


class NumpyScanKernel:
    """A scan row (CUMULATIVE_SUMMATION, CUMULATIVE_PRODUCT) on NumPy: the row's ufunc ``accumulate`` along the
    axis (sequential, as the CUDA kernel's walk), in the CUDA kernel's accumulator type (``codegen.scan``:
    float32 for 16-bit floats, the unsigned type of at least 32 bits for integers, so products and sums wrap),
    reversed for DECREASING, shifted by the identity for the exclusive forms; cast once into the output view."""

    launch_path = "numpy"

    def __init__(self, lowering: Lowering) -> None:
        from ..codegen.scan import accumulator

        row = lowering.scan_row
        self.source = lowering.spec.source
        ((self.position, tensor),) = lowering.inputs
        (self.axis,) = lowering.axes
        self.in_view = view_maker(tensor)
        self.out_view = view_maker(lowering.output)
        self.acc = accumulator(tensor.data_type).numpy_dtype
        self.identity = self.acc.type(int(row.identity))
        self.accumulate = row.numpy
        _, reverse, exclusive = lowering.scan_args
        self.reverse, self.exclusive = bool(reverse), bool(exclusive)

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


# ----------------------------------------------------------------------------------------------
# The backend protocol (gpuops.backends.base): a Lowering compiled into a kernel that runs it.


class _FusedRun:
    """A fused group of graph nodes in one pass over memory: over blocks of about ``CHUNK`` elements of the
    common shape, each node's ufunc kernel runs in turn, its intermediates in block-sized workspaces that
    stay in cache (the nodes' own kernels, so every node boundary rounds exactly as node-by-node execution)."""

    launch_path = "numpy"

    def __init__(self, fused: FusedLowering, node_kernels: Sequence[NumpyKernel]) -> None:
        self.nodes = tuple((k, k.prepare(low.scalars)) for k, low in zip(node_kernels, fused.nodes, strict=True))
        self.operands = fused.step.operands
        self.in_views = tuple(view_maker(t) for _, t in fused.inputs)
        self.out_views = tuple(view_maker(t) for t in fused.outputs)
        self.stored = {k: m for m, (k, _, _) in enumerate(fused.step.outputs)}  # node position -> output
        self.shape = fused.nodes[0].output.sizes
        self.types = tuple(low.output.data_type.numpy_dtype for low in fused.nodes)
        self.float16 = any(k.float16 for k in node_kernels)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        ins = [make(b) for make, b in zip(self.in_views, inputs, strict=True)]
        outs = [make(b) for make, b in zip(self.out_views, outputs, strict=True)]
        size = math.prod(self.shape)
        blocks = [()] if size <= CHUNK else list(_chunks(self.shape))
        n = min(size, CHUNK)

        def work(part: Iterable[Any]) -> None:
            temps = [None if k in self.stored else np.empty(n, t) for k, t in enumerate(self.types)]
            for idx in part:
                values: list[np.ndarray] = []
                for k, (kernel, prepared) in enumerate(self.nodes):
                    args = [ins[s[1]][idx] if s[0] == "in" else values[s[1]] for s in self.operands[k] if s]
                    if k in self.stored:
                        o = outs[self.stored[k]][idx]
                    else:
                        temp = temps[k]
                        assert temp is not None
                        # A node reading nothing (FILL_VALUE_CONSTANT) writes the block's shape.
                        shape = args[0].shape if args else np.broadcast_to(np.empty((), bool), self.shape)[idx].shape
                        o = temp[: math.prod(shape)].reshape(shape)
                    kernel.run(args, o, prepared, False)
                    values.append(o)

        if self.float16:  # one thread, as NumpyKernel does for float16 (see its __init__)
            work(blocks)
        else:
            _parallel(blocks, work, size)


def _is_foreign(x: object) -> bool:
    """A DLPack exporter that is not a NumPy array (a torch or JAX CPU tensor)."""
    return x is not None and not isinstance(x, np.ndarray) and hasattr(x, "__dlpack__")


def _from_dlpack(x: Any, what: str) -> np.ndarray:
    """A NumPy array over a DLPack tensor's memory (no copy). bfloat16, which NumPy's DLPack import does not
    know, comes through torch's 16-bit integer view; a tensor that requires grad is refused by name. Whatever
    else goes wrong in the exporter (its ``__dlpack__`` or ``__dlpack_device__`` raises, returns None or an
    object that is not a DLPack capsule) is a ``TypeError`` naming ``what``, never NumPy's bare capsule error."""
    if getattr(x, "requires_grad", False):
        raise TypeError(f"{what} requires grad; gpuops computes no gradients: pass x.detach()")
    try:
        if type(x).__module__.split(".")[0] == "torch" and str(getattr(x, "dtype", "")) == "torch.bfloat16":
            import ml_dtypes
            import torch

            return np.from_dlpack(x.view(torch.int16)).view(ml_dtypes.bfloat16)
        return np.from_dlpack(x)
    except Exception as exc:  # the exporter is foreign code: any failure of it is the argument's
        raise TypeError(
            f"{what} ({type(x).__module__}.{type(x).__name__}) cannot be read through DLPack "
            f"({type(exc).__name__}: {exc}); pass a NumPy array, or a CPU tensor whose __dlpack__() returns a "
            "DLPack capsule"
        ) from exc


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
    (row, column and scalar broadcasts, padded rows), with its parallel driver compiled from ``PAR_MIN``
    elements on where native threads are usable (``numba_loops.native_threads``). None where the tier does
    not apply (too small, numba absent, another layout, ``make_spec`` gives None) or numba refuses the loop:
    the ufunc path gives the same bits.

    ``direct``: the operator is one ufunc (``NumpyKernel.direct``). On packed tensors the serial loop does
    not beat it: the tier takes it from ``numba_loops.DIRECT_MIN`` elements on, where its parallel driver is
    ready; other rows layouts (column broadcasts, padding) stay on the ufunc. A row broadcast
    (``numba_loops.row_broadcast``) the rows loop runs faster than NumPy's broadcasting ufunc at every size
    the tier takes (float32 add 32 x 32: 3.7 vs 6.9 us per execute; 64 x 1024: 5.9 vs 12.1 us for the loop
    alone, one thread), so the tier takes it from ``MIN_ELEMENTS`` on."""
    from . import numba_loops

    count = lowering.output.element_count
    if count < numba_loops.MIN_ELEMENTS or not numba_loops.available():
        return None
    layout = None
    if not lowering.flat:
        plan = lowering.layout
        layout = numba_loops.rows_layout(plan) if plan is not None else None
        if layout is None:
            return None
    row_broadcast = layout is not None and numba_loops.row_broadcast(layout)
    if direct and not row_broadcast:  # packed tensors: worth it only on native threads
        if layout is not None or count < numba_loops.DIRECT_MIN:
            return None
        if numba_loops._native is False or numba_loops.threads() < 2:
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
    if count >= numba_loops.PAR_MIN:
        try:
            native = loop.compile_native(kind)
        except Exception as exc:  # numba refused the parallel driver: the serial loop and the Python pool
            numba_loops.log.warning("gpuops: %s runs without native threads, numba failed: %s", lspec.name, exc)
    if direct and not native and not row_broadcast:
        return None
    if layout is None:
        return ElementwiseRun(loop, lowering, "numba", view_maker)
    return BufferRun(loop, lowering, "numba", layout, "run_rows")


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
    packed alike, all present, below ``HEAVY_MIN`` and ``THREAD_MIN`` elements: from there on the general path
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
    if so[0] >= min(HEAVY_MIN, THREAD_MIN) or tuple(k for k, _ in run.in_views) != tuple(range(len(ins))):
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
    into a packed output of that type, from REDUCE_NUMBA_MIN to below REDUCE_NUMBA_NATIVE_MIN and
    REDUCE_NUMBA_THREAD_MIN input elements (the sizes ``_pairwise_rows`` runs on this thread), or None.

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
    if di != kernel.compute or do != di or not REDUCE_NUMBA_MIN <= size < min(REDUCE_NUMBA_NATIVE_MIN, THREAD_MIN):
        return None
    sizes = tuple(lowering.inputs[0][1].sizes)
    axes, ndim = tuple(lowering.axes), len(sizes)
    if not axes or axes != tuple(range(ndim - len(axes), ndim)):
        return None
    n = math.prod(sizes[ndim - len(axes) :])
    rows = size // n if n else 0
    if rows != rows_out or 1 < rows < REDUCE_NUMBA_ROWS or rows == 0:
        return None
    from . import numba_loops

    if not numba_loops.available():
        return None
    from . import numba_reduce

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


class NumpyBackend:
    """The CPU backend: NumPy ufuncs, with numba's compiled loops where the ``jit`` extra is installed."""

    name = "numpy"
    xp = np
    array_type: type = np.ndarray
    binds_host_memory = True

    @staticmethod
    def unavailable_reason() -> str | None:
        return None  # NumPy is a dependency: always usable

    def compile(self, lowering: Lowering) -> Any:
        key = (self.name, *lowering.key)
        if lowering.is_reduction:
            row, variant = lowering.reduction_row, lowering.variant
            assert variant is not None
            reduce_kernel = kernels.get_or_build(
                key, lambda: NumpyReduceKernel(row, lowering.dtypes, variant), lambda: lowering.spec.source
            )
            (_, source), *_ = lowering.inputs
            if reduce_kernel.pairwise is not None and source.element_count >= REDUCE_NUMBA_MIN:
                reduce_kernel.warm_up()  # the numba tier's loops compiled now, not on the first execute
            return ReduceRun(reduce_kernel, lowering, "numpy", view_maker, None)
        if lowering.is_scan:
            return NumpyScanKernel(lowering)
        erow = lowering.elementwise_row
        kernel = kernels.get_or_build(
            key,
            lambda: NumpyKernel(erow, lowering.dtypes, lowering.has_scale_bias, lowering.fused),
            lambda: lowering.spec.source,
        )
        return self._compiled_loop(lowering, kernel, key) or ElementwiseRun(kernel, lowering, "numpy", view_maker)

    @staticmethod
    def _compiled_loop(lowering: Lowering, kernel: NumpyKernel, key: tuple[Any, ...]) -> Any:
        """The numba loop of an operator NumPy runs as several passes (float16/bfloat16 conversions,
        ScaleBias, a fused activation, a multi-step expression), or as one ufunc (``kernel.direct``) from
        ``numba_loops.DIRECT_MIN`` elements on where native threads are usable; or None (see
        :func:`_numba_run`)."""
        from ..codegen.numba import loop_spec

        return _numba_run(
            lowering,
            (*key, "numba"),
            lambda: loop_spec(lowering.row, lowering.dtypes, lowering.has_scale_bias, lowering.fused),
            lowering.dtypes,
            [t for _, t in lowering.scalar_types],
            direct=kernel.direct,
        )

    def compile_fused(self, fused: FusedLowering) -> Any:
        """A fused group of graph nodes: one blocked pass running each node's ufunc kernel (``_FusedRun``)."""

        def node_kernel(low: Lowering) -> NumpyKernel:
            row = low.elementwise_row
            build = lambda: NumpyKernel(row, low.dtypes, low.has_scale_bias, low.fused)  # noqa: E731
            kernel: NumpyKernel = kernels.get_or_build((self.name, *low.key), build, lambda: low.spec.source)
            return kernel

        node_kernels = [node_kernel(low) for low in fused.nodes]
        return self._fused_loop(fused) or _FusedRun(fused, node_kernels)

    def compile_fused_reduce(
        self, prologue: FusedLowering | None, reduce: Lowering, epilogue: FusedLowering | None = None
    ) -> Any:
        """The prologue (one loop or one blocked pass) into a buffer of the value's layout, the reduction over
        it, the epilogue over the reduction's result: a pass each on the CPU (NumPy's reductions read arrays,
        not expressions)."""
        before = self.compile_fused(prologue) if prologue is not None else None
        after = self.compile_fused(epilogue) if epilogue is not None else None
        return _ReduceInPasses(before, self.compile(reduce), after, prologue, reduce)

    @staticmethod
    def _fused_loop(fused: FusedLowering) -> Any:
        """The compiled tier's one loop for a fused group writing one value (``codegen.numba.fused_loop_spec``),
        or None (see :func:`_numba_run`)."""
        from ..codegen.numba import fused_loop_spec

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

    pointer = staticmethod(pointer)
    may_overlap = staticmethod(may_overlap)
    fast_paths = staticmethod(fast_paths)

    @staticmethod
    def unwrap(buffers: Sequence[Any]) -> Sequence[Any]:
        """DLPack objects (torch or JAX CPU tensors) as NumPy arrays over the same memory; the rest as given."""
        if isinstance(buffers, list) and all(type(b) is np.ndarray for b in buffers):
            return buffers  # the common case: nothing to convert
        if not isinstance(buffers, (list, tuple)):
            return buffers
        return type(buffers)(
            _from_dlpack(b, f"the buffer at position {k}") if _is_foreign(b) else b for k, b in enumerate(buffers)
        )

    def adopt(self, x: object, what: str) -> Any:
        """``x`` as a NumPy array, without a copy for NumPy arrays and DLPack CPU tensors (torch, JAX); a GPU
        or emulator array is refused (no silent device-to-host copy), and so is a masked array (``np.asarray``
        would drop its mask: a silent wrong answer; ``execute`` refuses it as a subclass)."""
        if isinstance(x, np.ma.MaskedArray):
            raise TypeError(
                f"{what} is a masked array; gpuops would ignore its mask. Pass x.filled(value) or np.asarray(x)"
            )
        module = type(x).__module__
        gpu = module.split(".")[0] == "cupy" or module == "gpuops.emulator.memory"
        if gpu or hasattr(x, "__cuda_array_interface__"):
            raise TypeError(
                f"{what} is a GPU array ({module}.{type(x).__name__}) but the device is on the "
                "NumPy backend: pass a NumPy array (x.get()), or use the device the array belongs to"
            )
        if _is_foreign(x):
            return _from_dlpack(x, what)
        return np.asarray(x)

    @staticmethod
    def view(tensor: TensorDesc, buf: Any) -> Any:
        return view_maker(tensor)(buf)

    @staticmethod
    def to_device(x: Any) -> Any:
        return np.asarray(x)

    @staticmethod
    def to_host(x: Any) -> Any:
        return np.asarray(x)

    @staticmethod
    def describe() -> str:
        return f"NumPy {np.__version__} on the CPU"
