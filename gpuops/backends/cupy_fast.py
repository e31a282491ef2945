"""The fast element-wise path on CuPy: one ``cupy.RawKernel`` per (spec, kind).

Source from ``gpuops.codegen.fast``, launch geometry and size arguments from
``gpuops.layout.launch_plan`` (both pure and tested on the CPU). ``RawKernel`` compiles through
CuPy's ``compile_with_cache`` like ``ElementwiseKernel`` does: CuPy adds ``-I`` for its own
``_core/include`` (``cupy/*.cuh``) and the CUDA headers (``assemble_cupy_compiler_options``),
so the ``#include <cupy/...>`` lines resolve without options of ours. Built once and kept
(cupy#3193); CuPy compiles on the first launch and caches on disk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..codegen import KernelSpec
from ..codegen.fast import fast_source
from ..layout.launch_plan import DEFAULT_POLICY, FastPlan, LaunchPolicy, is_aligned, launch_config, size_args
from .array_module import array_module
from .base import Call

if TYPE_CHECKING:
    from ..binding import BindingPlan
    from ..lowering import FusedLowering, Lowering

__all__ = ["CupyFastKernel", "FastRun", "fast_call"]


class CupyFastKernel:
    """The ``flat`` or ``rows`` kernel of one spec, launched for a :class:`FastPlan` (``xp``: the array
    module, ``cupy`` unless given; see ``array_module``)."""

    def __init__(
        self, spec: KernelSpec, kind: str, policy: LaunchPolicy = DEFAULT_POLICY, xp: ModuleType | None = None
    ) -> None:
        cupy = xp if xp is not None else array_module("cupy")
        self.spec = spec
        self.source = fast_source(spec, kind)
        self.policy = policy
        self.kernel = cupy.RawKernel(self.source.source, self.source.name, options=("--std=c++17", *spec.options))
        self._launches: dict[tuple[FastPlan, bool], tuple[Any, Any, tuple[Any, ...]]] = {}

    def prepare(self, scalars: Mapping[str, Any]) -> tuple[Any, ...]:
        """The scalar arguments in the kernel's order (NumPy scalars of the parameters' types)."""
        return tuple(scalars[n] for n in self.source.scalars)

    def run(self, ins: Sequence[Any], out: Any, prepared: tuple[Any, ...], plan: FastPlan) -> None:
        """Launch on the current stream. ``ins``/``out``: CuPy arrays whose first element is the
        tensor's first element (the bound buffers or views of them); only their pointers are used."""
        aligned = plan.kind == "flat" and is_aligned(plan, [a.data.ptr for a in (*ins, out)])
        launch = self._launches.get((plan, aligned))
        if launch is None:
            launch = self._launch(plan, aligned, len(ins))
        grid, block, sizes = launch
        self.kernel(grid, block, (*ins, *prepared, out, *sizes))

    def _launch(self, plan: FastPlan, aligned: bool, n_inputs: int) -> tuple[Any, Any, tuple[Any, ...]]:
        """Grid, block and size arguments of a plan, worked out once (a host-side cost per call otherwise)."""
        import numpy

        src = self.source
        if plan.kind != src.kind or (src.kind == "flat" and plan.pack != src.pack) or n_inputs != len(src.inputs):
            raise ValueError(f"{src.name}: plan {plan} does not fit this kernel ({src.kind}, pack {src.pack})")
        grid, block = launch_config(plan, aligned, self.policy)
        sizes = tuple(numpy.uint32(v) for v in size_args(plan, aligned))
        launch = (grid, block, sizes)
        self._launches[(plan, aligned)] = launch
        return launch


