"""``gpuops.layout.reduce_plan.plan_two_pass`` on the CPU: the plan's layouts, emulated with NumPy.

A plan is shape arithmetic only, so its correctness is checked without a GPU: NumPy views
are built from its :class:`~gpuops.layout.reduce_plan.Layout` objects over the flat input buffer
(``as_strided``, strides in elements times the item size, ``offset`` in elements), the two
passes are run with NumPy as ``CupyReduceKernel.reduce`` runs them with CuPy, and the result
must equal a direct NumPy reduction of the input. A visit count over the buffer checks that
``main`` and ``rest`` together read every input element exactly once.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from gpuops.layout import reduce_plan
from gpuops.layout.reduce_plan import Layout, TwoPassPlan, TwoPassPolicy
from gpuops.layout.reduce_plan import plan_two_pass as _plan_two_pass

Sizes = tuple[int, ...]

# The cases below were worked out by hand for this policy (small enough to emulate quickly);
# the planning arithmetic is the same for the default policy, only the thresholds differ.
POLICY = TwoPassPolicy(max_outputs=1024, min_reduced=8192, min_total=0, target_blocks=8192, min_part=1024)


def plan_two_pass(sizes: Sizes, strides: Sizes, axes: tuple[int, ...]) -> TwoPassPlan | None:
    return _plan_two_pass(sizes, strides, axes, POLICY)


@dataclasses.dataclass(frozen=True)
class Case:
    """An input layout over a flat buffer: sizes and element strides, the reduced axes."""

    name: str
    sizes: Sizes
    strides: Sizes
    axes: tuple[int, ...]
    remainder: bool  # whether the split is expected to leave a remainder part (chosen by hand)

    @property
    def buffer_len(self) -> int:
        return sum((s - 1) * st for s, st in zip(self.sizes, self.strides, strict=True)) + 1


def packed(sizes: Sizes) -> Sizes:
    out = [1] * len(sizes)
    for i in range(len(sizes) - 2, -1, -1):
        out[i] = out[i + 1] * sizes[i + 1]
    return tuple(out)


def transposed(sizes: Sizes, perm: Sizes) -> tuple[Sizes, Sizes]:
    """A view of shape ``sizes`` that is the ``perm`` transpose of a packed array."""
    base = tuple(sizes[perm.index(i)] for i in range(len(sizes)))  # base[perm[k]] == sizes[k]
    bst = packed(base)
    return sizes, tuple(bst[p] for p in perm)


def _case(name: str, sizes: Sizes, strides: Sizes, axes: tuple[int, ...], remainder: bool) -> Case:
    return Case(name, sizes, strides, axes, remainder)


# Every case has few outputs (< 1024) and a long reduction (>= 8192 elements per output).
# ``remainder`` was worked out by hand from the module docstring's rule: the first reduced
# axis (after simplification) of length L is cut into ``parts`` pieces; L % parts != 0 leaves
# a remainder. For L = 9216 = 9 * 1024 and L = 16384 = 16 * 1024 the cut is exact.
CASES = [
    _case("contiguous-(1,)-rem", (3, 10000), packed((3, 10000)), (1,), True),
    _case("contiguous-(1,)-exact", (4, 9216), packed((4, 9216)), (1,), False),
    _case("contiguous-(0,)", (10000, 3), packed((10000, 3)), (0,), True),
    _case("transposed-(0,)", *transposed((10000, 3), (1, 0)), (0,), True),
    _case("transposed-(1,)", *transposed((5, 9216), (1, 0)), (1,), False),
    _case("padded-(1,)", (3, 10000), (10007, 1), (1,), True),
    _case("padded-3d-(0,2)", (100, 3, 100), (3 * 104 + 5, 104, 1), (0, 2), True),
    _case("broadcast-kept-(1,)", (5, 9000), (0, 1), (1,), False),
    _case("broadcast-reduced-(1,)", (5, 9001), (1, 0), (1,), True),
    _case("broadcast-reduced-(0,1)", (64, 160, 2), (0, 2, 1), (0, 1), True),
    _case("contiguous-(0,1)", (16, 1024, 3), packed((16, 1024, 3)), (0, 1), False),
    _case("contiguous-(0,2)", (100, 3, 100), packed((100, 3, 100)), (0, 2), True),
    _case("contiguous-all", (8, 32, 64), packed((8, 32, 64)), (0, 1, 2), False),
    _case("contiguous-all-rem", (7, 33, 41), packed((7, 33, 41)), (0, 1, 2), True),
    _case("transposed-all", *transposed((7, 33, 41), (2, 0, 1)), (0, 1, 2), False),
    _case("unit-reduced-axis-dropped", (1, 3, 10000), packed((1, 3, 10000)), (0, 2), True),
    _case("middle-(1,)", (2, 9000, 3), packed((2, 9000, 3)), (1,), False),
    _case("transposed-(0,2)", *transposed((90, 2, 100), (2, 1, 0)), (0, 2), True),
    _case("short-first-axis-(0,2)", (2, 3, 8192), packed((2, 3, 8192)), (0, 2), False),
]
IDS = [c.name for c in CASES]


# ---------------------------------------------------------------------------------------------
# Views and the two passes, in NumPy


def view(buf: np.ndarray, layout_sizes: Sizes, layout_strides: Sizes, offset: int = 0) -> np.ndarray:
    """``buf`` (flat) seen through sizes, element strides and an element offset."""
    item = buf.itemsize
    return as_strided(
        buf[offset:], shape=layout_sizes, strides=tuple(s * item for s in layout_strides), writeable=False
    )


def layout_view(buf: np.ndarray, lay: Layout) -> np.ndarray:
    return view(buf, lay.sizes, lay.strides, lay.offset)


def input_view(buf: np.ndarray, case: Case) -> np.ndarray:
    return view(buf, case.sizes, case.strides)


def part_slots(partial: np.ndarray, plan: TwoPassPlan) -> tuple[np.ndarray, np.ndarray | None]:
    """Where pass 1 writes: parts [0, parts) with a unit axis after ``plan.axis``; part ``parts``."""
    r = plan.axis
    head = (slice(None),) * r
    main = np.expand_dims(partial[(*head, slice(0, plan.parts))], r + 1)
    rest = partial[(*head, slice(plan.parts, plan.parts + 1))] if plan.rest is not None else None
    return main, rest


Reducer = Callable[..., np.ndarray]


def two_pass(buf: np.ndarray, plan: TwoPassPlan, reduce: Reducer) -> np.ndarray:
    """Pass 1 (main and rest into the partials), then pass 2 over ``plan.axis``."""
    partial = np.full(plan.partial_sizes, np.nan if buf.dtype.kind == "f" else -1, dtype=buf.dtype)
    main_slot, rest_slot = part_slots(partial, plan)
    main = layout_view(buf, plan.main)
    main_slot[...] = reduce(main, axis=plan.main.axes, keepdims=True)
    if plan.rest is not None:
        assert rest_slot is not None
        rest = layout_view(buf, plan.rest)
        rest_slot[...] = reduce(rest, axis=plan.rest.axes, keepdims=True)
    if buf.dtype.kind == "f":
        assert not np.isnan(partial).any(), "a part was never written"
    return reduce(partial, axis=(plan.axis,), keepdims=True)


def _local_argmax(v: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(max, first index of it) over ``axes``, the index row-major over them; keepdims shapes."""
    kept = [i for i in range(v.ndim) if i not in axes]
    moved = np.transpose(v, kept + list(axes))
    flat = moved.reshape(*moved.shape[: len(kept)], -1)
    j = np.argmax(flat, axis=-1)
    val = np.take_along_axis(flat, j[..., None], axis=-1)[..., 0]
    shape = [1 if i in axes else s for i, s in enumerate(v.shape)]
    return val.reshape(shape), j.reshape(shape)


