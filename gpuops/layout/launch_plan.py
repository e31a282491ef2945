"""How an element-wise operator runs on the GPU: a fast ``RawKernel`` path, or CuPy's general one.

CuPy's ``ElementwiseKernel`` makes no 16-byte vector accesses, and its ``CIndexer`` pays a
division per dimension per element once a broadcast blocks merging the operands to 1-D
(docs/reference/performance.md section 1.4; sonots/cumo#348: ``[1024,3072] + [3072]`` at 321
vs 968 GB/s from that division alone). Section 4.2 plans two fast paths, chosen on the host
from the descriptor's (sizes, element strides), once per compiled operator:

1. **Coalesce.** Every operand has the output's sizes (DirectML broadcasts with zero strides).
   Size-1 dimensions are dropped; the rest are ordered by the output's strides, largest first
   (a valid output has distinct non-zero strides there, so the order is unique and, for a
   packed output, the original one); then an outer dimension is merged into its inner
   neighbour when, for every operand, ``stride_outer == stride_inner * size_inner`` (CuPy's
   ``_reduced_view_core`` rule, which also merges zero-stride broadcasts).
2. **None** (CuPy's ``ElementwiseKernel``) when the operator is empty, when more than two
   dimensions remain, or when 32-bit indexing is not safe: the element count or any operand's
   largest element offset ``sum((size - 1) * stride)`` is ``>= 2**31`` (PyTorch's
   ``can_use_32bit_indexing``; then no index expression or grid-stride step of the kernels can
   reach ``2**32``).
3. **flat** when at most one dimension remains, the output has stride 1 there and every input
   stride 1 or 0 (an input of stride 0 is one element read for every output element: its bit
   in ``broadcast_mask``). The kernel moves packs of ``pack = 16 // largest item size``
   elements (PyTorch's ``memory::policies::vectorized``: 16-byte accesses for the widest
   operand), then a scalar tail. Alignment is the buffers' business, so it is tested per call
   (:func:`is_aligned`: each non-broadcast operand's address a multiple of ``pack * itemsize``);
   an unaligned call runs the same kernel with ``nvec = 0``, all scalar.
4. **rows** otherwise (one or two dimensions, ``[rows, cols]``, one dimension as a single row):
   a 2-D grid-stride kernel reading each operand at ``row * rs + col * cs``, any strides
   (row or column broadcast, scalar, transposed, padded, a strided output), no division.

An operator reading each element's logical index (FILL_VALUE_SEQUENCE; ``plan_fast(..., logical=True)``) gets
a fast path only where rule 1 keeps the output's logical order (its non-size-1 dimensions already ordered by
decreasing stride: packed, padded rows, size-1 dimensions anywhere); then the flat kernel's element number and
the rows kernel's ``row * cols + col`` are the logical index. A permuted output goes to CuPy's
``ElementwiseKernel``, whose loop index is row-major over the sizes.

The launch configuration is a pure function of the plan (:func:`launch_config`), like the
kernel's size arguments (:func:`size_args`), so tests emulate both on the CPU.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Literal, Protocol

__all__ = [
    "DEFAULT_POLICY",
    "INDEX_LIMIT",
    "PACK_BYTES",
    "FastPlan",
    "LaunchPolicy",
    "coalesce",
    "in_logical_order",
    "is_aligned",
    "launch_config",
    "plan_fast",
    "plan_tensors",
    "size_args",
    "vector_count",
]

INDEX_LIMIT = 1 << 31  # element counts and element offsets must stay below this
PACK_BYTES = 16  # bytes in one vector access of the widest operand (the flat kernel's packs)

Layout = tuple[Sequence[int], Sequence[int]]  # (sizes, element strides)
Dim3 = tuple[int, int, int]


@dataclasses.dataclass(frozen=True, slots=True)
class LaunchPolicy:
    """Block and grid limits (untuned first choices; ``python -m benchmarks`` on a GPU will tell).

    ``block`` threads per block, a power of two >= 32. Grid-stride loops cap the grid at
    ``max_blocks`` blocks: about 32 per SM on an H100's 132 SMs (performance.md section 4.2(a)).
    ``max_grid_y`` is CUDA's limit on ``gridDim.y``.
    """

    block: int = 256
    max_blocks: int = 4096
    max_grid_y: int = 65535

    def __post_init__(self) -> None:
        if self.block < 32 or self.block & (self.block - 1) or self.block > 1024:
            raise ValueError(f"LaunchPolicy.block must be a power of two in [32, 1024] (got {self.block})")
        if not 1 <= self.max_blocks <= (INDEX_LIMIT // self.block) or not 1 <= self.max_grid_y <= 65535:
            raise ValueError(f"LaunchPolicy: grid limits out of range ({self})")


DEFAULT_POLICY = LaunchPolicy()


@dataclasses.dataclass(frozen=True, slots=True)
class FastPlan:
    """A fast path for one element-wise operator (see the module docstring).

    Operands are ordered inputs first, then the output. ``flat``: ``n`` elements in packs of
    ``pack``; ``broadcast[k]`` when input ``k`` is one element; ``rows == 1``, ``cols == n``,
    ``strides == ()``. ``rows``: the output is ``[rows, cols]``; ``strides[k]`` is operand
    ``k``'s (row stride, column stride) in elements; ``pack == 1``.
    """

    kind: Literal["flat", "rows"]
    n: int
    pack: int
    itemsizes: tuple[int, ...]
    broadcast: tuple[bool, ...] = ()
    rows: int = 1
    cols: int = 1
    strides: tuple[tuple[int, int], ...] = ()

    @property
    def broadcast_mask(self) -> int:
        """Bit ``k`` set when input ``k`` is a single element (the flat kernel's ``_bcast``)."""
        return sum(1 << k for k, b in enumerate(self.broadcast) if b)


class TensorLike(Protocol):
    """What :func:`plan_tensors` reads from a ``descriptors.TensorDesc``."""

    @property
    def sizes(self) -> tuple[int, ...]: ...

    @property
    def element_strides(self) -> tuple[int, ...]: ...

    @property
    def data_type(self) -> object: ...


def coalesce(
    sizes: Sequence[int], strides: Sequence[Sequence[int]]
) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Rule 1: drop size-1 dimensions, order by the last operand's (the output's) strides, merge.

    Returns the coalesced sizes and each operand's strides for them (outermost first).
    """
    dims = [d for d, s in enumerate(sizes) if s != 1]
    dims.sort(key=lambda d: -strides[-1][d])  # stable: ties keep their order
    out_sizes: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides]
    for d in reversed(dims):  # innermost first
        if out_sizes and all(st[d] == ost[0] * out_sizes[0] for st, ost in zip(strides, out_strides, strict=True)):
            out_sizes[0] *= sizes[d]
            continue
        out_sizes.insert(0, sizes[d])
        for st, ost in zip(strides, out_strides, strict=True):
            ost.insert(0, st[d])
    return tuple(out_sizes), tuple(tuple(s) for s in out_strides)


def plan_fast(
    inputs: Sequence[Layout], output: Layout, itemsizes: Sequence[int], logical: bool = False
) -> FastPlan | None:
    """The fast path for an element-wise operator, or None for CuPy's ``ElementwiseKernel``.

    ``inputs`` and ``output`` are (sizes, element strides); ``itemsizes`` are in the same
    order, inputs then output. Every operand must have the output's sizes (``ValueError``).
    ``logical``: the kernel reads the element's logical index, so only a plan whose loop runs in
    the output's logical (row-major) order will do (see the module docstring).
    """
    layouts = [*inputs, output]
    if len(itemsizes) != len(layouts):
        raise ValueError(f"plan_fast: {len(itemsizes)} item sizes for {len(layouts)} operands")
    sizes = tuple(int(s) for s in output[0])
    strides = [tuple(int(s) for s in st) for _, st in layouts]
    for k, (sz, st) in enumerate(layouts):
        if tuple(sz) != sizes or len(st) != len(sizes):
            raise ValueError(
                f"plan_fast: operand {k} has sizes {tuple(sz)} strides {tuple(st)}; the output has sizes {sizes}"
            )
    n = math.prod(sizes)
    if n == 0 or n >= INDEX_LIMIT:
        return None
    if logical and not in_logical_order(sizes, strides[-1]):
        return None
    if any(sum((s - 1) * x for s, x in zip(sizes, st, strict=True)) >= INDEX_LIMIT for st in strides):
        return None
    dims, dstrides = coalesce(sizes, strides)
    items = tuple(int(i) for i in itemsizes)
    if len(dims) > 2:
        return None
    if len(dims) == 0 or (len(dims) == 1 and dstrides[-1][0] == 1 and all(st[0] in (0, 1) for st in dstrides[:-1])):
        bcast = tuple(len(dims) == 1 and st[0] == 0 for st in dstrides[:-1])
        return FastPlan("flat", n, PACK_BYTES // max(items), items, bcast, rows=1, cols=n)
    if len(dims) == 1:
        return FastPlan("rows", n, 1, items, rows=1, cols=n, strides=tuple((0, st[0]) for st in dstrides))
    return FastPlan("rows", n, 1, items, rows=dims[0], cols=dims[1], strides=tuple((st[0], st[1]) for st in dstrides))


def in_logical_order(sizes: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether :func:`coalesce` keeps these (the output's) dimensions in logical order: the strides of the
    dimensions of size > 1 do not increase from outer to inner (its sort is stable)."""
    kept = [int(st) for sz, st in zip(sizes, strides, strict=True) if sz != 1]
    return all(a >= b for a, b in zip(kept, kept[1:], strict=False))


