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
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from descriptors import TensorDesc

from .. import config, kernels
from ..codegen import KernelSpec
from ..codegen.reduce import ReductionSpec
from ..codegen.scan import ScanSpec, line_order
from ..layout.reduce_plan import Layout, TwoPassPlan
from ..lowering import RowKind
from .array_module import array_module
from .base import Execute, FastPaths
from .runs import ElementwiseRun, ReduceRun

if TYPE_CHECKING:
    from ..binding import BindingPlan
    from ..lowering import FusedLowering, Lowering
    from ..row_program import RowProgram

__all__ = [
    "CupyBackend",
    "CupyKernel",
    "CupyReduceKernel",
    "CupyScanKernel",
    "is_usable",
    "line_view_maker",
    "may_overlap",
    "pointer",
    "view_maker",
]


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
        extra = {"options": spec.options} if spec.options else {}
        self.kernel = cupy.ElementwiseKernel(
            spec.in_params, spec.out_params, spec.operation, spec.name, preamble=spec.preamble, **extra
        )

    def prepare(self, scalars: Mapping[str, Any]) -> tuple[Any, ...]:
        """The scalar arguments in the kernel's order, worked out once per compiled operator."""
        return tuple(scalars[n] for n in self.spec.scalar_params)

    def run(self, ins: Sequence[Any], out: Any, prepared: tuple[Any, ...], aliased: bool) -> None:
        self.kernel(*ins, *prepared, out)


def line_view_maker(tensor: TensorDesc, axis: int, xp: ModuleType) -> Callable[[Any], Any]:
    """A scan's view of a bound buffer: the tensor's dimensions ordered (other dimensions..., ``axis``)
    (``codegen.scan.line_order``), each with its own stride, so element k of line i is logical index i*n + k."""
    order = line_order(len(tensor.sizes), axis)
    sizes = tuple(tensor.sizes[d] for d in order)
    item = tensor.data_type.itemsize
    strides = tuple(tensor.element_strides[d] * item for d in order)
    return lambda buf: xp.ndarray(sizes, dtype=buf.dtype, memptr=buf.data, strides=strides)


class CupyScanKernel:
    """A scan's ``xp.ElementwiseKernel`` (``codegen.scan``): raw arrays, launched with ``size=`` lines."""

    def __init__(self, spec: ScanSpec, xp: ModuleType) -> None:
        self.spec = spec
        self.kernel = xp.ElementwiseKernel(spec.in_params, spec.out_params, spec.operation, spec.name)


class _ScanRun:
    """One scan operator: line views of its input and output, its three scalar arguments, one launch."""

    launch_path = "scan"

    def __init__(self, kernel: CupyScanKernel, lowering: Lowering, xp: ModuleType) -> None:
        self.kernel = kernel
        self.source = kernel.spec.source
        ((self.position, tensor),) = lowering.inputs
        (axis,) = lowering.axes
        self.in_view = line_view_maker(tensor, axis, xp)
        self.out_view = line_view_maker(lowering.output, axis, xp)
        self.args = lowering.scan_args
        self.lines = lowering.output.element_count // max(lowering.count, 1)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        x = self.in_view(inputs[self.position])
        self.kernel.kernel(x, *self.args, self.out_view(outputs[0]), size=self.lines)


def _view(buf: Any, layout: Layout, itemsize: int, xp: ModuleType) -> Any:
    """A view of ``buf`` with a layout's sizes, element strides and element offset."""
    return xp.ndarray(
        layout.sizes,
        dtype=buf.dtype,
        memptr=buf.data + layout.offset * itemsize,
        strides=tuple(s * itemsize for s in layout.strides),
    )


def reduction_kernel(xp: ModuleType, spec: ReductionSpec, options: tuple[str, ...] = ()) -> Any:
    """``xp.ReductionKernel`` of a spec (``options``: extra NVRTC options)."""
    extra = {"options": options} if options else {}
    return xp.ReductionKernel(
        spec.in_params,
        spec.out_params,
        spec.map_expr,
        spec.reduce_expr,
        spec.post_map_expr,
        spec.identity,
        spec.name,
        reduce_type=spec.reduce_type,
        preamble=spec.preamble,
        **extra,
    )


