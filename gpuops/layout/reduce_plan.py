"""How a reduction runs on the GPU: one ``ReductionKernel`` launch, or two passes.

CuPy's ``ReductionKernel`` gives each block a few outputs (cupy/_core/_reduction.pyx
``_get_block_specs``), so a reduction to few outputs runs on few blocks, down to a single
block for a full reduction (cupy#6512: ``sum`` of 2**22 doubles 3.06 ms on one block vs
0.32 ms split across blocks, sonots/cumo#235). gpuops decides on the host, once per
compiled operator:

- **one pass** when there are enough outputs (``TwoPassPolicy.max_outputs`` or more), the
  reduction is short (fewer than ``min_reduced`` elements per output) or the whole input is
  small (fewer than ``min_total`` elements: one launch beats two there);
- **two passes** otherwise: the first reduced axis (after dropping size-1 axes and merging
  contiguous neighbours) is split into ``parts`` pieces of ``q`` elements, kept as an output
  axis, so pass 1 has ``outputs * parts`` outputs and fills the GPU; a remainder of fewer
  than ``q`` elements, if any, is one more part, reduced by its own launch. Pass 2 reduces
  the parts. Partial accumulators keep the accumulator type (float32 for 16-bit floats).

Everything here is shape arithmetic on (sizes, element strides), shared by tests on the CPU.
"""

from __future__ import annotations

import dataclasses
import math

__all__ = [
    "DEFAULT_POLICY",
    "ROWS_BLOCK",
    "ColumnsPlan",
    "Layout",
    "RowsPlan",
    "TwoPassPlan",
    "TwoPassPolicy",
    "column_out_strides",
    "column_strides",
    "line_strides",
    "plan_columns",
    "plan_rows",
    "plan_two_pass",
    "split_columns",
    "split_rows",
]


@dataclasses.dataclass(frozen=True, slots=True)
class TwoPassPolicy:
    """When to split a reduction, and into how many parts (see the module docstring).

    The defaults are untuned first choices (no GPU has run them yet; the reduction cases of
    ``python -m benchmarks`` on a GPU will tell). CuPy's block takes up to 32 neighbouring
    outputs when they are contiguous in the input (``_get_block_specs``), else about one, so
    8192 outputs make 256+ blocks (two per SM of an H100). Pass 1 aims at ``target_blocks``
    blocks, each part holding at least ``min_part`` elements.
    """

    max_outputs: int = 8192
    min_reduced: int = 8192
    min_total: int = 1 << 18
    target_blocks: int = 1024
    min_part: int = 512


DEFAULT_POLICY = TwoPassPolicy()


@dataclasses.dataclass(frozen=True, slots=True)
class Layout:
    """A strided view of the input: sizes, element strides, element offset, reduced axes.

    ``dims`` maps each dimension to the original dimension it starts at (after merging).
    """

    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    axes: tuple[int, ...]
    dims: tuple[int, ...] = ()

    @property
    def out_sizes(self) -> tuple[int, ...]:
        """The keepdims output shape of this layout."""
        return tuple(1 if i in self.axes else s for i, s in enumerate(self.sizes))


@dataclasses.dataclass(frozen=True, slots=True)
class TwoPassPlan:
    """Pass 1 reduces ``main`` (and ``rest``) into partials; pass 2 reduces the partials.

    ``partial_sizes`` is the output's shape with the split axis ``axis`` holding the parts;
    ``main`` writes parts ``[0, parts)``, viewed with a unit axis after ``axis``; ``rest``
    (when the split left a remainder) writes part ``parts``. ``span`` is the number of
    reduced elements per part: part ``p`` starts at reduced index ``p * span``.
    """

    input: Layout
    main: Layout
    rest: Layout | None
    axis: int
    parts: int
    span: int
    partial_sizes: tuple[int, ...]

    @property
    def total_parts(self) -> int:
        return self.parts + (self.rest is not None)