def plan_tensors(inputs: Sequence[TensorLike], output: TensorLike, logical: bool = False) -> FastPlan | None:
    """:func:`plan_fast` for ``TensorDesc`` objects (absent optional inputs left out by the caller)."""
    ts = [*inputs, output]
    return plan_fast(
        [(t.sizes, t.element_strides) for t in inputs],
        (output.sizes, output.element_strides),
        [t.data_type.itemsize for t in ts],  # type: ignore[attr-defined]
        logical,
    )


def is_aligned(plan: FastPlan, pointers: Sequence[int]) -> bool:
    """Whether a flat call may use packs: each non-broadcast operand's address (inputs, then the
    output) a multiple of ``pack * itemsize``. Always False for ``rows`` (no packs)."""
    if plan.kind != "flat":
        return False
    flags = (*plan.broadcast, False)
    return all(b or p % (plan.pack * i) == 0 for p, i, b in zip(pointers, plan.itemsizes, flags, strict=True))


def vector_count(plan: FastPlan, aligned: bool) -> int:
    """``nvec``: whole packs the flat kernel moves (0 when the call is not aligned)."""
    return plan.n // plan.pack if aligned and plan.kind == "flat" else 0


def size_args(plan: FastPlan, aligned: bool) -> tuple[int, ...]:
    """The kernel's trailing ``unsigned int`` arguments (``FastKernelSource.sizes`` order).

    ``flat``: ``(n, nvec, broadcast_mask)``; ``rows``: ``(rows, cols, rs_0, cs_0, ..., rs_out, cs_out)``.
    """
    if plan.kind == "flat":
        return (plan.n, vector_count(plan, aligned), plan.broadcast_mask)
    return (plan.rows, plan.cols, *(x for st in plan.strides for x in st))


