"""``Device``: DirectML's device, operator and compiled-operator model over NumPy or CuPy.

Pipeline as in DirectML (shared/reference/directml.md section 8): ``create_operator``
validates the descriptor at the device's feature level (``IDMLDevice::CreateOperator``),
``compile_operator`` lowers it to a kernel (``CompileOperator``), and
``CompiledOperator.execute`` binds buffers and runs it (binding table + dispatch in one).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from descriptors import (
    DataType,
    DescriptorError,
    ExecutionFlags,
    FeatureLevel,
    OperatorDesc,
    OperatorSupport,
    OperatorType,
    TensorDesc,
    TensorFlags,
    operator_support,
    validate,
)
from descriptors.float_range import show_number
from descriptors.schema import FieldKind, OpRow

from . import config, kernels
from .backends.array_module import GPU_BACKENDS, array_module
from .binding import BindingPlan
from .codegen import BIAS, FUSED_PREFIX, SCALE, KernelSpec, elementwise_kernel_spec
from .codegen_numba import loop_spec
from .codegen_reduce import ReductionSpec, reduction_kernel_spec, two_pass_specs
from .errors import BindingError, UnsupportedError
from .launch_plan import FastPlan, plan_tensors
from .reduce_plan import plan_two_pass

__all__ = ["BACKEND_FEATURE_LEVEL", "CompiledOperator", "Device", "Operator"]

#: The highest level every backend implements: every operator of the table, every tier.
BACKEND_FEATURE_LEVEL = FeatureLevel.FL_6_4
#: ``"emulator"``: the CuPy backend's code path with kernels compiled by the host C++ compiler (gpuops.emulator).
BACKENDS = ("numpy", "cupy", "emulator")


def _cupy_usable() -> bool:
    from .backends.cupy_backend import is_usable

    return is_usable()


def _emulator_unusable() -> str | None:
    from .emulator.runtime import unavailable_reason

    return unavailable_reason()


def _unwrap_emulator_arrays(bufs: Any) -> Any:
    """Emulator arrays bound to an ``"emulator"`` device, as the NumPy views of their memory (lists stay lists)."""
    from .emulator.memory import ndarray

    if isinstance(bufs, (list, tuple)) and any(type(b) is ndarray for b in bufs):
        return type(bufs)(b._arr if type(b) is ndarray else b for b in bufs)
    return bufs


class Device:
    """A device on the ``"numpy"``, ``"cupy"`` or ``"emulator"`` backend at one DirectML feature level.

    ``backend="auto"`` picks ``"cupy"`` when a CUDA device is usable, else ``"numpy"``. ``"emulator"``
    runs the CuPy backend's own code path and kernels on the CPU (``gpuops.emulator``) over NumPy buffers.
    ``min_feature_level`` works like ``DMLCreateDevice1``'s (``UnsupportedError`` when the
    backend cannot provide it); ``max_feature_level`` caps the device, to check an
    application against an older DirectML. ``extensions=False`` holds the device to
    DirectML's own tables (no BFLOAT16, BOOL, FLOAT64 arithmetic, extension operators).
    """

    def __init__(
        self,
        backend: str = "auto",
        min_feature_level: FeatureLevel | str | None = None,
        max_feature_level: FeatureLevel | str | None = None,
        *,
        extensions: bool = True,
    ) -> None:
        if not isinstance(backend, str):
            raise TypeError(
                f"Device: backend must be 'auto', 'numpy', 'cupy' or 'emulator' (got {type(backend).__name__})"
            )
        if not isinstance(extensions, bool):
            raise TypeError(f"Device: extensions must be True or False (got {extensions!r})")
        if backend == "auto":
            backend = "cupy" if _cupy_usable() else "numpy"
        if backend not in BACKENDS:
            raise DescriptorError(
                f"Device: backend must be 'auto', 'numpy', 'cupy' or 'emulator' (got {backend!r})", "backend"
            )
        if backend == "cupy" and not _cupy_usable():
            raise UnsupportedError(
                "Device: backend 'cupy' needs CuPy and a usable CUDA device (pip install -e .[cuda12] or .[cuda13])"
            )
        if backend == "emulator":
            why = _emulator_unusable()
            if why is not None:
                raise UnsupportedError(f"Device: backend 'emulator' is not usable here: {why}")
        level = BACKEND_FEATURE_LEVEL
        if max_feature_level is not None:
            level = min(level, FeatureLevel.parse(max_feature_level, "Device: max_feature_level"))
        if min_feature_level is not None:
            wanted = FeatureLevel.parse(min_feature_level, "Device: min_feature_level")
            if wanted > level:
                raise UnsupportedError(
                    f"Device: minimum feature level {wanted.name} is not supported; this device provides "
                    f"{level.name} (DXGI_ERROR_UNSUPPORTED)"
                )
        self.backend: str = backend
        self.feature_level: FeatureLevel = level
        self.extensions = extensions
        from .backends import numpy_backend

        if backend in GPU_BACKENDS:
            from .backends import cupy_backend as impl
        else:
            impl = numpy_backend  # type: ignore[assignment]
        self._impl = impl
        # The array/kernel module of the GPU code path: cupy, or the emulator's stand-in for it.
        self._xp = array_module(backend) if backend in GPU_BACKENDS else None
        import numpy

        # What execute() binds: CuPy arrays on "cupy"; NumPy arrays on "numpy" and "emulator" (which also
        # takes its own arrays, bound through the NumPy views of their memory).
        self._array_type: type = numpy.ndarray
        self._pointer, self._may_overlap = numpy_backend.pointer, numpy_backend.may_overlap
        if backend == "cupy":
            self._array_type = self._xp.ndarray  # type: ignore[union-attr]
            self._pointer, self._may_overlap = impl.pointer, impl.may_overlap

    def _view_maker(self, tensor: TensorDesc, flat: bool) -> Any:
        if self._xp is None:
            return self._impl.view_maker(tensor, flat)
        return self._impl.view_maker(tensor, flat, xp=self._xp)

    def __repr__(self) -> str:
        return f"Device(backend={self.backend!r}, feature_level={self.feature_level.name})"

    def supports_data_type(self, data_type: DataType) -> bool:
        """``DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT``: can tensors of this type be used at all."""
        if isinstance(data_type, bool) or not isinstance(data_type, (int, DataType)):
            raise TypeError(f"supports_data_type: expected a DataType (got {type(data_type).__name__} {data_type!r})")
        try:
            dt = DataType(data_type)
        except ValueError:
            raise DescriptorError(
                f"supports_data_type: {data_type!r} is not a DataType; known: {', '.join(d.name for d in DataType)}",
                "data_type",
            ) from None
        return self.extensions or not dt.is_extension

    def max_supported_feature_level(self, requested: Iterable[FeatureLevel | str]) -> FeatureLevel:
        """``DML_FEATURE_FEATURE_LEVELS``: the highest of ``requested`` this device supports."""
        if isinstance(requested, (str, bytes, int, FeatureLevel)) or not isinstance(requested, Iterable):
            raise TypeError(
                "max_supported_feature_level: pass a list of feature levels, as DML_FEATURE_QUERY_FEATURE_LEVELS "
                f"takes an array (got {type(requested).__name__} {requested!r})"
            )
        levels = [FeatureLevel.parse(r, "max_supported_feature_level") for r in requested]
        if not levels:
            raise DescriptorError("max_supported_feature_level: request at least one feature level", "requested")
        ok = [lv for lv in levels if lv <= self.feature_level]
        if not ok:
            raise UnsupportedError(
                f"max_supported_feature_level: none of {', '.join(lv.name for lv in levels)} is supported "
                f"(device is at {self.feature_level.name})"
            )
        return max(ok)

    def operator_support(self, operator_type: OperatorType | str) -> OperatorSupport:
        """What ``operator_type`` accepts at this device's level (DirectML cannot answer this)."""
        return operator_support(operator_type, self.feature_level, extensions=self.extensions)

    def create_operator(self, desc: OperatorDesc) -> Operator:
        """Validate ``desc`` at the device's feature level; raise ``DescriptorError`` if invalid."""
        validate(desc, self.feature_level, extensions=self.extensions)
        return Operator(self, desc, _VALIDATED)

    def compile_operator(self, operator: Operator, flags: ExecutionFlags = ExecutionFlags.NONE) -> CompiledOperator:
        """Lower the operator to a kernel. Kernels are cached: a descriptor never compiles twice."""
        if not isinstance(operator, Operator):
            raise TypeError(
                f"compile_operator: expected an Operator from create_operator (got {type(operator).__name__})"
            )
        if operator.device is not self:
            raise DescriptorError(
                f"compile_operator: the operator was created by another Device ({operator.device!r}); compile it "
                "there, or create it again on this one",
                "operator",
            )
        desc = operator.desc
        for t in (*desc.input_tensors, *desc.output_tensors):
            if t is not None and t.flags & TensorFlags.OWNED_BY_DML:
                raise UnsupportedError(
                    f"{desc.row.name}: OWNED_BY_DML tensors must be bound at initialization; gpuops has no "
                    "operator initializer, so bind the data at execution without the flag"
                )
        return CompiledOperator(self, operator, _execution_flags(flags))


