"""The CPU backend's threads: the shared Python pool and its block scheduler, and the launch guard of numba's
native threads.

* ``_thread_count``: how many threads gpuops may use (``GPUOPS_NUM_THREADS``, else the CPUs of this process).
* ``_pool``, ``_parallel``: work shared by this thread and the pool's, blocks claimed one by one; ``_chunks``
  splits a shape into such blocks. The ufunc kernels, fused runs, reductions and the numba tier's loops
  (without native threads) all go through ``_parallel`` (tests wrap it to see the blocks).
* ``threads``, ``_launch``, ``launch_alone``: launches of numba's parallel drivers (element-wise loops and the
  pairwise reductions): one at a time, paused while they lose time (``CpuPolicy.slow_s``).

Callers read these through the module (``threads._parallel(...)``), so a test that replaces one sees every call.
"""

from __future__ import annotations

import concurrent.futures
import functools
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ... import config
from ..fpstate import ignore, restore
from . import policy as _policy

__all__ = ["launch_alone", "threads"]

log = logging.getLogger("gpuops")


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


def _chunks(shape: tuple[int, ...], limit: int | None = None) -> Any:
    """Index tuples that split ``shape`` into blocks of about ``limit`` (default ``CpuPolicy.chunk``) elements."""
    limit = _policy.POLICY.chunk if limit is None else limit
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
    exact in-place aliasing stays safe. One thread below ``CpuPolicy.thread_min`` elements.
    """
    if size < _policy.POLICY.thread_min or len(blocks) < 2:
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


# ----------------------------------------------------------------------------------------------
# numba's native threads: the launch guard (element-wise loops, numba_loops; pairwise reductions, numba_reduce).


@functools.cache
def _max_threads() -> int:
    """numba's thread pool size (``NUMBA_NUM_THREADS``, fixed once numba is imported): a launch may use
    at most this many."""
    import numba

    return int(getattr(numba.config, "NUMBA_NUM_THREADS", 1))


def threads() -> int:
    """The threads a parallel driver launches on: gpuops' thread count (``GPUOPS_NUM_THREADS``, else the
    CPUs this process may use), at most numba's pool size."""
    return min(_thread_count(), _max_threads())


_launching = threading.Lock()  # held during a native launch


def _launch(driver: Any, args: tuple[Any, ...], count: int) -> None:
    """``driver(*args)`` on ``count`` of numba's threads. numba's thread count belongs to the calling thread
    and starts at the pool size: a launch on fewer sets it (about 1 us each way) and restores it after."""
    if count == _max_threads():
        driver(*args)
        return
    import numba

    saved = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        driver(*args)
    finally:
        numba.set_num_threads(saved)


# The guard's state (CpuPolicy.slow_s .. pause_max_s say how it moves).
_paused_until = 0.0
_pause = 0.0  # the last pause (0: none since the credit was last full)
_credit = 0.0


def launch_alone(kernel: Any, driver: Any, args: tuple[Any, ...], count: int, size: int) -> bool:
    """``_launch`` where no other native launch is running and launches are not paused (``CpuPolicy.slow_s``);
    False (nothing run) otherwise: the caller then runs its serial path. GNU OpenMP gives each
    launching Python thread a team of its own, and a team's idle threads spin after a launch, so teams from
    two Python threads at once oversubscribe the cores: a float32 add at 2**20 from two Python threads took
    148 us a call (throughput) with both launching, 137 with this, against 67 from one thread; waiting for
    the lock instead took 187. ``kernel.best``: the kernel's fastest launch so far, seconds per element."""
    global _paused_until, _pause, _credit
    start = time.perf_counter()
    if start < _paused_until or not _launching.acquire(blocking=False):
        return False
    try:
        _launch(driver, args, count)
    finally:
        _launching.release()
    took = time.perf_counter() - start
    expected = kernel.best * size
    p = _policy.POLICY
    if took > p.slow_s and (took > p.slow_factor * expected or took > p.slow_per_element * size):
        _credit -= took - expected if expected < took else took
        if _credit <= 0:
            _pause = min(max(2 * _pause, p.pause_s), p.pause_max_s)
            _paused_until = start + took + _pause
            _credit = 0.0
            log.debug("gpuops: native launches lose time (last %.1f ms); pausing for %.0f s", took * 1e3, _pause)
    else:
        _credit = min(_credit + took, p.credit_max_s)
        if _credit >= p.credit_max_s:
            _pause = 0.0
        if took < expected:
            kernel.best = took / size
    return True
