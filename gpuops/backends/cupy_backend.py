"""The CuPy backend: each generated ``KernelSpec`` becomes one ``cupy.ElementwiseKernel``.

Kernel objects are built once per (operator, data types, ScaleBias) and kept (cupy#3193:
rebuilding per call reloads the module). CuPy compiles on first launch and caches on disk.
A raw ElementwiseKernel does not copy overlapping inputs (unlike a CuPy ufunc), which is
fine here: ``binding.check_bindings`` only lets an output share an input's buffer when both
tensors have identical layouts, so every element is read before it is written by the same
thread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from descriptors import TensorDesc

from .. import config, kernels
from ..codegen import KernelSpec
from ..codegen_reduce import ReductionSpec
from ..launch_plan import FastPlan
from ..reduce_plan import Layout, TwoPassPlan
from .array_module import array_module

if TYPE_CHECKING:
    from ..lowering import Lowering

__all__ = ["CupyBackend", "CupyKernel", "CupyReduceKernel", "is_usable", "may_overlap", "pointer", "view_maker"]


def is_usable() -> bool:
    try:
        import cupy

        return bool(cupy.is_available())
    except Exception:
        return False


def pointer(buf: Any) -> int:
    return int(buf.data.ptr)


def may_overlap(a: Any, b: Any) -> bool:
    """Whether two C-contiguous buffers' byte ranges intersect."""
    lo_a, lo_b = a.data.ptr, b.data.ptr
    return bool(lo_a < lo_b + b.nbytes and lo_b < lo_a + a.nbytes)


def view_maker(tensor: TensorDesc, flat: bool = False, xp: ModuleType | None = None) -> Callable[[Any], Any]:
    """A function giving the tensor's view of a bound buffer (sizes and element strides).

    ``flat=True``: the first ``element_count`` elements, 1-D (all tensors packed alike). ``xp``: the
    array module (``cupy``, the default, or the emulator's; see ``array_module``).
    """
    cupy = xp if xp is not None else array_module("cupy")
    sizes = tensor.sizes
    if flat:
        count = tensor.element_count
        return lambda buf: buf if buf.ndim == 1 and buf.shape[0] == count else buf.reshape(-1)[:count]
    if tensor.is_packed:
        count = tensor.element_count
        return lambda buf: buf.reshape(-1)[:count].reshape(sizes)
    byte_strides = tuple(s * tensor.data_type.itemsize for s in tensor.element_strides)
    return lambda buf: cupy.ndarray(sizes, dtype=buf.dtype, memptr=buf.data, strides=byte_strides)


class CupyKernel:
    """A built ``xp.ElementwiseKernel`` for one spec (``xp``: ``cupy`` unless given)."""

    def __init__(self, spec: KernelSpec, xp: ModuleType | None = None) -> None:
        cupy = xp if xp is not None else array_module("cupy")
        self.spec = spec
        self.kernel = cupy.ElementwiseKernel(
            spec.in_params, spec.out_params, spec.operation, spec.name, preamble=spec.preamble
        )

    def prepare(self, scalars: Mapping[str, Any]) -> tuple[Any, ...]:
        """The scalar arguments in the kernel's order, worked out once per compiled operator."""
        return tuple(scalars[n] for n in self.spec.scalar_params)

    def run(self, ins: Sequence[Any], out: Any, prepared: tuple[Any, ...], aliased: bool) -> None:
        self.kernel(*ins, *prepared, out)


def _view(buf: Any, layout: Layout, itemsize: int, xp: ModuleType) -> Any:
    """A view of ``buf`` with a layout's sizes, element strides and element offset."""
    return xp.ndarray(
        layout.sizes,
        dtype=buf.dtype,
        memptr=buf.data + layout.offset * itemsize,
        strides=tuple(s * itemsize for s in layout.strides),
    )


