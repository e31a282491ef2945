"""``Device``: DirectML's device, operator and compiled-operator model over NumPy or CuPy.

Pipeline as in DirectML (docs/reference/directml.md section 8): ``create_operator``
validates the descriptor at the device's feature level (``IDMLDevice::CreateOperator``),
``compile_operator`` lowers it to a kernel (``CompileOperator``), and
``CompiledOperator.execute`` binds buffers and runs it (binding table + dispatch in one).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from descriptors import (
    DataType,
    DescriptorError,
    ExecutionFlags,
    FeatureLevel,
    GraphDesc,
    OperatorDesc,
    OperatorSupport,
    OperatorType,
    TensorFlags,
    operator_support,
    validate,
    validate_graph,
)
from descriptors.float_range import show_number

from . import backends
from .backends.base import Backend
from .compiled_graph import CompiledComposite, CompiledGraph
from .compiled_operator import CompiledOperator  # gpuops.device.CompiledOperator as before (defined lower)
from .errors import BindingError, UnsupportedError

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
        self._parts: Device | None = None  # _parts_device's, made when first needed

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
            # The parts are gpuops' own: created and compiled on the same backend at its full level (every tier,
            # extensions on), never held to a tier the user's operator is not (a 5-D SOFTMAX at FL_2_0 reduces
            # with a 5-D REDUCE, which DirectML's FL_2_0 table would refuse to a caller).
            composite = CompiledComposite(self._parts_device(), operator, _execution_flags(flags))
            composite.device = self
            return composite
        return CompiledOperator(self, operator, _execution_flags(flags))

    def _parts_device(self) -> Device:
        """The device a composite operator's parts are created and compiled on: this backend at
        ``BACKEND_FEATURE_LEVEL`` with extensions on (made once per device)."""
        if self.feature_level == BACKEND_FEATURE_LEVEL and self.extensions:
            return self
        if self._parts is None:
            self._parts = Device(self.backend)
        return self._parts

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


@functools.cache
def default_device() -> Device:
    """The device front-end calls use without ``device=``: ``Device("auto")``, made once."""
    return Device("auto")


# Re-exported for callers that catch binding problems from this module.
__all__ += ["BindingError"]
