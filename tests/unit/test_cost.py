"""``CompiledOperator.cost()`` (gpuops/cost.py): kernel launches and the bytes one ``execute`` reads and writes.

Every expected figure is worked out by hand from the tensors' sizes, strides and element sizes (the arithmetic is
in the comments), never read from the code under test; a reduction's two-pass split is the one figure taken from
the plan (``reduce_plan``'s policy chooses it), and is checked for what it must be (outputs x parts, parts covering
the reduced axis). Compiling on the NumPy backend runs no kernel; the figures are the same on every backend.
"""

from __future__ import annotations

import math

import pytest
from helpers import sandwich_graph

import gpuops
from descriptors import DataType, ReduceFunction, TensorDesc, desc_class
from gpuops import config
from gpuops.cost import Cost, distinct_bytes

F32, F16, I32 = DataType.FLOAT32, DataType.FLOAT16, DataType.INT32


def _cost(desc: object) -> tuple[gpuops.CompiledOperator, Cost]:
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc))
    return op, op.cost()


def test_add_packed_reads_both_inputs_and_writes_the_output_once() -> None:
    t = TensorDesc(F32, (2, 3, 4))  # 24 elements of 4 bytes
    _, c = _cost(desc_class("ELEMENT_WISE_ADD")(t, t, t))
    assert c == Cost(launches=1, bytes_read=2 * 24 * 4, bytes_written=24 * 4)
    assert c.bytes_moved == 288


def test_a_broadcast_operand_is_read_once_per_distinct_element() -> None:
    a = TensorDesc(F16, (3, 5))
    b = TensorDesc(F16, (3, 5), (0, 1))  # one row of 5, read 3 times: 5 distinct elements
    _, c = _cost(desc_class("ELEMENT_WISE_ADD")(a, b, a))
    assert c == Cost(1, 15 * 2 + 5 * 2, 15 * 2)


def test_padding_is_neither_read_nor_written() -> None:
    a = TensorDesc(F32, (3, 4), (6, 1))  # 12 elements in a buffer of 16: 2 padding per row
    b = TensorDesc(F32, (3, 4), (5, 1))
    out = TensorDesc(F32, (3, 4), (7, 1))
    _, c = _cost(desc_class("ELEMENT_WISE_ADD")(a, b, out))
    assert c == Cost(1, 2 * 12 * 4, 12 * 4)


def test_one_pass_reduction() -> None:
    x, y = TensorDesc(F32, (64, 1024)), TensorDesc(F32, (64, 1))
    _, c = _cost(desc_class("REDUCE")(function=ReduceFunction.SUM, input_tensor=x, output_tensor=y, axes=(1,)))
    assert c == Cost(1, 64 * 1024 * 4, 64 * 4)


@pytest.mark.parametrize(
    ("row", "partial_bytes"),
    [("REDUCE", 4), ("ARGMAX", 4 + 8)],  # SUM: a float32 partial sum; ARGMAX: a float32 value and an int64 index
)
def test_two_pass_reduction_writes_and_reads_its_partials(row: str, partial_bytes: int) -> None:
    n = 1 << 17
    x = TensorDesc(F32, (2, n), (1, 2))  # rows of stride 2 (packed rows take the split rows kernel, below)
    if row == "REDUCE":
        desc = desc_class("REDUCE")(
            function=ReduceFunction.SUM, input_tensor=x, output_tensor=TensorDesc(F32, (2, 1)), axes=(1,)
        )
        out_bytes = 2 * 4
    else:
        desc = desc_class("ARGMAX")(input_tensor=x, output_tensor=TensorDesc(DataType.UINT32, (2, 1)), axes=(1,))
        out_bytes = 2 * 4
    op, c = _cost(desc)
    plan = op.lowering.two_pass
    assert plan is not None, "two outputs of 2**17 elements each: a two-pass reduction"
    assert op.lowering.rows is None and op.lowering.columns is None
    partials = math.prod(plan.partial_sizes)
    assert partials == 2 * plan.total_parts and plan.total_parts >= 2
    assert plan.parts * plan.span <= n < (plan.parts + 1) * plan.span or plan.rest is not None
    assert c == Cost(2, 2 * n * 4 + partials * partial_bytes, out_bytes + partials * partial_bytes)


