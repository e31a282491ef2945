"""``gpuops.GraphBuilder`` (issue 16, item 4): expressions become a ``GraphDesc`` that compiles and runs on every
backend; references are float64 NumPy; errors name the operator and the argument."""

from __future__ import annotations

import doctest
from typing import Any

import numpy as np
import pytest
from helpers import to_backend, to_host

import gpuops
from descriptors import DataType, GraphDesc, ReduceFunction, TensorDesc
from gpuops import graph_builder

F32 = DataType.FLOAT32


def test_the_module_example_runs() -> None:
    result = doctest.testmod(graph_builder, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 5 and result.failed == 0


def test_operators_and_methods(device: gpuops.Device, xp: Any) -> None:
    """y0 = sigmoid((a - b) / 2 + clip(-a, 0, 1)), y1 = SUM over axis 1 of a * a, y2 = a >= b (UINT8)."""
    gb = gpuops.GraphBuilder()
    a = gb.input(TensorDesc(F32, (3, 4)))
    b = gb.input(TensorDesc(F32, (4,)))  # a row, broadcast by a zero stride
    y0 = gb.sigmoid((a - b) / 2 + gb.clip(-a, min=0.0, max=1.0))
    y1 = gb.reduce(a * a, function=ReduceFunction.SUM, axes=(1,))
    y2 = a >= b
    graph = gb.build([y0, y1, y2])
    assert isinstance(graph, GraphDesc) and graph.input_count == 2 and graph.output_count == 3
    assert y1.sizes == (3, 1) and y2.data_type is DataType.UINT8
    compiled = device.compile_graph(graph)
    av = np.linspace(-2, 2, 12, dtype=np.float32)
    bv = np.float32([0.5, -1, 0, 3])
    outs = [to_backend(xp, np.zeros(12, np.float32)), to_backend(xp, np.zeros(3, np.float32)),
            to_backend(xp, np.zeros(12, np.uint8))]  # fmt: skip
    compiled.execute([to_backend(xp, av), to_backend(xp, bv)], outs)
    a64, b64 = av.reshape(3, 4).astype(np.float64), bv.astype(np.float64)
    want0 = 1 / (1 + np.exp(-((a64 - b64) / 2 + np.clip(-a64, 0, 1))))
    np.testing.assert_allclose(to_host(outs[0]).reshape(3, 4), want0, rtol=1e-6)
    np.testing.assert_allclose(to_host(outs[1]), (a64 * a64).sum(axis=1), rtol=1e-6)
    assert to_host(outs[2]).reshape(3, 4).tolist() == (a64 >= b64).astype(np.uint8).tolist()
    # (a - b) / 2 + clip(...) -> sigmoid: one kernel; a * a, then SUM; the comparison joins a's group or not:
    assert compiled.kernel_count <= 4


def test_numbers_become_constants_of_the_operand_type() -> None:
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(DataType.FLOAT16, (5,)))
    y = 1 - x * 0.5
    graph = gb.build([y])
    assert y.data_type is DataType.FLOAT16
    assert sum(1 for n in graph.nodes if type(n).__name__ == "ConstantNode") == 2
    out = np.zeros(6, np.float16)
    gb.compile([y], gpuops.Device("numpy")).execute([np.float16([0, 1, 2, 4, -2, 0])], [out])
    assert out[:5].tolist() == [1.0, 0.5, 0.0, -1.0, 2.0]


def test_errors_name_the_operator() -> None:
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    row = gb.reduce(x, function=ReduceFunction.SUM, axes=(0,))  # sizes (1, 3)
    with pytest.raises(
        ValueError, match=r"GraphBuilder.add \(ELEMENT_WISE_ADD\): b_tensor is the output of node 0 with sizes \(1, 3\)"
    ):
        x + row
    with pytest.raises(ValueError, match=r"do not broadcast"):
        x + gb.input(TensorDesc(F32, (4,)))
    with pytest.raises(TypeError, match=r"takes 2 tensor inputs"):
        gb.add(x)
    with pytest.raises(AttributeError, match="no operator 'frobnicate'"):
        gb.frobnicate(x)
    with pytest.raises(ValueError, match="a graph output must be a node's output"):
        gb.build([x])
    with pytest.raises(TypeError, match="no truth value"):
        bool(x > 0)


def test_every_operator_has_a_method() -> None:
    from descriptors import ROWS

    assert sorted(r.name for r in graph_builder.OPERATORS.values()) == sorted(r.name for r in ROWS)
    gb = gpuops.GraphBuilder()
    assert "relu" in dir(gb) and "activation_identity" in dir(gb) and "if_" in dir(gb)


