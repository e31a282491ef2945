"""``Device``: DirectML's device, operator and compiled-operator model over NumPy or CuPy.

Pipeline as in DirectML (docs/reference/directml.md section 8): ``create_operator``
validates the descriptor at the device's feature level (``IDMLDevice::CreateOperator``),
``compile_operator`` lowers it to a kernel (``CompileOperator``), and
``CompiledOperator.execute`` binds buffers and runs it (binding table + dispatch in one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from descriptors import (
    DataType,
    DescriptorError,
    ExecutionFlags,
    FeatureLevel,
    GraphDesc,
    OperatorDesc,
    OperatorSupport,
    OperatorType,
    TensorDesc,
    TensorFlags,
    operator_support,
    validate,
    validate_graph,
)
from descriptors.float_range import show_number
from descriptors.schema import OpRow

from . import backends
from .backends.base import Backend
from .binding import BindingPlan
from .codegen import KernelSpec
from .codegen.reduce import ReductionSpec
from .codegen.scan import ScanSpec
from .errors import BindingError, UnsupportedError
from .lowering import lower

__all__ = ["BACKEND_FEATURE_LEVEL", "CompiledOperator", "Device", "Operator"]

#: The highest level every backend implements: every operator of the table, every tier.
BACKEND_FEATURE_LEVEL = FeatureLevel.FL_6_4
#: Every ``Device(backend=...)`` name but ``"auto"`` (``gpuops.backends.REGISTRY``).
BACKENDS = tuple(backends.REGISTRY)


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
            backend = "cupy" if backends.unavailable_reason("cupy") is None else "numpy"
        if backend not in BACKENDS:
            raise DescriptorError(
                f"Device: backend must be 'auto', 'numpy', 'cupy' or 'emulator' (got {backend!r})", "backend"
            )
        why = backends.unavailable_reason(backend)
        if why is not None:
            raise UnsupportedError(f"Device: backend {backend!r} is not usable here: {why}")
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
        #: The backend's implementation of ``gpuops.backends.base.Backend``: the only way this device, its
        #: compiled operators and the front-ends reach the machine.
        self.backend_impl: Backend = backends.load(backend)

    def __repr__(self) -> str:
        return f"Device(backend={self.backend!r}, feature_level={self.feature_level.name})"

    def supports_data_type(self, data_type: DataType) -> bool:
        """``DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT``: can tensors of this type be used at all."""
        dt = DataType.parse(data_type, "supports_data_type")
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
                f"(the device is at {self.feature_level.name})"
            )
        return max(ok)

    def operator_support(self, operator_type: OperatorType | str, *, variant: object = None) -> OperatorSupport:
        """What ``operator_type`` (any spelling ``descriptors.names.operator_type`` reads: ``"add"``, the class)
        accepts at this device's level (DirectML cannot answer this); ``variant``: one of REDUCE's functions."""
        return operator_support(operator_type, self.feature_level, extensions=self.extensions, variant=variant)

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
        if desc.row.is_composite:  # softmax, mean-variance normalization: a plan of other operators
            from .compiled_graph import CompiledComposite

            return CompiledComposite(self, operator, _execution_flags(flags))
        return CompiledOperator(self, operator, _execution_flags(flags))

    def compile_graph(self, graph_desc: GraphDesc, flags: ExecutionFlags = ExecutionFlags.NONE) -> CompiledOperator:
        """``IDMLDevice1::CompileGraph``: validate ``graph_desc`` at the device's level and compile it into one
        operator, element-wise nodes fused into single kernels (``gpuops.graph_plan``). ``execute`` takes the
        graph's inputs and outputs in graph order; ``kernel_count`` says how many kernels it launches."""
        if not isinstance(graph_desc, GraphDesc):
            raise TypeError(f"compile_graph: expected a GraphDesc (got {type(graph_desc).__name__})")
        validate_graph(graph_desc, self.feature_level, extensions=self.extensions)
        for i, node in enumerate(graph_desc.nodes):
            tensors = (*node.inputs, *node.outputs)
            if any(t is not None and t.flags & TensorFlags.OWNED_BY_DML for t in tensors):
                raise UnsupportedError(
                    f"compile_graph: nodes[{i}] has an OWNED_BY_DML tensor; gpuops has no operator initializer, so "
                    "bind the data at execution without the flag"
                )
        from .compiled_graph import CompiledGraph

        return CompiledGraph(self, graph_desc, _execution_flags(flags))


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