class CupyReduceKernel:
    """The ``cupy.ReductionKernel`` objects of one reduction: one-pass, pass 1 and pass 2.

    Which path runs is decided per compiled operator by :func:`gpuops.layout.reduce_plan.plan_two_pass`
    (few outputs and a long reduction: two passes; otherwise one). Both take the scalar
    ``gpuops_n``, so CuPy runs its plain template, never the CUB path (see codegen.reduce).
    """

    def __init__(
        self, spec: ReductionSpec, passes: tuple[ReductionSpec, ReductionSpec], xp: ModuleType | None = None
    ) -> None:
        cupy = self.xp = xp if xp is not None else array_module("cupy")

        self.spec = spec
        self.one = reduction_kernel(cupy, spec)
        self.pass1, self.pass2 = (reduction_kernel(cupy, s) for s in passes)
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


class _MultiRun:
    """A fused graph kernel writing several values: CuPy's ``ElementwiseKernel`` with one view per tensor."""

    launch_path = "elementwise"

    def __init__(self, kernel: CupyKernel, fused: FusedLowering, xp: ModuleType) -> None:
        self.kernel = kernel
        self.prepared = kernel.prepare(fused.scalars)
        self.in_views = tuple(view_maker(t, xp=xp) for _, t in fused.inputs)
        self.out_views = tuple(view_maker(t, xp=xp) for t in fused.outputs)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        ins = [make(b) for make, b in zip(self.in_views, inputs, strict=True)]
        outs = [make(b) for make, b in zip(self.out_views, outputs, strict=True)]
        self.kernel.kernel(*ins, *self.prepared, *outs)


class _FusedReduceRun:
    """A reduction with its prologue and epilogue in one ``ReductionKernel``: views of the kernel's inputs (the
    reduction input's sizes, their own strides), the fused nodes' scalars, the element count; one launch."""

    launch_path = "reduction"
    kernel_count = 1

    def __init__(
        self,
        kernel: Any,
        spec: ReductionSpec,
        prologue: FusedLowering | None,
        reduce: Lowering,
        epilogue: FusedLowering | None,
        views: Callable[..., Any],
    ) -> None:
        from ..codegen.graph import fused_scalars

        self.kernel = kernel
        self.source = spec.source
        ins = prologue.inputs if prologue is not None else reduce.inputs
        self.in_views = tuple(views(t, False) for _, t in ins)
        self.out_view = views(epilogue.output if epilogue is not None else reduce.output, False)
        values = {**(prologue.scalars if prologue is not None else {})}
        values |= fused_scalars(epilogue.nodes, "e") if epilogue is not None else {}
        self.prepared = tuple(values[n] for n, _ in spec.scalar_params[:-1])  # the count comes last
        self.count = np.int64(reduce.count)
        self.axes = reduce.axes

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        ins = [make(b) for make, b in zip(self.in_views, inputs, strict=True)]
        self.kernel(*ins, *self.prepared, self.count, self.out_view(outputs[0]), axis=self.axes, keepdims=True)