def two_pass_argmax(buf: np.ndarray, plan: TwoPassPlan) -> np.ndarray:
    """ARGMAX in two passes: per part (value, local J); then the winner, index part * span + J."""
    vals = np.full(plan.partial_sizes, np.iinfo(buf.dtype).min, dtype=buf.dtype)
    idx = np.full(plan.partial_sizes, -1, dtype=np.int64)
    (vm, vr), (im, ir) = part_slots(vals, plan), part_slots(idx, plan)
    vm[...], im[...] = _local_argmax(layout_view(buf, plan.main), plan.main.axes)
    if plan.rest is not None:
        assert vr is not None and ir is not None
        vr[...], ir[...] = _local_argmax(layout_view(buf, plan.rest), plan.rest.axes)
    assert (idx >= 0).all(), "a part was never written"
    # Pass 2: the first part holding the maximum (its indices precede later parts' indices).
    p = np.argmax(vals, axis=plan.axis, keepdims=True)
    j = np.take_along_axis(idx, p, axis=plan.axis)
    return p * plan.span + j


def direct_argmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """np.argmax over the reduced axes flattened row-major (moveaxis + reshape); keepdims shape."""
    moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim)))
    flat = moved.reshape(*moved.shape[: x.ndim - len(axes)], -1)
    idx = np.argmax(flat, axis=-1)
    return idx.reshape([1 if i in axes else s for i, s in enumerate(x.shape)])


