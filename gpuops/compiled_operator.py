"""``CompiledOperator``: a lowered operator (``IDMLCompiledOperator``): its kernel, its source, ``execute``.

Made by ``Device.compile_operator`` (``gpuops.device``, which re-exports it). It lives in a module of its own,
under both ``gpuops.compiled_graph`` (whose compiled graphs and composites subclass it) and ``gpuops.device``
(which makes all three), so that those two do not import each other.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from descriptors import DataType, ExecutionFlags, OperatorDesc, TensorDesc
from descriptors.schema import OpRow

from . import config
from .arrays import call
from .binding import BindingPlan
from .codegen import KernelSpec
from .codegen.reduce import ReductionSpec
from .codegen.scan import ScanSpec
from .cost import Cost, kernel
from .lowering import lower

if TYPE_CHECKING:
    from .device import Device, Operator

__all__ = ["CompiledOperator"]


class CompiledOperator:
    """A lowered operator (``IDMLCompiledOperator``): its kernel, its source, ``execute``.

    Compiling is two steps: :func:`gpuops.lowering.lower` reads the descriptor against its op-table row,
    and the device's backend compiles that :class:`~gpuops.lowering.Lowering` into a kernel
    (``gpuops.backends.base``). Nothing here depends on which backend it is."""

    #: The backend's convenience call for the common case (``Backend.fast_paths``): returns None for any call
    #: it leaves to ``gpuops.arrays.call``.
    _fast_call: Callable[[Sequence[Any], Any], Any] | None = None
    #: The binding plan's common-path predicate (``BindingPlan.common_check``), tried before ``unwrap``.
    _accepts: Callable[[Sequence[Any], Sequence[Any]], bool] | None = None

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
        self._accepts = self._binding.common_check()
        # A backend's specialised ``execute`` for the common call (``Backend.fast_paths``, binding through the
        # plan's ``fast_check``), which hands anything else to the general path below; installed on the instance,
        # so a call costs no extra frame.
        paths = backend.fast_paths(self._kernel, self.lowering, self._binding, self._general_execute())
        if paths is not None:
            self.execute = paths.execute  # type: ignore[method-assign,assignment]
            self._fast_call = paths.call

    def _input_readers(self, k: int, t: TensorDesc) -> tuple[TensorDesc, ...]:
        """Every tensor input ``k``'s buffer (described by ``t``) is read through, in the order the convenience
        call lays an array out by: an operator reads it through ``t`` alone (a compiled graph through each node
        input it feeds)."""
        return (t,)

    def _general_execute(self) -> Callable[[Sequence[Any], Sequence[Any]], None]:
        """:meth:`execute` as a function of the binding and the kernel only (no reference back to ``self``)."""
        unwrap, check, kernel = self._backend.unwrap, self._binding.check, self._kernel
        accepts = self._binding.common_check()

        def execute(inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
            if accepts is not None and accepts(inputs, outputs):  # as they are: nothing to unwrap (see execute)
                kernel(inputs, outputs, False)
                return
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
        ``ElementwiseKernel``), ``"rows reduction"`` (gpuops' rows kernel, ``reduce_plan.plan_rows``),
        ``"columns reduction"`` (its columns kernel, ``reduce_plan.plan_columns``), ``"reduction"``,
        ``"two-pass reduction"`` or ``"scan"`` (CUMULATIVE_SUMMATION's
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

    def cost(self) -> Cost:
        """Kernel launches and device-memory bytes of one ``execute`` on the CuPy backend (``gpuops.cost``): the
        kernel reads each input's distinct elements and writes the outputs once; a two-pass reduction also writes
        and reads back its partial accumulators (a split rows one in its one launch, with a ticket per row).
        Stated on every backend, for the settings in force (``GPUOPS_CUPY_ROWS_REDUCE=0``: CuPy's two passes)."""
        desc = self.desc
        one = kernel(desc.input_tensors, desc.output_tensors)
        lowering = self.lowering
        two_pass = lowering.two_pass
        if two_pass is None:
            return one
        acc = sum(dt.itemsize for _, dt in lowering.two_pass_specs[0].outputs)  # a partial accumulator's bytes
        own = config.settings().own_reductions
        rows, columns = (lowering.rows, lowering.columns) if own else (None, None)
        if rows is not None and rows.parts > 1:  # split rows: one launch; partials, and a zeroed ticket per row
            slots = rows.rows * rows.parts * acc
            return Cost(1, one.bytes_read + slots, one.bytes_written + slots + rows.rows * 4)
        if columns is not None and columns.parts > 1:  # split columns: partials per output and part, ticket per tile
            slots = columns.outer * columns.inner * columns.parts * acc
            return Cost(1, one.bytes_read + slots, one.bytes_written + slots + columns.tiles * 4)
        partial = math.prod(two_pass.partial_sizes) * acc
        return Cost(2, one.bytes_read + partial, one.bytes_written + partial)

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
        return call(self, inputs, out)

    def execute(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        """Bind buffers in the operator's tensor order and run; ``BindingError`` before any write."""
        # The common binding first: buffers the plan's predicate accepts are each of exactly the backend's array
        # type, which ``unwrap`` returns as they are, and ``check`` would return them unchanged, not aliased.
        accepts = self._accepts
        if accepts is not None and accepts(inputs, outputs):
            self._kernel(inputs, outputs, False)
            return
        unwrap = self._backend.unwrap
        inputs, outputs, aliased = self._binding.check(unwrap(inputs), unwrap(outputs))
        self._kernel(inputs, outputs, aliased)

    def __repr__(self) -> str:
        return f"CompiledOperator({self.row.name}, kernel={self.spec.name}, backend={self.device.backend})"
