"""``gpuops.layout.launch_plan`` on the CPU: its decisions, and the fast kernels' indexing emulated in NumPy.

The decisions are checked against layouts worked out by hand. The emulation runs the loops of
the generated ``flat`` and ``rows`` kernels (``gpuops.codegen.fast``; the expressions emulated
are asserted to be the ones in the source) for every thread of the planned launch, with the
planned size arguments, reading float64 buffers of distinct values. The result must equal a
reference computed from the original (sizes, strides) with ``as_strided`` and NumPy broadcasting,
and every output element must be written exactly once (nothing outside the output tensor).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.lib.stride_tricks import as_strided

from descriptors import ROWS, DataType, TensorDesc
from descriptors.tensor import packed_strides
from gpuops.codegen import C_TYPES, elementwise_kernel_spec
from gpuops.codegen.fast import FastKernelSource, fast_source
from gpuops.layout.launch_plan import (
    DEFAULT_POLICY,
    FastPlan,
    LaunchPolicy,
    coalesce,
    is_aligned,
    launch_config,
    plan_fast,
    plan_tensors,
    size_args,
)

Sizes = tuple[int, ...]
F32 = 4


def plan(sizes: Sizes, *input_strides: Sizes, out: Sizes | None = None, items: int = F32) -> FastPlan | None:
    """Plan with packed output (unless ``out``) and every operand of item size ``items``."""
    out = packed_strides(sizes) if out is None else out
    return plan_fast([(sizes, s) for s in input_strides], (sizes, out), [items] * (len(input_strides) + 1))


# ---------------------------------------------------------------------------------------
# Decisions, worked out by hand


def test_packed_same_shape_is_flat() -> None:
    p = plan((2, 3, 4), (12, 4, 1), (12, 4, 1))
    assert p == FastPlan("flat", 24, 4, (4, 4, 4), (False, False), rows=1, cols=24)


def test_size_one_dims_are_dropped() -> None:
    # Strides of size-1 dimensions mean nothing: (4,1,5) with stride 99 on the unit dimension is packed.
    p = plan((4, 1, 5), (5, 99, 1), (0, 7, 1), out=(5, 3, 1))
    assert p is not None and p.kind == "rows"
    assert (p.rows, p.cols, p.strides) == (4, 5, ((5, 1), (0, 1), (5, 1)))
    assert plan((4, 1, 5), (5, 99, 1)) == FastPlan("flat", 20, 4, (4, 4), (False,), rows=1, cols=20)
    assert plan((1, 1), (0, 0), (9, 9)) == FastPlan("flat", 1, 4, (4, 4, 4), (False, False), rows=1, cols=1)


def test_row_broadcast_is_rows() -> None:
    m, c = 1024, 3072  # cumo#348's [1024, 3072] + [3072]
    b = TensorDesc.broadcast(DataType.FLOAT32, (c,), (m, c))
    assert b.strides == (0, 1)
    p = plan((m, c), (c, 1), b.strides)
    assert p == FastPlan("rows", m * c, 1, (4, 4, 4), rows=m, cols=c, strides=((c, 1), (0, 1), (c, 1)))


def test_column_broadcast_is_rows() -> None:
    p = plan((6, 5), (5, 1), (1, 0))
    assert p is not None and (p.kind, p.rows, p.cols, p.strides) == ("rows", 6, 5, ((5, 1), (1, 0), (5, 1)))


def test_scalar_broadcast_is_flat_with_mask() -> None:
    p = plan((6, 5), (5, 1), (0, 0))
    assert p == FastPlan("flat", 30, 4, (4, 4, 4), (False, True), rows=1, cols=30)
    assert p.broadcast_mask == 0b10
    # The single element first: bit 0.
    assert plan((6, 5), (0, 0), (5, 1)).broadcast_mask == 0b01  # type: ignore[union-attr]


def test_transposed_input_is_rows() -> None:
    p = plan((3, 7), (1, 3))  # a [7, 3] array read transposed
    assert p is not None and (p.kind, p.rows, p.cols, p.strides) == ("rows", 3, 7, ((1, 3), (7, 1)))


def test_three_dims_that_coalesce_to_two() -> None:
    # A [3, 4] matrix broadcast over a batch of 2: dims 1 and 2 merge for every operand.
    p = plan((2, 3, 4), (12, 4, 1), (0, 4, 1))
    assert p is not None and (p.kind, p.rows, p.cols, p.strides) == ("rows", 2, 12, ((12, 1), (0, 1), (12, 1)))
    # A [2, 1, 1] column broadcast: the zero strides of dims 1 and 2 merge.
    p = plan((2, 3, 4), (1, 0, 0))
    assert p is not None and (p.kind, p.rows, p.cols, p.strides) == ("rows", 2, 12, ((1, 0), (12, 1)))


def test_three_dims_that_do_not_coalesce() -> None:
    assert plan((2, 3, 4), (12, 4, 1), (0, 1, 0)) is None  # stride 1 on the middle dimension only
    assert plan((2, 3, 4), (1, 2, 6)) is None  # fully transposed
    assert plan((2, 2, 2, 2), (8, 4, 2, 1), (0, 2, 0, 1)) is None


def test_strided_output() -> None:
    # Padded rows (a pitch of 8 for 5 columns): rows, the output's strides are arguments too.
    p = plan((4, 5), (5, 1), out=(8, 1))
    assert p is not None and (p.kind, p.strides) == ("rows", ((5, 1), (8, 1)))
    # A transposed output with an input transposed alike: ordered by the output's strides, it is flat.
    assert plan((3, 5), (1, 3), out=(1, 3)) == FastPlan("flat", 15, 4, (4, 4), (False,), rows=1, cols=15)
    # Transposed output, packed input: the columns follow the output's unit stride.
    p = plan((3, 5), (5, 1), out=(1, 3))
    assert p is not None and (p.rows, p.cols, p.strides) == (5, 3, ((1, 5), (3, 1)))


def test_one_dimension_strided_is_a_single_row() -> None:
    p = plan((10,), (2,))
    assert p == FastPlan("rows", 10, 1, (4, 4), rows=1, cols=10, strides=((0, 2), (0, 1)))


def test_32_bit_limits() -> None:
    big = 1 << 31
    assert plan((2,), (big - 1,)) is not None  # largest offset 2**31 - 1
    assert plan((2,), (big,)) is None
    assert plan((2, 4), (big // 2, 1)) is not None  # 2**30 + 3
    assert plan((3, 4), (big // 2, 1)) is None  # 2**31 + 3
    assert plan((2, 4), (0, 1), out=(big, 1)) is None  # the output's offsets count too
    below = (1 << 16, (1 << 15) - 1)
    assert plan(below, packed_strides(below)) is not None  # 2**31 - 2**16 elements
    assert plan((1 << 16, 1 << 15), (0, 0)) is None  # 2**31 elements


def test_empty_is_none() -> None:
    assert plan((0, 3), (3, 1)) is None
    assert plan((4, 0), (0, 0)) is None


def test_mismatched_operands_raise() -> None:
    with pytest.raises(ValueError, match="operand 0"):
        plan_fast([((2, 3), (3, 1))], ((3, 2), (2, 1)), [4, 4])
    with pytest.raises(ValueError, match="item sizes"):
        plan_fast([((2, 3), (3, 1))], ((2, 3), (3, 1)), [4])


@pytest.mark.parametrize(
    ("items", "pack"), [((4, 4, 4), 4), ((2, 2, 2), 8), ((1, 1, 1), 16), ((8, 8, 1), 2), ((4, 4, 1), 4), ((2, 4), 4)]
)
def test_pack_is_16_bytes_of_the_widest(items: tuple[int, ...], pack: int) -> None:
    sizes = (40,)
    p = plan_fast([(sizes, (1,))] * (len(items) - 1), (sizes, (1,)), items)
    assert p is not None and p.kind == "flat" and p.pack == pack


def test_plan_tensors_reads_descriptors() -> None:
    a = TensorDesc.packed(DataType.FLOAT16, (8, 16))
    b = TensorDesc.broadcast(DataType.FLOAT16, (16,), (8, 16))
    out = TensorDesc.packed(DataType.FLOAT32, (8, 16))
    p = plan_tensors([a, b], out)
    assert p is not None and (p.kind, p.itemsizes, p.strides) == ("rows", (2, 2, 4), ((16, 1), (0, 1), (16, 1)))
    p = plan_tensors([a, a], TensorDesc.packed(DataType.UINT8, (8, 16)))
    assert p is not None and (p.kind, p.pack) == ("flat", 8)


def test_coalesce_merges_outer_into_inner() -> None:
    assert coalesce((2, 3, 4), [(12, 4, 1), (12, 4, 1)]) == ((24,), ((1,), (1,)))
    assert coalesce((2, 3, 4), [(0, 4, 1), (12, 4, 1)]) == ((2, 12), ((0, 1), (12, 1)))
    assert coalesce((1, 1), [(5, 5), (1, 1)]) == ((), ((), ()))


# ---------------------------------------------------------------------------------------
# Alignment and launch geometry


def test_is_aligned() -> None:
    p = plan((64,), (1,), (0,))  # f32 x f32-scalar -> f32: packs of 4, 16 bytes
    assert p is not None and p.pack == 4
    assert is_aligned(p, [256, 3, 512])  # the broadcast input is never read as packs
    assert not is_aligned(p, [260, 0, 512])
    assert not is_aligned(p, [256, 0, 520])
    mixed = plan_fast([((64,), (1,))], ((64,), (1,)), [4, 1])  # f32 -> bool: 16-byte then 4-byte packs
    assert mixed is not None
    assert is_aligned(mixed, [32, 4]) and not is_aligned(mixed, [32, 2]) and not is_aligned(mixed, [8, 4])
    rows = plan((10,), (2,))
    assert rows is not None and not is_aligned(rows, [0, 0])


def test_flat_launch() -> None:
    p = plan((1000,), (1,))
    assert p is not None
    assert size_args(p, True) == (1000, 250, 0)
    assert launch_config(p, True) == ((1, 1, 1), (256, 1, 1))  # 250 packs
    assert size_args(p, False) == (1000, 0, 0)
    assert launch_config(p, False) == ((4, 1, 1), (256, 1, 1))  # 1000 elements
    p = plan((1 << 30,), (1,))
    assert p is not None and launch_config(p, True) == ((4096, 1, 1), (256, 1, 1))


@pytest.mark.parametrize(
    ("m", "c", "grid", "block"),
    [
        (1024, 3072, (12, 341, 1), (256, 1, 1)),  # 4096 // 12 = 341 row blocks
        (65536, 64, (1, 4096, 1), (64, 4, 1)),
        (1_000_000, 2, (1, 4096, 1), (2, 128, 1)),  # two columns: 128 rows per block
        (100, 300, (5, 25, 1), (64, 4, 1)),  # 5 x 64 = 320 pads 300 least
        (3, 40, (1, 1, 1), (64, 3, 1)),  # 40 columns: 2 x 32 = 1 x 64, the wider wins
    ],
)
def test_rows_launch(m: int, c: int, grid: tuple[int, ...], block: tuple[int, ...]) -> None:
    p = plan((m, c), (0, 1))
    assert p is not None and p.kind == "rows"
    assert launch_config(p) == (grid, block)
    assert size_args(p, False) == (m, c, 0, 1, c, 1)


def test_policy_is_checked() -> None:
    with pytest.raises(ValueError):
        LaunchPolicy(block=48)
    with pytest.raises(ValueError):
        LaunchPolicy(max_grid_y=70000)


# ---------------------------------------------------------------------------------------
# Emulation of the generated kernels


@functools.cache
def kernel_source(n_inputs: int, kind: str) -> FastKernelSource:
    """A real kernel with ``n_inputs`` inputs: its argument names and index expressions."""
    rows = {r.name: r for r in ROWS}
    f32, u8 = DataType.FLOAT32, DataType.UINT8
    row, dtypes = {
        1: ("ELEMENT_WISE_IDENTITY", {"input_tensor": f32, "output_tensor": f32}),
        2: ("ELEMENT_WISE_ADD", {"a_tensor": f32, "b_tensor": f32, "output_tensor": f32}),
        3: ("ELEMENT_WISE_IF", {"condition_tensor": u8, "a_tensor": f32, "b_tensor": f32, "output_tensor": f32}),
    }[n_inputs]
    return fast_source(elementwise_kernel_spec(rows[row], dtypes), kind)


@pytest.mark.parametrize("n_inputs", [1, 2, 3])
def test_emulated_expressions_are_the_kernels(n_inputs: int) -> None:
    flat = kernel_source(n_inputs, "flat")
    src = flat.source
    assert "_start = blockIdx.x * blockDim.x + threadIdx.x;" in src
    assert "_step = gridDim.x * blockDim.x;" in src
    assert "for (unsigned int _p = _start; _p < _nvec; _p += _step)" in src
    assert f"for (unsigned int _i = _nvec * {flat.pack}u + _start; _i < _n; _i += _step)" in src
    assert f"for (int _k = 0; _k < {flat.pack}; ++_k)" in src
    ctypes = {"condition": C_TYPES[DataType.UINT8]}
    for k, name in enumerate(flat.inputs):
        pk = f"gpuops_fast_pack<{ctypes.get(name, 'float')}, {flat.pack}>"
        assert f"_pk_{name} = reinterpret_cast<const {pk}*>(_raw_{name})[_p];" in src
        assert f"_pk_{name}.v[_k] = _raw_{name}[0];" in src and f"if (_bcast & {1 << k}u)" in src
        assert f"_raw_{name}[(_bcast & {1 << k}u) ? 0u : _i]" in src
    assert f"reinterpret_cast<gpuops_fast_pack<float, {flat.pack}>*>(_raw_{flat.output})[_p] = _pk_" in src
    assert f"_raw_{flat.output}[_i];" in src
    assert flat.sizes == ("_n", "_nvec", "_bcast")

    rows = kernel_source(n_inputs, "rows")
    src = rows.source
    assert "_r0 = blockIdx.y * blockDim.y + threadIdx.y, _rstep = gridDim.y * blockDim.y;" in src
    assert "_c0 = blockIdx.x * blockDim.x + threadIdx.x, _cstep = gridDim.x * blockDim.x;" in src
    assert "for (unsigned int _r = _r0; _r < _rows; _r += _rstep)" in src
    assert "for (unsigned int _c = _c0; _c < _cols; _c += _cstep)" in src
    for name in (*rows.inputs, rows.output):
        assert f"_raw_{name}[_r * _rs_{name} + _c * _cs_{name}]" in src
    assert rows.sizes[:2] == ("_rows", "_cols")


def _loop(starts: np.ndarray, end: int, step: int) -> np.ndarray:
    """Every value ``for (x = start; x < end; x += step)`` takes, over all threads' starts."""
    out = []
    x = starts.astype(np.int64)
    while True:
        x = x[x < end]
        if not x.size:
            break
        out.append(x)
        assert int(x.max()) + step < 1 << 32  # the 32-bit loop variable cannot wrap
        x = x + step
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def _threads(grid: int, block: int) -> np.ndarray:
    """``blockIdx * blockDim + threadIdx`` of every thread along one axis."""
    return (np.arange(grid)[:, None] * block + np.arange(block)[None, :]).ravel()


