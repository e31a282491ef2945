"""FILL_VALUE_SEQUENCE (issue 18): ``output[i] = start + i * delta``, ``i`` the element's logical index.

The generated tests (``test_nary_generated``: every type, the shared layouts, DirectML's examples and literal
edges in ``reference_unary``) hold the row to its reference; these hold what they do not reach: outputs whose
memory order is not their logical order (permuted, reversed 8-D), the launch path each layout takes on the GPU
(only a layout whose loop runs in logical order gets a flat or rows kernel; the rest CuPy's
``ElementwiseKernel``, whose ``i`` is row-major over the sizes), more than one NumPy chunk, the index's
conversion to float32 beyond 2**24, and graphs, which never fuse the node.

Expected values come from ``reference_unary._fill_sequence`` (Python integers; Python floats rounded step by
step, no array arithmetic), compared bit for bit; a float32 case is also held within 1.5 ulps of the exact
rational ``start + i * delta`` (two roundings of half an ulp each, no cancellation in these values).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from helpers import buffer_for, read_tensor, to_backend, to_host, uint_view
from opinfo import record

import gpuops
from descriptors import DataType, ReduceFunction, TensorDesc, desc_class
from descriptors.graph import GraphDesc, InputEdge, IntermediateEdge, OperatorNode, OutputEdge
from descriptors.optable import row_of
from gpuops import backends
from gpuops.backends.cpu.policy import POLICY
from gpuops.backends.cpu.views import logical_index
from gpuops.layout.launch_plan import in_logical_order, plan_fast

SEQ = desc_class("FILL_VALUE_SEQUENCE")
ADD, REDUCE = desc_class("ELEMENT_WISE_ADD"), desc_class("REDUCE")
F32, F16, F64, I8, U64 = DataType.FLOAT32, DataType.FLOAT16, DataType.FLOAT64, DataType.INT8, DataType.UINT64
SENTINEL = 0x5A


def _strides_of(sizes: tuple[int, ...], order: tuple[int, ...]) -> tuple[int, ...]:
    """Packed strides with the dimensions laid out in ``order`` (outermost first) in memory."""
    strides = [0] * len(sizes)
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= sizes[d]
    return tuple(strides)


def run(
    device: gpuops.Device, t: TensorDesc, start: Any, delta: Any
) -> tuple[np.ndarray, np.ndarray, gpuops.CompiledOperator]:
    """The logical output, the whole buffer after the run (bytes outside the tensor must stay SENTINEL), and
    the compiled operator."""
    op = device.compile_operator(
        device.create_operator(SEQ(t, value_data_type=t.data_type, value_start=start, value_delta=delta))
    )
    buf = buffer_for(t, np.zeros(t.sizes))
    buf.view(np.uint8)[...] = SENTINEL
    xp = backends.load(device.backend).xp
    out = to_backend(xp, buf)
    op.execute([], [out])
    host = to_host(out)
    return read_tensor(host, t), host, op


def expected(t: TensorDesc, start: Any, delta: Any) -> np.ndarray:
    params = {"value_data_type": t.data_type, "value_start": start, "value_delta": delta}
    return record("FILL_VALUE_SEQUENCE").evaluate([], t.data_type.numpy_dtype, params, shape=t.sizes).values


def check(device: gpuops.Device, t: TensorDesc, start: Any, delta: Any, path: str) -> np.ndarray:
    got, host, op = run(device, t, start, delta)
    want = expected(t, start, delta)
    np.testing.assert_array_equal(uint_view(got), uint_view(want), err_msg=f"{t} start={start} delta={delta}")
    # Every byte the tensor does not cover (padding, the gaps of a strided layout) is untouched.
    covered = np.zeros(host.size, bool)
    covered[read_tensor(np.arange(host.size), t).ravel()] = True
    assert (host.view(np.uint8).reshape(host.size, -1)[~covered] == SENTINEL).all(), "wrote outside the tensor"
    if device.backend != "numpy":
        assert op.launch_path == path, (t, op.launch_path)
    return got


# (name, sizes, strides, the GPU's launch path)
LAYOUTS: list[tuple[str, tuple[int, ...], tuple[int, ...] | None, str]] = [
    ("packed", (2, 3, 4), None, "flat"),
    ("size-1 dims", (3, 1, 4), (4, 99, 1), "flat"),
    ("padded rows", (5, 6), (8, 1), "rows"),
    ("padded 3-D", (2, 3, 4), (15, 5, 1), "rows"),  # [2, 3] merge: rows of 4 at stride 5
    ("gapped 3-D", (2, 3, 4), (20, 5, 1), "elementwise"),  # three dimensions left: CuPy's kernel, in order
    ("transposed", (3, 5), (1, 3), "elementwise"),
    ("permuted", (2, 3, 4), (1, 2, 6), "elementwise"),
    ("permuted, gaps", (2, 3, 4), (2, 4, 16), "elementwise"),
    ("8-D packed", (2, 1, 2, 3, 1, 2, 2, 2), None, "flat"),
    (
        "8-D reversed",
        (2, 1, 2, 3, 1, 2, 2, 2),
        _strides_of((2, 1, 2, 3, 1, 2, 2, 2), tuple(range(7, -1, -1))),
        "elementwise",
    ),
    (
        "8-D shuffled",
        (2, 3, 2, 1, 2, 3, 1, 2),
        _strides_of((2, 3, 2, 1, 2, 3, 1, 2), (4, 0, 6, 2, 7, 1, 5, 3)),
        "elementwise",
    ),
]


@pytest.mark.parametrize(("name", "sizes", "strides", "path"), LAYOUTS, ids=[x[0] for x in LAYOUTS])
@pytest.mark.parametrize(
    ("dt", "start", "delta"),
    [(F32, 0.5, 0.25), (I8, 100, 7), (U64, 2**64 - 5, 2**63 + 1), (F16, 2040.0, 1.0), (F64, -1.0, 0.1)],
    ids=["f32", "i8-wraps", "u64-wraps", "f16-rounds", "f64"],
)
def test_the_logical_index_whatever_the_layout(
    name: str, sizes: tuple, strides: tuple | None, path: str, dt: DataType, start: Any, delta: Any, device: Any
) -> None:
    t = TensorDesc(dt, sizes, strides)
    got = check(device, t, start, delta, path)
    if dt is F32:  # the logical order, spelled out: element k of the row-major walk is start + k * delta
        assert got.ravel().tolist() == [start + k * delta for k in range(got.size)]


def test_an_output_in_memory_order_is_not_read_in_memory_order(device: Any) -> None:
    """A transposed [3, 2] output: memory holds 0 2 4 1 3 5 (logical row 0 is 0, 1; row 1 is 2, 3; ...)."""
    t = TensorDesc(I8, (3, 2), (1, 3))
    _, host, _ = run(device, t, 0, 1)
    assert host[:6].tolist() == [0, 2, 4, 1, 3, 5]  # (the buffer is rounded up to 4 bytes)


@pytest.mark.parametrize(("sizes", "strides", "path"), [((300, 400), (401, 1), "rows"), ((70_001,), None, "flat")])
def test_more_than_one_numpy_chunk(sizes: tuple, strides: tuple | None, path: str, device: Any) -> None:
    """The NumPy backend runs blocks of CHUNK elements, each given its own run of logical indices."""
    assert math.prod(sizes) > POLICY.chunk
    check(device, TensorDesc(F32, sizes, strides), -7.5, 0.125, path)
    check(device, TensorDesc(I8, sizes, strides), -128, 3, path)


def test_float32_is_within_two_roundings_of_the_exact_value(device: Any) -> None:
    """Against exact rationals (independent of any float code): |got - (start + i * delta)| <= 1.5 ulp(got)."""
    start, delta = 0.1, 1 / 3
    t = TensorDesc(F32, (4, 25))
    got, _, _ = run(device, t, start, delta)
    s, d = Fraction(float(np.float32(start))), Fraction(float(np.float32(delta)))
    for i, g in enumerate(got.ravel().tolist()):
        exact = s + i * d
        ulp = Fraction(float(np.spacing(np.float32(g))))
        assert abs(Fraction(g) - exact) <= Fraction(3, 2) * ulp, (i, g, float(exact))


def test_the_index_rounds_to_float32_first() -> None:
    """``i`` becomes float32 before the product: 2**24 + 1 reads as 2**24 (the NumPy form, given indices; a
    tensor of 2**24 elements is left out here), as the CUDA form's static_cast<float>(long long)."""
    from descriptors.ops.unary_numpy import fill_sequence

    index = np.array([2**24, 2**24 + 1, 2**24 + 3], np.int64)
    out = np.empty(3, np.float32)
    fill_sequence(out=out, value_start=np.float32(0), value_delta=np.float32(1), index=index)
    assert out.tolist() == [2.0**24, 2.0**24, 2.0**24 + 4]
    out64 = np.empty(3, np.float64)
    fill_sequence(out=out64, value_start=np.float64(0), value_delta=np.float64(1), index=index)
    assert out64.tolist() == [2.0**24, 2.0**24 + 1, 2.0**24 + 3]