def test_with_gpuops_reductions_off_a_long_reduction_costs_cupys_two_passes() -> None:
    """GPUOPS_CUPY_ROWS_REDUCE=0: the split rows layout below runs as CuPy's ReductionKernel in two launches, and
    ``cost()`` says so (the partial float32 sums written and read back once each), as the backend compiles it."""
    n = 1 << 17
    x, out = TensorDesc(F32, (2, n)), TensorDesc(F32, (2, 1))
    desc = desc_class("REDUCE")(function=ReduceFunction.SUM, input_tensor=x, output_tensor=out, axes=(1,))
    with config.override(cupy_rows_reduce=False):
        op, c = _cost(desc)
    plan = op.lowering.two_pass
    assert plan is not None and op.lowering.rows is not None  # the rows kernel would split it; CuPy splits instead
    partials = math.prod(plan.partial_sizes) * 4
    assert c == Cost(2, 2 * n * 4 + partials, 2 * 4 + partials)
    assert _cost(desc)[1].launches == 1  # the default: the split rows kernel


@pytest.mark.parametrize(
    ("row", "partial_bytes"),
    [("REDUCE", 4), ("ARGMAX", 4 + 8)],  # SUM: a float32 partial sum; ARGMAX: a float32 value and an int64 index
)
def test_split_rows_reduction_is_one_launch_with_its_partials_and_tickets(row: str, partial_bytes: int) -> None:
    """Two rows of 2**17: the split rows kernel, one launch; each row in ``parts`` spans (parts x span covering the
    row, about 1024 spans in all, each of at least 512 elements: the default policy), each span's partial written
    and read back once, and a 4-byte ticket per row zeroed."""
    n = 1 << 17
    x = TensorDesc(F32, (2, n))
    if row == "REDUCE":
        out = TensorDesc(F32, (2, 1))
        desc = desc_class("REDUCE")(function=ReduceFunction.SUM, input_tensor=x, output_tensor=out, axes=(1,))
    else:
        out = TensorDesc(DataType.UINT32, (2, 1))
        desc = desc_class("ARGMAX")(input_tensor=x, output_tensor=out, axes=(1,))
    op, c = _cost(desc)
    rows = op.lowering.rows
    # 1024 spans wanted over 2 rows (512 each), but at most n / 512 = 256 per row (spans of at least 512 elements)
    assert rows is not None and rows.rows == 2 and rows.parts == 256
    assert (rows.parts - 1) * rows.span < n <= rows.parts * rows.span
    partials = 2 * rows.parts * partial_bytes
    assert c == Cost(1, 2 * n * 4 + partials, 2 * 4 + partials + 2 * 4)


def test_split_columns_reduction_is_one_launch_with_its_partials_and_tickets() -> None:
    """SUM over the outer axis of [2**17, 3]: the split columns kernel, one launch; one tile (3 outputs side by side
    in 4 columns), its extent in ``parts`` spans (1024 wanted, at most 2**17 / 512 = 256: spans of at least 512),
    each output's partial per part written and read back once, a 4-byte ticket per tile zeroed."""
    n = 1 << 17
    x, out = TensorDesc(F32, (n, 3)), TensorDesc(F32, (1, 3))
    op, c = _cost(desc_class("REDUCE")(function=ReduceFunction.SUM, input_tensor=x, output_tensor=out, axes=(0,)))
    columns = op.lowering.columns
    assert columns is not None and (columns.outer, columns.reduced, columns.inner) == (1, n, 3)
    assert columns.columns == 4 and columns.tiles == 1 and columns.parts == 256
    partials = 3 * 256 * 4  # 3 outputs x 256 parts x a float32 partial sum
    assert c == Cost(1, 3 * n * 4 + partials, 3 * 4 + partials + 4)


def test_softmax_over_rows_that_fit_moves_one_float32_copy() -> None:
    """SOFTMAX1 over the last axis of [R, C], C = 1024 (256 threads x 4 elements): one row program (issue 33)
    reads x once and writes y once: 8 bytes per float32 element, as torch.softmax moves."""
    r, cols = 64, 1024
    x = TensorDesc(F32, (r, cols))
    _, c = _cost(desc_class("ACTIVATION_SOFTMAX1")(input_tensor=x, output_tensor=x, axes=(1,)))
    assert c == Cost(1, r * cols * 4, r * cols * 4)
    assert c.bytes_moved / (r * cols) == 8


