"""Element-wise benchmark: gpuops against the raw ufunc and a same-size copy, interleaved.

    python -m benchmarks --backend numpy --quick --out benchmarks/results/cpu-latest
    python -m benchmarks --backend cupy --quick --out "$OUT"      # on a GPU machine

Cases (every one measured for gpuops, the backend's own ufunc and a copy of the same
element count, round-robin within one process so that clock or thermal drift hits all
three alike):

- ``add_f32``: ``ELEMENT_WISE_ADD`` float32 vs ``xp.add(a, b, out=c)`` vs ``xp.copyto(c, a)``.
- ``add_f16``: float16 add (gpuops computes in float32, rounds once) vs the backend's float16 add.
- ``add_bf16``: bfloat16 add (ml_dtypes' ufunc on the NumPy backend) likewise.
- ``add1_relu_f32``: ``ELEMENT_WISE_ADD1`` with a fused ``ACTIVATION_RELU`` vs the two-ufunc
  chain ``add(a, b, out=c); maximum(c, 0, out=c)``.
- ``exp_scalebias_f32``: ``ELEMENT_WISE_EXP`` with ScaleBias vs ``multiply``, ``add``, ``exp``
  with ``out=``.
- ``row_bcast_f32``: ``[M, C] + [C]`` with ``C = 1024``; gpuops reads B through a stride-0
  descriptor, the ufunc through NumPy/CuPy broadcasting; ``row_bcast_f16`` the same in float16 (a bias
  add; the NumPy backend's compiled rows loop). ``col_bcast_f32``: ``[M, C] + [M, 1]``.
- ``transposed_f32``: ``A.T + B`` for square ``[S, S]`` (``n = S * S``): A read through
  transposed strides.
- ``sum_full_f32``, ``sum_inner_f32``, ``sum_outer_f32``, ``max_inner_f32``: ``REDUCE`` over
  all of ``[n]``, over the last axis of ``[n / 1024, 1024]`` and over its first axis, vs
  ``xp.sum``/``xp.max(axis=..., out=...)``; 4 B/elem counted (the input read once).
- ``overhead_f32``: 1000 elements; the per-call cost of ``CompiledOperator.execute`` (binding
  checks included) vs one ufunc call. Host time on both backends.

Sizes 2^10..2^22 elements with ``--quick`` (every other power of two), 2^10..2^26 otherwise.
Timing: NumPy, ``time.perf_counter`` around batches of calls; CuPy,
``cupyx.profiler.benchmark`` (CUDA-event GPU times; host times for the overhead case).
Reported: the median over repeats, counted GB/s (useful bytes: 12 B/elem for a float32
binary op, 6 for float16, 8 for a float32 copy or a row-broadcast add), the time ratio to
the ufunc (``ratio_to_baseline``, > 1 is slower) and the counted bandwidth relative to the
copy (``bw_vs_copy``, 1.0 = copy speed).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from anywhere: gpuops and descriptors live in the repo root
    sys.path.insert(0, str(ROOT))

import gpuops  # noqa: E402
from descriptors import (  # noqa: E402
    ActivationReluOperatorDesc,
    DataType,
    ElementWiseAdd1OperatorDesc,
    ElementWiseAddOperatorDesc,
    ElementWiseExpOperatorDesc,
    ExecutionFlags,
    GraphDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    ScaleBias,
    TensorDesc,
    desc_class,
)
from descriptors.graph import InputEdge, IntermediateEdge, OperatorNode, OutputEdge  # noqa: E402

__all__ = ["main", "run"]

ROW_C = 1024
ELEMENTWISE = "gpuops-ElementwiseKernel"  # CuPy only: the same operator without gpuops' fast kernels
UFUNCS = "gpuops-ufuncs"  # NumPy only: the same operator without the compiled (numba) tier
NODES = "gpuops-node-by-node"  # a compiled graph's nodes run one by one (no fusion)
ALTERNATIVES = (ELEMENTWISE, UFUNCS, NODES)
OVERHEAD_N = 1000
CASES = (
    "add_f32",
    "add_f16",
    "add_bf16",
    "add1_relu_f32",
    "exp_scalebias_f32",
    "row_bcast_f32",
    "row_bcast_f16",
    "col_bcast_f32",
    "transposed_f32",
    "sum_full_f32",
    "sum_inner_f32",
    "sum_outer_f32",
    "max_inner_f32",
    "graph_chain4_f32",
    "overhead_f32",
)
REDUCE_CASES = {  # case -> (function, how the n elements are shaped and reduced)
    "sum_full_f32": ("SUM", "full"),
    "sum_inner_f32": ("SUM", "inner"),
    "sum_outer_f32": ("SUM", "outer"),
    "max_inner_f32": ("MAX", "inner"),
}


@dataclasses.dataclass
class Variant:
    name: str  # "gpuops", the baseline's name ("numpy" / "cupy") or "copy"
    fn: Callable[[], Any]
    bytes_per_elem: float


@dataclasses.dataclass
class Group:
    case: str
    dtype: str
    n: int
    shape: tuple[int, ...]
    variants: list[Variant]
    host_time: bool = False  # overhead case: time the host side of each call


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


# --------------------------------------------------------------------------- cases


class Bench:
    def __init__(self, backend: str, quick: bool, repeats: int | None) -> None:
        self.device = gpuops.Device(backend)
        self.backend = self.device.backend
        self.quick = quick
        if self.backend == "cupy":
            import cupy

            self.xp: Any = cupy
            self.timer: Any = CupyTimer(target=0.01 if quick else 0.03)
            self.repeats = repeats or (5 if quick else 9)
        else:
            self.xp = np
            self.timer = NumpyTimer(target=0.005 if quick else 0.01)
            self.repeats = repeats or (15 if quick else 31)
        self.baseline = self.xp.__name__
        self.rng = np.random.default_rng(0)
        self._slot = 0

    def empty(self, n: int, dtype: Any) -> Any:
        """A flat buffer. On NumPy: page-aligned plus a per-buffer stagger of 512 B steps.

        Without it the copy baseline depends on where malloc put the buffers: glibc's
        ``rep movsb`` memcpy runs about 10x slower when ``dst - src`` is just above a
        multiple of 4096 (measured here: 23 us instead of 2 us for 64 KiB at an offset
        of 16 bytes), which heap neighbours often are.
        """
        dt = np.dtype(dtype)
        if self.xp is not np:
            return self.xp.empty(n, dt)
        self._slot += 1
        off = (self._slot % 8) * 512
        nbytes = n * dt.itemsize
        raw = np.empty(nbytes + 4096 + off, np.uint8)
        start = (-raw.ctypes.data) % 4096 + off
        return raw[start : start + nbytes].view(dt)

    def array(self, n: int, dtype: Any) -> Any:
        host = self.rng.uniform(1.0, 2.0, n).astype(dtype)
        if self.xp is not np:
            return self.xp.asarray(host)
        buf = self.empty(n, host.dtype)
        buf[...] = host
        return buf

    def compiled(self, a: TensorDesc, b: TensorDesc, out: TensorDesc) -> gpuops.CompiledOperator:
        dev = self.device
        return dev.compile_operator(dev.create_operator(ElementWiseAddOperatorDesc(a, b, out)))

    def general(self, op: gpuops.CompiledOperator, ins: list[Any], out: Any, per_elem: float) -> list[Variant]:
        """The same descriptor without gpuops' faster path, to show what that path buys: on CuPy
        (flat or rows kernel) through CuPy's ``ElementwiseKernel`` (``GPUOPS_CUPY_FAST=0``), on
        NumPy (a compiled numba loop) through the ufunc chain (``GPUOPS_NUMBA=0``)."""
        if op.launch_path == "numba":
            with gpuops.config.override(numba=False):
                chain = self.device.compile_operator(self.device.create_operator(op.desc))
            return [Variant(UFUNCS, lambda: chain.execute(ins, [out]), per_elem)]
        if self.backend != "cupy" or op.launch_path not in ("flat", "rows"):
            return []
        with gpuops.config.override(cupy_fast=False):
            slow = self.device.compile_operator(self.device.create_operator(op.desc))
        return [Variant(ELEMENTWISE, lambda: slow.execute(ins, [out]), per_elem)]

    def binary(self, case: str, n: int, dt: DataType) -> Group:
        xp = self.xp
        npdt = dt.numpy_dtype
        a, b, c = self.array(n, npdt), self.array(n, npdt), self.empty(n, npdt)
        c2 = self.empty(n, npdt)
        t = TensorDesc(dt, (n,))
        op = self.compiled(t, t, t)
        item = npdt.itemsize
        return Group(
            case,
            npdt.name,
            n,
            (n,),
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), 3 * item),
                Variant(self.baseline, lambda: xp.add(a, b, out=c2), 3 * item),
                Variant("copy", lambda: xp.copyto(c2, a), 2 * item),
                *self.general(op, [a, b], c, 3 * item),
            ],
        )

    def row_bcast(self, n: int, dt: DataType = DataType.FLOAT32) -> Group:
        xp = self.xp
        cols = min(ROW_C, n)
        rows = n // cols
        n = rows * cols
        npdt = dt.numpy_dtype
        a, b, c = self.array(n, npdt), self.array(cols, npdt), self.empty(n, npdt)
        c_flat = self.empty(n, npdt)
        a2, c2 = a.reshape(rows, cols), c_flat.reshape(rows, cols)
        shape = (rows, cols)
        op = self.compiled(TensorDesc(dt, shape), TensorDesc.broadcast(dt, (cols,), to=shape), TensorDesc(dt, shape))
        item = npdt.itemsize
        per_elem = 2 * item + item * cols / n  # read A, write C, read the row once
        return Group(
            f"row_bcast_{'f16' if dt is DataType.FLOAT16 else 'f32'}",
            npdt.name,
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), per_elem),
                Variant(self.baseline, lambda: xp.add(a2, b, out=c2), per_elem),
                Variant("copy", lambda: xp.copyto(c_flat, a), 2 * item),
                *self.general(op, [a, b], c, per_elem),
            ],
        )

    def op(self, desc: Any) -> gpuops.CompiledOperator:
        return self.device.compile_operator(self.device.create_operator(desc))

    def add1_relu(self, n: int) -> Group:
        xp = self.xp
        f32 = DataType.FLOAT32
        a, b, c, c2 = (
            self.array(n, np.float32),
            self.array(n, np.float32),
            self.empty(n, np.float32),
            self.empty(n, np.float32),
        )
        b -= 1.5  # about half the sums negative, so RELU has work to do
        t = TensorDesc(f32, (n,))
        op = self.op(ElementWiseAdd1OperatorDesc(t, t, t, fused_activation=ActivationReluOperatorDesc()))
        zero = np.float32(0)

        def chain() -> None:
            xp.add(a, b, out=c2)
            xp.maximum(c2, zero, out=c2)

        return Group(
            "add1_relu_f32",
            "float32",
            n,
            (n,),
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), 12),
                Variant(self.baseline, chain, 12),
                Variant("copy", lambda: xp.copyto(c2, a), 8),
                *self.general(op, [a, b], c, 12),
            ],
        )

    def exp_scalebias(self, n: int) -> Group:
        xp = self.xp
        a, c, c2 = self.array(n, np.float32), self.empty(n, np.float32), self.empty(n, np.float32)
        t = TensorDesc(DataType.FLOAT32, (n,))
        op = self.op(ElementWiseExpOperatorDesc(t, t, ScaleBias(0.5, -1.0)))
        s, bias = np.float32(0.5), np.float32(-1.0)

        def chain() -> None:
            xp.multiply(a, s, out=c2)
            xp.add(c2, bias, out=c2)
            xp.exp(c2, out=c2)

        return Group(
            "exp_scalebias_f32",
            "float32",
            n,
            (n,),
            [
                Variant("gpuops", lambda: op.execute([a], [c]), 8),
                Variant(self.baseline, chain, 8),
                Variant("copy", lambda: xp.copyto(c2, a), 8),
                *self.general(op, [a], c, 8),
            ],
        )

    def col_bcast(self, n: int) -> Group:
        xp = self.xp
        cols = min(ROW_C, n)
        rows = n // cols
        n = rows * cols
        f32 = DataType.FLOAT32
        shape = (rows, cols)
        a, b, c = self.array(n, np.float32), self.array(rows, np.float32), self.empty(n, np.float32)
        c_flat = self.empty(n, np.float32)
        a2, b2, c2 = a.reshape(shape), b.reshape(rows, 1), c_flat.reshape(shape)
        op = self.op(
            ElementWiseAddOperatorDesc(
                TensorDesc(f32, shape), TensorDesc.broadcast(f32, (rows, 1), to=shape), TensorDesc(f32, shape)
            )
        )
        per_elem = 8 + 4 * rows / n
        return Group(
            "col_bcast_f32",
            "float32",
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), per_elem),
                Variant(self.baseline, lambda: xp.add(a2, b2, out=c2), per_elem),
                Variant("copy", lambda: xp.copyto(c_flat, a), 8),
                *self.general(op, [a, b], c, per_elem),
            ],
        )

    def transposed(self, n: int) -> Group:
        xp = self.xp
        side = max(1, math.isqrt(n))
        n = side * side
        f32 = DataType.FLOAT32
        shape = (side, side)
        a, b, c = self.array(n, np.float32), self.array(n, np.float32), self.empty(n, np.float32)
        c_flat = self.empty(n, np.float32)
        at, b2, c2 = a.reshape(shape).T, b.reshape(shape), c_flat.reshape(shape)
        op = self.op(
            ElementWiseAddOperatorDesc(
                TensorDesc(f32, shape, (1, side)), TensorDesc(f32, shape), TensorDesc(f32, shape)
            )
        )
        return Group(
            "transposed_f32",
            "float32",
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), 12),
                Variant(self.baseline, lambda: xp.add(at, b2, out=c2), 12),
                Variant("copy", lambda: xp.copyto(c_flat, a), 8),
                *self.general(op, [a, b], c, 12),
            ],
        )

    def reduction(self, case: str, n: int) -> Group:
        xp = self.xp
        function, how = REDUCE_CASES[case]
        cols = min(ROW_C, n)
        n = n // cols * cols
        shape, axis = {"full": ((n,), 0), "inner": ((n // cols, cols), 1), "outer": ((n // cols, cols), 0)}[how]
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(shape))
        f32 = DataType.FLOAT32
        a = self.array(n, np.float32)
        out_n = math.prod(out_shape)
        c, c2 = self.empty(out_n, np.float32), self.empty(out_n, np.float32)
        copy_dst = self.empty(n, np.float32)
        desc = ReduceOperatorDesc(
            ReduceFunction[function], TensorDesc(f32, shape), TensorDesc(f32, out_shape), axes=(axis,)
        )
        op = self.device.compile_operator(self.device.create_operator(desc))
        a2, c2v = a.reshape(shape), c2.reshape(out_shape)
        ufunc = xp.sum if function == "SUM" else xp.max
        return Group(
            case,
            "float32",
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute([a], [c]), 4),
                Variant(self.baseline, lambda: ufunc(a2, axis=axis, keepdims=True, out=c2v), 4),
                Variant("copy", lambda: xp.copyto(copy_dst, a), 8),
            ],
        )

    def graph_chain(self, n: int) -> Group:
        """y = relu(x * 0.5 + 1) * x + x as a 4-node graph (IDENTITY with ScaleBias, RELU, MULTIPLY, ADD):
        fused (one kernel: reads x, writes y, 8 bytes per element), its nodes one by one (40 bytes: four
        passes, three intermediates written and read back), NumPy's five-ufunc chain, and a copy."""
        from gpuops.compiled_graph import CompiledGraph

        xp = self.xp
        t = TensorDesc(DataType.FLOAT32, (n,))
        graph = _chain4(t)
        fused = self.device.compile_graph(graph)
        nodes = CompiledGraph(self.device, graph, ExecutionFlags.NONE, fuse=False)
        x = self.array(n, np.float32)
        y, y2, copy_dst = self.empty(n, np.float32), self.empty(n, np.float32), self.empty(n, np.float32)
        half, one, zero = np.float32(0.5), np.float32(1), np.float32(0)

        def numpy_chain() -> None:
            xp.multiply(x, half, out=y2)
            xp.add(y2, one, out=y2)
            xp.maximum(y2, zero, out=y2)
            xp.multiply(y2, x, out=y2)
            xp.add(y2, x, out=y2)

        return Group(
            "graph_chain4_f32",
            "float32",
            n,
            (n,),
            [
                Variant("gpuops", lambda: fused.execute([x], [y]), 8),
                Variant(self.baseline, numpy_chain, 40),
                Variant(NODES, lambda: nodes.execute([x], [y]), 40),
                Variant("copy", lambda: xp.copyto(copy_dst, x), 8),
            ],
        )

    def overhead(self) -> Group:
        g = self.binary("overhead_f32", OVERHEAD_N, DataType.FLOAT32)
        g.variants = [v for v in g.variants if v.name != "copy"]
        g.host_time = True
        return g

    def measure(self, g: Group) -> list[dict[str, Any]]:
        """Interleaved: every repeat runs each variant once (order alternating), medians at the end."""
        timer = self.timer
        cal = {v.name: timer.calibrate(v.fn, g.host_time) for v in g.variants}
        repeats = self.repeats
        slowest = max(once for _, once in cal.values())
        if slowest * repeats * len(g.variants) > (4.0 if self.quick else 20.0):
            repeats = max(3, repeats // 3)
        samples: dict[str, list[float]] = {v.name: [] for v in g.variants}
        for r in range(repeats):
            order = g.variants if r % 2 == 0 else g.variants[::-1]
            for v in order:
                samples[v.name] += timer.sample(v.fn, cal[v.name][0], g.host_time)
        timer.sync()
        med = {k: statistics.median(s) for k, s in samples.items()}
        rows = []
        for v in g.variants:
            t = med[v.name]
            gbs = v.bytes_per_elem * g.n / t / 1e9
            rows.append(
                {
                    "case": g.case,
                    "variant": v.name,
                    "backend": self.backend,
                    "dtype": g.dtype,
                    "n": g.n,
                    "shape": list(g.shape),
                    "median_us": t * 1e6,
                    "min_us": min(samples[v.name]) * 1e6,
                    "samples": len(samples[v.name]),
                    "calls_per_sample": cal[v.name][0] if self.backend == "numpy" else 1,
                    "bytes_per_elem": v.bytes_per_elem,
                    "GB_s": gbs,
                    "time": "host" if g.host_time or self.backend == "numpy" else "gpu",
                }
            )
        base = next(r for r in rows if r["variant"] == self.baseline)
        copy = next((r for r in rows if r["variant"] == "copy"), None)
        for r in rows:
            r["ratio_to_baseline"] = r["median_us"] / base["median_us"]
            r["bw_vs_copy"] = r["GB_s"] / copy["GB_s"] if copy else None
        return rows


def _chain4(t: TensorDesc) -> GraphDesc:
    """relu(x * 0.5 + 1) * x + x: IDENTITY (ScaleBias 0.5, 1) -> RELU -> MULTIPLY by x -> ADD x."""
    identity, relu, mul, add = (
        desc_class(n) for n in ("ELEMENT_WISE_IDENTITY", "ACTIVATION_RELU", "ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_ADD")
    )
    nodes = [
        OperatorNode(identity(input_tensor=t, output_tensor=t, scale_bias=ScaleBias(0.5, 1.0))),
        OperatorNode(relu(input_tensor=t, output_tensor=t)),
        OperatorNode(mul(a_tensor=t, b_tensor=t, output_tensor=t)),
        OperatorNode(add(a_tensor=t, b_tensor=t, output_tensor=t)),
    ]
    return GraphDesc(
        1, 1, nodes, [InputEdge(0, 0, 0), InputEdge(0, 2, 1), InputEdge(0, 3, 1)], [OutputEdge(3, 0, 0)],
        [IntermediateEdge(0, 0, 1, 0), IntermediateEdge(1, 0, 2, 0), IntermediateEdge(2, 0, 3, 0)],
    )  # fmt: skip


def sizes(quick: bool, max_log2: int | None, backend: str = "numpy", explicit: Sequence[int] = ()) -> list[int]:
    """``explicit`` if given; else 2^10 .. 2^22 (quick, every other power) or 2^10 .. 2^26, plus
    1e7 and 1e8 on the CPU in a full run (issue 7's CPU targets are stated at 1e7)."""
    if explicit:
        return sorted(set(explicit))
    top = max_log2 if max_log2 is not None else (22 if quick else 26)
    step = 2 if quick else 1
    out = [1 << e for e in range(10, top + 1, step)]
    if not quick and max_log2 is None and backend == "numpy":
        out += [10**7, 10**8]
    return sorted(out)


# --------------------------------------------------------------------------- environment


def git_commit() -> str | None:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except Exception:
        return os.environ.get("GPUOPS_COMMIT")
    return head + ("-dirty" if dirty else "")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_info(bench: Bench) -> dict[str, Any]:
    info: dict[str, Any] = {"backend": bench.backend, "cpu": _cpu_model(), "cpu_count": os.cpu_count()}
    if bench.backend == "cupy":
        import cupy

        rt = cupy.cuda.runtime
        props = rt.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        info.update(
            {
                "name": name.decode() if isinstance(name, bytes) else str(name),
                "compute_capability": f"{props['major']}.{props['minor']}",
                "total_memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
                "cuda_runtime": rt.runtimeGetVersion(),
                "cuda_driver": rt.driverGetVersion(),
            }
        )
    else:
        info["name"] = f"{info['cpu']} ({info['cpu_count']} CPUs)"
    return info


def versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version(), "gpuops": gpuops.__version__}
    for mod in ("numpy", "ml_dtypes", "numba", "cupy", "matplotlib"):
        try:
            out[mod] = str(__import__(mod).__version__)
        except Exception:
            out[mod] = None
    return out