# ------------------------------------------------------------------------------------------------ planning


def test_logical_index_of_numpy_blocks() -> None:
    shape = (3, 5, 7)
    full = np.arange(math.prod(shape)).reshape(shape)
    assert (logical_index(shape, (), shape) == full).all()
    for idx in [(1, slice(2, 4)), (2, slice(0, 5)), (0, 3, slice(1, 6))]:
        block = full[idx]
        assert (logical_index(shape, idx, block.shape) == block).all(), idx


@pytest.mark.parametrize(
    ("sizes", "strides", "ok"),
    [
        ((2, 3, 4), (12, 4, 1), True),
        ((5, 6), (8, 1), True),
        ((3, 1, 4), (4, 99, 1), True),  # a size-1 dimension's stride does not matter
        ((1, 7), (1, 1), True),
        ((3, 5), (1, 3), False),
        ((2, 3, 4), (1, 2, 6), False),
        ((4, 2), (1, 8), False),
    ],
)
def test_in_logical_order(sizes: tuple, strides: tuple, ok: bool) -> None:
    assert in_logical_order(sizes, strides) is ok
    plan_any = plan_fast([], (sizes, strides), [4])
    plan = plan_fast([], (sizes, strides), [4], logical=True)
    assert (plan is not None) == (ok and plan_any is not None)
    if plan is not None:
        assert plan == plan_any  # the same plan; only its availability changes


