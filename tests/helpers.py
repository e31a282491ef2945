"""Test helpers: buffers laid out through a TensorDesc, read-back, and random data per DataType.

Binding rules (API.md): a bound buffer is a flat C-contiguous array of the tensor's dtype
holding at least ``total_tensor_size_in_bytes`` bytes (a multiple of 4, so a 3-element
float16 tensor needs a 4-element buffer); the tensor is read or written through its
sizes and element strides from the buffer's first element.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from descriptors import DataType, TensorDesc

__all__ = [
    "INT_RANGE",
    "buffer_elements",
    "buffer_for",
    "checks_after_runs",
    "element_offsets",
    "float_info",
    "random_values",
    "run_together",
    "trace_parallel",
    "read_tensor",
    "to_backend",
    "to_host",
    "uint_view",
]


def buffer_elements(desc: TensorDesc) -> int:
    """Elements a buffer needs for ``desc``: ceil(total_tensor_size_in_bytes / itemsize)."""
    item = desc.data_type.numpy_dtype.itemsize
    total = desc.total_tensor_size_in_bytes
    assert total is not None
    return -(-total // item)


def element_offsets(desc: TensorDesc) -> np.ndarray:
    """The buffer element index of every logical position, as an array of shape ``sizes``."""
    offsets = np.zeros(desc.sizes, dtype=np.int64)
    for axis, (size, stride) in enumerate(zip(desc.sizes, desc.element_strides, strict=True)):
        shape = [1] * len(desc.sizes)
        shape[axis] = size
        offsets = offsets + (np.arange(size, dtype=np.int64) * stride).reshape(shape)
    return offsets


def buffer_for(desc: TensorDesc, values_nd: object, *, fill: object = 0) -> np.ndarray:
    """A zero (or ``fill``) buffer of ceil(total/itemsize) elements holding ``values_nd`` through the strides.

    ``values_nd`` is broadcast to ``desc.sizes``; where strides are 0 the positions that
    share an element must hold the same value (the caller broadcasts from a smaller array).
    """
    dtype = desc.data_type.numpy_dtype
    buf = np.full(buffer_elements(desc), fill, dtype=dtype)
    values = np.broadcast_to(np.asarray(values_nd).astype(dtype, copy=False), desc.sizes)
    offsets = element_offsets(desc)
    buf[offsets.ravel()] = values.ravel()
    # Positions that share one element (stride 0) must agree, else the layout would lie.
    assert np.array_equal(uint_view(buf[offsets]), uint_view(np.ascontiguousarray(values))), "inconsistent values"
    return buf


def to_host(buffer: object) -> np.ndarray:
    """A NumPy array of a NumPy or CuPy buffer."""
    get = getattr(buffer, "get", None)
    return get() if callable(get) and not isinstance(buffer, np.ndarray) else np.asarray(buffer)


def to_backend(xp: object, buffer: np.ndarray) -> object:
    """The buffer on the backend of array module ``xp`` (a copy for CuPy)."""
    if xp is np:
        return buffer
    return xp.asarray(buffer)  # type: ignore[attr-defined]


def read_tensor(buffer: object, desc: TensorDesc) -> np.ndarray:
    """The logical nd array of ``desc`` read from ``buffer`` (NumPy or CuPy) through its strides."""
    host = to_host(buffer)
    assert host.ndim == 1
    return host[element_offsets(desc)].copy()


_UINT_OF = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def uint_view(arr: np.ndarray) -> np.ndarray:
    """The raw bits of ``arr`` as unsigned integers of the same width (bool as uint8)."""
    arr = np.ascontiguousarray(arr)
    return arr.view(_UINT_OF[arr.dtype.itemsize])


def float_info(dt: DataType) -> object:
    """``finfo`` of a float DataType (ml_dtypes knows bfloat16)."""
    return ml_dtypes.finfo(dt.numpy_dtype)


def INT_RANGE(dt: DataType) -> tuple[int, int]:  # noqa: N802 - reads as a constant table
    """(min, max) of an integer DataType."""
    info = np.iinfo(dt.numpy_dtype)
    return int(info.min), int(info.max)


# ---------------------------------------------------------------------------------------------
# Random data. Float values sit on a grid of eighths in [-4, 4] (exact in float16 and bfloat16,
# so float32 sums/products of two stay far from overflow); integer values mix small numbers
# (equalities, signs) with the type's full range (wrapping), edges included.

_FLOAT_GRID = np.arange(-32, 33, dtype=np.float64) / 8.0
_POW_EXPONENTS_FRACTIONAL = np.array([-1.5, -0.5, 0.5, 1.5, 2.5])
_POW_EXPONENTS_INTEGRAL = np.array([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0])


def _ints(dt: DataType, n: int, rng: np.random.Generator, small: Sequence[int]) -> np.ndarray:
    lo, hi = INT_RANGE(dt)
    full = rng.integers(lo, hi, size=n, endpoint=True, dtype=np.int64 if lo < 0 or hi < 2**63 else np.uint64)
    small_arr = np.array([v for v in small if lo <= v <= hi], dtype=object)
    pick_small = rng.random(n) < 0.5
    out = np.empty(n, dtype=object)
    out[:] = [int(v) for v in full]
    if small_arr.size:
        idx = rng.integers(0, small_arr.size, size=n)
        out[pick_small] = small_arr[idx[pick_small]]
    # Type edges appear now and then.
    edges = rng.random(n) < 0.1
    out[edges] = [lo if k else hi for k in rng.integers(0, 2, size=int(edges.sum()))]
    return np.array([int(v) for v in out], dtype=dt.numpy_dtype)


#: The kinds :func:`random_values` draws.
_RANDOM_KINDS = frozenset(
    {"arith", "divisor", "atan", "shift", "bits", "logical", "pow_base", "pow_base_signed", "pow_exp"}
)


def random_values(dt: DataType, shape: Sequence[int], rng: np.random.Generator, kind: str = "arith") -> np.ndarray:
    """Random logical values of ``dt`` and ``shape`` for one operand role.

    kind:
      ``"arith"``: finite floats on a grid in [-4, 4]; integers small or full range.
      ``"divisor"``: as arith, with zeros (and -1 for signed integers) mixed in.
      ``"atan"``: as arith with zeros and -0.0.
      ``"shift"``: shift amounts 0 .. 2 * width, so amounts >= width appear.
      ``"bits"``: any bit pattern (floats include NaN/inf/-0.0 patterns).
      ``"logical"``: 0 or small nonzero values (not only 1), or bool.
      ``"pow_base"``: floats in [0, 4] (non-negative: fractional exponents) plus negative ones
          when the exponent is integral (the test passes ``kind="pow_base_signed"``);
          integers in [-5, 5] (or [0, 9] unsigned).
      ``"pow_exp"``: small exponents: floats from a few integral and fractional values,
          integers in [-3, 12] (or [0, 12]) and sometimes up to 40 (wrapping).
    """
    if kind not in _RANDOM_KINDS:  # an unknown kind would silently draw arith values
        raise ValueError(f"random_values: unknown kind {kind!r}; allowed: {sorted(_RANDOM_KINDS)}")
    shape = tuple(shape)
    n = math.prod(shape)
    npdt = dt.numpy_dtype

    if kind == "bits":
        raw = rng.integers(0, 256, size=n * npdt.itemsize, dtype=np.uint8)
        if dt is DataType.BOOL:
            raw = raw & 1
        return raw.view(npdt).reshape(shape).copy()

    if kind == "logical":
        if dt is DataType.BOOL:
            return rng.random(n).reshape(shape) < 0.5
        vals = rng.choice(np.array([0, 0, 1, 2, 3, 128]), size=n)
        return vals.astype(npdt).reshape(shape)

    if dt.is_float:
        if kind == "pow_exp":
            pool = np.concatenate([_POW_EXPONENTS_INTEGRAL, _POW_EXPONENTS_FRACTIONAL])
            vals = rng.choice(pool, size=n)
        elif kind == "pow_base":
            vals = rng.choice(_FLOAT_GRID[_FLOAT_GRID >= 0], size=n)
        elif kind == "pow_base_signed":
            vals = rng.choice(_FLOAT_GRID, size=n)
        else:
            vals = rng.choice(_FLOAT_GRID, size=n)
            if kind in ("divisor", "atan"):
                vals[rng.random(n) < 0.25] = 0.0
            if kind == "atan":
                vals[rng.random(n) < 0.1] = -0.0
        return vals.astype(npdt).reshape(shape)

    if dt is DataType.BOOL:
        return (rng.random(n) < 0.5).reshape(shape)

    lo, hi = INT_RANGE(dt)
    width = npdt.itemsize * 8
    if kind == "shift":
        vals = rng.integers(0, 2 * width + 1, size=n)
        vals[rng.random(n) < 0.15] = width
        return vals.astype(npdt).reshape(shape)
    if kind in ("pow_base", "pow_base_signed"):
        vals = rng.integers(max(lo, -5), 10 if lo == 0 else 6, size=n)
        return vals.astype(npdt).reshape(shape)
    if kind == "pow_exp":
        vals = rng.integers(max(lo, -3), 13, size=n)
        big = rng.random(n) < 0.2
        vals[big] = rng.integers(13, 41, size=int(big.sum()))
        return vals.astype(npdt).reshape(shape)
    small = [0, 1, 2, 3, 5, 7, -1, -2, -3, -7, lo, hi, lo + 1, hi - 1]
    vals = _ints(dt, n, rng, small)
    if kind == "divisor":
        zero = rng.random(n) < 0.2
        vals[zero] = 0
        if lo < 0:
            minus_one = rng.random(n) < 0.15
            vals[minus_one] = -1
    return vals.reshape(shape)


# ---------------------------------------------------------------------------------------------
# Comparing a result with a reference (see tests/reference.py: Expected).


def assert_expected(
    got: np.ndarray, expected: object, out_dt: DataType, ulps: float = 4.0, what: str = "", atol: float = 0.0
) -> None:
    """Compare an operator's output with a reference ``Expected``.

    Exact references must match bit for bit (integers, bool, bit operators). Float
    references (float64) must match in class (NaN where NaN; +-inf where the reference,
    rounded to the output type, is +-inf) and otherwise within ``ulps * eps`` relative plus
    the smallest normal of the output type (or ``atol``, when larger) absolute. A reference
    may carry its own per-element absolute term (``Expected.atol``, used instead of ``atol``)
    and elements outside the operator's stated domain (``Expected.unchecked``, not compared).
    """
    values = expected.values  # type: ignore[attr-defined]
    got = np.asarray(got)
    assert got.shape == values.shape, f"{what}: shape {got.shape} != {values.shape}"
    if getattr(expected, "atol", None) is not None:
        atol = expected.atol  # type: ignore[attr-defined]
    unchecked = getattr(expected, "unchecked", None)
    checked = np.ones(values.shape, bool) if unchecked is None else ~np.broadcast_to(unchecked, values.shape)
    if expected.exact:  # type: ignore[attr-defined]
        assert got.dtype == values.dtype, f"{what}: dtype {got.dtype} != {values.dtype}"
        bad = uint_view(got) != uint_view(values)
        if out_dt.is_float:
            # DirectML specifies no NaN payload or sign; a GPU's float16 conversion (cvt.rn.f16.f32)
            # gives the canonical 0x7FFF where NumPy keeps the payload. Any NaN matches a NaN.
            with np.errstate(all="ignore"):
                bad &= ~(np.isnan(got.astype(np.float32)) & np.isnan(values.astype(np.float32)))
        bad &= checked
        if bad.any():
            idx = np.argwhere(bad)[:8]
            detail = ", ".join(
                f"{tuple(int(i) for i in ix)}: got {got[tuple(ix)]!r} want {values[tuple(ix)]!r}" for ix in idx
            )
            raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} elements differ: {detail}")
        return
    npdt = out_dt.numpy_dtype
    info = float_info(out_dt)
    eps = float(info.eps)  # type: ignore[attr-defined]
    tiny = float(info.smallest_normal)  # type: ignore[attr-defined]
    g = got.astype(np.float64)
    # Where the tolerance interval reaches float32's (the type's) overflow threshold, both the
    # largest finite value and the infinity of the same sign lie within the stated bound.
    overflow = float(info.max) * (1.0 + eps / 4)  # type: ignore[attr-defined]
    with np.errstate(all="ignore"):
        rounded = values.astype(npdt).astype(np.float64)
        nan_bad = np.isnan(g) != np.isnan(values)
        err = np.abs(g - values)
        tol = ulps * eps * np.abs(values) + np.maximum(tiny, atol)
        near_overflow = np.isfinite(values) & (np.abs(values) + tol >= overflow)
        inf_want = np.isinf(rounded) & ~np.isnan(values)
        inf_bad = inf_want & (g != rounded) & ~(near_overflow & (err <= tol))
        finite = ~np.isnan(values) & ~inf_want
        fin_bad = finite & ~(err <= tol) & ~(near_overflow & (g == np.copysign(np.inf, values)))
    bad = (nan_bad | inf_bad | fin_bad) & checked
    if bad.any():
        idx = np.argwhere(bad)[:8]
        detail = ", ".join(
            f"{tuple(int(i) for i in ix)}: got {g[tuple(ix)]!r} want {values[tuple(ix)]!r}" for ix in idx
        )
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} elements differ ({ulps} eps): {detail}")


# Subnormals (README, "Subnormals, per backend"): CuPy compiles every kernel with -ftz=true, so on the GPU float32
# arithmetic and math flush subnormal inputs and results to a zero of the same sign (float64 does not flush;
# bfloat16, computed in float32, follows float32: its subnormals are float32 subnormals; float16's are not). The
# CUDA emulator reproduces that. The NumPy backend keeps IEEE subnormals. Data movement keeps them everywhere.
FLUSHING_BACKENDS = frozenset({"cupy", "emulator"})


def flushes_subnormals(backend: object) -> bool:
    """Whether float32 arithmetic on ``backend`` (a name, or a ``gpuops.Device``) flushes subnormals to zero."""
    return str(getattr(backend, "backend", backend)) in FLUSHING_BACKENDS


def flush_subnormals(a: object, on: object = True) -> np.ndarray:
    """``a`` with float32 and bfloat16 subnormals replaced by zeros of the same sign (other dtypes, and everything
    where ``on`` is false or a backend that keeps subnormals, unchanged): the flushed reference of a float32
    arithmetic op takes this of its inputs and of its result. ``on``: a bool, a backend name or a Device."""
    arr = np.asarray(a)
    if not isinstance(on, bool) and not flushes_subnormals(on):
        return arr
    if not on or arr.dtype not in (np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16)):
        return arr
    tiny = float(np.finfo(np.float32).tiny)
    wide = arr.astype(np.float32)
    sub = (wide != 0) & (np.abs(wide) < tiny)
    if not sub.any():
        return arr
    return np.where(sub, np.copysign(np.zeros((), arr.dtype), arr), arr).astype(arr.dtype)


def same_float_class(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Elementwise: NaN-ness, infinities and the sign of zeros agree (float64 arrays)."""
    got = np.asarray(got, np.float64)
    want = np.asarray(want, np.float64)
    both_nan = np.isnan(got) & np.isnan(want)
    special = np.isinf(want) | (want == 0)
    same_special = (got == want) & (np.signbit(got) == np.signbit(want))
    ok = np.where(np.isnan(want), both_nan, np.where(special, same_special, ~np.isnan(got) & ~np.isinf(got)))
    return ok