class CupyReduceKernel:
    """The ``cupy.ReductionKernel`` objects of one reduction: one-pass, pass 1 and pass 2.

    Which path runs is decided per compiled operator by :func:`gpuops.reduce_plan.plan_two_pass`
    (few outputs and a long reduction: two passes; otherwise one). Both take the scalar
    ``gpuops_n``, so CuPy runs its plain template, never the CUB path (see codegen_reduce).
    """

    def __init__(
        self, spec: ReductionSpec, passes: tuple[ReductionSpec, ReductionSpec], xp: ModuleType | None = None
    ) -> None:
        cupy = self.xp = xp if xp is not None else array_module("cupy")

        def build(s: ReductionSpec) -> Any:
            return cupy.ReductionKernel(
                s.in_params,
                s.out_params,
                s.map_expr,
                s.reduce_expr,
                s.post_map_expr,
                s.identity,
                s.name,
                reduce_type=s.reduce_type,
                preamble=s.preamble,
            )

        self.spec = spec
        self.one = build(spec)
        self.pass1, self.pass2 = (build(s) for s in passes)
        self.partials = tuple(dt.numpy_dtype for _, dt in passes[0].outputs)

    def reduce(self, x: Any, out: Any, axes: tuple[int, ...], n: int, plan: TwoPassPlan | None) -> None:
        cupy = self.xp
        count = np.int64(n)
        if plan is None:
            self.one(x, count, out, axis=axes, keepdims=True)
            return
        itemsize = x.dtype.itemsize  # x starts at the bound buffer's first element: offsets count from it
        main = _view(x, plan.main, itemsize, cupy)
        parts = [cupy.empty(plan.partial_sizes, dtype=d) for d in self.partials]
        r = plan.axis
        head = (slice(None),) * r
        main_out = [cupy.expand_dims(p[head + (slice(0, plan.parts),)], r + 1) for p in parts]
        self.pass1(main, count, *main_out, axis=plan.main.axes, keepdims=True)
        if plan.rest is not None:
            rest = _view(x, plan.rest, itemsize, cupy)
            rest_out = [p[head + (slice(plan.parts, plan.parts + 1),)] for p in parts]
            self.pass1(rest, count, *rest_out, axis=plan.rest.axes, keepdims=True)
        # The output seen in the simplified layout: same memory, size-1 dimensions dropped.
        final = cupy.ndarray(
            plan.input.out_sizes,
            dtype=out.dtype,
            memptr=out.data,
            strides=tuple(out.strides[d] for d in plan.input.dims),
        )
        self.pass2(*parts, count, np.int64(plan.span), final, axis=(r,), keepdims=True)


# ----------------------------------------------------------------------------------------------
# The backend protocol (gpuops.backends.base): a Lowering compiled into a kernel that runs it.


class _FastRun:
    """gpuops' flat or rows ``RawKernel``: it takes the bound buffers as they are (``launch_plan``)."""

    def __init__(self, kernel: Any, lowering: Lowering, plan: FastPlan) -> None:
        self.kernel = kernel
        self.plan = plan
        self.launch_path = plan.kind
        self.prepared = kernel.prepare(lowering.scalars)
        self.positions = tuple(k for k, _ in lowering.inputs)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        self.kernel.run([inputs[k] for k in self.positions], outputs[0], self.prepared, self.plan)


class _ElementwiseRun:
    """CuPy's ``ElementwiseKernel`` over views with the tensors' sizes and strides."""

    launch_path = "elementwise"

    def __init__(self, kernel: CupyKernel, lowering: Lowering, xp: ModuleType) -> None:
        self.kernel = kernel
        self.prepared = kernel.prepare(lowering.scalars)
        self.in_views = tuple((k, view_maker(t, lowering.flat, xp=xp)) for k, t in lowering.inputs)
        self.out_view = view_maker(lowering.output, lowering.flat, xp=xp)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        ins = [make(inputs[k]) for k, make in self.in_views]
        self.kernel.run(ins, self.out_view(outputs[0]), self.prepared, aliased)


