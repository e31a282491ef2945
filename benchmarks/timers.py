"""Timers of the benchmark harness: wall time of batches of calls (NumPy), CUDA events (CuPy)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["CupyTimer", "NumpyTimer"]
# --------------------------------------------------------------------------- timers


class NumpyTimer:
    """Wall time of batches of calls (``inner`` calls per sample, about ``target`` seconds)."""

    clock = "time.perf_counter around batches of calls"

    def __init__(self, target: float) -> None:
        self.target = target

    def sync(self) -> None:
        pass

    def calibrate(self, fn: Callable[[], Any], host: bool) -> tuple[int, float]:
        fn()
        fn()
        t0 = time.perf_counter()
        fn()
        once = max(time.perf_counter() - t0, 1e-7)
        return max(1, min(20000, int(self.target / once))), once

    def sample(self, fn: Callable[[], Any], inner: int, host: bool) -> list[float]:
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        return [(time.perf_counter() - t0) / inner]


class CupyTimer:
    """``cupyx.profiler.benchmark``: per-call GPU times (CUDA events), or host times."""

    clock = "cupyx.profiler.benchmark (gpu_times; cpu_times for overhead_f32)"

    def __init__(self, target: float) -> None:
        import cupy
        from cupyx.profiler import benchmark

        self.cupy = cupy
        self.benchmark = benchmark
        self.target = target

    def sync(self) -> None:
        self.cupy.cuda.Device().synchronize()

    def _times(self, fn: Callable[[], Any], n: int, host: bool, warmup: int) -> np.ndarray:
        res = self.benchmark(fn, n_repeat=n, n_warmup=warmup)
        return np.asarray(res.cpu_times if host else res.gpu_times[0])

    def calibrate(self, fn: Callable[[], Any], host: bool) -> tuple[int, float]:
        once = max(float(np.median(self._times(fn, 5, host, warmup=3))), 1e-7)
        return max(3, min(2000, int(self.target / once))), once

    def sample(self, fn: Callable[[], Any], inner: int, host: bool) -> list[float]:
        return self._times(fn, inner, host, warmup=1).tolist()