def test_the_readme_graph_is_what_build_writes() -> None:
    """The README's "same graph as data" listing, edge for edge."""
    from descriptors.graph import ConstantNode, InputEdge, IntermediateEdge, OutputEdge

    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    bias = gb.input(TensorDesc(F32, (3,)))
    graph = gb.build([gb.relu(x * 0.5 + bias)])
    kinds = [type(n).__name__ if isinstance(n, ConstantNode) else n.desc.row.name for n in graph.nodes]
    assert kinds == ["ELEMENT_WISE_MULTIPLY", "ELEMENT_WISE_ADD", "ACTIVATION_RELU", "ConstantNode"]
    assert graph.input_edges == (InputEdge(0, 0, 0), InputEdge(1, 1, 1))
    assert graph.output_edges == (OutputEdge(2, 0, 0),)
    assert graph.intermediate_edges == (IntermediateEdge(3, 0, 0, 1), IntermediateEdge(0, 0, 1, 0),
                                        IntermediateEdge(1, 0, 2, 0))  # fmt: skip
    assert graph.nodes[1].desc.b_tensor.element_strides == (0, 1)  # type: ignore[union-attr]


# -- issue 31, item 4: a number operand becomes a constant of the other operand's type only when it converts exactly


def _graph_constants(gb: gpuops.GraphBuilder, y: Any) -> list[Any]:
    """The ConstantNodes of the graph computing ``y``."""
    from descriptors.graph import ConstantNode

    return [n for n in gb.build([y]).nodes if isinstance(n, ConstantNode)]


@pytest.mark.parametrize(
    ("data_type", "expr", "method", "role", "shown", "why"),
    [
        (DataType.INT32, lambda x: x * 0.5, "multiply", "b_tensor", "0.5", "not an integer"),
        (DataType.FLOAT16, lambda x: x * 1e6, "multiply", "b_tensor", "1000000.0", "round to inf"),
        (DataType.FLOAT16, lambda x: -70000 - x, "subtract", "a_tensor", "-70000", "round to -inf"),
        (DataType.UINT8, lambda x: x + 300, "add", "b_tensor", "300", "outside UINT8's range"),
        (DataType.INT8, lambda x: 300 + x, "add", "a_tensor", "300", "outside INT8's range"),
        (DataType.UINT8, lambda x: x * -1, "multiply", "b_tensor", "-1", "outside UINT8's range"),
        (DataType.INT32, lambda x: x == 0.5, "logical_equals", "b_tensor", "0.5", "not an integer"),
        (DataType.INT16, lambda x: x / float("nan"), "divide", "b_tensor", "nan", "not an integer"),
        (DataType.INT64, lambda x: x - 2**63, "subtract", "b_tensor", str(2**63), "outside INT64's range"),
        (DataType.FLOAT32, lambda x: x * 1e39, "multiply", "b_tensor", "1e+39", "round to inf"),
        (DataType.FLOAT32, lambda x: x + 2**128, "add", "b_tensor", str(2**128), "round to inf"),
        (DataType.FLOAT64, lambda x: x + 10**400, "add", "b_tensor", str(10**400)[:20], "beyond even float64"),
        (DataType.BOOL, lambda x: x == 2, "logical_equals", "b_tensor", "2", "neither 0 nor 1"),
        (DataType.INT32, lambda x: x * np.float32(2.5), "multiply", "b_tensor", "np.float32(2.5)", "not an integer"),
    ],
    ids=lambda v: v.name if isinstance(v, DataType) else None,
)
def test_a_number_that_does_not_convert_exactly_is_refused_by_name(
    data_type: DataType, expr: Any, method: str, role: str, shown: str, why: str
) -> None:
    """INT32 ``x * 0.5`` was ``x * 0``, FLOAT16 ``x * 1e6`` was ``x * inf``, UINT8 ``x + 300`` raised NumPy's
    OverflowError (NEP 50 weak scalars): now gpuops' own error names the method, operand, number and type."""
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(data_type, (3,)))
    with pytest.raises(ValueError, match=rf"GraphBuilder\.{method} \(") as info:
        expr(x)
    assert type(info.value).__name__ == "ConstantConversionError"
    assert isinstance(info.value, gpuops.DescriptorError) and info.value.field == role
    message = str(info.value)
    assert f"{role}, the number {shown}" in message and why in message, message
    assert f"data type {data_type.name}" in message and f"{data_type.name} takes" in message, message
    assert not gb._nodes and not gb._constants  # nothing was added