class CupyBackend:
    """The GPU backend: gpuops' flat/rows ``RawKernel`` where the layout allows (unless
    ``GPUOPS_CUPY_FAST=0``), else CuPy's ``ElementwiseKernel``; ``ReductionKernel`` for reductions; a scan's
    ``ElementwiseKernel`` over lines (``codegen.scan``).
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
        """The kernel of ``lowering``, built by its row kind's builder (:attr:`COMPILE`)."""
        return self.COMPILE[lowering.kind](self, lowering)

    def _compile_reduction(self, lowering: Lowering) -> Any:
        """gpuops' rows kernel where the reduced elements are one contiguous span per output (``reduce_plan.plan_rows``;
        with ``GPUOPS_CUPY_ROWS_REDUCE=1``), else one ``ReductionKernel`` (two launches where ``reduce_plan`` splits
        a long reduction)."""
        xp, key = self.xp, (self.name, *lowering.key)
        spec = lowering.reduction_spec
        own = config.settings().own_reductions
        rows, columns = (lowering.rows, lowering.columns) if own else (None, None)
        if rows is not None and rows.parts > 1:  # a few long rows, each in parts: one launch
            from .cupy_rows_reduce import CupySplitRowsKernel, SplitRowsReduceRun

            built = kernels.get_or_build((*key, "split rows"), lambda: CupySplitRowsKernel(spec, xp))
            ((position, _),) = lowering.inputs
            return SplitRowsReduceRun(built, position, lowering.count, rows, xp)
        if rows is not None:  # one contiguous span per output: gpuops' rows kernel
            from .cupy_rows_reduce import CupyRowsReduceKernel, RowsReduceRun

            t = rows.threads
            built = kernels.get_or_build((*key, "rows", t), lambda: CupyRowsReduceKernel(spec, t, xp))
            ((position, _),) = lowering.inputs
            return RowsReduceRun(built, position, lowering.count, rows)
        if columns is not None:  # an outer or a middle axis: gpuops' columns kernel
            from .cupy_rows_reduce import ColumnsReduceRun, CupyColumnsReduceKernel

            c, split = columns.columns, columns.parts > 1
            built = kernels.get_or_build(
                (*key, "columns", c, split), lambda: CupyColumnsReduceKernel(spec, c, xp, split)
            )
            ((position, _),) = lowering.inputs
            return ColumnsReduceRun(built, position, lowering.count, columns, xp)
        passes = lowering.two_pass_specs
        kernel = kernels.get_or_build(key, lambda: CupyReduceKernel(spec, passes, xp), lambda: spec.source)
        two_pass = lowering.two_pass
        path = "two-pass reduction" if two_pass is not None else "reduction"
        return ReduceRun(kernel, lowering, path, self._views, two_pass)

    def _compile_scan(self, lowering: Lowering) -> Any:
        """The scan's ``ElementwiseKernel`` over lines (``codegen.scan``)."""
        xp, key, scan = self.xp, (self.name, *lowering.key), lowering.scan_spec
        built = kernels.get_or_build(key, lambda: CupyScanKernel(scan, xp), lambda: scan.source)
        return _ScanRun(built, lowering, xp)

    def _compile_elementwise(self, lowering: Lowering) -> Any:
        return self._elementwise(lowering)

    #: ``compile``'s builder per row kind: ``builder(backend, lowering)``, the kernel.
    COMPILE: ClassVar[Mapping[RowKind, Callable[[CupyBackend, Lowering], Any]]] = {
        RowKind.ELEMENTWISE: _compile_elementwise,
        RowKind.REDUCTION: _compile_reduction,
        RowKind.SCAN: _compile_scan,
    }

    def compile_fused(self, fused: FusedLowering) -> Any:
        """One kernel for a fused group of graph nodes: flat/rows when it writes one value and the layout
        allows, else CuPy's ``ElementwiseKernel`` (any number of outputs)."""
        if len(fused.outputs) == 1:
            return self._elementwise(fused)
        xp, spec = self.xp, fused.spec
        ew = kernels.get_or_build((self.name, *fused.key), lambda: CupyKernel(spec, xp), lambda: spec.source)
        return _MultiRun(ew, fused, xp)

    def compile_fused_reduce(
        self, prologue: FusedLowering | None, reduce: Lowering, epilogue: FusedLowering | None = None
    ) -> Any:
        """One kernel whose map expression calls the prologue and whose post-map calls the epilogue
        (``codegen.graph``): the rows kernel where the reduction run alone would take it (``Lowering.rows``, so the
        fused graph sums in the same order as its nodes run one by one), else a ``ReductionKernel``."""
        from ..codegen.graph import FMAD_OFF, fused_reduction_spec

        xp = self.xp
        spec = fused_reduction_spec(
            prologue.step if prologue is not None else None,
            prologue.nodes if prologue is not None else (),
            reduce,
            epilogue.step if epilogue is not None else None,
            epilogue.nodes if epilogue is not None else (),
        )
        if config.settings().own_reductions and (reduce.rows or reduce.columns) is not None:
            from .cupy_rows_reduce import fused_run

            return fused_run(spec, prologue, reduce, epilogue, (self.name, self._views, xp))
        texts = (spec.name, spec.in_params, spec.out_params, spec.map_expr, spec.post_map_expr, spec.preamble)
        key = (self.name, "fused-reduce", *texts)

        def build() -> Any:
            return reduction_kernel(xp, spec, FMAD_OFF)

        kernel = kernels.get_or_build(key, build, lambda: spec.source)
        return _FusedReduceRun(kernel, spec, prologue, reduce, epilogue, self._views)

    def compile_row_program(self, program: RowProgram) -> Any:
        """One ``RawKernel`` for a composite's parts (``gpuops.row_program``, issue 33): its input read once, its
        output written once (``codegen.row_program``)."""
        from .cupy_row_program import CupyRowProgramKernel, RowProgramRun

        xp, spec = self.xp, program.spec
        key = (self.name, "row program", spec.name, spec.source)
        built = kernels.get_or_build(key, lambda: CupyRowProgramKernel(spec, xp), lambda: spec.source)
        return RowProgramRun(built, program)

    def _elementwise(self, lowering: Lowering | FusedLowering) -> Any:
        """gpuops' flat/rows ``RawKernel`` where ``launch_plan`` plans one (unless ``GPUOPS_CUPY_FAST=0``),
        else CuPy's ``ElementwiseKernel`` over views."""
        xp, spec = self.xp, lowering.elementwise_spec
        key = (self.name, *lowering.key)
        plan = lowering.layout if config.settings().cupy_fast else None
        if plan is not None:
            from .cupy_fast import CupyFastKernel, FastRun

            kind = plan.kind
            fast = kernels.get_or_build((*key, kind), lambda: CupyFastKernel(spec, kind, xp=xp))
            return FastRun(fast, lowering, kind, plan)
        ew = kernels.get_or_build(key, lambda: CupyKernel(spec, xp), lambda: spec.source)
        return ElementwiseRun(ew, lowering, "elementwise", self._views)

    def _views(self, tensor: TensorDesc, flat: bool) -> Callable[[Any], Any]:
        return view_maker(tensor, flat, xp=self.xp)

    pointer = staticmethod(pointer)
    may_overlap = staticmethod(may_overlap)

    @staticmethod
    def fast_paths(kernel: Any, lowering: Lowering, binding: BindingPlan, general: Execute) -> FastPaths | None:
        """``execute`` stays ``general`` (the plan's predicate, ``binding.FastCheck``, the rules the NumPy backend's
        fast paths bind through, then the launch); the convenience call gets ``cupy_fast.fast_call`` where the
        buffers may be exact (else None: no fast path, as without a binding plan)."""
        if binding is None:
            return None
        from .cupy_fast import fast_call

        call = fast_call(kernel, binding)
        return None if call is None else FastPaths(general, call)

    def unwrap(self, buffers: Sequence[Any]) -> Sequence[Any]:
        """GPU tensors of other libraries (``__cuda_array_interface__``, DLPack: torch, JAX) as CuPy arrays over
        the same memory; the rest as given (binding then says what is wrong)."""
        nd = self.array_type
        if not isinstance(buffers, (list, tuple)):
            return buffers
        for b in buffers:  # a loop, not all() over a generator: the common call has nothing to convert
            if type(b) is not nd:
                break
        else:
            return buffers
        return type(buffers)(self._foreign(b, f"the buffer at position {k}") for k, b in enumerate(buffers))

    def _foreign(self, b: Any, what: str) -> Any:
        if b is None or isinstance(b, self.array_type):
            return b
        if getattr(b, "requires_grad", False):
            raise TypeError("a bound tensor requires grad; gpuops computes no gradients: pass x.detach()")
        if hasattr(b, "__cuda_array_interface__"):
            return self.xp.asarray(b)
        if hasattr(b, "__dlpack__") and not isinstance(b, np.ndarray) and hasattr(self.xp, "from_dlpack"):
            return self._from_dlpack(b, what)
        return b  # binding says what is wrong with it (the emulator imports no DLPack: no foreign GPU memory)

    def _from_dlpack(self, x: Any, what: str) -> Any:
        """``xp.from_dlpack(x)``; any failure of the exporter (``__dlpack__`` or ``__dlpack_device__`` raising,
        returning None or something that is not a DLPack capsule, a host tensor) is a ``TypeError`` naming
        ``what``."""
        try:
            return self.xp.from_dlpack(x)
        except Exception as exc:  # the exporter is foreign code: any failure of it is the argument's
            raise TypeError(
                f"{what} ({type(x).__module__}.{type(x).__name__}) cannot be read through DLPack "
                f"({type(exc).__name__}: {exc}); pass a CuPy array, or a GPU tensor whose __dlpack__() returns a "
                "DLPack capsule"
            ) from exc

    def adopt(self, x: object, what: str) -> Any:
        """``x`` as a CuPy array: CuPy arrays as they are, other GPU arrays through
        ``__cuda_array_interface__`` or DLPack; a host array is refused (no silent host-to-device copy)."""
        xp = self.xp
        if isinstance(x, xp.ndarray):
            return x
        if hasattr(x, "__cuda_array_interface__"):
            return xp.asarray(x)
        if hasattr(x, "__dlpack__") and not isinstance(x, np.ndarray):
            return self._from_dlpack(x, what)
        raise TypeError(
            f"{what} is a host array ({type(x).__module__}.{type(x).__name__}) but the device is on the CuPy "
            "backend: pass a CuPy array (cupy.asarray(x)) or a GPU tensor"
        )

    def view(self, tensor: TensorDesc, buf: Any) -> Any:
        return view_maker(tensor, xp=self.xp)(buf)

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
