"""Every threshold of the CPU backend in one frozen object: :class:`CpuPolicy`, in force as :data:`POLICY`.

The figures behind each default were measured on a 2-vCPU VM (docs/reference/performance.md, the README's
CPU section); each field's docstring says what it decides and why it sits where it does. The CPU modules read
``policy.POLICY.<field>`` when they decide (per call, or per ``compile_operator`` for what is decided then), so
a new policy takes effect on the next call. The one way to change it:

* in code: ``with policy.override(thread_min=1 << 20): ...`` replaces fields for a ``with`` block, then restores
  them (process-wide, like ``gpuops.config.override``: meant for tests, benchmarks and start-up code);
* in a pytest test: ``monkeypatch.setattr(policy, "POLICY", policy.POLICY.replace(thread_min=16))``, which the
  test's teardown undoes.

Both swap the one instance; an unknown field is a ``TypeError``, an invalid value a ``ValueError``.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["POLICY", "CpuPolicy", "current", "override"]

# Fields that size blocks or steps (a zero would loop forever or divide by zero): at least 1.
_AT_LEAST_ONE = ("chunk", "tile", "thread_block", "heavy_block", "reduce_block", "reduce_numba_blocks")
_DRIVERS = ("numba", "pool")


@dataclass(frozen=True, slots=True)
class CpuPolicy:
    """The CPU backend's thresholds and block sizes (element counts unless the name ends in ``_s``: seconds)."""

    # --- the ufunc tier (ufunc_kernels, fused, views) -------------------------------------------------------
    chunk: int = 1 << 16
    """Elements per block of the chunked ufunc path (float16/bfloat16 computed in float32, raw-bit views,
    ScaleBias, multi-step expressions, fused groups): the float32 intermediates stay in cache
    (docs/reference/performance.md 3.4, 4.1) and no full-size temporary is allocated."""
    tile: int = 256
    """Tile edge for a single ufunc over an operand that steps through memory along its last axis (a transposed
    view): read tile by tile it touches ``tile``-element runs of its rows instead of one element per cache line
    (docs/reference/performance.md 4.1: the 6-7x cliff, 2.9x back with 256 x 256 tiles)."""
    thread_min: int = 1 << 21
    """A single-ufunc call (and the chunked path, and a numba loop without native threads) is split across the
    pool's threads from this many elements on: NumPy's ufunc loops release the GIL, and two threads over halves
    ran np.add 1.9x faster than one call at 5e7 on a 2-core machine; below a few MiB the pool's ~50 us per call
    costs more than it gains."""
    thread_block: int = 1 << 18
    """Elements per block of a threaded single-ufunc call (or numba loop): a few hundred microseconds of work
    each, so the threads share the work evenly and a GIL hand-over (tens of microseconds on a VM) is rare."""
    heavy_min: int = 1 << 17
    """Compute-bound ufunc work (EXP, TANH, ERF, ...: about 1 ns an element, against ~0.1 for an add) is shared
    among threads from this many elements on (up to ``thread_min``) where the kernel's fastest one-thread call
    so far (seconds per element, timed on calls of ``heavy_min`` elements or more, two at least) puts the call
    at ``heavy_s`` or more, unless a threaded call was slower per element (``NumpyKernel._heavy``): a pool
    hand-off (~80 us on the 2-vCPU VM) then costs less than a second thread saves. Float32 EXP with ScaleBias,
    one thread / two (us): 2^18 199 / 248, 2^19 372 / 285, 2^20 947 / 634. Also the bound below which the fast
    execute (``fast.fast_paths``) may take an operator."""
    heavy_s: float = 300e-6
    """The estimated one-thread time (seconds) from which compute-bound ufunc work goes to the pool (``heavy_min``)."""
    heavy_block: int = 1 << 16
    """Elements per block of threaded compute-bound ufunc work (``heavy_min``)."""

    # --- the ufunc tier of reductions (reductions) ----------------------------------------------------------
    reduce_thread_min: int = 1 << 21
    """A reduction is shared among threads (``NumpyReduceKernel.reduce``) from this many input elements on where
    NumPy reads the input in its own type (memory-bound: the 2-thread split of a float32 SUM over rows of 1024 was
    0.75-0.96x at 2^20 elements, 1.16-1.27x at 2^21, 1.4-1.5x at 2^23 on the 2-vCPU VM; float32 ARGMAX and AVERAGE
    lost at 2^19-2^20 too). A pool round trip costs ~50-80 us there."""
    reduce_thread_min_cast: int = 1 << 19
    """As ``reduce_thread_min``, where the input is cast to a wider accumulator (float16 and bfloat16 to float32,
    most integer forms to 64 bits: compute-bound; the float16 SUM was 1.06x at 2^18, 1.26-1.38x at 2^19-2^20,
    1.6x at 2^23)."""
    reduce_block: int = 1 << 20
    """Input elements per block of a threaded reduction: each block's call costs ~3-5 us (a float32 SUM over
    [8192, 1024] on one thread in 32 blocks took 1.07x the one call, in 8 blocks 1.02x), and with the other vCPU
    busy (load ~1.3) 8 blocks of 2^20 lost 0-5% to one thread where 32 blocks of 2^18 lost 10-18% (float32
    SUM/MAX/ARGMAX at 2^23); on the idle VM 8 blocks were 1.39x, 32 blocks 1.47x."""

    # --- the pairwise numba tier of reductions (pairwise, numba_reduce) --------------------------------------
    reduce_numba_min: int = 1 << 17
    """SUM, AVERAGE, L1 and SUM_SQUARE of float32/float64 read in their own type, over contiguous rows (the
    reduced axes innermost and packed, the kept ones one uniform stride) or one contiguous run (a full
    reduction), where numba is available (GPUOPS_NUMBA), run NumPy's pairwise order on numba (NumPy's bits) from
    this many input elements on, in one call on this thread below the threaded thresholds. Float32 SUM over rows
    of 1024 and of 64, this tier on one thread against the ufunc tier (threaded from 2^21), 2-vCPU VM with the
    other vCPU mostly busy: 0.70-0.97x at 2^15, 0.81-1.28x at 2^16, 0.99-1.70x at 2^17, 1.2-2.2x at 2^18,
    1.5-3.4x at 2^19..2^21."""
    reduce_numba_rows: int = 8
    """The pairwise tier takes a reduction of one row, or of at least this many rows."""
    reduce_numba_native_min: int = 1 << 19
    """With 2 threads or more, rows are shared among numba's native threads from this many input elements on
    (``reduce_numba_driver`` "numba": ``numba_reduce.row_sums_parallel`` through the launch guard, omp/tbb only,
    paused while launches lose time). Float32 SUM over rows of 2048 (2-vCPU Zen 4 VM, quiet; one thread /
    numba's 2 threads / the pool's 2 threads / half the rows on one thread, us): 2^18 22-29 / 18 / 96 / 15;
    2^20 82-114 / 65-70 / 110 / 58; 2^23 870-1350 / 560-670 / 700-730 / 490. The pool pays a hand-off (~80 us)
    that native threads do not (~2-3 us); with the other vCPU busy a native launch took ~8 ms, where the guard
    pauses them and the pool takes over."""
    reduce_numba_native_full_min: int = 1 << 20
    """A full reduction (one row) is split into pieces of the top of the pairwise tree, summed apart on numba's
    threads and combined in the tree's order (``numba_reduce.sum_pieces``), from this many elements on."""
    reduce_numba_thread_min: int = 1 << 22
    """Where native threads are not used (or the guard refused), rows, or the pieces of a full reduction, are
    shared among the pool's threads from this many input elements on (float32 2^23, the other vCPU busy: 460
    against 1245 us)."""
    reduce_numba_driver: Literal["numba", "pool"] = "numba"
    """``"numba"``: native threads first (``reduce_numba_native_min``); ``"pool"``: blocks of rows on the pool's
    threads only."""
    reduce_numba_blocks: int = 4
    """Blocks of rows (or pieces of a full reduction) per thread."""

    # --- the element-wise numba tier (tiers, numba_loops) ---------------------------------------------------
    numba_min_elements: int = 1 << 10
    """Below this many elements an operator keeps NumPy's ufunc path: a few microseconds there, so a loop's
    compile (tenths of a second, once per process without the disk cache) would take too many calls to pay
    back. From 2**10 on the loop saves 8-35 us per call (benchmarks, quick run: float16 add 13.6 vs 49 us,
    ADD1 + RELU 7.0 vs 14.8 us at 1024 elements)."""
    par_min: int = 1 << 15
    """From this many elements on a loop runs on numba's native threads (the ``_par`` drivers of
    ``codegen.numba``) where they are usable (``numba_loops.native_threads``): a launch costs about 1.6 us with
    the omp layer, against 80-90 us for a hand-off to the Python pool (``threads._parallel``)."""
    direct_min: int = 1 << 17
    """An operator NumPy runs as one ufunc on packed tensors (``NumpyKernel.direct``) moves to the compiled tier
    from this many elements on where native threads are usable: the serial loop is no faster than the ufunc,
    and the general execute path costs ~4 us more than ``fast.fast_paths`` (float32 add, 2 threads against
    np.add through the fast path: 10.3 vs 9.6 us at 2**16, 16.2 vs 19.0 at 2**17, 27 vs 34 at 2**18)."""

    # --- the launch guard of numba's native threads (threads.launch_alone) ----------------------------------
    slow_s: float = 2e-3
    """A launch that took more than this, and more than ``slow_factor`` times the kernel's best time per element
    or more than ``slow_per_element`` an element (the bound for a process whose launches were all slow so far),
    waited on a descheduled thread: OpenMP's threads meet at a barrier after each launch, and on a loaded
    machine (other processes on the 2 cores) one of them waits for a time slice: launches that take 60-200 us
    (2**20 elements) took about 8 ms, and PyTorch's own 2-thread kernels did the same in the same periods."""
    slow_factor: float = 3.0
    """See ``slow_s``."""
    slow_per_element: float = 2e-9
    """See ``slow_s``. Translated loops run at 0.05-0.4 ns an element on 2 threads (float32 add to float16
    ADD1 + RELU, 2**20 elements), far below it."""
    credit_max_s: float = 0.05
    """Native threads stay on while they gain more than slow launches lose: a credit grows by each launch's time
    that is not slow (about what a second thread saves), up to this, and shrinks by each slow launch's excess
    over the kernel's best; where it reaches zero, native launches pause (``pause_s``)."""
    pause_s: float = 1.0
    """The first pause of native launches (calls run serially, or on the Python pool, whose threads claim blocks
    as they come); then one launch tries again with no credit: a slow retry doubles the pause, up to
    ``pause_max_s`` (one slow launch, about 8 ms, a pause), and the pause goes back to this once the credit is
    full again."""
    pause_max_s: float = 32.0
    """The longest pause of native launches (``pause_s``)."""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "reduce_numba_driver":
                if value not in _DRIVERS:
                    raise ValueError(f"CpuPolicy.reduce_numba_driver must be 'numba' or 'pool' (got {value!r})")
            elif f.type == "int":
                least = 1 if f.name in _AT_LEAST_ONE else 0
                if isinstance(value, bool) or not isinstance(value, int) or value < least:
                    raise ValueError(f"CpuPolicy.{f.name} must be an integer >= {least} (got {value!r})")
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or value < 0:
                raise ValueError(f"CpuPolicy.{f.name} must be a number >= 0 (got {value!r})")

    def replace(self, **changes: Any) -> CpuPolicy:
        """A copy with ``changes`` (field=value); an unknown field is a ``TypeError``, an invalid value a
        ``ValueError``."""
        return dataclasses.replace(self, **changes)


#: The policy in force: the CPU modules read it at each decision. Replace it (``override``), never mutate it.
POLICY: CpuPolicy = CpuPolicy()
_lock = threading.Lock()


def current() -> CpuPolicy:
    """The policy in force."""
    return POLICY


@contextmanager
def override(**changes: Any) -> Iterator[CpuPolicy]:
    """Replace fields of the policy for a ``with`` block (``override(thread_min=1 << 20)``), then restore it;
    process-wide. An unknown field is a ``TypeError``, an invalid value a ``ValueError``."""
    global POLICY
    with _lock:
        saved = POLICY
        POLICY = saved.replace(**changes)
        inside = POLICY
    try:
        yield inside
    finally:
        with _lock:
            POLICY = saved