# --------------------------------------------------------------------------- report


def _fmt_table(rows: list[dict[str, Any]], baseline: str) -> list[str]:
    by_n: dict[int, dict[str, dict[str, Any]]] = {}
    for r in rows:
        by_n.setdefault(r["n"], {})[r["variant"]] = r
    head = (
        f"{'n':>10}  {'gpuops us':>10}  {baseline + ' us':>10}  {'copy us':>10}  "
        f"{'gpuops GB/s':>11}  {baseline + ' GB/s':>11}  {'copy GB/s':>9}  {'x base':>6}  {'vs copy':>7}"
    )
    general = next((a for a in ALTERNATIVES if any(a in v for v in by_n.values())), None)
    lines = [head + (f"  {general + ' us':>24}" if general else "")]
    for n, v in sorted(by_n.items()):
        g, b, c = v["gpuops"], v[baseline], v.get("copy")
        line = (
            f"{n:>10}  {g['median_us']:>10.2f}  {b['median_us']:>10.2f}  "
            f"{(c['median_us'] if c else math.nan):>10.2f}  {g['GB_s']:>11.2f}  {b['GB_s']:>11.2f}  "
            f"{(c['GB_s'] if c else math.nan):>9.2f}  {g['ratio_to_baseline']:>6.2f}  "
            f"{(g['bw_vs_copy'] if c else math.nan):>7.2f}"
        )
        if general:
            e = v.get(general)
            line += f"  {(e['median_us'] if e else math.nan):>24.2f}"
        lines.append(line)
    return lines


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per case: geometric-mean and largest-size time ratio of gpuops to the baseline."""
    out: dict[str, Any] = {}
    for case in CASES:
        g = [r for r in rows if r["case"] == case and r["variant"] == "gpuops"]
        if not g:
            continue
        big = max(g, key=lambda r: r["n"])
        entry = {
            "geomean_ratio_to_baseline": math.exp(statistics.fmean(math.log(r["ratio_to_baseline"]) for r in g)),
            "largest_n": big["n"],
            "ratio_to_baseline_at_largest": big["ratio_to_baseline"],
            "bw_vs_copy_at_largest": big["bw_vs_copy"],
            "GB_s_at_largest": big["GB_s"],
        }
        alt = {r["n"]: r for r in rows if r["case"] == case and r["variant"] == NODES}
        if big["n"] in alt:  # what fusion buys: the nodes one by one over the fused graph
            entry["node_by_node_over_fused_at_largest"] = alt[big["n"]]["median_us"] / big["median_us"]
        if case == "overhead_f32":
            base = next(r for r in rows if r["case"] == case and r["variant"] not in ("gpuops", *ALTERNATIVES, "copy"))
            entry["gpuops_us_per_call"] = big["median_us"]
            entry["baseline_us_per_call"] = base["median_us"]
            entry["overhead_us_per_call"] = big["median_us"] - base["median_us"]
        out[case] = entry
    return out


def plot(result: dict[str, Any], path: Path) -> bool:
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed (pip install -e .[bench]); no plot written", file=sys.stderr)
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, baseline = result["rows"], result["baseline"]
    cases = [c for c in CASES if c != "overhead_f32" and any(r["case"] == c for r in rows)]
    ncols = 4
    nrows = -(-(len(cases) + 1) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.6 * nrows), squeeze=False)
    styles = {
        "gpuops": ("C0", "o", "-"),
        ELEMENTWISE: ("C2", "x", "-."),
        UFUNCS: ("C2", "x", "-."),
        NODES: ("C3", "v", "-."),
        baseline: ("C1", "s", "--"),
        "copy": ("0.5", "^", ":"),
    }
    for ax, case in zip(axes.flat, cases, strict=False):
        bpe = next(r["bytes_per_elem"] for r in rows if r["case"] == case and r["variant"] == "gpuops")
        for variant, (color, marker, ls) in styles.items():
            pts = sorted((r["n"], r["GB_s"]) for r in rows if r["case"] == case and r["variant"] == variant)
            if not pts:
                continue
            label = {
                "gpuops": "gpuops execute()",
                ELEMENTWISE: "gpuops, CuPy ElementwiseKernel path",
                UFUNCS: "gpuops, ufunc chain (no numba)",
                NODES: "gpuops, the nodes one by one",
                "copy": f"{baseline}.copyto",
            }.get(variant, f"{baseline} ufunc(s)")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, marker=marker, ls=ls, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("elements")
        ax.set_ylabel("counted GB/s (log)")
        ax.set_title(f"{case} ({bpe:g} B/elem counted)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(cases) + 1 :]:
        ax.axis("off")
    ax = axes.flat[len(cases)]
    over = [r for r in rows if r["case"] == "overhead_f32"]
    if over:
        names = [r["variant"] for r in over]
        vals = [r["median_us"] for r in over]
        bars = ax.bar(names, vals, color=[styles.get(n, ("C2",))[0] for n in names])
        for bar, v in zip(bars, vals, strict=True):
            ax.annotate(f"{v:.2f} us", (bar.get_x() + bar.get_width() / 2, v), ha="center", va="bottom", fontsize=9)
        ax.set_ylabel("host us per call (median)")
        ax.set_title(f"per-call cost at {OVERHEAD_N} float32 elements", fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    dev = result["device"].get("name", result["backend"])
    commit = result.get("git_commit") or "unknown"
    commit = commit[:10] + ("-dirty" if commit.endswith("-dirty") else "")
    fig.suptitle(f"gpuops {result['backend']} backend on {dev}\n{result['date']}  commit {commit}", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def run(
    backend: str = "auto",
    quick: bool = False,
    out: Path | None = None,
    max_log2: int | None = None,
    repeats: int | None = None,
    cases: Sequence[str] = CASES,
    explicit_sizes: Sequence[int] = (),
) -> dict[str, Any]:
    bench = Bench(backend, quick, repeats)
    started = time.perf_counter()
    print(
        f"gpuops benchmark: backend {bench.backend}, {'quick' if quick else 'full'}, "
        f"{bench.repeats} interleaved repeats; timer: {bench.timer.clock}"
    )
    rows: list[dict[str, Any]] = []
    for case in cases:
        if case == "overhead_f32":
            groups = [bench.overhead()]
        else:
            groups = []
            for n in sizes(quick, max_log2, bench.backend, explicit_sizes):
                if case == "add_f32":
                    groups.append(bench.binary(case, n, DataType.FLOAT32))
                elif case == "add_f16":
                    groups.append(bench.binary(case, n, DataType.FLOAT16))
                elif case == "add_bf16":
                    groups.append(bench.binary(case, n, DataType.BFLOAT16))
                elif case == "add1_relu_f32":
                    groups.append(bench.add1_relu(n))
                elif case == "exp_scalebias_f32":
                    groups.append(bench.exp_scalebias(n))
                elif case == "col_bcast_f32":
                    groups.append(bench.col_bcast(n))
                elif case == "transposed_f32":
                    groups.append(bench.transposed(n))
                elif case == "row_bcast_f32":
                    groups.append(bench.row_bcast(n))
                elif case == "row_bcast_f16":
                    groups.append(bench.row_bcast(n, DataType.FLOAT16))
                elif case in REDUCE_CASES:
                    groups.append(bench.reduction(case, n))
                elif case == "graph_chain4_f32":
                    groups.append(bench.graph_chain(n))
                else:
                    raise ValueError(f"unknown case {case!r}; known: {', '.join(CASES)}")
        case_rows: list[dict[str, Any]] = []
        for g in groups:
            case_rows += bench.measure(g)
            g.variants.clear()  # drop the closures (and their arrays) before the next size
        print(f"\n== {case}")
        print("\n".join(_fmt_table(case_rows, bench.baseline)))
        rows += case_rows
    result: dict[str, Any] = {
        "benchmark": "bench_elementwise",
        "backend": bench.backend,
        "baseline": bench.baseline,
        "quick": quick,
        "device": device_info(bench),
        "versions": versions(),
        "git_commit": git_commit(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "timer": bench.timer.clock,
        "repeats": bench.repeats,
        "notes": "median over interleaved repeats; GB_s counts useful bytes (bytes_per_elem * n); "
        "ratio_to_baseline = time / baseline time (> 1 is slower); bw_vs_copy = GB_s / copy GB_s",
        "summary": summarize(rows),
        "rows": rows,
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    print("\n== summary (gpuops time / baseline time; counted bandwidth vs copy)")
    for case, s in result["summary"].items():
        line = (
            f"{case:>14}: geomean x{s['geomean_ratio_to_baseline']:.2f}, at n={s['largest_n']}: "
            f"x{s['ratio_to_baseline_at_largest']:.2f}"
        )
        if s["bw_vs_copy_at_largest"] is not None:
            line += f", {s['bw_vs_copy_at_largest']:.2f} of copy bandwidth ({s['GB_s_at_largest']:.2f} GB/s)"
        if "overhead_us_per_call" in s:
            line += (
                f"; {s['gpuops_us_per_call']:.2f} us vs {s['baseline_us_per_call']:.2f} us per call "
                f"(+{s['overhead_us_per_call']:.2f} us)"
            )
        print(line)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        jpath = out / f"bench-{bench.backend}.json"
        jpath.write_text(json.dumps(result, indent=2) + "\n")
        print(f"\nwrote {jpath}")
        ppath = out / f"bench-{bench.backend}.png"
        if plot(result, ppath):
            print(f"wrote {ppath}")
    print(f"elapsed {result['elapsed_s']} s")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("auto", "numpy", "cupy"), default="auto")
    parser.add_argument("--quick", action="store_true", help="sizes 2^10..2^22, fewer repeats (about a minute on CPU)")
    parser.add_argument("--out", type=Path, default=None, help="directory for bench-<backend>.json and .png")
    parser.add_argument("--max-log2", type=int, default=None, help="largest size as a power of two (smoke tests)")
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repeats per measurement")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated subset of {', '.join(CASES)}")
    parser.add_argument(
        "--sizes", default="", help="comma-separated element counts instead of the default ladder (e.g. 1e7,1e8)"
    )
    args = parser.parse_args(argv)
    try:
        explicit = [int(float(x)) for x in args.sizes.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--sizes: not a list of numbers: {args.sizes!r}")
    if any(n < 1 for n in explicit):
        parser.error(f"--sizes: element counts must be positive (got {args.sizes!r})")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    try:
        run(args.backend, args.quick, args.out, args.max_log2, args.repeats, cases, explicit)
    except gpuops.UnsupportedError as exc:
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    return 0