def _execution_flags(flags: object) -> ExecutionFlags:
    """``DML_EXECUTION_FLAGS``: NONE or any of its three bits; any other bit is refused (E_INVALIDARG)."""
    if isinstance(flags, bool) or not isinstance(flags, int):
        raise TypeError(f"compile_operator: flags must be ExecutionFlags (got {type(flags).__name__} {flags!r})")
    known = 0
    for member in ExecutionFlags:
        known |= int(member)
    if flags < 0 or int(flags) & ~known:
        shown = hex(flags) if 0 <= flags < 2**64 else show_number(flags)
        allowed = "NONE (0x0), " + ", ".join(f"{m.name} ({int(m):#x})" for m in ExecutionFlags)
        raise DescriptorError(f"compile_operator: flags is {shown}; allowed: {allowed}", "flags")
    return ExecutionFlags(int(flags))


_VALIDATED = object()  # only create_operator makes an Operator: its descriptor has passed validate()


class Operator:
    """A validated operator (``IDMLOperator``): made by ``Device.create_operator`` only."""

    __slots__ = ("desc", "device")

    def __init__(self, device: Device, desc: OperatorDesc, _token: object = None) -> None:
        if _token is not _VALIDATED:
            raise TypeError("Operator: use Device.create_operator(desc), which validates the descriptor")
        self.device = device
        self.desc = desc

    @property
    def operator_type(self) -> OperatorType:
        return self.desc.operator_type

    def __repr__(self) -> str:
        return f"Operator({self.desc.row.name})"