def run_fresh_python(script: str, *args: str) -> str:
    """Run ``script`` in a new interpreter at the repository root; return its stdout.

    For checks that need a process of their own, such as counting kernel builds from zero.
    """
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=root, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def sandwich_graph(t: TensorDesc, middle: object) -> object:
    """The graph ``(a + b) -> middle -> * c`` over tensors ``t`` (graph inputs a, b, c; one output): an operator
    that is not element-wise between two element-wise nodes, to check it runs as a step of its own."""
    from descriptors import desc_class
    from descriptors.graph import GraphDesc, InputEdge, IntermediateEdge, OperatorNode, OutputEdge

    add = desc_class("ELEMENT_WISE_ADD")(t, t, t)
    mul = desc_class("ELEMENT_WISE_MULTIPLY")(t, t, t)
    return GraphDesc(
        3,
        1,
        (OperatorNode(add), OperatorNode(middle), OperatorNode(mul)),
        (InputEdge(0, 0, 0), InputEdge(1, 0, 1), InputEdge(2, 2, 1)),
        (OutputEdge(2, 0, 0),),
        (IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0)),
    )


def run_together(work: Callable[[int], None], callers: int = 2) -> None:
    """``work(k)`` on ``callers`` Python threads started together (a barrier); re-raises the first failure."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(callers)

    def caller(k: int) -> None:
        try:
            barrier.wait()
            work(k)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=caller, args=(k,)) for k in range(callers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def trace_parallel(monkeypatch: Any, backend_module: Any) -> list[int]:
    """Wrap ``backend_module._parallel`` (the NumPy backend's thread pool): returns the list of the block counts each
    call got, and checks that every block of a call was claimed exactly once."""
    seen: list[int] = []
    real = backend_module._parallel

    def traced_parallel(parts: list[Any], work: Callable[[Iterable[Any]], None], size: int) -> None:
        seen.append(len(parts))
        claimed: list[int] = []
        lock = threading.Lock()

        def traced(part: Iterable[Any]) -> None:
            def each() -> Iterator[Any]:
                for idx in part:
                    with lock:
                        claimed.append(parts.index(idx))
                    yield idx

            work(each())

        real(parts, traced, size)
        assert sorted(claimed) == list(range(len(parts))), "a block was skipped or run twice"

    monkeypatch.setattr(backend_module, "_parallel", traced_parallel)
    return seen


def trace_launches(monkeypatch: Any) -> list[int]:
    """Wrap ``gpuops.backends.cpu.threads._launch`` (every native parallel launch, element-wise or reduction, goes
    through it): returns the list of the thread counts of the launches made."""
    from gpuops.backends.cpu import threads as cpu_threads

    seen: list[int] = []
    real = cpu_threads._launch

    def spy(driver: Any, args: tuple[Any, ...], count: int) -> None:
        seen.append(count)
        real(driver, args, count)

    monkeypatch.setattr(cpu_threads, "_launch", spy)
    return seen


@contextlib.contextmanager
def checks_after_runs() -> Iterator[Callable[..., None]]:
    """``with checks_after_runs() as check: ...; check(fn, *args)``: each ``fn(*args)`` runs when the block ends,
    in order, after every operator in it has run. The CUDA emulator's prebuild dry run (tests/conftest.py) runs a
    test with launches doing nothing, so it stops at the first failed check, and a kernel it never reached is
    compiled alone at its first launch: a test that runs several operators defers its checks."""
    pending: list[tuple[Callable[..., object], tuple[object, ...]]] = []
    yield lambda fn, *args: pending.append((fn, args))
    for fn, args in pending:
        fn(*args)
