"""TensorDesc, calc_buffer_tensor_size and the enums, against directml.md sections 1 and 6."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

from descriptors import (
    DataType,
    DescriptorError,
    FeatureLevel,
    TensorDesc,
    TensorFlags,
    calc_buffer_tensor_size,
)

# --- DMLCalcBufferTensorSize (directml.md 1.6) -------------------------------------------------


def test_calc_examples_from_the_reference() -> None:
    assert calc_buffer_tensor_size(DataType.FLOAT16, (1, 1, 1, 3)) == 8  # 6 bytes -> 8
    assert calc_buffer_tensor_size(DataType.FLOAT32, (2, 3), (0, 1)) == 12  # last index 2 -> 3 elements


@pytest.mark.parametrize(
    ("dt", "sizes", "strides", "want"),
    [
        (DataType.FLOAT32, (2, 3), None, 24),
        (DataType.UINT8, (1,), None, 4),  # one byte, a DWORD
        (DataType.UINT8, (5,), None, 8),
        (DataType.INT16, (3,), None, 8),
        (DataType.FLOAT64, (3,), None, 24),
        (DataType.INT64, (2, 2), (0, 0), 8),  # all broadcast: one element
        (DataType.FLOAT32, (2, 3), (4, 1), 28),  # padded: last index 1*4 + 2 = 6
        (DataType.FLOAT32, (2, 3), (1, 2), 24),  # column-major: last index 1 + 4 = 5
        (DataType.UINT8, (3, 3), (3, 1), 12),  # 9 bytes -> 12
        (DataType.BFLOAT16, (3,), None, 8),
        (DataType.BOOL, (5,), None, 8),
    ],
)
def test_calc_buffer_tensor_size(dt: DataType, sizes: tuple, strides: tuple | None, want: int) -> None:
    assert calc_buffer_tensor_size(dt, sizes, strides) == want
    # The same number from the formula written out (directml.md 1.6).
    bits = np.dtype(dt.numpy_dtype).itemsize * 8
    if strides is None:
        elements = int(np.prod(sizes))
    else:
        elements = sum((s - 1) * st for s, st in zip(sizes, strides, strict=True)) + 1
    nbytes = (elements * bits + 7) // 8
    assert want == (nbytes + 3) & ~3


def test_calc_is_64_bit() -> None:
    """Sizes whose byte count passes 2**32 must not wrap (DirectML PR #296)."""
    assert calc_buffer_tensor_size(DataType.FLOAT32, (2**16, 2**15)) == 2**33
    assert calc_buffer_tensor_size(DataType.FLOAT32, (2, 2**31), (2**31, 1)) == (2**32) * 4


# --- DataType ------------------------------------------------------------------------------------

DML_NUMBERS = {
    "FLOAT32": 1,
    "FLOAT16": 2,
    "UINT32": 3,
    "UINT16": 4,
    "UINT8": 5,
    "INT32": 6,
    "INT16": 7,
    "INT8": 8,
    "FLOAT64": 9,
    "UINT64": 10,
    "INT64": 11,
}
NUMPY_OF = {
    "FLOAT32": np.float32,
    "FLOAT16": np.float16,
    "UINT32": np.uint32,
    "UINT16": np.uint16,
    "UINT8": np.uint8,
    "INT32": np.int32,
    "INT16": np.int16,
    "INT8": np.int8,
    "FLOAT64": np.float64,
    "UINT64": np.uint64,
    "INT64": np.int64,
    "BFLOAT16": ml_dtypes.bfloat16,
    "BOOL": np.bool_,
}


@pytest.mark.parametrize(("name", "number"), sorted(DML_NUMBERS.items(), key=lambda kv: kv[1]))
def test_data_type_numbers(name: str, number: int) -> None:
    assert DataType[name] == number
    assert DataType(number) is DataType[name]


def test_data_type_members() -> None:
    assert {d.name for d in DataType} == set(DML_NUMBERS) | {"BFLOAT16", "BOOL"}
    # The extensions cannot collide with a DirectML number (0 UNKNOWN .. 13 INT4).
    assert DataType.BFLOAT16.value > 13 and DataType.BOOL.value > 13
    assert DataType.BFLOAT16.is_extension and DataType.BOOL.is_extension
    assert not any(DataType[n].is_extension for n in DML_NUMBERS)


@pytest.mark.parametrize("name", sorted(NUMPY_OF))
def test_numpy_dtype_round_trip(name: str) -> None:
    dt = DataType[name]
    assert isinstance(dt.numpy_dtype, np.dtype)
    assert dt.numpy_dtype == np.dtype(NUMPY_OF[name])
    assert DataType.from_numpy(dt.numpy_dtype) is dt
    assert DataType.from_numpy(NUMPY_OF[name]) is dt
    assert DataType.from_numpy(np.dtype(NUMPY_OF[name]).name) is dt


def test_bfloat16_is_ml_dtypes() -> None:
    assert DataType.BFLOAT16.numpy_dtype == np.dtype(ml_dtypes.bfloat16)
    assert DataType.from_numpy(np.zeros(2, ml_dtypes.bfloat16).dtype) is DataType.BFLOAT16
    assert DataType.FLOAT16.numpy_dtype != DataType.BFLOAT16.numpy_dtype


def test_from_numpy_rejects_unknown() -> None:
    with pytest.raises(TypeError):
        DataType.from_numpy(np.complex64)


# --- FeatureLevel ----------------------------------------------------------------------------------

LEVELS = [
    ("FL_1_0", 0x1000),
    ("FL_2_0", 0x2000),
    ("FL_2_1", 0x2100),
    ("FL_3_0", 0x3000),
    ("FL_3_1", 0x3100),
    ("FL_4_0", 0x4000),
    ("FL_4_1", 0x4100),
    ("FL_5_0", 0x5000),
    ("FL_5_1", 0x5100),
    ("FL_5_2", 0x5200),
    ("FL_6_0", 0x6000),
    ("FL_6_1", 0x6100),
    ("FL_6_2", 0x6200),
    ("FL_6_3", 0x6300),
    ("FL_6_4", 0x6400),
]


def test_feature_level_values_and_order() -> None:
    assert [(lv.name, lv.value) for lv in FeatureLevel] == LEVELS
    members = list(FeatureLevel)
    assert members == sorted(members)
    assert FeatureLevel.FL_1_0 < FeatureLevel.FL_2_1 < FeatureLevel.FL_6_4
    assert max(FeatureLevel) is FeatureLevel.FL_6_4 and min(FeatureLevel) is FeatureLevel.FL_1_0


@pytest.mark.parametrize("text", ["5_1", "5.1", "FL_5_1", "fl_5_1", 0x5100])
def test_feature_level_parse(text: object) -> None:
    assert FeatureLevel.parse(text) is FeatureLevel.FL_5_1


def test_feature_level_parse_rejects() -> None:
    with pytest.raises(ValueError):
        FeatureLevel.parse("7_0")


def test_tensor_flags() -> None:
    assert TensorFlags.NONE == 0 and TensorFlags.OWNED_BY_DML == 1


# --- TensorDesc ------------------------------------------------------------------------------------


def test_tensor_desc_defaults() -> None:
    t = TensorDesc(DataType.FLOAT32, (2, 3))
    assert t.strides is None
    assert t.flags == TensorFlags.NONE
    assert t.total_tensor_size_in_bytes == 24
    assert t.guaranteed_base_offset_alignment == 0
    assert t.dimension_count == 2
    assert t.element_strides == (3, 1)
    assert t.sizes == (2, 3) and isinstance(t.sizes, tuple)
    assert [f.name for f in dataclasses.fields(TensorDesc)] == [
        "data_type",
        "sizes",
        "strides",
        "flags",
        "total_tensor_size_in_bytes",
        "guaranteed_base_offset_alignment",
    ]


def test_tensor_desc_is_frozen_and_hashable() -> None:
    t = TensorDesc(DataType.FLOAT32, [2, 3])
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.sizes = (1,)  # type: ignore[misc]
    assert t == TensorDesc(DataType.FLOAT32, (2, 3))
    assert hash(t) == hash(TensorDesc(DataType.FLOAT32, (2, 3)))


def test_tensor_desc_explicit_size_and_strides() -> None:
    t = TensorDesc(DataType.UINT8, (2, 3), (4, 1), total_tensor_size_in_bytes=64, guaranteed_base_offset_alignment=16)
    assert t.total_tensor_size_in_bytes == 64
    assert t.element_strides == (4, 1)
    assert TensorDesc(DataType.UINT8, (2, 3), (4, 1)).total_tensor_size_in_bytes == 8  # 7 bytes -> 8


def test_tensor_desc_rejects_non_integers() -> None:
    with pytest.raises(DescriptorError):
        TensorDesc(DataType.FLOAT32, (2.5, 3))  # type: ignore[arg-type]
    with pytest.raises(DescriptorError):
        TensorDesc(DataType.FLOAT32, (True, 3))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("sizes", "to", "strides"),
    [
        ((3,), (2, 3), (0, 1)),
        ((2, 1), (2, 3), (1, 0)),
        ((1,), (2, 3), (0, 0)),
        ((), (4,), (0,)),
        ((2, 3), (2, 3), (3, 1)),
        ((4, 1, 5), (2, 4, 3, 5), (0, 5, 0, 1)),
        ((1, 3), (1, 3), (0, 1)),  # size-1 dimension: its stride never matters; 0 is fine
    ],
)
def test_broadcast(sizes: tuple, to: tuple, strides: tuple) -> None:
    t = TensorDesc.broadcast(DataType.FLOAT32, sizes, to)
    assert t.sizes == to
    # Independent check: reading the packed source through the strides is numpy.broadcast_to.
    src = np.arange(int(np.prod(sizes)), dtype=np.float32).reshape(sizes)
    idx = np.zeros(to, np.int64)
    for axis, (n, st) in enumerate(zip(to, t.element_strides, strict=True)):
        shape = [1] * len(to)
        shape[axis] = n
        idx = idx + (np.arange(n) * st).reshape(shape)
    np.testing.assert_array_equal(src.ravel()[idx], np.broadcast_to(src, to))
    for n, st, want in zip(to, t.element_strides, strides, strict=True):
        if n > 1:
            assert st == want
    assert t.total_tensor_size_in_bytes == calc_buffer_tensor_size(DataType.FLOAT32, to, t.strides)
    assert t.total_tensor_size_in_bytes <= max(4, src.nbytes)


@pytest.mark.parametrize(("sizes", "to"), [((3,), (2, 4)), ((2, 3), (3,)), ((2,), (2, 3))])
def test_broadcast_rejects(sizes: tuple, to: tuple) -> None:
    with pytest.raises(DescriptorError):
        TensorDesc.broadcast(DataType.FLOAT32, sizes, to)
