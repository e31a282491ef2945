"""Sums for the NumPy backend's REDUCE, in NumPy's pairwise order, compiled by numba (the ``jit`` extra).

The rule and its tree are ``pairwise_tree``'s: the recursion flattened once per row length (:func:`plan`: the
leaves, runs of 64..128 elements, or fewer than 8 for short rows, and a postfix program combining their sums). Here
each leaf's eight partial sums are one chain of 8-lane vector adds emitted as LLVM IR (``_leaf``: numba only
vectorizes loops, and its loop vectorizer would not keep eight lanes of one leaf in one register), the lanes
combined as NumPy does. Rows are summed one after the other, leaf after leaf: one stream through memory. Every
element goes through the same additions, in the same order and association as in NumPy, so the bits are NumPy's,
NaN payloads and zero signs included (``tests/backends/test_reduce_numba.py``: every row length 1..300, powers of two
+-1 up to 2**15, the three maps, float32 and float64, data where the order shows). numba compiles without ``fastmath``:
no reassociation, and no contraction (L1 and SUM_SQUARE map each element first, rounded, as NumPy's separate ``abs`` /
``v * v`` pass does). The layouts it runs on: ``pairwise_rows`` (:func:`rows_view`, :func:`out_view`).

Faster than NumPy's own loop with the same additions (why was not measured apart: NumPy recurses down to each
leaf and issues a prefetch per step; the flattened loop does neither). Float32 SUM over the last axis of [4096, 2048] on
one thread (2-vCPU AMD EPYC Zen 4 VM, quiet): 0.90-0.96 ms against ``np.add.reduce``'s 1.43-1.47 ms (1.5-1.6x);
with the other vCPU busy 1.35 against 1.86 ms. Things that were slower here: interleaving the chains of 2, 4 or
8 rows (several streams 8 KiB apart: 1.1-1.5x slower than one stream) or of adjacent leaves (streams 512 B
apart: up to 2x slower), software prefetch.

Full reductions (one contiguous run): the pieces of :func:`split` summed on several threads
(:func:`sum_pieces`), their sums (``raw``: without the +0.0) added in the tree's order by :func:`combine`.

Threads: :func:`row_sums_parallel` (numba's ``prange``, ``parallel_ok``: omp or tbb only), launched by
:func:`sum_rows` through the CPU's launch guard (``cpu.threads.launch_alone``): with the other vCPU busy,
a numba launch here can take ~8 ms (an empty ``prange`` too: OpenMP's spinning team waits for a descheduled
thread), and the guard then pauses native launches, the NumPy backend sharing blocks of rows among its own pool
instead (``CpuPolicy.reduce_numba_driver``), whose dynamic claiming stays near the one-thread time.

Disk cache: numba's index files are pickles, so whoever can write where numba reads them runs code in this
process. The kernels are not declared ``cache=True`` (numba would read ``NUMBA_CACHE_DIR`` or the ``__pycache__``
next to this file, unchecked): :func:`warm_up` gives them numba's cache in ``<cache_dir>/numba/__pycache__``, the
folder the element-wise loops' cache is checked in (``numba_loops``' folder checks: ``gpuops.private_folder``), or,
where that folder is refused (one warning saying which and why) or ``cache_dir`` is None, none: they compile in
memory. A fresh process's first float32 REDUCE on this tier (its ``compile_operator``, 2-vCPU VM, numba 0.68.1, two
numba threads) took 0.8-1.1 s from that cache against 9.7-11.5 s compiled in memory (1.8 s without the native drivers).
numba's cache is stamped by this file alone: the kernels and the IR they compile stay here (``PW_BLOCKSIZE``, from
``pairwise_tree``, only picks the unrolled branch for a full leaf; both branches add alike).

``MAP_SUM``, ``MAP_ABS``, ``MAP_SQUARE``: what each element becomes before it is added (SUM, L1, SUM_SQUARE).
"""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .pairwise_rows import out_view, rows_view
from .pairwise_tree import PW_BLOCKSIZE, combine, piece_plans, plan, split