def get_plan(case: Case) -> TwoPassPlan:
    plan = plan_two_pass(case.sizes, case.strides, case.axes)
    assert plan is not None, case
    return plan


# ---------------------------------------------------------------------------------------------
# When there are two passes


@pytest.mark.parametrize(
    ("sizes", "axes"),
    [
        ((2048, 8192), (1,)),  # many outputs
        ((1024, 8192), (1,)),
        ((8192, 1024), (0,)),
        ((4, 8, 1024, 32), (2,)),  # 4*8*32 = 1024 outputs
        ((4, 100), (1,)),  # short reductions
        ((3, 8191), (1,)),
        ((8191,), (0,)),
        ((1, 1, 8191), (0, 1, 2)),
        ((64, 127), (0, 1)),
        ((8192, 3), (1,)),  # a long input, a short reduction
        ((2, 1, 3), (1,)),
    ],
)
def test_one_pass(sizes: Sizes, axes: tuple[int, ...]) -> None:
    assert plan_two_pass(sizes, packed(sizes), axes) is None


@pytest.mark.parametrize(
    ("sizes", "axes"),
    [((1023, 8192), (1,)), ((8192,), (0,)), ((1, 8192), (1,)), ((2, 4096, 1), (0, 1)), ((8, 32, 32), (0, 1, 2))],
)
def test_two_pass_at_the_thresholds(sizes: Sizes, axes: tuple[int, ...]) -> None:
    plan = plan_two_pass(sizes, packed(sizes), axes)
    assert plan is not None
    assert plan.parts >= 2


def test_plan_ignores_strides_for_the_decision() -> None:
    sizes = (3, 10000)
    assert plan_two_pass(sizes, (10007, 1), (1,)) is not None
    assert plan_two_pass(sizes, (1, 0), (1,)) is not None
    assert plan_two_pass((3, 100), (1000, 7), (1,)) is None


# ---------------------------------------------------------------------------------------------
# The plan's shapes


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_plan_shapes(case: Case) -> None:
    plan = get_plan(case)
    lay = plan.input
    outputs = math.prod(s for i, s in enumerate(case.sizes) if i not in case.axes)
    reduced = math.prod(case.sizes[a] for a in case.axes)
    # The simplified layout: same elements, same kept sizes in order, reduced axes merged/dropped.
    assert math.prod(lay.sizes) == math.prod(case.sizes)
    assert [s for i, s in enumerate(lay.sizes) if i not in lay.axes] == [
        s for i, s in enumerate(case.sizes) if i not in case.axes
    ]
    assert math.prod(lay.sizes[a] for a in lay.axes) == reduced
    assert all(lay.sizes[a] > 1 for a in lay.axes)
    assert lay.offset == 0
    assert len(lay.dims) == len(lay.sizes)
    assert [case.sizes[d] for i, d in enumerate(lay.dims) if i not in lay.axes] == [
        s for i, s in enumerate(lay.sizes) if i not in lay.axes
    ]
    # The split axis is the first reduced axis.
    r = plan.axis
    assert r == lay.axes[0]
    length = lay.sizes[r]
    inner = reduced // length
    assert plan.main.sizes[r] == plan.parts
    q = plan.main.sizes[r + 1]
    assert plan.main.strides[r] == q * lay.strides[r] and plan.main.strides[r + 1] == lay.strides[r]
    assert plan.main.offset == 0
    assert r not in plan.main.axes and r + 1 in plan.main.axes
    assert len(plan.main.axes) == len(lay.axes)
    assert plan.span == q * inner
    rem = length - plan.parts * q
    assert 0 <= rem < q
    assert (plan.rest is not None) == (rem > 0) == case.remainder
    assert plan.total_parts == plan.parts + (1 if rem else 0)
    want_partial = list(lay.out_sizes)
    want_partial[r] = plan.total_parts
    assert plan.partial_sizes == tuple(want_partial)
    assert math.prod(plan.partial_sizes) == outputs * plan.total_parts
    if plan.rest is not None:
        assert plan.rest.sizes[r] == rem
        assert plan.rest.offset == plan.parts * q * lay.strides[r]
        assert plan.rest.axes == lay.axes
    # Pass 1 has more outputs than the one-pass reduction (that is the point).
    assert outputs * plan.parts > outputs


