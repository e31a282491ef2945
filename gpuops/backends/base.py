"""The backend protocol: what a machine gpuops runs on must provide (stage 6 of the pipeline).

A backend compiles a :class:`gpuops.lowering.Lowering` into a :class:`Kernel` and says how buffers look on
it (array type, addresses, overlap, transfers). ``Device`` and ``CompiledOperator`` talk to backends only
through this protocol, so adding a backend is one module implementing it plus one line in
``gpuops.backends.REGISTRY``. Implementations: ``numpy_backend.NumpyBackend``, ``cupy_backend.CupyBackend``
and ``gpuops.emulator.backend.EmulatorBackend``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from descriptors import TensorDesc

if TYPE_CHECKING:
    from ..binding import BindingPlan
    from ..lowering import FusedLowering, Lowering
    from ..row_program import RowProgram

__all__ = ["Backend", "FastPaths", "Kernel"]

#: ``execute(inputs, outputs)``: a compiled operator's execute.
Execute = Callable[[Sequence[Any], Sequence[Any]], None]
#: ``call(inputs, out)``: a convenience call's fast path (None: left to ``gpuops.arrays.call``).
Call = Callable[[Sequence[Any], Any], Any]


class Kernel(Protocol):
    """One compiled operator's kernel on one backend."""

    #: How the kernel runs: ``"numpy"``/``"numba"`` on the CPU; ``"flat"``, ``"rows"``, ``"elementwise"``,
    #: ``"reduction"`` or ``"two-pass reduction"`` on the CuPy code path.
    launch_path: str

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        """Run on buffers already checked by ``binding.BindingPlan`` (1-D, in the operator's tensor order,
        ``None`` for an absent optional input); ``aliased``: an output is exactly an input's buffer."""
        ...


class FastPaths(NamedTuple):
    """A compiled operator's own ``execute(inputs, outputs)``, and its convenience call ``call(inputs, out)``
    (None: not this operator), which returns None for any call it leaves to ``gpuops.arrays.call``."""

    execute: Execute
    call: Call | None


class Backend(Protocol):
    """A machine gpuops runs on."""

    #: The ``Device(backend=...)`` name.
    name: str
    #: The array module (``numpy``, ``cupy``, or the CUDA emulator's stand-in for ``cupy``).
    xp: Any
    #: The array type ``execute`` binds (``binding.BindingPlan`` refuses any other).
    array_type: type
    #: Bound buffers are host memory (NumPy arrays), so ``numpy.memmap`` and friends are accepted.
    binds_host_memory: bool

    def compile(self, lowering: Lowering) -> Kernel:
        """The kernel of ``lowering`` (built once per kernel key, ``gpuops.kernels``)."""
        ...

    def compile_fused(self, fused: FusedLowering) -> Kernel:
        """One kernel for a fused group of element-wise graph nodes (``gpuops.graph_plan``): its inputs are the
        group's external inputs, its outputs the values it materializes, in the step's order."""
        ...

    def compile_fused_reduce(
        self, prologue: FusedLowering | None, reduce: Lowering, epilogue: FusedLowering | None = None
    ) -> Kernel:
        """A reduction with fused groups around it (``graph_plan.FusedReduceStep``): a ``prologue`` computing
        its input value, an ``epilogue`` computing what is stored from its result. Inputs are the prologue's
        external inputs (else the reduction's input), the one output the epilogue's value (else the reduction's
        output). The kernel's ``source`` shows the generated code."""
        ...

    def compile_row_program(self, program: RowProgram) -> Kernel | None:
        """One kernel running a composite's parts row by row (``gpuops.row_program``: SOFTMAX, LOG_SOFTMAX,
        MEAN_VARIANCE_NORMALIZATION1, HARDMAX where a row fits one block), or None: the backend runs the plan
        of parts instead (the CPU backend, whose parts are already one pass each over host memory)."""
        ...

    def fast_paths(self, kernel: Any, lowering: Lowering, binding: BindingPlan, general: Execute) -> FastPaths | None:
        """The compiled operator's own ``execute`` (and convenience call) for its common binding, or None (no
        fast path: ``execute`` checks through ``binding.check`` and runs ``kernel``). A fast path binds through
        ``binding.fast_check()`` (the plan's exact-buffer predicate) and hands every other call, errors
        included, to ``general``; ``kernel`` is what :meth:`compile` returned."""
        ...

    def pointer(self, buf: Any) -> int:
        """The address of a bound buffer's first element."""
        ...

    def may_overlap(self, a: Any, b: Any) -> bool:
        """Whether two bound buffers' byte ranges may intersect."""
        ...

    def unwrap(self, buffers: Sequence[Any]) -> Sequence[Any]:
        """Bound buffers as ``array_type`` (the emulator binds its own arrays through their NumPy memory)."""
        ...

    def adopt(self, x: object, what: str) -> Any:
        """``x`` as an array of this backend without a copy where it already is one; ``TypeError`` naming
        ``what`` for arrays of another machine (front-ends never move data between machines silently)."""
        ...

    def view(self, tensor: TensorDesc, buf: Any) -> Any:
        """The tensor's view (its sizes, through its strides) of a flat buffer of this backend's arrays."""
        ...

    def to_device(self, x: Any) -> Any:
        """A backend array with the contents of host array ``x`` (``x`` itself on the NumPy backend)."""
        ...

    def to_host(self, x: Any) -> Any:
        """A NumPy copy (or the array itself, on the host) of a backend array."""
        ...

    def describe(self) -> str:
        """One line for ``python -m gpuops info``."""
        ...
