"""Binding rules the mutation run of ``gpuops/binding.py`` found unpinned (tools/mutation/SURVIVORS.md): what a
too-short buffer's message asks for, the counts a wrong number of buffers is told, the common path's minimum
size, the fast paths' exact buffers, an absent optional tensor's buffer, and a graph's outputs that share an
input's buffer.

References: DirectML's ``DMLCalcBufferTensorSize`` (the bytes of the last element's end, rounded up to a multiple of
4; docs/reference/directml.md section 8) and the binding rules of API.md; nothing here is read from gpuops' output.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import gpuops
from descriptors import DataType, TensorDesc, desc_class
from gpuops.backends import load
from gpuops.binding import BindingPlan

F16, F32, U8 = DataType.FLOAT16, DataType.FLOAT32, DataType.UINT8
ADD = desc_class("ELEMENT_WISE_ADD")
NUMPY = gpuops.Device("numpy")


def plan_of(desc: Any) -> BindingPlan:
    """The NumPy backend's binding plan of ``desc``."""
    b = load("numpy")
    return BindingPlan(desc, desc.row, b.array_type, b.pointer, b.may_overlap, b.name, host=b.binds_host_memory)


def binding_error(desc: Any, inputs: list[Any], outputs: list[Any]) -> str:
    op = NUMPY.compile_operator(NUMPY.create_operator(desc))
    with pytest.raises(gpuops.BindingError) as info:
        op.execute(inputs, outputs)
    return str(info.value)


def test_a_short_buffer_is_told_the_elements_it_needs() -> None:
    """FLOAT16 sizes (3,): 6 bytes rounded up to 8, so the buffer must hold 4 elements (8 / 2, not 3)."""
    t = TensorDesc(F16, (3,))
    four = np.zeros(4, np.float16)
    msg = binding_error(ADD(t, t, t), [np.zeros(3, np.float16), four], [four.copy()])
    assert "total_tensor_size_in_bytes = 8: pad the buffer to 4 FLOAT16 elements" in msg, msg


def test_byte_strides_are_named_as_the_likely_mistake() -> None:
    """Strides (48, 16, 4) on FLOAT32 sizes (2, 3, 4) are the packed element strides (12, 4, 1) times 4 bytes."""
    wrong = TensorDesc(F32, (2, 3, 4), (48, 16, 4))
    t = TensorDesc(F32, (2, 3, 4))
    packed = np.zeros(24, np.float32)
    msg = binding_error(ADD(wrong, t, t), [packed, packed.copy()], [packed.copy()])
    assert "The strides (48, 16, 4) look like byte strides" in msg and "((12, 4, 1), or None" in msg, msg
    # Element strides that are not the packed ones times the item size draw no such hint.
    other = TensorDesc(F32, (2, 3, 4), (24, 8, 2))
    msg = binding_error(ADD(other, t, t), [packed, packed.copy()], [packed.copy()])
    assert "byte strides" not in msg, msg


def test_a_wrong_buffer_count_is_told_the_operators_count() -> None:
    t = TensorDesc(F32, (6,))
    a = np.zeros(6, np.float32)
    assert binding_error(ADD(t, t, t), [a], [a.copy()]) == (
        "ELEMENT_WISE_ADD: 1 input buffer bound; the operator has 2 inputs (a_tensor, b_tensor); pass None for an "
        "absent optional tensor"
    )
    assert binding_error(ADD(t, t, t), [a, a], []) == (
        "ELEMENT_WISE_ADD: 0 output buffers bound; the operator has 1 output (output_tensor)"
    )


def test_the_common_path_takes_the_smallest_buffers_the_size_rule_allows() -> None:
    """``common_check`` (the size rule as a predicate) accepts buffers of exactly ceil(total bytes / item size)
    elements, so the common binding never falls back to the general path for them; one element less is refused."""
    t = TensorDesc(F16, (3,))  # 8 bytes: 4 elements
    accepts = plan_of(ADD(t, t, t)).common_check()
    assert accepts is not None
    four = [np.zeros(4, np.float16) for _ in range(3)]
    assert accepts(four[:2], four[2:])
    assert not accepts([np.zeros(3, np.float16), four[1]], four[2:])


def test_the_exact_buffers_are_the_packed_tensors_elements() -> None:
    t = TensorDesc(F32, (2, 3))
    f32 = np.dtype(np.float32)
    assert plan_of(ADD(t, t, t)).exact_buffers() == (((f32, (6,)), (f32, (6,))), (f32, (6,)))
    # FLOAT16 (3,): DirectML's size (8 bytes) is past the 3 elements, so no exact 1-D shape holds it.
    h = TensorDesc(F16, (3,))
    assert plan_of(ADD(h, h, h)).exact_buffers() is None


def test_an_absent_optional_tensor_binds_none_and_nothing_else() -> None:
    """QUANTIZE_LINEAR without its zero point (optional from FL 6_2): None binds; a buffer is refused, with the
    output untouched."""
    t = TensorDesc(F32, (4,))
    desc = desc_class("ELEMENT_WISE_QUANTIZE_LINEAR")(t, t, None, TensorDesc(U8, (4,)))
    op = NUMPY.compile_operator(NUMPY.create_operator(desc))
    x, scale = np.float32([0, 1, 2, 3]), np.ones(4, np.float32)
    out = np.zeros(4, np.uint8)
    op.execute([x, scale, None], [out])
    assert out.tolist() == [0, 1, 2, 3]  # round(x / 1) + 0
    sentinel = np.full(4, 7, np.uint8)
    with pytest.raises(gpuops.BindingError, match="zero_point_tensor is absent from the descriptor, so its buffer"):
        op.execute([x, scale, np.zeros(4, np.uint8)], [sentinel])
    assert sentinel.tolist() == [7] * 4


def test_a_graph_output_on_an_input_buffer_is_told_graphs_do_not_run_in_place() -> None:
    b = gpuops.GraphBuilder()
    x = b.input(TensorDesc(F32, (6,)))
    compiled = NUMPY.compile_graph(b.build([b.relu(x)]))
    buf = np.linspace(-1, 1, 6, dtype=np.float32)
    with pytest.raises(gpuops.BindingError, match=r"outputs\[0\] is bound to the same buffer as inputs\[0\], but"):
        compiled.execute([buf], [buf])
    assert buf.tolist() == np.linspace(-1, 1, 6, dtype=np.float32).tolist()