def emulate(p: FastPlan, aligned: bool, policy: LaunchPolicy, ins: list[np.ndarray], out: np.ndarray) -> np.ndarray:
    """Run the planned kernel on ``out`` in place; returns the number of writes per output element."""
    (gx, gy, gz), (bx, by, bz) = launch_config(p, aligned, policy)
    assert gz == bz == 1 and bx * by <= 1024 and gy <= 65535
    src = kernel_source(len(ins), p.kind)
    args = dict(zip(src.sizes, size_args(p, aligned), strict=True))
    assert all(0 <= v < 1 << 32 for v in args.values())  # unsigned int arguments
    writes = np.zeros(out.size, np.int64)

    def op(values: list[np.ndarray]) -> np.ndarray:
        return sum(v * 10000.0**k for k, v in enumerate(values))  # type: ignore[return-value]

    if p.kind == "flat":
        n, nvec, mask, pack = args["_n"], args["_nvec"], args["_bcast"], p.pack
        starts = _threads(gx, bx)
        step = gx * bx
        packs = _loop(starts, nvec, step)
        elements = (packs[:, None] * pack + np.arange(pack)[None, :]).ravel()  # lane k of pack p
        tail = _loop(nvec * pack + starts, n, step)
        for idx in (elements, tail):
            assert idx.size == 0 or int(idx.max()) < 1 << 32
            values = [x[np.zeros_like(idx) if mask >> k & 1 else idx] for k, x in enumerate(ins)]
            out[idx] = op(values)
            np.add.at(writes, idx, 1)
        return writes
    names = (*src.inputs, src.output)
    rs = [args[f"_rs_{n}"] for n in names]
    cs = [args[f"_cs_{n}"] for n in names]
    r = _loop(_threads(gy, by), args["_rows"], gy * by)
    c = _loop(_threads(gx, bx), args["_cols"], gx * bx)
    # Thread (y, x) visits its rows times its columns: a pair is visited once per (row visit, column visit).
    rr, cc = np.meshgrid(r, c, indexing="ij")
    offsets = [rr * a + cc * b for a, b in zip(rs, cs, strict=True)]
    assert all(int(o.max()) < 1 << 32 for o in offsets)
    out[offsets[-1]] = op([x[o] for x, o in zip(ins, offsets[:-1], strict=True)])
    np.add.at(writes, offsets[-1].ravel(), 1)
    return writes


