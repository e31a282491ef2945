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
from typing import Any

from ..codegen import KernelSpec
from ..codegen.fast import fast_source
from ..layout.launch_plan import DEFAULT_POLICY, FastPlan, LaunchPolicy, is_aligned, launch_config, size_args
from .array_module import array_module

__all__ = ["CupyFastKernel"]


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