__all__ = [
    "MAP_ABS",
    "MAP_SQUARE",
    "MAP_SUM",
    "PW_BLOCKSIZE",
    "combine",
    "out_view",
    "parallel_ok",
    "piece_plans",
    "pieces_parallel",
    "plan",
    "row_sums",
    "row_sums_parallel",
    "rows_view",
    "split",
    "sum_pieces",
    "sum_rows",
]

MAP_SUM, MAP_ABS, MAP_SQUARE = 0, 1, 2
BLOCKS_PER_THREAD = 8  # blocks of rows per thread in row_sums_parallel


def _leaf_typer(
    typingctx: Any, a: Any, p0: Any, rstride: Any, m8: Any, mode: Any, groups: Any, dest: Any, at: Any
) -> Any:
    """``dest[at + g] = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`` for the leaf at ``a[p0 + g * rstride:]``
    (``g < groups``, a literal; ``m8 >= 8``, a multiple of 8), its elements mapped by ``mode`` (a literal):
    r[j] = a[j], then r[j] += a[i + j] for i = 8, 16, .. < m8: 8-lane vector adds, the groups' chains
    interleaved (one chain is latency-bound). ``a`` and ``dest``: 1-D contiguous arrays of one float type."""
    if not isinstance(mode, types.IntegerLiteral) or not isinstance(groups, types.IntegerLiteral):
        return None
    kind = mode.literal_value
    count = groups.literal_value
    sig = types.void(a, p0, rstride, m8, mode, groups, dest, at)

    def codegen(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> Any:
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        out = context.make_array(signature.args[6])(context, builder, args[6])
        at = args[7]
        data, dest = arr.data, out.data
        elem = data.type.pointee
        vty = ir.VectorType(elem, 8)
        i64 = ir.IntType(64)
        size = context.get_abi_sizeof(elem)
        p0v, rs, m8v = args[1], args[2], args[3]
        fabs = None
        if kind == 1:
            name = f"llvm.fabs.v8f{8 * size}"
            fabs = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vty, [vty]), name)

        def load(off: ir.Value) -> ir.Value:
            v = builder.load(builder.bitcast(builder.gep(data, [off]), vty.as_pointer()), align=size)
            if kind == 1:
                v = builder.call(fabs, [v])
            elif kind == 2:
                v = builder.fmul(v, v)
            return v

        bases = [builder.add(p0v, builder.mul(rs, ir.Constant(i64, g))) for g in range(count)]
        init = [load(b) for b in bases]
        pre = builder.block
        cond = builder.append_basic_block("pw.cond")
        body = builder.append_basic_block("pw.body")
        done = builder.append_basic_block("pw.done")
        builder.branch(cond)
        builder.position_at_end(cond)
        i = builder.phi(i64)
        vs = [builder.phi(vty) for _ in range(count)]
        builder.cbranch(builder.icmp_signed("<", i, m8v), body, done)
        builder.position_at_end(body)
        nxt = [builder.fadd(v, load(builder.add(b, i))) for v, b in zip(vs, bases, strict=True)]
        inext = builder.add(i, ir.Constant(i64, 8))
        end = builder.block
        builder.branch(cond)
        i.add_incoming(ir.Constant(i64, 8), pre)
        i.add_incoming(inext, end)
        for v, v0, v1 in zip(vs, init, nxt, strict=True):
            v.add_incoming(v0, pre)
            v.add_incoming(v1, end)
        builder.position_at_end(done)
        for g, v in enumerate(vs):
            r = [builder.extract_element(v, ir.Constant(ir.IntType(32), j)) for j in range(8)]
            left = builder.fadd(builder.fadd(r[0], r[1]), builder.fadd(r[2], r[3]))
            right = builder.fadd(builder.fadd(r[4], r[5]), builder.fadd(r[6], r[7]))
            builder.store(builder.fadd(left, right), builder.gep(dest, [builder.add(at, ir.Constant(i64, g))]))
        return context.get_dummy_value()

    return sig, codegen


_leaf: Any = intrinsic(_leaf_typer)


@njit(nogil=True, inline="always")
def _map(v, mode):  # type: ignore[no-untyped-def]
    if mode == MAP_ABS:
        return abs(v)
    if mode == MAP_SQUARE:
        return v * v
    return v