def _scalar_values(spec: KernelSpec, desc: OperatorDesc, sb: Any, fused_desc: Any) -> dict[str, Any]:
    """The kernel's scalar arguments (name -> NumPy scalar of the argument's type).

    Values go to the kernel as arguments, so NaN, infinities and -0.0 arrive bit for bit.
    """
    values: dict[str, Any] = {}
    if sb is not None:
        values[SCALE], values[BIAS] = sb.scale, sb.bias
    for f in desc.row.param_fields:
        v = getattr(desc, f.name)
        if f.kind is FieldKind.SCALAR:  # a value of the output's type (DML_SCALAR_UNION), rounded to it
            v = spec.plan.output.numpy_dtype.type(v)
        values[f.kernel_name] = v
    if fused_desc is not None:
        for f in fused_desc.row.param_fields:
            values[FUSED_PREFIX + f.kernel_name] = getattr(fused_desc, f.name)
    typed = {}
    for name, dt in zip(spec.scalar_params, spec.scalar_types, strict=True):
        v = values[name]
        typed[name] = dt.numpy_dtype.type(int(v) if dt is DataType.INT32 else v)
    return typed


def _dtypes(desc: OperatorDesc, row: OpRow) -> dict[str, DataType]:
    return {f.name: getattr(desc, f.name).data_type for f in row.tensor_fields if getattr(desc, f.name) is not None}