class FastRun:
    """A compiled operator's ``flat`` or ``rows`` kernel bound to its plan (``gpuops.backends.base.Kernel``): what
    :meth:`CupyFastKernel.run` works out per call from the plan (the launch's grid, block and size arguments, with
    and without packs; each operand's pack alignment) is worked out here once, so a call reads the operands'
    pointers and launches. The same launch as ``BufferRun(kernel, ..., "run")``, bit for bit."""

    def __init__(self, kernel: CupyFastKernel, lowering: Lowering | FusedLowering, launch_path: str, plan: FastPlan):
        self.kernel = kernel
        self.launch_path = launch_path
        self.layout = plan
        self.prepared = kernel.prepare(lowering.scalars)
        self.positions = tuple(k for k, _ in lowering.inputs)
        n = len(self.positions)
        unaligned = kernel._launch(plan, False, n)  # ValueError here for a plan that does not fit the kernel
        flat = plan.kind == "flat"
        aligned = kernel._launch(plan, True, n) if flat else unaligned
        prepared = self.prepared
        self._unaligned = (unaligned[0], unaligned[1], prepared, unaligned[2])
        self._aligned = (aligned[0], aligned[1], prepared, aligned[2])
        # is_aligned's rule (flat only): each operand's address a multiple of pack * itemsize, broadcast inputs
        # exempt (0).
        mods = [0] * (n + 1)
        if flat:
            mods = [0 if b else plan.pack * i for i, b in zip(plan.itemsizes, (*plan.broadcast, False), strict=True)]
        self._in_mods = tuple(zip(self.positions, mods[:-1], strict=True))
        self._out_mod = mods[-1]
        self._flat = flat

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        out = outputs[0]
        launch = self._unaligned
        if self._flat:
            for k, m in self._in_mods:
                if m and inputs[k].data.ptr % m:
                    break
            else:
                if not out.data.ptr % self._out_mod:
                    launch = self._aligned
        grid, block, prepared, sizes = launch
        self.kernel.kernel(grid, block, (*[inputs[k] for k in self.positions], *prepared, out, *sizes))


#: Launch paths whose kernel writes every element of a packed output (element-wise maps, reductions, scans).
_WRITES_EVERY_ELEMENT = frozenset(
    {"flat", "rows", "elementwise", "rows reduction", "columns reduction", "reduction", "two-pass reduction", "scan"}
)


def fast_call(kernel: Any, binding: BindingPlan) -> Call | None:
    """The convenience call ``compiled(*inputs, out=None)`` of an operator whose buffers may be exact
    (``BindingPlan.fast_check``: every tensor present and packed, one output), for its common case: each input
    an array of exactly the backend's type, dtype and the tensor's sizes (or its flat buffer), no ``out``. Such
    inputs are bound as ``gpuops.arrays.call`` binds them (their flat views, a copy of one that is not
    C-contiguous) and the output is allocated uninitialised (``ndarray(shape, dtype)``, as ``empty``) rather than
    by ``zeros`` (no fill launched on a GPU): the kernel (one of :data:`_WRITES_EVERY_ELEMENT`) writes every one of
    its elements, which are exactly the tensor's. Returns None (the general call decides, errors included) for
    anything else, a binding the plan's predicate does not accept included."""
    check = binding.fast_check()
    if check is None or getattr(kernel, "launch_path", None) not in _WRITES_EVERY_ELEMENT:
        return None
    nd = binding.array_type
    shapes: list[tuple[np.dtype, tuple[int, ...], tuple[int] | None]] = []
    for (d, n), s in zip(check.inputs, binding.inputs, strict=True):
        if s.tensor is None:
            return None
        sizes = tuple(s.tensor.sizes)
        shapes.append((d, sizes, None if sizes == (n,) else (n,)))
    specs = tuple(shapes)
    do, no = check.output
    (out_slot,) = binding.outputs
    if out_slot.tensor is None:
        return None
    out_sizes = tuple(out_slot.tensor.sizes)
    out_flat = (no,)
    one_d = out_sizes == out_flat
    accepts_inputs, count = check.accepts_inputs, len(specs)

    def call(inputs: Sequence[Any], out: Any) -> Any:
        if out is not None or len(inputs) != count:
            return None
        bufs = []
        for x, (d, sizes, flat) in zip(inputs, specs, strict=True):
            if type(x) is not nd or x.dtype is not d or x.shape != sizes:
                return None
            bufs.append(x if flat is None else x.reshape(flat))  # a copy of one that is not C-contiguous
        if not accepts_inputs(*bufs):
            return None
        o = nd(out_flat, do)
        outs = [o]
        kernel(bufs, outs, False)
        return o if one_d else o.reshape(out_sizes)

    return call