@dataclasses.dataclass(frozen=True)
class Case:
    sizes: Sizes
    inputs: tuple[Sizes, ...]  # element strides of each input
    output: Sizes
    itemsizes: tuple[int, ...]


def span(sizes: Sizes, strides: Sizes) -> int:
    return sum((s - 1) * t for s, t in zip(sizes, strides, strict=True)) + 1


def run_check(case: Case, p: FastPlan, aligned: bool, policy: LaunchPolicy) -> None:
    """Emulate plan ``p`` on ``case`` and compare with the as_strided reference."""
    ins = [np.arange(span(case.sizes, s), dtype=np.float64) + 1 for s in case.inputs]
    out = np.full(span(case.sizes, case.output), -1.0)
    writes = emulate(p, aligned, policy, ins, out)

    def view(x: np.ndarray, strides: Sizes) -> np.ndarray:
        return as_strided(x, case.sizes, tuple(x.itemsize * t for t in strides))

    want = np.full_like(out, -1.0)
    view(want, case.output)[...] = sum(
        view(x, s) * 10000.0**k for k, (x, s) in enumerate(zip(ins, case.inputs, strict=True))
    )
    covered = np.zeros(out.size, np.int64)
    view(covered, case.output)[...] = 1
    np.testing.assert_array_equal(writes, covered, err_msg=f"{case} {p}: elements not written exactly once")
    np.testing.assert_array_equal(out, want, err_msg=f"{case} {p}")


