"""Fused groups of graph nodes on the CPU's ufunc tier: one blocked pass running each node's ``NumpyKernel``
(the numba tier's one loop for a group is ``tiers.fused_loop``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import policy as _policy
from . import threads as _threads
from .ufunc_kernels import NumpyKernel
from .views import view_maker

if TYPE_CHECKING:
    from ...lowering import FusedLowering

__all__: list[str] = []


class _FusedRun:
    """A fused group of graph nodes in one pass over memory: over blocks of about ``CpuPolicy.chunk`` elements of
    the common shape, each node's ufunc kernel runs in turn, its intermediates in block-sized workspaces that
    stay in cache (the nodes' own kernels, so every node boundary rounds exactly as node-by-node execution)."""

    launch_path = "numpy"

    def __init__(self, fused: FusedLowering, node_kernels: Sequence[NumpyKernel]) -> None:
        self.nodes = tuple((k, k.prepare(low.scalars)) for k, low in zip(node_kernels, fused.nodes, strict=True))
        self.operands = fused.step.operands
        self.in_views = tuple(view_maker(t) for _, t in fused.inputs)
        self.out_views = tuple(view_maker(t) for t in fused.outputs)
        self.stored = {k: m for m, (k, _, _) in enumerate(fused.step.outputs)}  # node position -> output
        self.shape = fused.nodes[0].output.sizes
        self.types = tuple(low.output.data_type.numpy_dtype for low in fused.nodes)
        self.float16 = any(k.float16 for k in node_kernels)

    def __call__(self, inputs: Sequence[Any], outputs: Sequence[Any], aliased: bool) -> None:
        ins = [make(b) for make, b in zip(self.in_views, inputs, strict=True)]
        outs = [make(b) for make, b in zip(self.out_views, outputs, strict=True)]
        size = math.prod(self.shape)
        chunk = _policy.POLICY.chunk
        blocks = [()] if size <= chunk else list(_threads._chunks(self.shape))
        n = min(size, chunk)

        def work(part: Iterable[Any]) -> None:
            temps = [None if k in self.stored else np.empty(n, t) for k, t in enumerate(self.types)]
            for idx in part:
                values: list[np.ndarray] = []
                for k, (kernel, prepared) in enumerate(self.nodes):
                    args = [ins[s[1]][idx] if s[0] == "in" else values[s[1]] for s in self.operands[k] if s]
                    if k in self.stored:
                        o = outs[self.stored[k]][idx]
                    else:
                        temp = temps[k]
                        if temp is None:
                            raise RuntimeError(f"fused run: node {k}'s value has neither an output nor a block buffer")
                        # A node reading nothing (FILL_VALUE_CONSTANT) writes the block's shape.
                        shape = args[0].shape if args else np.broadcast_to(np.empty((), bool), self.shape)[idx].shape
                        o = temp[: math.prod(shape)].reshape(shape)
                    kernel.run(args, o, prepared, False)
                    values.append(o)

        if self.float16:  # one thread, as NumpyKernel does for float16 (see its __init__)
            work(blocks)
        else:
            _threads._parallel(blocks, work, size)