def test_softmax_the_row_program_does_not_fit_moves_four_float32_copies() -> None:
    """SOFTMAX1 over the first axis of [C, R] (columns, not one contiguous span per row), and over rows of 8192
    (more than 256 threads x 16 elements), run three kernels: the row maxima (read x, write R maxima); the row
    sums of exp(x - max), the subtraction fused into the reduction (read x and the maxima, write R sums); and
    exp(x - max) / sum (read x, the maxima and the sums, write y). 16 bytes per float32 element."""
    for sizes, axis, r, cols in (((1024, 64), 0, 64, 1024), ((8, 8192), 1, 8, 8192)):
        x = TensorDesc(F32, sizes)
        _, c = _cost(desc_class("ACTIVATION_SOFTMAX1")(input_tensor=x, output_tensor=x, axes=(axis,)))
        read = (r * cols + r * cols + r + r * cols + r + r) * 4
        written = (r + r + r * cols) * 4
        assert c == Cost(3, read, written)
        assert c.bytes_moved / (r * cols * 4) == pytest.approx(4.0, abs=0.01)


def test_hardmax_over_rows_that_fit_is_one_kernel_reading_x_once() -> None:
    """HARDMAX1 over the last axis of [R, C] float16, C = 1024: one row program (ARGMAX, the index sequence, the
    comparison and the cast in registers) reads x once and writes y once: 4 bytes per element. Over the first
    axis of [C, R] it runs three kernels: ARGMAX (read x, write R uint32 indices); the index sequence (write C
    uint32); the comparison and cast (read the C indices and the R results, write y)."""
    r, cols = 64, 1024
    x = TensorDesc(F16, (r, cols))
    _, c = _cost(desc_class("ACTIVATION_HARDMAX1")(input_tensor=x, output_tensor=x, axes=(1,)))
    assert c == Cost(1, r * cols * 2, r * cols * 2)
    x = TensorDesc(F16, (cols, r))
    _, c = _cost(desc_class("ACTIVATION_HARDMAX1")(input_tensor=x, output_tensor=x, axes=(0,)))
    assert c == Cost(3, r * cols * 2 + cols * 4 + r * 4, r * 4 + cols * 4 + r * cols * 2)


def test_mvn_row_program_reads_scale_and_bias_once_per_distinct_element() -> None:
    """MEAN_VARIANCE_NORMALIZATION1 of [N, C, H, W] = [2, 3, 4, 5] over (H, W), per-channel ScaleTensor and
    BiasTensor of [1, 3, 1, 1]: one row program reading x (120 float32) and the 3 + 3 values, writing 120."""
    x, s = TensorDesc(F32, (2, 3, 4, 5)), TensorDesc(F32, (1, 3, 1, 1))
    desc = desc_class("MEAN_VARIANCE_NORMALIZATION1")(x, s, s, x, axes=(2, 3))
    _, c = _cost(desc)
    assert c == Cost(1, (120 + 3 + 3) * 4, 120 * 4)


def test_a_fused_graph_is_one_kernel_over_its_external_inputs() -> None:
    t = TensorDesc(F32, (8, 16))  # 128 elements
    b = gpuops.GraphBuilder()
    x, y = b.input(t), b.input(t)
    op = b.compile([b.relu((x + y) * x)], gpuops.Device("numpy"))
    assert op.kernel_count == 1
    assert op.cost() == Cost(1, 2 * 128 * 4, 128 * 4)


def test_a_graph_costs_the_sum_of_its_steps() -> None:
    """(a + b) -> CUMULATIVE_SUMMATION -> * c over [4, 8] float32 (32 elements, 128 bytes): the scan fuses with
    nothing, so the graph runs three kernels: a + b (read 2 x 128, write the workspace 128), the scan (read 128,
    write 128), the product (read the scan's 128 and c's 128, write the output 128)."""
    t = TensorDesc(F32, (4, 8))
    middle = desc_class("CUMULATIVE_SUMMATION")(input_tensor=t, output_tensor=t, axis=1)
    dev = gpuops.Device("numpy")
    op = dev.compile_graph(sandwich_graph(t, middle))
    assert op.cost() == Cost(3, (2 + 1 + 2) * 128, 3 * 128)


def test_distinct_bytes_and_absent_tensors() -> None:
    assert distinct_bytes(None) == 0
    assert distinct_bytes(TensorDesc(I32, (2, 3, 4), (0, 0, 1))) == 4 * 4
    assert distinct_bytes(TensorDesc(F16, (7,))) == 14
    assert Cost.total([Cost(1, 2, 3), Cost(4, 5, 6)]) == Cost(5, 7, 9)