class CompiledOperator:
    """A lowered operator (``IDMLCompiledOperator``): its kernel, its source, ``execute``.

    Compiling is two steps: :func:`gpuops.lowering.lower` reads the descriptor against its op-table row,
    and the device's backend compiles that :class:`~gpuops.lowering.Lowering` into a kernel
    (``gpuops.backends.base``). Nothing here depends on which backend it is."""

    #: The backend's convenience call for the common case (``numpy_backend.fast_paths``): returns None for
    #: any call it leaves to ``gpuops.convenience.call``.
    _fast_call: Callable[[Sequence[Any], Any], Any] | None = None

    def __init__(self, device: Device, operator: Operator, flags: ExecutionFlags) -> None:
        self.device = device
        self.operator = operator
        self.flags = flags
        desc = operator.desc
        self.row: OpRow = desc.row
        self.lowering = lower(desc)
        backend = device.backend_impl
        self._backend = backend
        self._kernel = backend.compile(self.lowering)
        self._binding = BindingPlan(
            desc,
            self.row,
            backend.array_type,
            backend.pointer,
            backend.may_overlap,
            backend.name,
            host=backend.binds_host_memory,
        )
        # A backend's specialised ``execute`` for the common call (``numpy_backend.fast_paths``), which hands
        # anything else to the general path below; installed on the instance, so a call costs no extra frame.
        fast = getattr(backend, "fast_paths", None)
        paths = fast(self._kernel, self.lowering, self._binding, self._general_execute()) if fast else None
        if paths is not None:
            self.execute = paths.execute  # type: ignore[method-assign]
            self._fast_call = paths.call

    def _general_execute(self) -> Callable[[Sequence[Any], Sequence[Any]], None]:
        """:meth:`execute` as a function of the binding and the kernel only (no reference back to ``self``)."""
        unwrap, check, kernel = self._backend.unwrap, self._binding.check, self._kernel

        def execute(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
            ins, outs, aliased = check(unwrap(inputs), unwrap(outputs))
            kernel(ins, outs, aliased)

        return execute

    @property
    def desc(self) -> OperatorDesc:
        return self.operator.desc

    @property
    def dtypes(self) -> Mapping[str, DataType]:
        """Tensor role -> data type."""
        return self.lowering.dtypes

    @property
    def spec(self) -> KernelSpec | ReductionSpec | ScanSpec:
        """The generated CuPy kernel's parts (``codegen``), on every backend."""
        return self.lowering.spec

    @property
    def kernel_name(self) -> str:
        return self.spec.name

    @property
    def operator_name(self) -> str:
        """The DirectML operator (``"ELEMENT_WISE_ADD"``); ``"GRAPH"`` for a compiled graph."""
        return self.row.name

    @property
    def launch_path(self) -> str:
        """How ``execute`` runs: ``"numpy"`` (ufuncs) or ``"numba"`` (one compiled loop,
        ``gpuops.backends.numba_loops``); on CuPy and the emulator ``"flat"`` or ``"rows"``
        (gpuops' own kernels, ``gpuops.layout.launch_plan``), ``"elementwise"`` (CuPy's
        ``ElementwiseKernel``), ``"reduction"``, ``"two-pass reduction"`` or ``"scan"`` (CUMULATIVE_SUMMATION's
        ``ElementwiseKernel`` over lines)."""
        return self._kernel.launch_path

    @property
    def kernel_count(self) -> int:
        """Kernels one ``execute`` launches: 1, or 2 for a two-pass reduction."""
        return 2 if self.launch_path == "two-pass reduction" else 1

    @property
    def kernel_source(self) -> str:
        """The generated CuPy kernel (name, parameters, preamble, operation) on every backend."""
        return self.spec.source

    def bound_tensors(self) -> tuple[tuple[TensorDesc | None, ...], tuple[TensorDesc, ...]]:
        """The tensor each ``execute`` input describes (None for an absent optional one), and each output's."""
        return self.desc.input_tensors, self.desc.output_tensors

    def __call__(self, *inputs: Any, out: Any = None) -> Any:
        """The convenience call (``gpuops.convenience``): arrays shaped like the tensors (or flat buffers) in,
        outputs allocated with the padding DirectML needs and returned shaped like the output tensors (one bare,
        several as a tuple); ``out=`` to write into arrays of your own. ``execute`` stays the zero-copy path."""
        fast = self._fast_call
        if fast is not None:
            result = fast(inputs, out)
            if result is not None:
                return result
        from .convenience import call

        return call(self, inputs, out)

    def execute(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        """Bind buffers in the operator's tensor order and run; ``BindingError`` before any write."""
        unwrap = self._backend.unwrap
        inputs, outputs, aliased = self._binding.check(unwrap(inputs), unwrap(outputs))
        self._kernel(inputs, outputs, aliased)

    def __repr__(self) -> str:
        return f"CompiledOperator({self.row.name}, kernel={self.spec.name}, backend={self.device.backend})"


# Re-exported for callers that catch binding problems from this module.
__all__ += ["BindingError"]