class CompiledOperator:
    """A lowered operator (``IDMLCompiledOperator``): its kernel, its source, ``execute``."""

    def __init__(self, device: Device, operator: Operator, flags: ExecutionFlags) -> None:
        self.device = device
        self.operator = operator
        self.flags = flags
        desc = operator.desc
        self.row: OpRow = desc.row
        self.dtypes = _dtypes(desc, self.row)
        self.spec: KernelSpec | ReductionSpec
        self._reduction = self.row.is_reduction
        self._fast_plan: FastPlan | None = None
        self._loop = False
        self._rows_layout: tuple | None = None  # NumPy backend: the numba rows loop's sizes and strides
        # Element-wise with every tensor packed and of one shape: flat 1-D views, no reshapes.
        tensors = [t for t in (*desc.input_tensors, *desc.output_tensors) if t is not None]
        flat = not self._reduction and all(t.is_packed and t.sizes == tensors[0].sizes for t in tensors)
        if self._reduction:
            self._init_reduction(desc, device)
        else:
            self._init_elementwise(desc, device, flat)
        self._binding = BindingPlan(
            desc, self.row, device._array_type, device._pointer, device._may_overlap, device.backend
        )
        # (position in the inputs list, view maker) for each present input; then the output's.
        self._in_views = tuple(
            (k, device._view_maker(getattr(desc, f.name), flat))
            for k, f in enumerate(self.row.input_fields)
            if getattr(desc, f.name) is not None
        )
        self._out_view = device._view_maker(getattr(desc, self.row.output_fields[0].name), flat)
        # "emulator": bound NumPy buffers enter the CuPy code path as emulator arrays over the same memory.
        self._emulated = device.backend == "emulator"

    def _init_elementwise(self, desc: OperatorDesc, device: Device, flat: bool) -> None:
        """``flat``: every tensor is packed, with one shape."""
        sb = getattr(desc, "scale_bias", None) if self.row.has_scale_bias else None
        has_sb = sb is not None
        fused_desc = getattr(desc, self.row.fused_field.name) if self.row.fused_field is not None else None
        fused = fused_desc.row if fused_desc is not None else None
        spec = elementwise_kernel_spec(self.row, self.dtypes, has_sb, fused)
        self.spec = spec
        self.scalars = _scalar_values(spec, desc, sb, fused_desc)
        key = (
            device.backend,
            self.row.name,
            tuple(sorted((k, v.value) for k, v in self.dtypes.items())),
            has_sb,
            fused.name if fused is not None else None,
        )
        impl = device._impl
        if device.backend in GPU_BACKENDS:
            xp = device._xp
            # gpuops' flat/rows RawKernels unless GPUOPS_CUPY_FAST=0 (config.override(cupy_fast=False)); CuPy's
            # ElementwiseKernel only where neither applies (one kernel per operator, as build_count() says).
            self._fast_plan = self._plan_fast(desc) if config.settings().cupy_fast else None
            if self._fast_plan is not None:
                from .backends.cupy_fast import CupyFastKernel

                kind = self._fast_plan.kind
                self._fast = kernels.get_or_build((*key, kind), lambda: CupyFastKernel(spec, kind, xp=xp))
                self._fast_prepared = self._fast.prepare(self.scalars)
                return
            self._kernel = kernels.get_or_build(key, lambda: impl.CupyKernel(spec, xp), lambda: spec.source)
        else:
            from .backends import numba_loops

            self._kernel = kernels.get_or_build(
                key, lambda: impl.NumpyKernel(self.row, self.dtypes, has_sb, fused), lambda: spec.source
            )
            # A lowering NumPy runs as several passes (float16/bfloat16 conversions, ScaleBias, a
            # fused activation, a multi-step expression) runs as one compiled loop where it can:
            # the flat loop over 1-D views, or the rows loop over the bound buffers for what the
            # GPU planner coalesces to two dimensions with unit or zero column strides (row,
            # column and scalar broadcasts, padded rows).
            out_desc: TensorDesc = getattr(desc, self.row.output_fields[0].name)
            lspec = layout = None
            if (
                not self._kernel.direct
                and out_desc.element_count >= numba_loops.MIN_ELEMENTS
                and numba_loops.available()
            ):
                plan = None if flat else self._plan_fast(desc)
                layout = numba_loops.rows_layout(plan) if plan is not None else None
                if flat or layout is not None:
                    lspec = loop_spec(self.row, self.dtypes, has_sb, fused)
            if lspec is not None:
                try:
                    kernel = kernels.get_or_build(
                        (*key, "numba"),
                        lambda: numba_loops.NumbaLoopKernel(lspec, self.dtypes, spec.scalar_types),
                        lambda: lspec.source,
                    )
                    kernel.compile("flat" if layout is None else "rows")
                except Exception as exc:  # numba refused the loop: the ufunc path gives the same bits
                    numba_loops.log.warning("gpuops: %s stays on ufuncs, numba failed: %s", lspec.name, exc)
                else:
                    self._kernel, self._loop, self._rows_layout = kernel, True, layout
        self._prepared = self._kernel.prepare(self.scalars)

    def _plan_fast(self, desc: OperatorDesc) -> FastPlan | None:
        """The GPU's flat or rows kernel for this layout (``gpuops.launch_plan``), or None."""
        ins = [getattr(desc, f.name) for f in self.row.input_fields]
        out = getattr(desc, self.row.output_fields[0].name)
        if len(self.row.output_fields) != 1:
            return None
        return plan_tensors([t for t in ins if t is not None], out)

    def _init_reduction(self, desc: OperatorDesc, device: Device) -> None:
        """REDUCE / ARGMAX / ARGMIN: one kernel per (selector value, data types); the axes and
        the element count are call arguments, and the GPU path (one or two passes) is planned
        here, once, from the input's layout."""
        row = self.row
        variant = row.variant_of(desc)
        assert variant is not None
        spec = reduction_kernel_spec(row, self.dtypes, variant)
        self.spec = spec
        self.scalars = {}
        inp: TensorDesc = getattr(desc, row.input_fields[0].name)
        self._axes = tuple(sorted(int(a) for a in desc.axes))  # type: ignore[attr-defined]
        self._count = math.prod(inp.sizes[a] for a in self._axes)
        key = (device.backend, row.name, variant, tuple(sorted((k, v.value) for k, v in self.dtypes.items())))
        impl = device._impl
        if device.backend in GPU_BACKENDS:
            passes = two_pass_specs(row, self.dtypes, variant)
            xp = device._xp
            self._kernel = kernels.get_or_build(
                key, lambda: impl.CupyReduceKernel(spec, passes, xp), lambda: spec.source
            )
            self._two_pass = plan_two_pass(inp.sizes, inp.element_strides, self._axes)
        else:
            self._kernel = kernels.get_or_build(
                key, lambda: impl.NumpyReduceKernel(row, self.dtypes, variant), lambda: spec.source
            )
            self._two_pass = None

    @property
    def desc(self) -> OperatorDesc:
        return self.operator.desc

    @property
    def kernel_name(self) -> str:
        return self.spec.name

    @property
    def launch_path(self) -> str:
        """How ``execute`` runs: ``"numpy"`` (ufuncs) or ``"numba"`` (one compiled loop,
        ``gpuops.backends.numba_loops``); on CuPy and the emulator ``"flat"`` or ``"rows"``
        (gpuops' own kernels, ``gpuops.launch_plan``), ``"elementwise"`` (CuPy's
        ``ElementwiseKernel``), ``"reduction"`` or ``"two-pass reduction"``."""
        if self.device.backend == "numpy":
            return "numba" if self._loop else "numpy"
        if self._reduction:
            return "two-pass reduction" if self._two_pass is not None else "reduction"
        return self._fast_plan.kind if self._fast_plan is not None else "elementwise"

    @property
    def kernel_source(self) -> str:
        """The generated CuPy kernel (name, parameters, preamble, operation) on every backend."""
        return self.spec.source

    def execute(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        """Bind buffers in the operator's tensor order and run; ``BindingError`` before any write."""
        if self._emulated:
            inputs, outputs = _unwrap_emulator_arrays(inputs), _unwrap_emulator_arrays(outputs)
        inputs, outputs, aliased = self._binding.check(inputs, outputs)
        if self._emulated:
            from .emulator import kernels as emulated_kernels
            from .emulator import launches
            from .emulator.memory import from_numpy

            inputs = [None if b is None else from_numpy(b) for b in inputs]
            outputs = [from_numpy(b) for b in outputs]
            if not emulated_kernels.is_recording():  # a dry run's launches do nothing: not counted
                fn = getattr(self.desc, "function", None)
                name = f"{self.row.name} {fn.name}" if self.row.name == "REDUCE" and fn is not None else self.row.name
                launches.record(name, self.launch_path)
        if self._fast_plan is not None:  # gpuops' flat/rows RawKernel: it takes the bound buffers as they are
            ins = [inputs[k] for k, _ in self._in_views]
            self._fast.run(ins, outputs[0], self._fast_prepared, self._fast_plan)
            return
        if self._rows_layout is not None:  # the numba rows loop: it too takes the bound buffers as they are
            bufs = [inputs[k] for k, _ in self._in_views]
            self._kernel.run_rows(bufs, outputs[0], self._prepared, self._rows_layout)
            return
        ins = [make(inputs[k]) for k, make in self._in_views]
        if self._reduction:
            self._kernel.reduce(ins[0], self._out_view(outputs[0]), self._axes, self._count, self._two_pass)
            return
        self._kernel.run(ins, self._out_view(outputs[0]), self._prepared, aliased)

    def __repr__(self) -> str:
        return f"CompiledOperator({self.row.name}, kernel={self.spec.name}, backend={self.device.backend})"


# Re-exported for callers that catch binding problems from this module.
__all__ += ["BindingError"]