def test_hand_computed_plan() -> None:
    # (3, 10000) over axis 1: 9 parts of 1111 and a remainder of 1 element.
    plan = plan_two_pass((3, 10000), (10000, 1), (1,))
    assert plan is not None
    assert (plan.axis, plan.parts, plan.span, plan.total_parts) == (1, 9, 1111, 10)
    assert plan.partial_sizes == (3, 10)
    assert plan.main == Layout((3, 9, 1111), (10000, 1111, 1), 0, (2,))
    assert plan.rest == Layout((3, 1), (10000, 1), 9999, (1,))
    # All of (8, 32, 64): one merged axis of 16384, 16 parts of 1024, nothing left over.
    plan = plan_two_pass((8, 32, 64), (2048, 64, 1), (0, 1, 2))
    assert plan is not None
    assert plan.input.sizes == (16384,) and plan.input.axes == (0,)
    assert (plan.parts, plan.span, plan.rest, plan.partial_sizes) == (16, 1024, None, (16,))


# ---------------------------------------------------------------------------------------------
# Coverage: main + rest read every input element exactly once


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_element_read_once(case: Case) -> None:
    plan = get_plan(case)
    index = np.arange(case.buffer_len, dtype=np.int64)
    want = np.bincount(input_view(index, case).ravel(), minlength=case.buffer_len)
    got = np.bincount(layout_view(index, plan.main).ravel(), minlength=case.buffer_len)
    count = math.prod(plan.main.sizes)
    if plan.rest is not None:
        got += np.bincount(layout_view(index, plan.rest).ravel(), minlength=case.buffer_len)
        count += math.prod(plan.rest.sizes)
    assert count == math.prod(case.sizes)
    np.testing.assert_array_equal(got, want)
    if 0 not in case.strides:  # no broadcast: each logical element is its own buffer element
        assert set(np.unique(want)) <= {0, 1}
    # The simplified layout is the same set of reads.
    np.testing.assert_array_equal(np.bincount(layout_view(index, plan.input).ravel(), minlength=case.buffer_len), want)


# ---------------------------------------------------------------------------------------------
# Two passes emulated with NumPy equal the direct reduction


