"""The speed and exactness runs of ``numba_convert`` (the numbers its docstring quotes).

``python -m gpuops.backends.numba_convert_bench`` (or ``python -m gpuops.backends.numba_convert``) prints ns/element
of loops over the conversions, float16 ones by both paths, against NumPy's and ml_dtypes' casts;
``... exhaustive [f16c | integer]`` compares float32 -> float16 (the default path unless named) and float32 ->
bfloat16 with ``np.copyto`` over all 2**32 float32 patterns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from numba import njit

from .numba_convert import (
    F16C,
    _convert_array,
    _loop,
    bf16_to_f32,
    f16_to_f32_f16c,
    f16_to_f32_integer,
    f32_to_bf16,
    f32_to_bf16_array,
    f32_to_f16_f16c,
    f32_to_f16_integer,
)

__all__ = ["main"]


def _add_loop(to_f32: Any, to_f16: Any) -> Any:
    """float16 ``out = a + b`` through float32, as the compiled tier's loops do it."""

    @njit(nogil=True)
    def run(a, b, out):  # type: ignore[no-untyped-def]
        for i in range(a.shape[0]):
            out[i] = to_f16(to_f32(a[i]) + to_f32(b[i]))

    return run


def _bench(repeats: int = 200) -> None:
    """Print ns/element (best and median) of loops over the scalars, float16 ones by both paths, against NumPy's
    and ml_dtypes' casts, and a float16 add through float32 against NumPy's float16 add; interleaved (every repeat
    times each variant once)."""
    import time
    from functools import partial

    import ml_dtypes
    import numpy as np

    bf16 = np.dtype(ml_dtypes.bfloat16)
    rng = np.random.default_rng(0)
    paths = [(f16_to_f32_f16c, f32_to_f16_f16c)] if F16C else []
    paths.append((f16_to_f32_integer, f32_to_f16_integer))
    h2f = [_loop(p[0]) for p in paths]
    f2h = [_loop(p[1]) for p in paths]
    add = [_add_loop(*p) for p in paths]
    bf2f, f2bf = _loop(bf16_to_f32), _loop(f32_to_bf16)

    def cast(out: np.ndarray, src: np.ndarray) -> Callable[[], None]:
        return partial(np.copyto, out, src, casting="unsafe")

    for n in (1 << 16, 1 << 22):
        reps = repeats if n <= 1 << 16 else max(repeats // 5, 5)
        x = (rng.standard_normal(n) * 100).astype(np.float32)
        h = (rng.standard_normal(n) * 10).astype(np.float16)
        h2 = (rng.standard_normal(n) * 10).astype(np.float16)
        bh = x.astype(bf16)
        o32 = np.empty(n, np.float32)
        o16 = np.empty(n, np.float16)
        u16 = o16.view(np.uint16)
        rows: list[tuple[str, list[Callable[[], Any]], Callable[[], Any]]] = [
            # (name, the numba variants, F16C path first where there is one; the NumPy one)
            ("float16 -> float32", [partial(f, h.view(np.uint16), o32) for f in h2f], cast(o32, h)),
            ("float32 -> float16", [partial(f, x, u16) for f in f2h], cast(o16, x)),
            ("bfloat16 -> float32", [partial(bf2f, bh.view(np.uint16), o32)], cast(o32, bh)),
            ("float32 -> bfloat16", [partial(f2bf, x, u16)], cast(o16.view(bf16), x)),
            ("float16 a + b", [partial(f, h.view(np.uint16), h2.view(np.uint16), u16) for f in add],
             partial(np.add, h, h2, out=o16)),
        ]  # fmt: skip
        fns = [fn for _, numba_fns, ref in rows for fn in (*numba_fns, ref)]
        for fn in fns:
            fn()
        times: dict[Any, list[float]] = {fn: [] for fn in fns}
        for _ in range(reps):
            for fn in fns:
                t = time.perf_counter()
                fn()
                times[fn].append(time.perf_counter() - t)
        print(f"{n} elements, ns/element, best / median of {reps}:  F16C path    |  integer path |  NumPy / ml_dtypes")
        blank = " " * 13
        for name, numba_fns, ref in rows:
            stats = [f"{min(times[fn]) / n * 1e9:5.3f} / {float(np.median(times[fn])) / n * 1e9:5.3f}"
                     for fn in (*numba_fns, ref)]  # fmt: skip
            if len(numba_fns) == 1:
                stats.insert(0, blank)
            print(f"  {name:20s} {'  |  '.join(stats)}")


def _exhaustive(path: str, block: int = 1 << 24) -> None:
    """Compare float32 -> float16 (by ``path``: "f16c" or "integer") and float32 -> bfloat16 with np.copyto over
    all 2**32 patterns; print the mismatch counts."""
    import os
    import time
    from concurrent.futures import ThreadPoolExecutor

    import ml_dtypes
    import numpy as np

    bf16 = np.dtype(ml_dtypes.bfloat16)
    to_f16 = {"f16c": f32_to_f16_f16c, "integer": f32_to_f16_integer}[path]
    start = time.perf_counter()

    def part(k: int) -> tuple[int, int]:
        x = (np.arange(block, dtype=np.uint32) + np.uint32(k * block)).view(np.float32)
        got = np.empty(block, np.uint16)
        want = np.empty(block, np.uint16)
        with np.errstate(all="ignore"):
            _convert_array(to_f16, x, got)
            np.copyto(want.view(np.float16), x, casting="unsafe")
            bad16 = int(np.count_nonzero(got != want))
            f32_to_bf16_array(x, got)
            np.copyto(want.view(bf16), x, casting="unsafe")
            return bad16, int(np.count_nonzero(got != want))

    with ThreadPoolExecutor(os.cpu_count()) as pool:
        counts = list(pool.map(part, range((1 << 32) // block)))
    bad16 = sum(c[0] for c in counts)
    badb = sum(c[1] for c in counts)
    print(f"all 2**32 float32 patterns: float16 ({path}) mismatches {bad16}, bfloat16 mismatches {badb}", end="")
    print(f" ({time.perf_counter() - start:.0f} s)")


def main(argv: list[str]) -> None:
    """``exhaustive [f16c | integer]``: :func:`_exhaustive` (the default path unless named); else :func:`_bench`."""
    if argv[:1] == ["exhaustive"]:
        _exhaustive(argv[1] if argv[1:] else "f16c" if F16C else "integer")
    else:
        _bench()


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