def test_numbers_that_fit_are_rounded_once() -> None:
    """Floats round to nearest (ties to even) once: a Python float into BFLOAT16 directly (ml_dtypes goes through
    float32, rounding twice), a Python int beyond 2^53 into FLOAT32 (float() first rounds twice); integral floats
    are exact integers; NaN, inf and -0.0 keep their bits. Each constant is typed (``ConstantNode.data_type``)."""
    from fractions import Fraction

    import ml_dtypes

    # 1 + 2^-8 + 2^-30 lies above the midpoint 1 + 2^-8 of BFLOAT16's neighbours 1 and 1 + 2^-7.
    bf = gpuops.GraphBuilder()
    xb = bf.input(TensorDesc(DataType.BFLOAT16, (2,)))
    (c,) = _graph_constants(bf, xb * (1 + 2**-8 + 2**-30))
    assert c.data_type is DataType.BFLOAT16
    assert Fraction(float(np.frombuffer(c.data[:2], ml_dtypes.bfloat16)[0])) == 1 + Fraction(1, 2**7)
    # 2^60 + 2^36 + 1 lies above the midpoint 2^60 + 2^36 of FLOAT32's neighbours 2^60 and 2^60 + 2^37.
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (4,)))
    (c,) = _graph_constants(gb, x + (2**60 + 2**36 + 1))
    assert c.data_type is F32 and int(np.frombuffer(c.data, np.float32)[0]) == 2**60 + 2**37
    (c,) = _graph_constants(gb, x * -0.0)
    assert np.frombuffer(c.data, np.uint32)[0] == 0x80000000
    (c,) = _graph_constants(gb, x - float("-inf"))
    assert np.frombuffer(c.data, np.float32)[0] == -np.inf
    (c,) = _graph_constants(gb, x + float("nan"))
    assert np.isnan(np.frombuffer(c.data, np.float32)[0])
    xi = gb.input(TensorDesc(DataType.UINT8, (4,)))
    (c,) = _graph_constants(gb, xi * 2.0 + True)[:1]
    assert c.data_type is DataType.UINT8 and c.data[0] == 2
    # x * 2.0 on UINT8 runs as x * 2 (wrapping UINT8 arithmetic), x * 0.1 on FLOAT16 multiplies by fp16(0.1).
    h = gpuops.GraphBuilder()
    xh, xu = h.input(TensorDesc(DataType.FLOAT16, (3,))), h.input(TensorDesc(DataType.UINT8, (3,)))
    outs = [np.zeros(4, np.float16), np.zeros(4, np.uint8)]
    h.compile([xh * 0.1, xu * 2.0], gpuops.Device("numpy")).execute(
        [np.float16([1, 3, -7, 0]), np.uint8([1, 100, 200, 0])], outs
    )
    tenth = np.float16(0.1)  # IEEE round to nearest: 0.0999755859375
    assert float(tenth) == 0.0999755859375
    want = (np.float64([1, 3, -7]) * float(tenth)).astype(np.float16)
    assert outs[0][:3].tolist() == want.tolist()
    assert outs[1][:3].tolist() == [(2 * v) % 256 for v in (1, 100, 200)]


def _round_half_even(x: Any, precision: int, emin: int) -> Any:
    """The exact value of ``x`` (a Fraction) rounded to nearest, ties to even, in a binary format of
    ``precision`` significant bits and least normal exponent ``emin`` (subnormals included; no overflow)."""
    from fractions import Fraction

    if x == 0:
        return Fraction(0)
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    e += 1 if Fraction(2) ** (e + 1) <= a else -1 if Fraction(2) ** e > a else 0
    quantum = Fraction(2) ** (max(e, emin) - precision + 1)
    n, r = divmod(a / quantum, 1)
    n += 1 if r > Fraction(1, 2) or (r == Fraction(1, 2) and n % 2) else 0
    return (1 if x > 0 else -1) * n * quantum