def check(case: Case, aligned: bool, policy: LaunchPolicy) -> FastPlan | None:
    """Plan ``case``; emulate and compare when there is a plan."""
    layouts = [(case.sizes, s) for s in case.inputs]
    p = plan_fast(layouts, (case.sizes, case.output), case.itemsizes)
    if p is not None:
        run_check(case, p, aligned, policy)
    return p


def _permuted(sizes: Sizes, perm: Sizes) -> Sizes:
    """Strides of a view of shape ``sizes`` that is the ``perm`` transpose of a packed array."""
    base = [sizes[d] for d in perm]  # the packed array's shape, outermost first
    bst = packed_strides(base)
    out = [0] * len(sizes)
    for pos, d in enumerate(perm):
        out[d] = bst[pos]
    return tuple(out)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    rank = draw(st.integers(1, 4))
    sizes = tuple(draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))

    def layout(allow_zero: bool) -> Sizes:
        kinds = ["packed", "permuted", "padded"] + (["broadcast", "scalar"] if allow_zero else [])
        kind = draw(st.sampled_from(kinds))
        if kind == "packed":
            return packed_strides(sizes)
        if kind == "permuted":
            return _permuted(sizes, tuple(draw(st.permutations(range(rank)))))
        if kind == "padded":  # every other element of a larger packed array: gaps everywhere
            pads = draw(st.lists(st.integers(0, 2), min_size=rank, max_size=rank))
            step = draw(st.integers(1, 2))
            return tuple(step * t for t in packed_strides([s + q for s, q in zip(sizes, pads, strict=True)]))
        if kind == "scalar":
            return (0,) * rank
        keep = draw(st.lists(st.booleans(), min_size=rank, max_size=rank))
        small = [s if k else 1 for s, k in zip(sizes, keep, strict=True)]
        return TensorDesc.broadcast(DataType.FLOAT32, small, sizes).strides  # type: ignore[return-value]

    output = layout(False)
    n_in = draw(st.integers(1, 3))
    inputs = tuple(output if draw(st.booleans()) else layout(True) for _ in range(n_in))
    items = tuple(draw(st.sampled_from([1, 2, 4, 8])) for _ in range(n_in + 1))
    return Case(sizes, inputs, output, items)