@njit(nogil=True)
def _rows(a, r0, r1, rstride, lo, ln, prog, out, ostride, mode, zero, raw, stack):  # type: ignore[no-untyped-def]
    """Rows ``r0 <= r < r1`` (row ``r``: ``a[r * rstride:][:n]``) into ``out[r * ostride]``, one after the other,
    each leaf's chain in turn (one stream through memory: interleaving the chains of 2-8 rows, or of adjacent
    leaves, ran 1.2-2x slower here); ``stack``: the program's, ``depth`` elements."""
    negzero = -zero
    for r in range(r0, r1):
        top = 0
        for op in prog:
            if op < 0:  # left + right
                top -= 1
                stack[top - 1] = stack[top - 1] + stack[top]
                continue
            length = ln[op]
            p0 = r * rstride + lo[op]
            m8 = length - length % 8
            if m8 == 0:
                s = negzero
                for i in range(length):
                    s += _map(a[p0 + i], mode)
                stack[top] = s
            elif length == PW_BLOCKSIZE:  # a full leaf (most of a long row's): a constant trip count, unrolled
                if mode == MAP_SUM:
                    _leaf(a, p0, rstride, PW_BLOCKSIZE, 0, 1, stack, top)
                elif mode == MAP_ABS:
                    _leaf(a, p0, rstride, PW_BLOCKSIZE, 1, 1, stack, top)
                else:
                    _leaf(a, p0, rstride, PW_BLOCKSIZE, 2, 1, stack, top)
            else:
                if mode == MAP_SUM:
                    _leaf(a, p0, rstride, m8, 0, 1, stack, top)
                elif mode == MAP_ABS:
                    _leaf(a, p0, rstride, m8, 1, 1, stack, top)
                else:
                    _leaf(a, p0, rstride, m8, 2, 1, stack, top)
                if m8 < length:
                    s = stack[top]
                    for i in range(m8, length):
                        s += _map(a[p0 + i], mode)
                    stack[top] = s
            top += 1
        out[r * ostride] = stack[0] if raw else zero + stack[0]


@njit(nogil=True)
def row_sums(a, rows, rstride, lo, ln, prog, depth, out, ostride, mode, zero, raw):  # type: ignore[no-untyped-def]
    """One thread: ``out[r * ostride] = 0 + pw(map(a[r * rstride:][:n]))`` for ``r < rows`` (``a``, ``out``: 1-D
    contiguous arrays of one float type, ``zero`` a 0 of that type; ``lo, ln, prog, depth``: :func:`plan` of
    ``n``; ``mode``: ``MAP_SUM``, ``MAP_ABS`` or ``MAP_SQUARE``)."""
    stack = np.empty(depth, a.dtype)
    _rows(a, 0, rows, rstride, lo, ln, prog, out, ostride, mode, zero, raw, stack)


@njit(nogil=True, parallel=True)
def row_sums_parallel(a, rows, rstride, lo, ln, prog, depth, out, ostride, mode, zero, raw, blocks):  # type: ignore[no-untyped-def]
    """:func:`row_sums` over ``blocks`` blocks of rows on numba's threads."""
    for b in prange(blocks):
        r0 = b * rows // blocks
        r1 = (b + 1) * rows // blocks
        if r0 < r1:
            stack = np.empty(depth, a.dtype)
            _rows(a, r0, r1, rstride, lo, ln, prog, out, ostride, mode, zero, raw, stack)


@njit(nogil=True, parallel=True)
def pieces_parallel(a, starts, lens, plo, pln, pprog, leaf_at, prog_at, depth, sums, mode, zero):  # type: ignore[no-untyped-def]
    """``sums[k] = pw(map(a[starts[k]:][:lens[k]]))`` (raw: no +0.0) for every piece ``k`` on numba's threads, piece
    ``k``'s plan being ``plo[leaf_at[k]:leaf_at[k + 1]]``, ``pln[...]`` and ``pprog[prog_at[k]:prog_at[k + 1]]``
    (:func:`piece_plans`)."""
    for k in prange(starts.shape[0]):
        l0, l1 = leaf_at[k], leaf_at[k + 1]
        stack = np.empty(depth, a.dtype)
        _rows(
            a[starts[k] :],
            0,
            1,
            lens[k],
            plo[l0:l1],
            pln[l0:l1],
            pprog[prog_at[k] : prog_at[k + 1]],
            sums[k:],
            1,
            mode,
            zero,
            True,
            stack,
        )