@pytest.mark.parametrize(
    ("data_type", "precision", "emin"),
    [(DataType.BFLOAT16, 8, -126), (DataType.FLOAT16, 11, -14), (DataType.FLOAT32, 24, -126)],
    ids=lambda v: v.name if isinstance(v, DataType) else None,
)
def test_numbers_round_once_to_nearest_even(data_type: DataType, precision: int, emin: int) -> None:
    """Python floats and ints (beyond 2^53: float() would round them first) near the format's midpoints (a part in
    2^20 to 2^41 of the spacing off, or on them), each a constant of ``data_type``: the exact round-to-nearest-even
    of the number (fractions), or a refusal exactly when that lies beyond the largest finite value. The floats that
    fit as one array too."""
    import random
    from fractions import Fraction

    import ml_dtypes

    largest = Fraction(float(ml_dtypes.finfo(data_type.numpy_dtype).max))
    rng = random.Random(31)
    numbers: list[float | int] = []
    for _ in range(150):
        m = rng.getrandbits(precision) | 1 << (precision - 1)
        off = rng.choice([-1, 0, 1]) * Fraction(1, 2 ** rng.randint(20, 40))
        numbers.append(float((m + Fraction(1, 2) + off) * Fraction(2) ** (rng.randint(emin - 12, 20) - precision + 1)))
        near = ((2 * m + 1) << 40) + rng.choice([-1, 0, 1]) * (1 << rng.randint(0, 20))  # (m + 1/2 + off) * 2^41
        numbers.append(rng.choice([1, -1]) * (near << rng.randint(0, 60)))
    gb = gpuops.GraphBuilder()
    for v in numbers:
        want = _round_half_even(Fraction(v), precision, emin)
        if abs(want) > largest:
            with pytest.raises(ValueError, match="would round to"):
                gb.constant(v, data_type)
            continue
        c = gb.constant(v, data_type)
        got = np.frombuffer(gb._constants[c.index][0], data_type.numpy_dtype)[0]
        assert Fraction(float(got)) == want, (v, float(want), float(got))
    fits = [(v, w) for v in numbers if isinstance(v, float) for w in [_round_half_even(Fraction(v), precision, emin)]]
    fits = [(v, w) for v, w in fits if abs(w) <= largest]
    assert len(fits) > 50
    c = gb.constant(np.float64([v for v, _ in fits]), data_type)
    got = np.frombuffer(gb._constants[c.index][0], data_type.numpy_dtype)[: len(fits)]
    assert [Fraction(float(g)) for g in got] == [w for _, w in fits]


def test_constant_converts_its_data_by_the_same_rule() -> None:
    gb = gpuops.GraphBuilder()
    with pytest.raises(ValueError, match=r"GraphBuilder\.constant: .*INT32: element \[1\], 0.5, is not an integer"):
        gb.constant([1.0, 0.5], DataType.INT32)
    with pytest.raises(ValueError, match=r"element \[1, 1\], 300, is outside UINT8's range"):
        gb.constant([[1, 2], [3, 300]], DataType.UINT8)
    with pytest.raises(ValueError, match=r"element \[0\], 100000.0, overflows FLOAT16"):
        gb.constant([1e5], DataType.FLOAT16)
    with pytest.raises(ValueError, match=r"the number 1180591620717411303424 .* INT64 \(a Python int's data type"):
        gb.constant(2**70)
    with pytest.raises(TypeError, match=r"GraphBuilder\.constant: data of NumPy dtype object holds no tensor"):
        gb.constant(np.array([1, "a"], dtype=object), DataType.FLOAT32)
    assert not gb._constants
    v = gb.constant(2**70, DataType.FLOAT32)  # a power of two: exact
    assert v.data_type is F32 and np.frombuffer(gb._constants[0][0], np.float32)[0] == 2.0**70


# -- issue 31, item 15: arguments checked when the method is called; operators without inputs


def test_operators_without_tensor_inputs_take_output_sizes(device: gpuops.Device, xp: Any) -> None:
    """FILL_VALUE_SEQUENCE and FILL_VALUE_CONSTANT have no tensor inputs (a DirectML graph node needs none: every
    input it has takes an edge): their output is ``output_sizes=`` and ``output_type=`` / ``value_data_type=``.
    y = x * sequence(1, 0.5) + constant(2), z = sequence(-3, 2) as INT32; references in float64."""
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    seq = gb.fill_value_sequence(output_sizes=(2, 3), value_data_type=F32, value_start=1.0, value_delta=0.5)
    two = gb.fill_value_constant(output_sizes=(2, 3), output_type=F32, value=2.0)
    z = gb.fill_value_sequence(output_sizes=[4], output_type="int32", value_start=-3, value_delta=2)
    assert seq.sizes == (2, 3) and z.data_type is DataType.INT32
    compiled = device.compile_graph(gb.build([x * seq + two, z]))
    xv = np.float32([0.5, -1, 2, 4, 0, -3])
    outs = [to_backend(xp, np.zeros(6, np.float32)), to_backend(xp, np.zeros(4, np.int32))]
    compiled.execute([to_backend(xp, xv)], outs)
    i = np.arange(6, dtype=np.float64)
    np.testing.assert_array_equal(to_host(outs[0]), xv.astype(np.float64) * (1.0 + 0.5 * i) + 2.0)
    assert to_host(outs[1]).tolist() == [-3 + 2 * k for k in range(4)]