POLICIES = [DEFAULT_POLICY, LaunchPolicy(block=32, max_blocks=2, max_grid_y=3), LaunchPolicy(64, 5, 2)]


@given(case=cases(), aligned=st.booleans(), policy=st.sampled_from(POLICIES))
def test_emulated_kernels_match_numpy(case: Case, aligned: bool, policy: LaunchPolicy) -> None:
    check(case, aligned, policy)


def test_emulation_covers_both_kinds() -> None:
    """Seeded layouts: both kinds (and broadcast flat inputs) are planned and emulated, so the
    property above cannot pass by planning nothing."""
    rng = np.random.default_rng(7)
    kinds: dict[str, int] = {"flat": 0, "rows": 0, "none": 0, "flat-broadcast": 0}
    for _ in range(200):
        rank = int(rng.integers(1, 4))
        sizes = tuple(int(s) for s in rng.integers(1, 7, rank))
        choices = [
            packed_strides(sizes),
            TensorDesc.broadcast(DataType.FLOAT32, sizes[1:], sizes).strides,
            (0,) * rank,
            _permuted(sizes, tuple(int(d) for d in rng.permutation(rank))),
            tuple(2 * t for t in packed_strides(sizes)),  # every other element
        ]
        ins = tuple(choices[int(rng.integers(0, len(choices)))] for _ in range(int(rng.integers(1, 4))))
        items = tuple(int(i) for i in rng.choice([1, 2, 4, 8], len(ins) + 1))
        case = Case(sizes, ins, packed_strides(sizes), items)  # type: ignore[arg-type]
        p = check(case, bool(rng.integers(0, 2)), POLICIES[int(rng.integers(0, 3))])
        kinds["none" if p is None else p.kind] += 1
        kinds["flat-broadcast"] += p is not None and p.kind == "flat" and math.prod(sizes) > 1 and any(p.broadcast)
    assert min(kinds.values()) >= 5, kinds


