"""The benchmark cases: each case at each size is a ``Group`` of ``Variant``s timed side by side
(gpuops, the backend's own ufuncs, a copy, and where it exists gpuops without its faster path)."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import os
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import gpuops
from descriptors import (
    ActivationReluOperatorDesc,
    ArgmaxOperatorDesc,
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
)

from .timers import CupyTimer, NumpyTimer

__all__ = [
    "ALTERNATIVES",
    "ROW_C",
    "CALL",
    "CASES",
    "COPY2",
    "ELEMENTWISE",
    "NODES",
    "OVERHEAD_N",
    "NORMALIZE_CASES",
    "REDUCE_CASES",
    "TORCH",
    "UFUNCS",
    "Bench",
    "Group",
    "Variant",
    "sizes",
]

ROW_C = 1024
ELEMENTWISE = "gpuops-ElementwiseKernel"  # CuPy only: the same operator without gpuops' fast kernels
UFUNCS = "gpuops-ufuncs"  # NumPy only: the same operator without the compiled (numba) tier
NODES = "gpuops-node-by-node"  # a compiled graph's nodes run one by one (no fusion)
ALTERNATIVES = (ELEMENTWISE, UFUNCS, NODES)  # gpuops without one of its fast paths
CALL = "gpuops-call"  # overhead case: the convenience call op(a, b), which allocates the output
TORCH = "torch"  # PyTorch on the same buffers where installed: CPU (torch.from_numpy) or CUDA (torch.from_dlpack)
COPY2 = "copy-2t"  # NumPy backend only: the same copy split over two threads (the 2-core machine's copy bandwidth)
COPY2_MIN_BYTES = 1 << 20
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
    "softmax_inner_f32",
    "log_softmax_inner_f32",
    "mvn_inner_f32",
    "argmax_inner_f32",
    "sum_middle_f32",
    "overhead_f32",
)
REDUCE_CASES = {  # case -> (function, how the n elements are shaped and reduced)
    "sum_full_f32": ("SUM", "full"),
    "sum_inner_f32": ("SUM", "inner"),
    "sum_outer_f32": ("SUM", "outer"),
    "sum_middle_f32": ("SUM", "middle"),
    "max_inner_f32": ("MAX", "inner"),
    "argmax_inner_f32": ("ARGMAX", "inner"),
}
# The row normalizations over the last axis of [n / C, C] (issue 33): case -> the composite row.
NORMALIZE_CASES = {
    "softmax_inner_f32": "ACTIVATION_SOFTMAX1",
    "log_softmax_inner_f32": "ACTIVATION_LOG_SOFTMAX1",
    "mvn_inner_f32": "MEAN_VARIANCE_NORMALIZATION1",
}
MIDDLE = 16  # the middle case: [n / (C * 16), 16, C] reduced over the 16


@dataclasses.dataclass
class Variant:
    name: str  # "gpuops", the baseline's name ("numpy" / "cupy") or "copy"
    fn: Callable[[], Any]
    bytes_per_elem: float  # the useful bytes: what the fewest passes over the data move
    cost: Any = None  # gpuops' CompiledOperator.cost(): the launches and bytes its CuPy kernels move


@dataclasses.dataclass
class Group:
    case: str
    dtype: str
    n: int
    shape: tuple[int, ...]
    variants: list[Variant]
    host_time: bool = False  # overhead case: time the host side of each call


# --------------------------------------------------------------------------- cases


def torch_peer(backend: str) -> tuple[Any, str]:
    """``(torch, what it times)`` where PyTorch is the peer of this backend's cases, else ``(None, why not)``.

    NumPy backend: PyTorch's CPU kernels on the same host buffers (``torch.from_numpy``). CuPy backend: PyTorch's CUDA
    kernels on the same device buffers (``torch.from_dlpack`` of the CuPy arrays), timed by the same CUDA events: CuPy
    and PyTorch both launch on the legacy default stream, where ``cupyx.profiler.benchmark`` records its events.
    Left out where torch is not importable, has no CUDA (CuPy backend), or ``GPUOPS_BENCH_TORCH=0``."""
    if os.environ.get("GPUOPS_BENCH_TORCH", "1") == "0":
        return None, "left out (GPUOPS_BENCH_TORCH=0)"
    if backend not in ("numpy", "cupy"):
        return None, f"none for the {backend} backend"
    try:
        import torch
    except Exception as exc:  # ImportError, or a broken install
        return None, f"left out: torch is not importable ({exc.__class__.__name__}: {exc})"
    version = getattr(torch, "__version__", "?")
    if backend == "numpy":
        return torch, f"torch {version} CPU kernels on the same host buffers (torch.from_numpy)"
    try:
        cuda = bool(torch.cuda.is_available())
    except Exception as exc:
        return None, f"left out: torch {version}: torch.cuda.is_available() failed ({exc})"
    if not cuda:
        return None, f"left out: torch {version} has no usable CUDA (torch.cuda.is_available() is False)"
    try:
        import cupy

        stream = cupy.cuda.get_current_stream().ptr
    except Exception as exc:
        return None, f"left out: CuPy's current stream is unknown ({exc.__class__.__name__}: {exc})"
    if stream != 0:  # CuPy's events would not bracket torch's kernels
        return None, "left out: CuPy's current stream is not the legacy default stream torch launches on"
    return torch, f"torch {version} CUDA kernels on the same device buffers (torch.from_dlpack), same CUDA events"


_COPY_POOL: concurrent.futures.ThreadPoolExecutor | None = None


def copy_2t(dst: np.ndarray, src: np.ndarray) -> None:
    """``np.copyto`` over two threads (halves; NumPy releases the GIL for the copy): the copy bandwidth both
    cores reach, which a multi-threaded kernel should be compared with."""
    global _COPY_POOL
    if _COPY_POOL is None:
        _COPY_POOL = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="bench-copy")
    half = src.shape[0] // 2
    f = _COPY_POOL.submit(np.copyto, dst[half:], src[half:])
    np.copyto(dst[:half], src[:half])
    f.result()


class Bench:
    def __init__(self, backend: str, quick: bool, repeats: int | None, cols: int = ROW_C) -> None:
        self.device = gpuops.Device(backend)
        self.cols = cols  # the row length of the broadcast, reduction and softmax cases
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
        self.torch, self.torch_note = torch_peer(self.backend)
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

    def t(self, x: Any) -> Any:
        """A torch tensor over the same memory: ``torch.from_numpy`` of a host array, ``torch.from_dlpack`` of a
        CuPy array (no copy: the same device buffer); bfloat16 through its 16-bit integer view."""
        torch = self.torch
        wrap = torch.from_numpy if self.xp is np else torch.from_dlpack
        if x.dtype.name == "bfloat16":
            return wrap(x.view(self.xp.int16)).view(torch.bfloat16)
        return wrap(x)

    def torch_variant(self, make: Callable[[Any], Callable[[], Any]], per_elem: float) -> list[Variant]:
        """``[Variant("torch", make(torch), per_elem)]`` where torch is the peer, else ``[]``. A case torch cannot
        run (a dtype its DLPack import refuses, say) is left out of that case with a note, not the whole run."""
        if self.torch is None:
            return []
        try:
            fn = make(self.torch)
            fn()
        except Exception as exc:
            print(f"  (torch peer left out of this case: {exc.__class__.__name__}: {exc})")
            return []
        return [Variant(TORCH, fn, per_elem)]

    def copy2(self, src: np.ndarray) -> list[Variant]:
        """The two-thread copy of ``src`` (NumPy backend, from 1 MiB)."""
        if self.xp is not np or src.nbytes < COPY2_MIN_BYTES:
            return []
        dst = self.empty(src.size, src.dtype)
        flat = src.reshape(-1)
        return [Variant(COPY2, lambda: copy_2t(dst, flat), 2 * src.itemsize)]

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
        c3 = self.empty(n, npdt)

        def torch_add(torch: Any) -> Callable[[], Any]:
            ta, tb, tc = self.t(a), self.t(b), self.t(c3)
            return lambda: torch.add(ta, tb, out=tc)

        return Group(
            case,
            npdt.name,
            n,
            (n,),
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), 3 * item, op.cost()),
                Variant(self.baseline, lambda: xp.add(a, b, out=c2), 3 * item),
                *self.torch_variant(torch_add, 3 * item),
                Variant("copy", lambda: xp.copyto(c2, a), 2 * item),
                *self.copy2(a),
                *self.general(op, [a, b], c, 3 * item),
            ],
        )

    def row_bcast(self, n: int, dt: DataType = DataType.FLOAT32) -> Group:
        xp = self.xp
        cols = min(self.cols, n)
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

        def torch_add(torch: Any) -> Callable[[], Any]:
            ta, tb, tc = self.t(a2), self.t(b), self.t(self.empty(n, npdt).reshape(rows, cols))
            return lambda: torch.add(ta, tb, out=tc)

        return Group(
            f"row_bcast_{'f16' if dt is DataType.FLOAT16 else 'f32'}",
            npdt.name,
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), per_elem, op.cost()),
                Variant(self.baseline, lambda: xp.add(a2, b, out=c2), per_elem),
                *self.torch_variant(torch_add, per_elem),
                Variant("copy", lambda: xp.copyto(c_flat, a), 2 * item),
                *self.copy2(a),
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

        def torch_chain(torch: Any) -> Callable[[], Any]:
            ta, tb, tc = self.t(a), self.t(b), self.t(self.empty(n, np.float32))

            def run() -> None:
                torch.add(ta, tb, out=tc)
                tc.relu_()

            return run

        return Group(
            "add1_relu_f32",
            "float32",
            n,
            (n,),
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), 12, op.cost()),
                Variant(self.baseline, chain, 12),
                *self.torch_variant(torch_chain, 12),
                Variant("copy", lambda: xp.copyto(c2, a), 8),
                *self.copy2(a),
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

        def torch_chain(torch: Any) -> Callable[[], Any]:
            ta, tc = self.t(a), self.t(self.empty(n, np.float32))

            def run() -> None:  # in place after the first op: torch's fastest spelling without a temporary
                torch.mul(ta, 0.5, out=tc)
                tc.sub_(1.0)
                tc.exp_()

            return run

        return Group(
            "exp_scalebias_f32",
            "float32",
            n,
            (n,),
            [
                Variant("gpuops", lambda: op.execute([a], [c]), 8, op.cost()),
                Variant(self.baseline, chain, 8),
                *self.torch_variant(torch_chain, 8),
                Variant("copy", lambda: xp.copyto(c2, a), 8),
                *self.copy2(a),
                *self.general(op, [a], c, 8),
            ],
        )

    def col_bcast(self, n: int) -> Group:
        xp = self.xp
        cols = min(self.cols, n)
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

        def torch_add(torch: Any) -> Callable[[], Any]:
            ta, tb, tc = self.t(a2), self.t(b2), self.t(self.empty(n, np.float32).reshape(shape))
            return lambda: torch.add(ta, tb, out=tc)

        return Group(
            "col_bcast_f32",
            "float32",
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), per_elem, op.cost()),
                Variant(self.baseline, lambda: xp.add(a2, b2, out=c2), per_elem),
                *self.torch_variant(torch_add, per_elem),
                Variant("copy", lambda: xp.copyto(c_flat, a), 8),
                *self.copy2(a),
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

        def torch_add(torch: Any) -> Callable[[], Any]:
            ta, tb, tc = self.t(a.reshape(shape)).T, self.t(b2), self.t(self.empty(n, np.float32).reshape(shape))
            return lambda: torch.add(ta, tb, out=tc)

        return Group(
            "transposed_f32",
            "float32",
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute([a, b], [c]), 12, op.cost()),
                Variant(self.baseline, lambda: xp.add(at, b2, out=c2), 12),
                *self.torch_variant(torch_add, 12),
                Variant("copy", lambda: xp.copyto(c_flat, a), 8),
                *self.copy2(a),
                *self.general(op, [a, b], c, 12),
            ],
        )

    def reduction(self, case: str, n: int) -> Group:
        xp = self.xp
        function, how = REDUCE_CASES[case]
        cols = min(self.cols, n)
        n = n // cols * cols
        if how == "middle":
            n = max(n // (cols * MIDDLE), 1) * cols * MIDDLE
        shape, axis = {
            "full": ((n,), 0),
            "inner": ((n // cols, cols), 1),
            "outer": ((n // cols, cols), 0),
            "middle": ((n // (cols * MIDDLE), MIDDLE, cols), 1),
        }[how]
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(shape))
        f32 = DataType.FLOAT32
        arg = function == "ARGMAX"
        out_type = DataType.INT64 if arg else f32
        out_np = out_type.numpy_dtype
        a = self.array(n, np.float32)
        out_n = math.prod(out_shape)
        c, c2 = self.empty(out_n, out_np), self.empty(out_n, out_np)
        copy_dst = self.empty(n, np.float32)
        if arg:
            desc: Any = ArgmaxOperatorDesc(TensorDesc(f32, shape), TensorDesc(out_type, out_shape), axes=(axis,))
        else:
            desc = ReduceOperatorDesc(
                ReduceFunction[function], TensorDesc(f32, shape), TensorDesc(f32, out_shape), axes=(axis,)
            )
        op = self.device.compile_operator(self.device.create_operator(desc))
        a2, c2v = a.reshape(shape), c2.reshape(out_shape)
        ufunc = {"SUM": xp.sum, "MAX": xp.max, "ARGMAX": xp.argmax}[function]

        def torch_reduce(torch: Any) -> Callable[[], Any]:
            ta, tc = self.t(a2), self.t(self.empty(out_n, out_np).reshape(out_shape))
            fn = {"SUM": torch.sum, "MAX": torch.amax, "ARGMAX": torch.argmax}[function]
            return lambda: fn(ta, dim=axis, keepdim=True, out=tc)

        return Group(
            case,
            "float32",
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute([a], [c]), 4, op.cost()),
                Variant(self.baseline, lambda: ufunc(a2, axis=axis, keepdims=True, out=c2v), 4),
                *self.torch_variant(torch_reduce, 4),
                Variant("copy", lambda: xp.copyto(copy_dst, a), 8),
                *self.copy2(a),
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

        def torch_chain(torch: Any) -> Callable[[], Any]:
            tx, ty = self.t(x), self.t(self.empty(n, np.float32))

            def run() -> None:
                torch.mul(tx, 0.5, out=ty)
                ty.add_(1.0)
                ty.relu_()
                ty.mul_(tx)
                ty.add_(tx)

            return run

        return Group(
            "graph_chain4_f32",
            "float32",
            n,
            (n,),
            [
                Variant("gpuops", lambda: fused.execute([x], [y]), 8, fused.cost()),
                Variant(self.baseline, numpy_chain, 40),
                *self.torch_variant(torch_chain, 40),
                Variant(NODES, lambda: nodes.execute([x], [y]), 40, nodes.cost()),
                Variant("copy", lambda: xp.copyto(copy_dst, x), 8),
                *self.copy2(x),
            ],
        )

    def normalize(self, case: str, n: int) -> Group:
        """A row normalization over the last axis of ``[n / 1024, 1024]`` (``NORMALIZE_CASES``: SOFTMAX1,
        LOG_SOFTMAX1, MEAN_VARIANCE_NORMALIZATION1, each a composite: one row-program kernel on CuPy where a row
        fits, else its parts) vs the array library's formula, PyTorch's own kernel (``softmax``, ``log_softmax``,
        ``layer_norm`` without affine) and a copy. Counted: 8 bytes per element (x read once, y written once)."""
        from descriptors import desc_class

        xp = self.xp
        cols = min(self.cols, n)
        n = n // cols * cols
        shape = (n // cols, cols)
        t = TensorDesc(DataType.FLOAT32, shape)
        name = NORMALIZE_CASES[case]
        fields: dict[str, Any] = {"input_tensor": t, "output_tensor": t, "axes": (1,)}
        if name == "MEAN_VARIANCE_NORMALIZATION1":
            fields |= {"scale_tensor": None, "bias_tensor": None, "normalize_variance": True, "epsilon": 1e-5}
        op = self.device.compile_operator(self.device.create_operator(desc_class(name)(**fields)))
        x = self.array(n, np.float32)
        y, y2, copy_dst = self.empty(n, np.float32), self.empty(n, np.float32), self.empty(n, np.float32)
        x2, y2v = x.reshape(shape), y2.reshape(shape)
        ins = [x, None, None] if name == "MEAN_VARIANCE_NORMALIZATION1" else [x]  # no scale, no bias

        def formula() -> None:
            if name == "MEAN_VARIANCE_NORMALIZATION1":
                m = x2.mean(axis=1, keepdims=True)
                xp.subtract(x2, m, out=y2v)
                v = (y2v * y2v).mean(axis=1, keepdims=True)
                xp.divide(y2v, xp.sqrt(v + np.float32(1e-5)), out=y2v)
                return
            m = x2.max(axis=1, keepdims=True)
            xp.subtract(x2, m, out=y2v)
            if name == "ACTIVATION_LOG_SOFTMAX1":
                xp.subtract(y2v, xp.log(xp.exp(y2v).sum(axis=1, keepdims=True)), out=y2v)
                return
            xp.exp(y2v, out=y2v)
            xp.divide(y2v, y2v.sum(axis=1, keepdims=True), out=y2v)

        def torch_normalize(torch: Any) -> Callable[[], Any]:
            tx = self.t(x2)
            if name == "MEAN_VARIANCE_NORMALIZATION1":
                return lambda: torch.nn.functional.layer_norm(tx, (cols,), eps=1e-5)
            fn = torch.softmax if name == "ACTIVATION_SOFTMAX1" else torch.log_softmax
            return lambda: fn(tx, dim=1)  # no out= in torch's API: its allocation is included

        return Group(
            case,
            "float32",
            n,
            shape,
            [
                Variant("gpuops", lambda: op.execute(ins, [y]), 8, op.cost()),
                Variant(self.baseline, formula, 8),
                *self.torch_variant(torch_normalize, 8),
                Variant("copy", lambda: xp.copyto(copy_dst, x), 8),
                *self.copy2(x),
            ],
        )

    def overhead(self) -> Group:
        g = self.binary("overhead_f32", OVERHEAD_N, DataType.FLOAT32)
        g.variants = [v for v in g.variants if v.name != "copy"]
        t = TensorDesc(DataType.FLOAT32, (OVERHEAD_N,))
        op = self.compiled(t, t, t)
        a, b = self.array(OVERHEAD_N, np.float32), self.array(OVERHEAD_N, np.float32)
        g.variants.append(Variant(CALL, lambda: op(a, b), 12))  # the convenience call: allocates its output
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
            if v.cost is not None:  # the CuPy kernels' launches and bytes (gpuops.cost), whatever the backend
                rows[-1].update(
                    launches=v.cost.launches,
                    moved_bytes_per_elem=v.cost.bytes_moved / g.n,
                    # time at equal bandwidth over the fewest passes' time: what the bytes alone predict
                    predicted_ratio=v.cost.bytes_moved / (v.bytes_per_elem * g.n),
                )
        base = next(r for r in rows if r["variant"] == self.baseline)
        copy = next((r for r in rows if r["variant"] == "copy"), None)
        copy2 = next((r for r in rows if r["variant"] == COPY2), None)
        torch_row = next((r for r in rows if r["variant"] == TORCH), None)
        for r in rows:
            r["ratio_to_baseline"] = r["median_us"] / base["median_us"]
            r["bw_vs_copy"] = r["GB_s"] / copy["GB_s"] if copy else None
            if copy2:
                r["bw_vs_copy_2t"] = r["GB_s"] / copy2["GB_s"]
            if torch_row:
                r["ratio_to_torch"] = r["median_us"] / torch_row["median_us"]
        return rows


def _chain4(t: TensorDesc) -> GraphDesc:
    """relu(x * 0.5 + 1) * x + x: IDENTITY (ScaleBias 0.5, 1) -> RELU -> MULTIPLY by x -> ADD x."""
    b = gpuops.GraphBuilder()
    x = b.input(t)
    return b.build([b.relu(b.identity(x, scale_bias=ScaleBias(0.5, 1.0))) * x + x])


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
