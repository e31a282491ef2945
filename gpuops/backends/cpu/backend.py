"""The CPU backend class: ``NumpyBackend`` (``Device(backend="numpy")``), the backend protocol
(``gpuops.backends.base``) over the tiers of this package (``tiers``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from descriptors import TensorDesc

from ...lowering import RowKind
from . import dlpack, tiers
from .fast import fast_paths
from .reductions import _ReduceInPasses
from .views import may_overlap, pointer, view_maker

if TYPE_CHECKING:
    from ...lowering import FusedLowering, Lowering
    from ...row_program import RowProgram

__all__ = ["NumpyBackend"]


class NumpyBackend:
    """The CPU backend: NumPy ufuncs, with numba's compiled loops where the ``jit`` extra is installed."""

    name = "numpy"
    xp = np
    array_type: type = np.ndarray
    binds_host_memory = True

    @staticmethod
    def unavailable_reason() -> str | None:
        return None  # NumPy is a dependency: always usable

    #: ``compile``'s builder per row kind (``tiers``): ``builder(backend name, lowering)``, the run.
    COMPILE: ClassVar[Mapping[RowKind, Callable[[str, Lowering], Any]]] = {
        RowKind.ELEMENTWISE: tiers.compile_elementwise,
        RowKind.REDUCTION: tiers.compile_reduction,
        RowKind.SCAN: tiers.compile_scan,
    }

    def compile(self, lowering: Lowering) -> Any:
        """The run of ``lowering``, built by its row kind's builder (:attr:`COMPILE`)."""
        return self.COMPILE[lowering.kind](self.name, lowering)

    def compile_fused(self, fused: FusedLowering) -> Any:
        """A fused group of graph nodes: one numba loop, else one blocked pass running each node's ufunc kernel
        (``tiers.FUSED``)."""
        return tiers.compile_fused(self.name, fused)

    def compile_fused_reduce(
        self, prologue: FusedLowering | None, reduce: Lowering, epilogue: FusedLowering | None = None
    ) -> Any:
        """The prologue (one loop or one blocked pass) into a buffer of the value's layout, the reduction over
        it, the epilogue over the reduction's result: a pass each on the CPU (NumPy's reductions read arrays,
        not expressions)."""
        before = self.compile_fused(prologue) if prologue is not None else None
        after = self.compile_fused(epilogue) if epilogue is not None else None
        return _ReduceInPasses(before, self.compile(reduce), after, prologue, reduce)

    def compile_row_program(self, program: RowProgram) -> None:
        """None: on the CPU a composite runs its plan of parts (each one pass over host memory already)."""
        return None

    pointer = staticmethod(pointer)
    may_overlap = staticmethod(may_overlap)
    fast_paths = staticmethod(fast_paths)
    unwrap = staticmethod(dlpack.unwrap)

    def adopt(self, x: object, what: str) -> Any:
        """``x`` as a NumPy array (``dlpack.adopt``): no copy for NumPy arrays and DLPack CPU tensors; GPU and
        masked arrays refused."""
        return dlpack.adopt(x, what)

    @staticmethod
    def view(tensor: TensorDesc, buf: Any) -> Any:
        return view_maker(tensor)(buf)

    @staticmethod
    def to_device(x: Any) -> Any:
        return np.asarray(x)

    @staticmethod
    def to_host(x: Any) -> Any:
        return np.asarray(x)

    @staticmethod
    def describe() -> str:
        return f"NumPy {np.__version__} on the CPU"
