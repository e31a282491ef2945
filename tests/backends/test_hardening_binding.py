"""Binding hardening (issue 31, items 7, 11, 14, 16).

- Items 7 and 14: the convenience call lays an array shaped like a strided tensor out through the tensor's strides
  and refuses it when positions that share one element (zero strides) hold different values. "Different" is bit
  for bit: ``+0.0`` and ``-0.0`` differ (``1 / x`` tells them apart: IEEE 754 gives +inf and -inf), and for every
  floating type (float16, float32, float64 and bfloat16, whose NumPy kind is ``"V"``) any NaN equals any NaN.
- Item 11: a buffer gpuops makes for a compiled graph (a workspace holding an intermediate value, a constant node's
  copy) keeps the ``guaranteed_base_offset_alignment`` of the tensors bound to it; and ``execute`` checks every
  step's buffers before the first step writes anything.
- Item 16: a DLPack exporter that fails (``__dlpack__`` returning None or something else than a capsule, or
  raising) is refused with gpuops' message naming the argument, never NumPy's bare capsule error.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from helpers import to_backend, to_host

import gpuops
from descriptors import DataType, ExecutionFlags, ReduceFunction, TensorDesc, desc_class
from descriptors.graph import ConstantNode, GraphDesc, InputEdge, IntermediateEdge, OperatorNode, OutputEdge
from gpuops.compiled_graph import CompiledGraph

F32 = DataType.FLOAT32
IDENTITY, RECIP = desc_class("ELEMENT_WISE_IDENTITY"), desc_class("ELEMENT_WISE_RECIP")
RELU, SIGMOID = desc_class("ACTIVATION_RELU"), desc_class("ACTIVATION_SIGMOID")
SOFTMAX, REDUCE = desc_class("ACTIVATION_SOFTMAX"), desc_class("REDUCE")
FLOATS = [DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64, DataType.BFLOAT16]

# ---------------------------------------------------------------------------------------------- items 7 and 14


def _bits(dt: DataType, sign: int, exponent_all_ones: bool, mantissa: int) -> Any:
    """A scalar of ``dt`` made from its IEEE fields (sign, exponent all zeros or all ones, mantissa)."""
    width = dt.numpy_dtype.itemsize * 8
    exp = ((1 << (width - 1 - _MANTISSA[dt])) - 1) if exponent_all_ones else 0
    word = (sign << (width - 1)) | (exp << _MANTISSA[dt]) | mantissa
    return np.array([word], dtype=f"u{width // 8}").view(dt.numpy_dtype)[0]


_MANTISSA = {DataType.FLOAT16: 10, DataType.FLOAT32: 23, DataType.FLOAT64: 52, DataType.BFLOAT16: 7}


def _zero(dt: DataType, sign: int) -> Any:
    return _bits(dt, sign, False, 0)


def _quiet_nan(dt: DataType, sign: int, payload: int) -> Any:
    """A quiet NaN (the mantissa's top bit set) with ``payload`` in the bits below."""
    return _bits(dt, sign, True, (1 << (_MANTISSA[dt] - 1)) | payload)


def test_field_helper_is_ieee() -> None:
    for dt in FLOATS:
        for sign in (0, 1):
            z = float(_zero(dt, sign))
            assert z == 0.0 and math.copysign(1.0, z) == (-1.0 if sign else 1.0), dt
            assert math.isnan(float(_quiet_nan(dt, sign, 1))), dt
        assert math.isinf(float(_bits(dt, 0, True, 0))), dt
        assert _quiet_nan(dt, 0, 1).tobytes() != _quiet_nan(dt, 1, 2).tobytes(), dt


def _broadcast_op(device: gpuops.Device, desc_cls: Any, dt: DataType) -> gpuops.CompiledOperator:
    """``desc_cls`` reading a (2,) tensor through stride 0: both positions are one element."""
    t = TensorDesc(dt, (2,), (0,))
    return device.compile_operator(device.create_operator(desc_cls(input_tensor=t, output_tensor=TensorDesc(dt, (2,)))))


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("first", [0, 1], ids=["+0,-0", "-0,+0"])
def test_both_signs_of_zero_under_a_zero_stride_are_refused(
    device: gpuops.Device, xp: Any, dt: DataType, first: int
) -> None:
    """+0.0 and -0.0 are different values: the one element they would share cannot hold both."""
    op = _broadcast_op(device, IDENTITY, dt)
    x = np.array([_zero(dt, first), _zero(dt, 1 - first)])
    with pytest.raises(ValueError, match=r"input 0: the tensor reads some elements at several positions"):
        op(to_backend(xp, x))


@pytest.mark.parametrize("sign", [0, 1], ids=["+0", "-0"])
def test_a_broadcast_zero_keeps_its_sign(device: gpuops.Device, xp: Any, sign: int) -> None:
    """Equal zeros are accepted, and RECIP sees the sign they have: 1/+0 = +inf, 1/-0 = -inf (IEEE 754)."""
    op = _broadcast_op(device, RECIP, F32)
    got = to_host(op(to_backend(xp, np.array([_zero(F32, sign)] * 2))))
    want = -math.inf if sign else math.inf
    assert got.tolist() == [want, want]


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_nans_under_a_zero_stride_are_one_value(device: gpuops.Device, xp: Any, dt: DataType) -> None:
    """Any NaN equals any NaN there (sign and payload aside); a NaN and a number do not."""
    op = _broadcast_op(device, IDENTITY, dt)
    got = to_host(op(to_backend(xp, np.array([_quiet_nan(dt, 0, 1), _quiet_nan(dt, 1, 2)]))))
    assert all(math.isnan(float(v)) for v in got), got
    one = np.asarray(1.0).astype(dt.numpy_dtype)[()]
    with pytest.raises(ValueError, match=r"several positions \(zero strides\)"):
        op(to_backend(xp, np.array([_quiet_nan(dt, 0, 1), one])))


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
def test_a_nan_in_a_transposed_input_is_read(device: gpuops.Device, xp: Any, dt: DataType) -> None:
    """A transposed tensor shares no element between positions: a NaN is laid out like any value (bfloat16 too,
    whose NumPy kind is "V", not "f")."""
    t = TensorDesc(dt, (2, 3), (1, 2))
    op = device.compile_operator(device.create_operator(IDENTITY(input_tensor=t, output_tensor=TensorDesc(dt, (2, 3)))))
    values = [[1.0, math.nan, -2.0], [0.5, 3.0, math.nan]]
    got = to_host(op(to_backend(xp, np.array(values).astype(dt.numpy_dtype))))
    for row_got, row_want in zip(got.tolist(), values, strict=True):
        for g, w in zip(row_got, row_want, strict=True):
            assert g == w or (math.isnan(g) and math.isnan(w)), (got, values)


# ---------------------------------------------------------------------------------------------- item 11

T = TensorDesc(F32, (4, 5))
ALIGNED = TensorDesc(F32, (4, 5), guaranteed_base_offset_alignment=4096)


def _aligned_intermediate_graph() -> GraphDesc:
    """out0 = relu(x) (a step of its own, run first); out1 = softmax(sigmoid(x)), the sigmoid's value an
    intermediate promising 4096-byte alignment, held in a workspace between two steps."""
    nodes = [
        OperatorNode(RELU(input_tensor=T, output_tensor=T)),
        OperatorNode(SIGMOID(input_tensor=T, output_tensor=ALIGNED)),
        OperatorNode(SOFTMAX(input_tensor=ALIGNED, output_tensor=T)),
    ]
    return GraphDesc(1, 2, nodes, [InputEdge(0, 0, 0), InputEdge(0, 1, 0)], [OutputEdge(0, 0, 0), OutputEdge(2, 0, 1)],
                     [IntermediateEdge(1, 0, 2, 0)])  # fmt: skip


def _softmax_rows(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("fuse", [True, False], ids=["fused", "node-by-node"])
def test_an_aligned_intermediate_lives_in_an_aligned_workspace(device: gpuops.Device, xp: Any, fuse: bool) -> None:
    compiled = CompiledGraph(device, _aligned_intermediate_graph(), ExecutionFlags.NONE, fuse=fuse)
    assert [t.guaranteed_base_offset_alignment for t in compiled.plan.workspaces] == [4096]
    x = np.linspace(-3, 3, 20, dtype=np.float32)
    outs = [to_backend(xp, np.zeros(20, np.float32)) for _ in range(2)]
    for _ in range(3):  # a fresh workspace per call: each one aligned
        compiled.execute([to_backend(xp, x)], outs)
    x64 = x.astype(np.float64).reshape(4, 5)
    np.testing.assert_array_equal(to_host(outs[0]), np.maximum(x, 0))
    want = _softmax_rows(1 / (1 + np.exp(-x64))).ravel()
    np.testing.assert_allclose(to_host(outs[1]), want, rtol=2e-6, atol=0)


def test_a_constant_read_through_an_aligned_tensor_is_aligned(device: gpuops.Device, xp: Any) -> None:
    """A constant node's copy keeps the alignment its reader promises (a REDUCE: a step that checks it)."""
    data = np.arange(20, dtype=np.float32)
    graph = GraphDesc(0, 1, [ConstantNode(data), OperatorNode(REDUCE(ReduceFunction.SUM, ALIGNED,
                                                                     TensorDesc(F32, (4, 1)), axes=(1,)))],
                      [], [OutputEdge(1, 0, 0)], [IntermediateEdge(0, 0, 1, 0)])  # fmt: skip
    out = to_backend(xp, np.zeros(4, np.float32))
    device.compile_graph(graph).execute([], [out])
    assert to_host(out).tolist() == data.astype(np.float64).reshape(4, 5).sum(axis=1).tolist()


def test_no_output_is_written_before_every_step_is_checked(
    device: gpuops.Device, xp: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were a step's buffer to break its tensor's promise (here a workspace made misaligned on purpose), the
    BindingError comes before the first step runs: output 0, written by the first step, is untouched."""
    backend = device.backend_impl

    def misaligned(self: CompiledGraph) -> list[Any]:
        spaces = []
        for t in self.plan.workspaces:
            raw = backend.xp.zeros(t.total_tensor_size_in_bytes + 8192, dtype=np.uint8)
            start = -backend.pointer(raw) % 4096 + 4  # 4 bytes past a multiple of 4096: float32-aligned only
            spaces.append(raw[start : start + t.total_tensor_size_in_bytes].view(np.float32))
        return spaces

    monkeypatch.setattr(CompiledGraph, "_new_workspaces", misaligned)
    compiled = CompiledGraph(device, _aligned_intermediate_graph(), ExecutionFlags.NONE, fuse=False)
    outs = [to_backend(xp, np.full(20, 7.0, np.float32)) for _ in range(2)]
    with pytest.raises(gpuops.BindingError, match="not a multiple of guaranteed_base_offset_alignment = 4096"):
        compiled.execute([to_backend(xp, -np.ones(20, np.float32))], outs)
    assert all((to_host(o) == 7.0).all() for o in outs), [to_host(o) for o in outs]


# ---------------------------------------------------------------------------------------------- item 16


class _ReturnsNone:
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return None

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


class _ReturnsAnInt(_ReturnsNone):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return 42


class _Raises(_ReturnsNone):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("exporter broke")


class _DeviceRaises(_ReturnsNone):
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        raise KeyError("no stream")

    def __dlpack_device__(self) -> tuple[int, int]:
        raise LookupError("no device")


EXPORTERS = [_ReturnsNone, _ReturnsAnInt, _Raises, _DeviceRaises]


def _relu(device: gpuops.Device) -> gpuops.CompiledOperator:
    t = TensorDesc(F32, (4,))
    return device.compile_operator(device.create_operator(RELU(input_tensor=t, output_tensor=t)))


@pytest.mark.parametrize("exporter", EXPORTERS, ids=lambda c: c.__name__)
def test_a_failing_dlpack_exporter_is_refused_by_name(device: gpuops.Device, xp: Any, exporter: type) -> None:
    """NumPy and CuPy: the convenience call names the input, ``execute`` the buffer's position. The emulator
    imports no DLPack (no foreign device memory exists there): the object reaches binding, which names the tensor;
    its convenience call refuses it as a host array."""
    op = _relu(device)
    name = re.escape(f"{exporter.__module__}.{exporter.__name__}")
    out = to_backend(xp, np.full(4, 7.0, np.float32))
    if device.backend == "emulator":
        with pytest.raises(gpuops.BindingError, match=rf"input_tensor must be bound to .* \(got {name}\)"):
            op.execute([exporter()], [out])
        with pytest.raises(TypeError, match=rf"input 0 is a host array \({name}\)"):
            op(exporter())
    else:
        with pytest.raises(TypeError, match=rf"the buffer at position 0 \({name}\) cannot be read through DLPack"):
            op.execute([exporter()], [out])
        with pytest.raises(TypeError, match=rf"ACTIVATION_RELU: input 0 \({name}\) cannot be read through DLPack"):
            op(exporter())
    assert (to_host(out) == 7.0).all()