def _block_x(cols: int, block: int) -> int:
    """Threads across a row: below a warp, the power of two >= ``cols``; else the widest width in
    [32, block] that pads ``cols`` by at most 1/8, or failing that the one padding least."""
    if cols < 32:
        return min(block, 1 << (cols - 1).bit_length())
    widths = [w for w in (1024, 512, 256, 128, 64, 32) if w <= block]

    def padded(w: int) -> int:
        return -(-cols // w) * w

    return next((w for w in widths if 8 * padded(w) <= 9 * cols), min(widths, key=padded))


def launch_config(plan: FastPlan, aligned: bool = True, policy: LaunchPolicy = DEFAULT_POLICY) -> tuple[Dim3, Dim3]:
    """(grid, block) of a launch. ``flat``: one thread per pack (per element when unaligned) up
    to ``max_blocks`` blocks. ``rows``: ``block_x`` threads across a row (see ``_block_x``),
    ``block // block_x`` rows per block, the grid capped at ``max_blocks`` blocks and
    ``max_grid_y`` in y; grid-stride loops cover the rest."""
    if plan.kind == "flat":
        nvec = vector_count(plan, aligned)
        work = nvec + (plan.n - nvec * plan.pack)
        return (max(1, min(-(-work // policy.block), policy.max_blocks)), 1, 1), (policy.block, 1, 1)
    bx = _block_x(plan.cols, policy.block)
    by = max(1, min(policy.block // bx, plan.rows))
    gx = min(-(-plan.cols // bx), policy.max_blocks)
    gy = min(-(-plan.rows // by), policy.max_grid_y, max(1, policy.max_blocks // gx))
    return (gx, gy, 1), (bx, by, 1)