def test_emulation_can_fail() -> None:
    """The comparison catches wrong plans: a row broadcast read as a column broadcast, a tail
    left out, a broadcast flag on a packed input."""
    rows_case = Case((4, 5), ((0, 1),), (5, 1), (4, 4))
    good = check(rows_case, True, DEFAULT_POLICY)
    assert good is not None and good.kind == "rows"
    with pytest.raises(AssertionError):
        run_check(rows_case, dataclasses.replace(good, strides=((1, 0), (5, 1))), True, DEFAULT_POLICY)
    flat_case = Case((10,), ((1,),), (1,), (4, 4))
    flat = check(flat_case, True, DEFAULT_POLICY)
    assert flat is not None and flat.kind == "flat"
    with pytest.raises(AssertionError, match="exactly once"):
        run_check(flat_case, dataclasses.replace(flat, n=8), True, DEFAULT_POLICY)
    with pytest.raises(AssertionError):
        run_check(flat_case, dataclasses.replace(flat, broadcast=(True,)), False, DEFAULT_POLICY)


def test_index_expressions_fit_32_bits_at_the_limit() -> None:
    """At the planner's limits, the largest value each kernel expression takes stays below 2**32."""
    limit = 1 << 31
    for p in (
        plan((2, (limit - 1) // 2), (0, 1)),  # rows: n just below 2**31
        plan((limit - 1,), (1,)),  # flat
        plan((3, 5), (limit // 4, 1)),  # rows: offsets near 2**31
    ):
        assert p is not None
        (gx, gy, _), (bx, by, _) = launch_config(p, True)
        if p.kind == "flat":
            nvec = p.n // p.pack
            assert nvec * p.pack + gx * bx + gx * bx < 1 << 32  # _i's start plus one step
            assert (nvec - 1) * p.pack + p.pack - 1 < limit
            continue
        assert (p.rows - 1) + gy * by < 1 << 32 and (p.cols - 1) + gx * bx < 1 << 32
        for rs, cs in p.strides:
            assert (p.rows - 1) * rs + (p.cols - 1) * cs < limit