def _simplify(sizes: tuple[int, ...], strides: tuple[int, ...], axes: tuple[int, ...]) -> Layout:
    """Drop size-1 reduced axes and merge neighbouring reduced axes that form one stride run.

    Row-major order over the reduced axes is kept, so an index over them is unchanged.
    """
    red = set(axes)
    s_out: list[int] = []
    st_out: list[int] = []
    ax_out: list[int] = []
    dims: list[int] = []
    for i, (s, st) in enumerate(zip(sizes, strides, strict=True)):
        if i in red and s == 1:
            continue
        if i in red and ax_out and ax_out[-1] == len(s_out) - 1 and st_out[-1] == st * s:
            s_out[-1] *= s
            st_out[-1] = st
            continue
        if i in red:
            ax_out.append(len(s_out))
        s_out.append(s)
        st_out.append(st)
        dims.append(i)
    return Layout(tuple(s_out), tuple(st_out), 0, tuple(ax_out), tuple(dims))


def plan_two_pass(
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    axes: tuple[int, ...],
    policy: TwoPassPolicy | None = None,
) -> TwoPassPlan | None:
    """The two-pass layout of a reduction, or None when one launch is the right choice.

    ``policy`` defaults to the module's ``DEFAULT_POLICY``, read at each call (a test may replace it to
    send small reductions down the two-pass path)."""
    if policy is None:
        policy = DEFAULT_POLICY
    red = set(axes)
    outputs = math.prod(s for i, s in enumerate(sizes) if i not in red)
    reduced = math.prod(sizes[i] for i in red)
    if outputs >= policy.max_outputs or reduced < policy.min_reduced or outputs * reduced < policy.min_total:
        return None
    lay = _simplify(sizes, strides, axes)
    r = lay.axes[0]
    length = lay.sizes[r]
    inner = math.prod(lay.sizes[a] for a in lay.axes[1:])
    # Outputs per CuPy block in pass 1: up to 32 when the innermost dimension is a kept,
    # contiguous one (its outputs are neighbours in memory), else one.
    last = len(lay.sizes) - 1
    per_block = min(32, lay.sizes[last]) if last not in lay.axes and lay.strides[last] == 1 else 1
    want = max(2, policy.target_blocks * per_block // outputs)
    parts = min(length, want, max(1, reduced // policy.min_part))
    if parts < 2:
        return None
    q = length // parts
    rem = length - parts * q
    st = lay.strides[r]
    main = Layout(
        lay.sizes[:r] + (parts, q) + lay.sizes[r + 1 :],
        lay.strides[:r] + (q * st, st) + lay.strides[r + 1 :],
        0,
        tuple(a + 1 if a >= r else a for a in lay.axes),
    )
    rest = None
    if rem:
        rest = Layout(lay.sizes[:r] + (rem,) + lay.sizes[r + 1 :], lay.strides, parts * q * st, lay.axes)
    partial = lay.out_sizes
    partial = partial[:r] + (parts + (rem > 0),) + partial[r + 1 :]
    return TwoPassPlan(lay, main, rest, r, parts, q * inner, partial)


@dataclasses.dataclass(frozen=True, slots=True)
class RowsPlan:
    """A reduction over one contiguous span per output: output ``r`` (at element ``r * out_stride`` of the output
    buffer) reduces the ``cols`` elements from element ``r * in_stride`` of the input buffer on (issue 33's rows
    kernel, ``codegen.reduce_rows.rows_kernel``). ``threads``: the threads that reduce one row (a power of two from 32
    to 256; the 256-thread block holds ``256 // threads`` rows)."""

    rows: int
    cols: int
    in_stride: int
    out_stride: int
    threads: int
    parts: int = 1

    @property
    def rows_per_block(self) -> int:
        return ROWS_BLOCK // self.threads

    @property
    def span(self) -> int:
        """Columns per part of a split row (``parts`` > 1): consecutive spans of ``span``, the last one shorter."""
        return -(-self.cols // self.parts)


def split_rows(plan: RowsPlan, policy: TwoPassPolicy | None = None) -> RowsPlan:
    """``plan`` for a reduction ``plan_two_pass`` splits (few rows, long ones): each row cut into ``parts``
    consecutive spans of at least ``policy.min_part`` columns, about ``policy.target_blocks`` spans in all, each
    reduced by a 256-thread block; the last block of a row to finish combines the row's partials (issue 33's split
    rows kernel: one launch where two passes took two). ``parts`` 1: the plan as it is."""
    policy = policy if policy is not None else DEFAULT_POLICY
    parts = min(max(2, -(-policy.target_blocks // plan.rows)), plan.cols // policy.min_part)
    if parts < 2:
        return plan
    return dataclasses.replace(plan, threads=ROWS_BLOCK, parts=parts)


ROWS_BLOCK = 256  # threads per block of the rows kernel
ROWS_PER_THREAD = 8  # elements each thread of a row reads, about: 32 threads for rows up to 256, ... 256 from 1024 on


def _run_stride(sizes: list[int], strides: list[int]) -> int | None:
    """The stride of the innermost of ``sizes`` when the dimensions form one stride run (row-major), else None."""
    if not sizes:
        return 0
    for k in range(len(sizes) - 1):
        if strides[k] != strides[k + 1] * sizes[k + 1]:
            return None
    return strides[-1]


def plan_rows(
    sizes: tuple[int, ...], strides: tuple[int, ...], out_strides: tuple[int, ...], axes: tuple[int, ...]
) -> RowsPlan | None:
    """The rows plan of a reduction, or None when its reduced elements are not one contiguous span per output
    (reduced axes of size > 1 after every kept one, together one run of element stride 1) or its kept axes do not
    merge into one row axis in both the input and the output. Size-1 axes are ignored."""
    red = set(axes)
    kept = [i for i, s in enumerate(sizes) if s > 1 and i not in red]
    reduced = [i for i, s in enumerate(sizes) if s > 1 and i in red]
    if kept and reduced and min(reduced) < max(kept):
        return None
    if reduced and _run_stride([sizes[i] for i in reduced], [strides[i] for i in reduced]) != 1:
        return None
    in_stride = _run_stride([sizes[i] for i in kept], [strides[i] for i in kept])
    out_stride = _run_stride([sizes[i] for i in kept], [out_strides[i] for i in kept])
    if in_stride is None or out_stride is None:
        return None
    cols = math.prod(sizes[i] for i in reduced)
    threads = 32
    while threads < ROWS_BLOCK and threads * ROWS_PER_THREAD < cols:
        threads *= 2
    return RowsPlan(math.prod(sizes[i] for i in kept), cols, in_stride, out_stride, threads)


def line_strides(sizes: tuple[int, ...], strides: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, int] | None:
    """``(row stride, column stride)`` (elements) through which the rows kernel reads a tensor of a rows plan's
    sizes: element ``J`` of row ``r`` at ``r * row stride + J * column stride`` (rows: the kept axes row-major,
    ``J``: the reduced axes row-major). None when the kept axes, or the reduced ones, do not form one stride run
    (a transposed view, a broadcast over part of the reduced axes): such an input is read through a packed copy.
    Zero strides (broadcasts over all the kept, or all the reduced, axes) are runs too. Size-1 axes are ignored."""
    red = set(axes)
    kept = [i for i, s in enumerate(sizes) if s > 1 and i not in red]
    reduced = [i for i, s in enumerate(sizes) if s > 1 and i in red]
    row = _run_stride([sizes[i] for i in kept], [strides[i] for i in kept])
    col = _run_stride([sizes[i] for i in reduced], [strides[i] for i in reduced])
    return None if row is None or col is None else (row, col)


@dataclasses.dataclass(frozen=True, slots=True)
class ColumnsPlan:
    """A reduction over axes with kept axes after them (an outer or a middle axis: issue 33's columns kernel,
    ``codegen.reduce_rows.columns_kernel``): output ``(o, i)`` (``o`` over the kept axes before the reduced ones, ``i``
    over those after, each row-major) reduces ``x[o, J, i]`` over ``J`` (the reduced axes row-major). A block of
    256 threads is ``columns`` neighbouring outputs (consecutive ``i``: coalesced reads) x ``lanes`` threads each;
    lane ``l`` reduces ``J = l, l + lanes, ...``, then the lanes combine in a tree. ``*_strides``: the input's
    (outer, reduced, inner) and the output's (outer, inner) element strides."""

    outer: int
    reduced: int
    inner: int
    in_strides: tuple[int, int, int]
    out_strides: tuple[int, int]
    columns: int
    parts: int = 1

    @property
    def lanes(self) -> int:
        return ROWS_BLOCK // self.columns

    @property
    def tiles(self) -> int:
        """Blocks' worth of outputs: ``outer`` x the inner outputs in tiles of ``columns``."""
        return self.outer * -(-self.inner // self.columns)

    @property
    def span(self) -> int:
        """Reduced elements per part of a split plan (``parts`` > 1): consecutive spans, the last one shorter."""
        return -(-self.reduced // self.parts)


def split_columns(plan: ColumnsPlan, policy: TwoPassPolicy | None = None) -> ColumnsPlan:
    """``plan`` for a reduction ``plan_two_pass`` splits (few outputs over a long outer or middle axis): the reduced
    extent cut into ``parts`` consecutive spans of at least ``policy.min_part``, about ``policy.target_blocks``
    blocks in all; the last block of a tile to finish combines its columns' partials (one launch). ``parts`` 1:
    the plan as it is."""
    policy = policy if policy is not None else DEFAULT_POLICY
    parts = min(max(2, -(-policy.target_blocks // plan.tiles)), plan.reduced // policy.min_part)
    return plan if parts < 2 else dataclasses.replace(plan, parts=parts)


def _column_groups(sizes: tuple[int, ...], axes: tuple[int, ...]) -> tuple[list[int], list[int], list[int]] | None:
    """The (outer kept, reduced, inner kept) axes of size > 1 when the reduced ones are adjacent and some kept axis
    follows them, else None."""
    red = set(axes)
    dims = [i for i, s in enumerate(sizes) if s > 1]
    reduced = [i for i in dims if i in red]
    if not reduced:
        return None
    first, last = dims.index(reduced[0]), dims.index(reduced[-1])
    if last - first + 1 != len(reduced) or last == len(dims) - 1:
        return None
    return dims[:first], reduced, dims[last + 1 :]


def column_strides(
    sizes: tuple[int, ...], strides: tuple[int, ...], axes: tuple[int, ...]
) -> tuple[int, int, int] | None:
    """The (outer, reduced, inner) element strides through which the columns kernel reads a tensor of a columns
    plan's sizes, or None when one of the three groups forms no stride run (then a packed copy is read)."""
    groups = _column_groups(sizes, axes)
    if groups is None:
        return None
    found = [_run_stride([sizes[i] for i in g], [strides[i] for i in g]) for g in groups]
    if any(f is None for f in found):
        return None
    so, sr, si = found
    return (so or 0, sr or 0, si or 0)


def column_out_strides(
    sizes: tuple[int, ...], out_strides: tuple[int, ...], axes: tuple[int, ...]
) -> tuple[int, int] | None:
    """The (outer, inner) element strides of a columns plan's output (``sizes``: the reduction input's), or None
    when its outer or inner kept axes form no stride run."""
    groups = _column_groups(sizes, axes)
    if groups is None:
        return None
    outer, _, inner = groups
    so, si = (_run_stride([sizes[i] for i in g], [out_strides[i] for i in g]) for g in (outer, inner))
    return None if so is None or si is None else (so, si)


def plan_columns(
    sizes: tuple[int, ...], strides: tuple[int, ...], out_strides: tuple[int, ...], axes: tuple[int, ...]
) -> ColumnsPlan | None:
    """The columns plan of a reduction, or None: its reduced axes (of size > 1) must be adjacent with a kept axis
    after them, and the input's three groups (outer kept, reduced, inner kept) and the output's two kept ones must
    each form one stride run, the input's inner one of stride 1 (coalesced)."""
    groups = _column_groups(sizes, axes)
    found = column_strides(sizes, strides, axes)
    out = column_out_strides(sizes, out_strides, axes)
    if groups is None or found is None or found[2] != 1 or out is None:
        return None
    outer, reduced, inner = groups
    n_inner = math.prod(sizes[i] for i in inner)
    columns = 1
    while columns < 32 and columns < n_inner:
        columns *= 2
    return ColumnsPlan(
        math.prod(sizes[i] for i in outer),
        math.prod(sizes[i] for i in reduced),
        n_inner,
        found,
        out,
        columns,
    )