def test_kernel_sources_bind_the_index() -> None:
    from gpuops.codegen import INDEX, elementwise_kernel_spec
    from gpuops.codegen.fast import fast_kernel_function

    spec = elementwise_kernel_spec(row_of("FILL_VALUE_SEQUENCE"), {"output_tensor": F32})
    assert spec.reads_index and spec.operation.startswith(f"const long long {INDEX} = static_cast<long long>(i);")
    assert "const long long i = static_cast<long long>(_p) * 4 + _k;" in fast_kernel_function(spec, "flat")
    assert "const long long i = static_cast<long long>(_i);" in fast_kernel_function(spec, "flat")
    assert "const long long i = static_cast<long long>(_r) * _cols + _c;" in fast_kernel_function(spec, "rows")
    other = elementwise_kernel_spec(row_of("FILL_VALUE_CONSTANT"), {"output_tensor": F32})
    assert not other.reads_index and INDEX not in other.operation
    assert "long long i" not in fast_kernel_function(other, "flat")


# ------------------------------------------------------------------------------------------------ graphs


def _graph_buffers(device: Any, graph: GraphDesc, inputs: list[np.ndarray]) -> tuple[list[np.ndarray], Any]:
    xp = backends.load(device.backend).xp
    compiled = device.compile_graph(graph)
    outs = []
    for g in range(graph.output_count):
        t = graph.output_tensor(g)
        outs.append(to_backend(xp, buffer_for(t, np.zeros(t.sizes))))
    compiled.execute([to_backend(xp, a) for a in inputs], outs)
    return [to_host(o) for o in outs], compiled


def test_a_graph_does_not_fuse_it(device: Any) -> None:
    """sequence (permuted layout) + x: two kernels (the sequence is written out first), equal to the sum of the
    sequence's logical values and x."""
    seq_t, t = TensorDesc(F32, (3, 4), (1, 3)), TensorDesc(F32, (3, 4))
    nodes = [
        OperatorNode(SEQ(seq_t, value_data_type=F32, value_start=1.0, value_delta=0.5)),
        OperatorNode(ADD(a_tensor=t, b_tensor=t, output_tensor=t)),
    ]
    graph = GraphDesc(1, 1, nodes, [InputEdge(0, 1, 1)], [OutputEdge(1, 0, 0)], [IntermediateEdge(0, 0, 1, 0)])
    x = np.random.default_rng(4).standard_normal(12).astype(np.float32)
    (got,), compiled = _graph_buffers(device, graph, [x])
    assert compiled.kernel_count == 2
    want = expected(seq_t, 1.0, 0.5).ravel() + x
    np.testing.assert_array_equal(read_tensor(got, t).ravel(), want)


def test_a_reduction_does_not_take_it_as_its_prologue(device: Any) -> None:
    """sequence -> SUM over axis 1: two kernels; row r sums r * 4 + 0..3."""
    t, r = TensorDesc(F32, (3, 4)), TensorDesc(F32, (3, 1))
    nodes = [
        OperatorNode(SEQ(t, value_data_type=F32, value_start=0.0, value_delta=1.0)),
        OperatorNode(REDUCE(ReduceFunction.SUM, t, r, axes=(1,))),
    ]
    graph = GraphDesc(0, 1, nodes, [], [OutputEdge(1, 0, 0)], [IntermediateEdge(0, 0, 1, 0)])
    (got,), compiled = _graph_buffers(device, graph, [])
    assert compiled.kernel_count == 2
    assert read_tensor(got, r).ravel().tolist() == [6.0, 22.0, 38.0]


def test_fill_constant_through_the_general_kernel(device: Any) -> None:
    """FILL_VALUE_CONSTANT on an output the flat and rows kernels cannot walk (three dimensions left after
    merging): CuPy's ElementwiseKernel fills exactly the tensor's elements (the value, -0.0, bit for bit)."""
    t = TensorDesc(F32, (2, 3, 4), (20, 5, 1))
    desc = desc_class("FILL_VALUE_CONSTANT")(t, value_data_type=F32, value=-0.0)
    op = device.compile_operator(device.create_operator(desc))
    buf = np.full(40, 7.0, np.float32)
    out = to_backend(backends.load(device.backend).xp, buf)
    op.execute([], [out])
    host = to_host(out)
    covered = np.zeros(40, bool)
    covered[read_tensor(np.arange(40), t).ravel()] = True
    assert (host[covered].view(np.uint32) == 0x80000000).all() and (host[~covered] == 7.0).all()
    if device.backend != "numpy":
        assert op.launch_path == "elementwise"