def sum_pieces(flat: np.ndarray, n: int, mode: int, threads: int, levels: int, guard: Any = None) -> Any:
    """``0 + pw(map(flat[:n]))`` as a 1-element array of ``flat``'s type, the top ``levels`` levels of the tree
    split into pieces summed on ``threads`` of numba's threads (:func:`pieces_parallel`) and combined in the tree's
    order (:func:`combine`): NumPy's bits. None, with nothing computed, where the launch guard refused
    (``cpu.threads.launch_alone``, as :func:`sum_rows`)."""
    from .cpu.threads import launch_alone

    arrays, depth, prog = piece_plans(n, levels)
    sums = np.empty(len(arrays[0]), flat.dtype)
    threads = min(threads, numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    args = (flat, *arrays, depth, sums, mode, flat.dtype.type(0))
    if not launch_alone(guard if guard is not None else _GUARD, _claimed_pieces, args, threads, n):
        return None
    return combine(sums, prog)


def _claimed_pieces(*args: Any) -> None:
    """:func:`pieces_parallel` with pieces claimed one by one (as :func:`_claimed`)."""
    previous = numba.set_parallel_chunksize(1)
    try:
        pieces_parallel(*args)
    finally:
        numba.set_parallel_chunksize(previous)


def _probe() -> None:
    """A first tiny launch of :func:`row_sums_parallel` (numba picks its threading layer there)."""
    a = np.zeros(16, np.float32)
    lo, ln, prog, depth = plan(8)
    row_sums_parallel(a, 2, 8, lo, ln, prog, depth, np.empty(2, np.float32), 1, 0, np.float32(0), False, 2)


def parallel_ok() -> bool:
    """Whether :func:`row_sums_parallel` may run: the element-wise tier's one process-wide decision
    (``numba_loops.native_threads``: omp or tbb, never workqueue, which is not thread-safe; at least two numba
    threads; off in a child forked after the layer started), made by :func:`_probe` if nothing decided it yet."""
    from .numba_loops import native_threads

    return native_threads(_probe)


def sum_rows(
    flat: np.ndarray,
    rows: int,
    n: int,
    rstride: int,
    out: np.ndarray,
    ostride: int,
    mode: int,
    threads: int,
    raw: bool = False,
    guard: Any = None,
) -> bool:
    """``out[r * ostride] = 0 + pw(map(flat[r * rstride:][:n]))`` (:func:`rows_view`, :func:`out_view`) on
    ``threads`` of numba's threads (one: this thread, no launch); ``flat`` and ``out`` of one float type.
    ``raw``: ``pw(...)`` itself, without adding the +0.0 (a -0.0 sum stays -0.0).

    More than one thread: :func:`row_sums_parallel`, ``BLOCKS_PER_THREAD`` blocks of rows per thread claimed one
    at a time, through the CPU's launch guard (``cpu.threads.launch_alone``: one native launch at a
    time, paused while launches lose time; ``guard`` keeps the best time per element, as a loop kernel does):
    False, with nothing written, where the guard refused (the caller then runs its other path); True otherwise."""
    lo, ln, prog, depth = plan(n)
    zero = flat.dtype.type(0)
    if threads <= 1:
        row_sums(flat, rows, rstride, lo, ln, prog, depth, out, ostride, mode, zero, raw)
        return True
    from .cpu.threads import launch_alone

    threads = min(threads, numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    blocks = min(threads * BLOCKS_PER_THREAD, rows)
    args = (flat, rows, rstride, lo, ln, prog, depth, out, ostride, mode, zero, raw, blocks)
    return launch_alone(guard if guard is not None else _GUARD, _claimed, args, threads, rows * n)


class _Best:
    """The fastest native launch's seconds per element, for ``launch_alone`` (callers without their own)."""

    best = float("inf")


_GUARD = _Best()


def _claimed(*args: Any) -> None:
    """:func:`row_sums_parallel` with blocks claimed one by one (a slowed thread takes fewer). numba's chunk size
    is the calling thread's; set in jitted code, it would keep numba from caching the driver."""
    previous = numba.set_parallel_chunksize(1)
    try:
        row_sums_parallel(*args)
    finally:
        numba.set_parallel_chunksize(previous)


_warm: set[np.dtype] = set()
_warm_lock = threading.Lock()
_KERNELS: tuple[Any, ...] = (_map, _rows, row_sums, row_sums_parallel, pieces_parallel)
_cached_in: Path | None = None  # where the kernels' disk cache is (None: none, they compile in memory)


@functools.cache
def _checked_cache(where: Path) -> Any:
    """A numba ``FunctionCache`` class whose files are in ``where`` (a folder gpuops checked) and nowhere else:
    numba's locator of a source file's cache (its stamp: the source file; its names: function and line), with
    the folder fixed."""
    from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator, _SourceFileBackedLocatorMixin

    class Locator(_SourceFileBackedLocatorMixin, _CacheLocator):
        def __init__(self, py_func: Any, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno

        def get_cache_path(self) -> str:
            return str(where)

    class Impl(CompileResultCacheImpl):
        _locator_classes = [Locator]

    class Cache(FunctionCache):
        _impl_class = Impl

    return Cache


def _use_checked_cache() -> None:
    """Give the kernels numba's disk cache in ``<cache_dir>/numba/__pycache__`` where ``numba_loops``' checks
    pass for the current settings (``numba_loops._cache_folder``), else no disk cache (numba's ``NullCache``:
    compiled in memory); called before the kernels compile (:func:`warm_up`)."""
    global _cached_in
    from numba.core.caching import NullCache

    from .numba_loops import _cache_folder, _warn_once

    folder = _cache_folder()
    where = folder / "__pycache__" if folder is not None else None
    if where == _cached_in:
        return
    caches = [NullCache() for _ in _KERNELS]
    if where is not None:
        try:
            disk = [_checked_cache(where)(k.py_func) for k in _KERNELS]
            elsewhere = [c.cache_path for c in disk if Path(c.cache_path) != where]
            if elsewhere:
                raise RuntimeError(f"numba would cache in {elsewhere[0]}")
            caches = disk
        except (OSError, RuntimeError, ImportError) as exc:  # an unwritable folder; numba's caching API changed
            _warn_once(where, f"it cannot be used ({exc})")
            where = None
    for kernel, cache in zip(_KERNELS, caches, strict=True):
        kernel._cache = cache
    _cached_in = where


def warm_up(dtype: np.dtype) -> None:
    """Compile :func:`sum_rows`' loops for ``dtype`` (float32 or float64) by running them on a few elements: the
    one-thread loop with and without ``raw``, and the native driver where ``parallel_ok``; once per process and
    type, from numba's disk cache in gpuops' checked folder where there is one (:func:`_use_checked_cache`)."""
    dtype = np.dtype(dtype)
    if dtype in _warm:
        return
    with _warm_lock:
        if dtype in _warm:
            return
        _use_checked_cache()
        x = np.zeros(16, dtype)
        x.flags.writeable = False  # as rows_view gives it: numba compiles read-only arrays apart
        out = np.zeros(2, dtype)
        sum_rows(x, 1, 16, 16, out, 1, 0, 1)
        sum_rows(x, 1, 16, 16, out, 1, 0, 1, raw=True)
        if parallel_ok():  # the native drivers too: a first launch that compiles would count as a slow one
            lo, ln, prog, depth = plan(8)
            _claimed(x, 2, 8, lo, ln, prog, depth, out, 1, 0, dtype.type(0), False, 2)
            arrays, depth, _ = piece_plans(16, 1)
            _claimed_pieces(x, *arrays, depth, out, 0, dtype.type(0))
        _warm.add(dtype)