def test_operators_without_tensor_inputs_refuse_what_is_missing() -> None:
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    with pytest.raises(TypeError, match=r"GraphBuilder\.fill_value_sequence: FILL_VALUE_SEQUENCE has no tensor inputs"):
        gb.fill_value_sequence(value_data_type=F32, value_start=0.0, value_delta=1.0)
    with pytest.raises(TypeError, match=r"output_type= or value_data_type="):
        gb.fill_value_constant(output_sizes=(2,), value=1.0)
    with pytest.raises(TypeError, match=r"output_sizes must be a non-empty sequence of positive integers"):
        gb.fill_value_constant(output_sizes=4, output_type=F32, value=1.0)
    with pytest.raises(TypeError, match=r"GraphBuilder\.relu: output_sizes= is only for operators without tensor"):
        gb.relu(x, output_sizes=(2, 3))
    with pytest.raises(ValueError, match=r"GraphBuilder\.fill_value_constant: .*value"):
        gb.fill_value_constant(output_sizes=(2,), output_type=DataType.UINT8, value=256)
    assert not gb._nodes


@pytest.mark.parametrize(
    ("method", "fields"),
    [
        ("reduce", {"function": ReduceFunction.SUM, "axes": 1}),
        ("reduce", {"function": ReduceFunction.SUM, "axes": (1.0,)}),
        ("reduce", {"function": ReduceFunction.SUM, "axes": (True,)}),
        ("reduce", {"function": ReduceFunction.SUM, "axes": "1"}),
        ("argmax", {"axes": 0}),
        ("softmax1", {"axes": np.int64(1)}),
    ],
)
def test_axes_must_be_a_sequence_of_integers(method: str, fields: dict[str, Any]) -> None:
    """As the descriptors' own ``axes`` (DirectML's AxisCount + Axes): a bare int is refused, clearly."""
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    with pytest.raises(TypeError, match=rf"GraphBuilder\.{method}: axes must be a sequence of integers, e\.g\. \(1,\)"):
        getattr(gb, method)(x, **fields)
    assert not gb._nodes


def test_fields_are_checked_when_the_method_is_called() -> None:
    gb = gpuops.GraphBuilder()
    x = gb.input(TensorDesc(F32, (2, 3)))
    assert gb.reduce(x, function=ReduceFunction.SUM, axes=[1]).sizes == (2, 1)  # a list is a sequence
    assert gb.reduce(x, function=ReduceFunction.SUM, axes=np.array([0])).sizes == (1, 3)
    with pytest.raises(TypeError, match=r"GraphBuilder\.reduce: axes= is required \(axes list, e\.g\. \(1,\)\)"):
        gb.reduce(x, function=ReduceFunction.SUM)
    with pytest.raises(ValueError, match=r"GraphBuilder\.reduce: REDUCE SUM .*axes \(2,\) has 2") as info:
        gb.reduce(x, function=ReduceFunction.SUM, axes=(2,))
    assert info.value.field == "axes"
    with pytest.raises(ValueError, match=r"GraphBuilder\.clip: .*min \(FLOAT\) must be a number \(got str 'a'\)"):
        gb.clip(x, min="a", max=1.0)
    with pytest.raises(TypeError, match=r"GraphBuilder\.reduce \(REDUCE\): takes 1 tensor input .* by keyword"):
        gb.reduce(x, ReduceFunction.SUM, axes=(1,))
    with pytest.raises(TypeError, match=r"GraphBuilder\.relu: bogus= is not a field"):
        gb.relu(x, bogus=1)
    with pytest.raises(TypeError, match=r"GraphBuilder\.relu: output_tensor= is a tensor"):
        gb.relu(x, output_tensor=x.tensor)
    with pytest.raises(TypeError, match=r"GraphBuilder\.add: b_tensor must be a Value .* \(got 2\) \(a number is"):
        gb.add(x, 2)
    with pytest.raises(TypeError, match=r"GraphBuilder\.multiply \(.*\): b_tensor must be a Value or a number"):
        x * "a"
    with pytest.raises(ValueError, match=r"GraphBuilder\.relu: output_type: 'float31' is not a data type"):
        gb.relu(x, output_type="float31")
    assert len(gb._nodes) == 2  # the two reductions above, nothing else