def _data(case: Case, dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(case.buffer_len).astype(dtype)
    return rng.integers(-50, 50, size=case.buffer_len).astype(dtype)


def _direct(x: np.ndarray, case: Case, reduce: Reducer, plan: TwoPassPlan) -> np.ndarray:
    """The keepdims reduction of the input, seen in the simplified layout's output shape."""
    return reduce(x, axis=case.axes, keepdims=True).reshape(plan.input.out_sizes)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_two_pass_sum(case: Case) -> None:
    plan = get_plan(case)
    buf = _data(case, np.int64, 1)  # integers: the sum is exact in any order
    got = two_pass(buf, plan, np.sum)
    assert got.shape == plan.input.out_sizes
    np.testing.assert_array_equal(got, _direct(input_view(buf, case), case, np.sum, plan))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_two_pass_float_sum(case: Case) -> None:
    plan = get_plan(case)
    buf = _data(case, np.float64, 2)
    got = two_pass(buf, plan, np.sum)
    np.testing.assert_allclose(got, _direct(input_view(buf, case), case, np.sum, plan), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_two_pass_max(case: Case) -> None:
    plan = get_plan(case)
    buf = _data(case, np.float64, 3)
    got = two_pass(buf, plan, np.max)
    np.testing.assert_array_equal(got, _direct(input_view(buf, case), case, np.max, plan))
    # The maximum sitting in the remainder (or the last part) is found too.
    buf[-1] = 1e9
    got = two_pass(buf, plan, np.max)
    np.testing.assert_array_equal(got, _direct(input_view(buf, case), case, np.max, plan))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("values", ["ties", "distinct"])
def test_two_pass_argmax(case: Case, values: str) -> None:
    plan = get_plan(case)
    rng = np.random.default_rng(4)
    if values == "ties":  # few distinct values: many ties, across parts too
        buf = rng.integers(0, 4, size=case.buffer_len).astype(np.int32)
    else:
        buf = rng.permutation(case.buffer_len).astype(np.int32)
    got = two_pass_argmax(buf, plan)
    want = direct_argmax(input_view(buf, case), case.axes).reshape(plan.input.out_sizes)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", [c for c in CASES if c.remainder and 0 not in c.strides], ids=lambda c: c.name)
def test_two_pass_argmax_winner_in_remainder(case: Case) -> None:
    """The last element of every reduction is the unique maximum: its index is n - 1."""
    plan = get_plan(case)
    buf = np.zeros(case.buffer_len, dtype=np.int32)
    x = as_strided(buf, shape=case.sizes, strides=tuple(s * buf.itemsize for s in case.strides))
    moved = np.moveaxis(x, case.axes, tuple(range(x.ndim - len(case.axes), x.ndim)))
    moved[(..., *([-1] * len(case.axes)))] = 7
    got = two_pass_argmax(buf, plan)
    n = math.prod(case.sizes[a] for a in case.axes)
    np.testing.assert_array_equal(got, np.full(plan.input.out_sizes, n - 1))


def test_default_policy_routes_the_benchmark_shapes() -> None:
    """The default policy: two passes exactly where CuPy would use few blocks on a big input."""
    n = 1 << 24
    full = _plan_two_pass((n,), (1,), (0,))
    assert full is not None and full.total_parts * full.span >= n and full.parts >= 256
    rows, cols = n // 1024, 1024
    outer = _plan_two_pass((rows, cols), (cols, 1), (0,))  # 1024 outputs, 16384 rows each
    assert outer is not None and outer.partial_sizes[1] == cols and outer.parts >= 16
    assert _plan_two_pass((rows, cols), (cols, 1), (1,)) is None  # 16384 outputs: enough blocks
    assert _plan_two_pass((1 << 16,), (1,), (0,)) is None  # small: one launch beats two


# ---------------------------------------------------------------------------------------------
# The rows plan (issue 33's rows kernel): one contiguous span per output, the kept axes one row axis.


@pytest.mark.parametrize(
    ("sizes", "strides", "out_strides", "axes", "want"),
    [
        # [64, 1024] over the last axis: 64 rows of 1024, output packed; 128 threads (8 elements each)
        ((64, 1024), (1024, 1), (1, 1), (1,), (64, 1024, 1024, 1, 128)),
        # [3, 4, 5] over the last two axes: 3 rows of 20 (axes 1, 2 merge: strides 5 = 1 * 5)
        ((3, 4, 5), (20, 5, 1), (1, 1, 1), (1, 2), (3, 20, 20, 1, 32)),
        # [3, 4, 5] over the last axis: kept axes 0, 1 merge into 12 rows of stride 5
        ((3, 4, 5), (20, 5, 1), (4, 1, 1), (2,), (12, 5, 5, 1, 32)),
        # 1-D: one row (strides 0 for the absent row axis)
        ((37,), (1,), (1,), (0,), (1, 37, 0, 0, 32)),
        # size-1 axes are ignored, wherever they are and whatever their strides
        ((1, 6, 1, 300), (999, 300, 7, 1), (5, 1, 3, 1), (2, 3), (6, 300, 300, 1, 64)),
        # 4096 per row: 256 threads (the block)
        ((2, 4096), (4096, 1), (1, 1), (1,), (2, 4096, 4096, 1, 256)),
    ],
)
def test_plan_rows(
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    out_strides: tuple[int, ...],
    axes: tuple[int, ...],
    want: tuple[int, ...],
) -> None:
    plan = reduce_plan.plan_rows(sizes, strides, out_strides, axes)
    assert plan is not None
    assert (plan.rows, plan.cols, plan.in_stride, plan.out_stride, plan.threads) == want
    assert plan.rows_per_block * plan.threads == reduce_plan.ROWS_BLOCK


@pytest.mark.parametrize(
    ("sizes", "strides", "out_strides", "axes"),
    [
        ((3, 4, 5), (20, 5, 1), (4, 1, 1), (0,)),  # an outer axis: not one span per output
        ((3, 4, 5), (20, 5, 1), (5, 1, 1), (1,)),  # the middle axis, kept axis after it
        ((3, 4, 5), (4, 1, 12), (4, 1, 1), (2,)),  # the reduced axis is not contiguous (permuted)
        ((3, 4, 5), (30, 7, 1), (4, 1, 1), (2,)),  # padded rows: the kept axes are not one stride run
        ((3, 4, 5), (20, 5, 1), (16, 8, 1), (2,)),  # nor in the output
    ],
)
def test_plan_rows_refuses(
    sizes: tuple[int, ...], strides: tuple[int, ...], out_strides: tuple[int, ...], axes: tuple[int, ...]
) -> None:
    assert reduce_plan.plan_rows(sizes, strides, out_strides, axes) is None


# ---------------------------------------------------------------------------------------------
# The columns plan (issue 33's columns kernel): an outer or a middle axis, kept axes after it.


@pytest.mark.parametrize(
    ("sizes", "strides", "out_strides", "axes", "want"),
    [
        # [300, 16] over axis 0: no outer axis, 300 reduced of stride 16, 16 inner; 16 outputs side by side
        ((300, 16), (16, 1), (16, 1), (0,), (1, 300, 16, (0, 16, 1), (0, 1), 16)),
        # [3, 4, 5] over the middle axis: 3 outer (stride 20), 4 reduced (stride 5), 5 inner; 8 columns (>= 5)
        ((3, 4, 5), (20, 5, 1), (5, 1, 1), (1,), (3, 4, 5, (20, 5, 1), (5, 1), 8)),
        # [2, 3, 4, 50] over axes 1, 2 (adjacent, merged: 12 of stride 50); the inner 50 takes 32 columns
        ((2, 3, 4, 50), (600, 200, 50, 1), (50, 50, 50, 1), (1, 2), (2, 12, 50, (600, 50, 1), (50, 1), 32)),
        # padded outer axis, a broadcast (stride-0) reduced axis, a padded output
        ((3, 4, 5), (30, 0, 1), (8, 1, 1), (1,), (3, 4, 5, (30, 0, 1), (8, 1), 8)),
        # size-1 axes are ignored wherever they are
        ((1, 7, 1, 9), (99, 9, 5, 1), (3, 1, 4, 1), (1, 2), (1, 7, 9, (0, 9, 1), (0, 1), 16)),
    ],
)
def test_plan_columns(
    sizes: tuple[int, ...],
    strides: tuple[int, ...],
    out_strides: tuple[int, ...],
    axes: tuple[int, ...],
    want: tuple[object, ...],
) -> None:
    plan = reduce_plan.plan_columns(sizes, strides, out_strides, axes)
    assert plan is not None
    got = (plan.outer, plan.reduced, plan.inner, plan.in_strides, plan.out_strides, plan.columns)
    assert got == want
    assert plan.columns * plan.lanes == reduce_plan.ROWS_BLOCK
    assert plan.tiles == plan.outer * -(-plan.inner // plan.columns)


@pytest.mark.parametrize(
    ("sizes", "strides", "out_strides", "axes"),
    [
        ((3, 4, 5), (20, 5, 1), (4, 1, 1), (2,)),  # the inner axis: the rows plan's
        ((3, 4, 5), (20, 5, 1), (1, 1, 1), (0, 1, 2)),  # everything: no kept axis after
        ((3, 4, 5), (20, 5, 1), (5, 1, 1), (0, 2)),  # reduced axes not adjacent
        ((3, 4, 5), (4, 1, 12), (5, 1, 1), (0,)),  # the inner kept axes are not of stride 1 (permuted)
        ((3, 4, 5), (20, 5, 2), (5, 1, 1), (1,)),  # inner stride 2: uncoalesced, CuPy's ReductionKernel
        ((3, 4, 5), (20, 5, 1), (1, 1, 3), (0,)),  # the output's inner axes form no run
    ],
)
def test_plan_columns_refuses(
    sizes: tuple[int, ...], strides: tuple[int, ...], out_strides: tuple[int, ...], axes: tuple[int, ...]
) -> None:
    assert reduce_plan.plan_columns(sizes, strides, out_strides, axes) is None


# ---------------------------------------------------------------------------------------------
# The split rows plan (issue 33): a few long rows, each in parts, one launch.


@pytest.mark.parametrize(
    ("rows", "cols", "policy", "parts"),
    [
        # one row of 5003, 1024 spans wanted, spans of at least 256: 5003 // 256 = 19 parts (of 264, the last 251)
        (1, 5003, reduce_plan.TwoPassPolicy(min_part=256), 19),
        # two rows of 2**17 under the default policy: 512 spans a row wanted, at most 2**17 // 512 = 256
        (2, 1 << 17, None, 256),
        # 8 rows of 2**20: 1024 / 8 = 128 spans a row
        (8, 1 << 20, None, 128),
        # rows too short for two spans of min_part: left whole (1 part)
        (4, 1000, None, 1),
    ],
)
def test_split_rows(rows: int, cols: int, policy: reduce_plan.TwoPassPolicy | None, parts: int) -> None:
    plan = reduce_plan.plan_rows((rows, cols), (cols, 1), (1, 1), (1,))
    assert plan is not None
    split = reduce_plan.split_rows(plan, policy)
    assert split.parts == parts
    if parts == 1:
        assert split == plan
    else:
        assert split.threads == reduce_plan.ROWS_BLOCK and (split.rows, split.cols) == (rows, cols)
        assert (parts - 1) * split.span < cols <= parts * split.span


@pytest.mark.parametrize(
    ("sizes", "axes", "policy", "tiles", "parts"),
    [
        # [2**17, 3] over axis 0: one tile (3 outputs in 4 columns), 1024 parts wanted, at most 2**17 // 512 = 256
        ((1 << 17, 3), (0,), None, 1, 256),
        # [3, 40000, 3] over the middle axis: 3 tiles, 1024 / 3 -> 342 wanted, at most 40000 // 512 = 78
        ((3, 40000, 3), (1,), None, 3, 78),
        # [9001, 2] under a small policy (parts of at least 256): 9001 // 256 = 35
        ((9001, 2), (0,), reduce_plan.TwoPassPolicy(min_part=256), 1, 35),
        # a short extent: no split
        ((600, 2), (0,), None, 1, 1),
    ],
)
def test_split_columns(
    sizes: tuple[int, ...], axes: tuple[int, ...], policy: reduce_plan.TwoPassPolicy | None, tiles: int, parts: int
) -> None:
    strides = tuple(math.prod(sizes[i + 1 :]) for i in range(len(sizes)))
    out_sizes = tuple(1 if i in axes else s for i, s in enumerate(sizes))
    out_strides = tuple(math.prod(out_sizes[i + 1 :]) for i in range(len(sizes)))
    plan = reduce_plan.plan_columns(sizes, strides, out_strides, axes)
    assert plan is not None and plan.tiles == tiles
    split = reduce_plan.split_columns(plan, policy)
    assert split.parts == parts
    if parts == 1:
        assert split == plan
    else:
        assert (parts - 1) * split.span < plan.reduced <= parts * split.span