class _ReduceRun:
    """CuPy's ``ReductionKernel``: one launch, or two passes where ``reduce_plan`` planned them."""

    def __init__(self, kernel: CupyReduceKernel, lowering: Lowering, xp: ModuleType) -> None:
        self.kernel = kernel
        ((self.position, tensor),) = lowering.inputs
        self.in_view = view_maker(tensor, xp=xp)
        self.out_view = view_maker(lowering.output, xp=xp)
        self.axes, self.count, self.two_pass = lowering.axes, lowering.count, lowering.two_pass
        self.launch_path = "two-pass reduction" if self.two_pass is not None else "reduction"

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        x = self.in_view(inputs[self.position])
        self.kernel.reduce(x, self.out_view(outputs[0]), self.axes, self.count, self.two_pass)


class CupyBackend:
    """The GPU backend: gpuops' flat/rows ``RawKernel`` where the layout allows (unless
    ``GPUOPS_CUPY_FAST=0``), else CuPy's ``ElementwiseKernel``; ``ReductionKernel`` for reductions.
    ``xp`` is the array module these run on (``array_module``): ``cupy``, or the CUDA emulator's."""

    name = "cupy"
    binds_host_memory = False

    def __init__(self, xp: ModuleType | None = None) -> None:
        self.xp = xp if xp is not None else array_module("cupy")
        self.array_type: type = self.xp.ndarray

    @staticmethod
    def unavailable_reason() -> str | None:
        if is_usable():
            return None
        return "it needs CuPy and a usable CUDA device (pip install -e .[cuda12] or .[cuda13])"

    def compile(self, lowering: Lowering) -> Any:
        xp = self.xp
        key = (self.name, *lowering.key)
        if lowering.is_reduction:
            spec, passes = lowering.reduction_spec, lowering.two_pass_specs
            kernel = kernels.get_or_build(key, lambda: CupyReduceKernel(spec, passes, xp), lambda: spec.source)
            return _ReduceRun(kernel, lowering, xp)
        spec_e = lowering.elementwise_spec
        plan = lowering.layout if config.settings().cupy_fast else None
        if plan is not None:
            from .cupy_fast import CupyFastKernel

            kind = plan.kind
            fast = kernels.get_or_build((*key, kind), lambda: CupyFastKernel(spec_e, kind, xp=xp))
            return _FastRun(fast, lowering, plan)
        ew = kernels.get_or_build(key, lambda: CupyKernel(spec_e, xp), lambda: spec_e.source)
        return _ElementwiseRun(ew, lowering, xp)

    pointer = staticmethod(pointer)
    may_overlap = staticmethod(may_overlap)

    @staticmethod
    def unwrap(buffers: Sequence[Any]) -> Sequence[Any]:
        return buffers

    def adopt(self, x: object, what: str) -> Any:
        """``x`` as a CuPy array: CuPy arrays as they are, other GPU arrays through
        ``__cuda_array_interface__`` or DLPack; a host array is refused (no silent host-to-device copy)."""
        xp = self.xp
        if isinstance(x, xp.ndarray):
            return x
        if hasattr(x, "__cuda_array_interface__"):
            return xp.asarray(x)
        if hasattr(x, "__dlpack__") and not isinstance(x, np.ndarray):
            return xp.from_dlpack(x)
        raise TypeError(
            f"{what} is a host array ({type(x).__module__}.{type(x).__name__}) but the device is on the CuPy "
            "backend: pass a CuPy array (cupy.asarray(x)) or a GPU tensor"
        )

    def to_device(self, x: Any) -> Any:
        return self.xp.asarray(x)

    def to_host(self, x: Any) -> Any:
        return self.xp.asnumpy(x)

    def describe(self) -> str:
        xp = self.xp
        try:
            dev = xp.cuda.Device()
            name = xp.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()
            return f"CuPy {xp.__version__} on GPU {dev.id} ({name})"
        except Exception as exc:  # pragma: no cover - needs a GPU
            return f"CuPy {xp.__version__} ({type(exc).__name__}: {exc})"
