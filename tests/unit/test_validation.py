"""Every validation error: its ``.field`` and what its message says, plus the device's capability queries.

A DescriptorError message names the operator, the field, the given value, what is allowed at
the feature level in force, and the lowest feature level that would allow it where one
exists (API.md). Rules: docs/reference/directml.md sections 1.5, 1.7 and 9.
"""

from __future__ import annotations

import pytest

import gpuops
from descriptors import (
    DataType,
    DescriptorError,
    ElementWiseAddOperatorDesc,
    ElementWiseAtanYxOperatorDesc,
    ElementWiseFloorDivideOperatorDesc,
    ElementWiseLogicalEqualsOperatorDesc,
    ElementWisePowOperatorDesc,
    FeatureLevel,
    OperatorType,
    ScaleBias,
    TensorDesc,
    TensorFlags,
    operator_support,
    validate,
)

FL = FeatureLevel
F32 = DataType.FLOAT32
ADD = ElementWiseAddOperatorDesc
T23 = TensorDesc(F32, (2, 3))
T4D = TensorDesc(F32, (1, 1, 2, 3))


def expect_error(desc: object, level: FeatureLevel, field: str, *parts: str, extensions: bool = True) -> str:
    """validate() must raise with ``field`` and a message holding every one of ``parts``."""
    with pytest.raises(DescriptorError) as info:
        validate(desc, level, extensions=extensions)
    err = info.value
    assert isinstance(err, ValueError)
    assert err.field == field, f"field {err.field!r} != {field!r}: {err}"
    msg = str(err)
    for part in parts:
        assert part in msg, f"{part!r} missing from: {msg}"
    return msg


def add(a: TensorDesc, b: TensorDesc | None = None, out: TensorDesc | None = None) -> object:
    return ADD(a, b if b is not None else a, out if out is not None else a)


# --- data types ------------------------------------------------------------------------------


def test_int8_add_at_4_1_needs_5_1() -> None:
    t = TensorDesc(DataType.INT8, (1, 1, 2, 3))
    msg = expect_error(
        add(t),
        FL.FL_4_1,
        "a_tensor.data_type",
        "ELEMENT_WISE_ADD",
        "a_tensor.data_type",
        "INT8",
        "FL_4_1",
        "needs FL_5_1 or later",
    )
    accepted = msg.split("accepted:")[1].split("(")[0]
    for name in ("FLOAT32", "FLOAT16", "INT64", "INT32", "UINT64", "UINT32"):
        assert name in accepted
    assert "INT8" not in accepted and "INT16" not in accepted
    validate(add(t), FL.FL_5_1)  # and accepted from there on


def test_int32_add_at_1_0_needs_2_1() -> None:
    t = TensorDesc(DataType.INT32, (1, 1, 2, 3))
    expect_error(add(t), FL.FL_1_0, "a_tensor.data_type", "INT32", "FL_1_0", "needs FL_2_1 or later")


def test_mismatched_data_types() -> None:
    f16 = TensorDesc(DataType.FLOAT16, (2, 3))
    expect_error(add(T23, f16, T23), FL.FL_6_4, "b_tensor.data_type", "ELEMENT_WISE_ADD", "FLOAT16", "FLOAT32")
    expect_error(add(T23, T23, f16), FL.FL_6_4, "output_tensor.data_type", "FLOAT16", "FLOAT32")


def test_extension_type_rejected_without_extensions() -> None:
    bf = TensorDesc(DataType.BFLOAT16, (2, 3))
    validate(add(bf), FL.FL_6_4)  # an extension, accepted with extensions on
    msg = expect_error(add(bf), FL.FL_6_4, "a_tensor.data_type", "BFLOAT16", "extension", extensions=False)
    assert "needs FL_" not in msg  # no DirectML level has it
    device = gpuops.Device("numpy", extensions=False)
    with pytest.raises(DescriptorError) as info:
        device.create_operator(add(bf))
    assert info.value.field == "a_tensor.data_type"
    f64 = TensorDesc(DataType.FLOAT64, (2, 3))  # FLOAT64 arithmetic is a gpuops extension too
    with pytest.raises(DescriptorError) as info:
        device.create_operator(add(f64))
    assert info.value.field == "a_tensor.data_type"


def test_extension_operator_rejected_without_extensions() -> None:
    desc = ElementWiseFloorDivideOperatorDesc(T23, T23, T23)
    validate(desc, FL.FL_6_4)
    expect_error(desc, FL.FL_6_4, "operator_type", "ELEMENT_WISE_FLOOR_DIVIDE", "extension", extensions=False)
    with pytest.raises(DescriptorError):
        gpuops.Device("numpy", extensions=False).create_operator(desc)


def test_pow_integer_input_with_float_exponent() -> None:
    i32 = TensorDesc(DataType.INT32, (2, 3))
    expect_error(
        ElementWisePowOperatorDesc(i32, T23, i32),
        FL.FL_6_4,
        "exponent_tensor.data_type",
        "ELEMENT_WISE_POW",
        "FLOAT32",
        "INT32",
    )
    validate(ElementWisePowOperatorDesc(i32, i32, i32), FL.FL_6_4)
    validate(ElementWisePowOperatorDesc(T23, i32, T23), FL.FL_6_4)  # float input, integer exponent: fine


def test_pow_exponent_type_must_match_before_3_0() -> None:
    f16 = TensorDesc(DataType.FLOAT16, (1, 1, 2, 3))
    expect_error(
        ElementWisePowOperatorDesc(T4D, f16, T4D),
        FL.FL_2_1,
        "exponent_tensor.data_type",
        "FLOAT16",
        "FLOAT32",
        "needs FL_3_0 or later",
    )
    validate(ElementWisePowOperatorDesc(T4D, f16, T4D), FL.FL_3_0)


def test_scale_bias_on_integer_input() -> None:
    i32 = TensorDesc(DataType.INT32, (2, 3))
    expect_error(
        ElementWisePowOperatorDesc(i32, i32, i32, ScaleBias(2.0, 1.0)),
        FL.FL_6_4,
        "scale_bias",
        "ELEMENT_WISE_POW",
        "scale_bias",
        "INT32",
    )


def test_scale_bias_on_float64_input() -> None:
    f64 = TensorDesc(DataType.FLOAT64, (2, 3))
    validate(ElementWisePowOperatorDesc(f64, f64, f64), FL.FL_6_4)
    expect_error(
        ElementWisePowOperatorDesc(f64, f64, f64, ScaleBias(2.0, 1.0)), FL.FL_6_4, "scale_bias", "FLOAT64", "64-bit"
    )


def test_scale_bias_wrong_type() -> None:
    desc = ElementWisePowOperatorDesc(T23, T23, T23, (2.0, 1.0))  # type: ignore[arg-type]
    expect_error(desc, FL.FL_6_4, "scale_bias", "ScaleBias", "tuple")


def test_scale_bias_fields_must_be_numbers() -> None:
    with pytest.raises(DescriptorError) as info:
        ScaleBias("2", 0.0)  # type: ignore[arg-type]
    assert info.value.field == "scale"


# --- dimension counts and sizes ---------------------------------------------------------------


def test_two_dims_at_2_1_needs_3_0() -> None:
    expect_error(
        add(T23),
        FL.FL_2_1,
        "a_tensor.sizes",
        "ELEMENT_WISE_ADD",
        "2 dimensions",
        "(2, 3)",
        "FL_2_1",
        "4 to 5",
        "needs FL_3_0 or later",
    )
    validate(add(T4D), FL.FL_2_1)
    validate(add(T23), FL.FL_3_0)


def test_nine_dims_not_accepted_anywhere() -> None:
    t = TensorDesc(F32, (1,) * 9)
    msg = expect_error(
        add(t), FL.FL_6_4, "a_tensor.sizes", "9 dimensions", "1 to 8", "not accepted at any feature level"
    )
    assert "needs FL_" not in msg
    validate(add(TensorDesc(F32, (1,) * 8)), FL.FL_6_4)


def test_subtract_five_dims_at_2_1() -> None:
    from descriptors import ElementWiseSubtractOperatorDesc

    t = TensorDesc(F32, (1, 1, 1, 2, 3))
    expect_error(
        ElementWiseSubtractOperatorDesc(t, t, t), FL.FL_2_1, "a_tensor.sizes", "5 dimensions", "needs FL_3_0 or later"
    )
    validate(add(t), FL.FL_2_1)  # ADD takes 4 to 5 there


def test_zero_size() -> None:
    t = TensorDesc(F32, (2, 0, 3))
    expect_error(add(t), FL.FL_6_4, "a_tensor.sizes", "size 0", "dimension 1", "(2, 0, 3)")


def test_sizes_mismatch() -> None:
    t32 = TensorDesc(F32, (3, 2))
    expect_error(add(T23, t32, T23), FL.FL_6_4, "b_tensor.sizes", "ELEMENT_WISE_ADD", "(3, 2)", "(2, 3)")
    expect_error(add(T23, T23, t32), FL.FL_6_4, "output_tensor.sizes", "(3, 2)", "(2, 3)")
    t123 = TensorDesc(F32, (1, 2, 3))  # same elements, another DimensionCount: still an error
    expect_error(add(T23, t123, T23), FL.FL_6_4, "b_tensor.sizes", "(1, 2, 3)")


def test_too_many_elements() -> None:
    t = TensorDesc(F32, (2**16, 2**16))
    expect_error(add(t), FL.FL_6_4, "a_tensor.sizes", "4294967296", "2**32-1")
    validate(add(TensorDesc(DataType.UINT8, (2**16 - 1, 2**16 + 1))), FL.FL_6_4)  # 2**32 - 1 elements is fine


# --- strides ---------------------------------------------------------------------------------


def test_stride_count_mismatch() -> None:
    t = TensorDesc(F32, (2, 3), (1,))
    expect_error(add(T23, t, T23), FL.FL_6_4, "b_tensor.strides", "1 stride for", "2 dimensions")


def test_negative_stride() -> None:
    # Strides are UINT in DML_BUFFER_TENSOR_DESC: refused when the TensorDesc is made, before any use.
    with pytest.raises(DescriptorError, match=r"strides holds -3 at index 0.*unsigned 32-bit") as info:
        TensorDesc(F32, (2, 3), (-3, 1))
    assert info.value.field == "strides"


def test_zero_stride_on_output() -> None:
    out = TensorDesc(F32, (2, 3), (0, 1))
    expect_error(add(T23, T23, out), FL.FL_6_4, "output_tensor.strides", "stride 0", "broadcast")
    validate(add(T23, out, T23), FL.FL_6_4)  # on an input, 0 broadcasts


@pytest.mark.parametrize(("sizes", "strides"), [((2, 2), (1, 1)), ((2, 3), (1, 1)), ((2, 3), (2, 1)), ((3, 2), (1, 2))])
def test_overlapping_output_strides(sizes: tuple[int, ...], strides: tuple[int, ...]) -> None:
    t = TensorDesc(F32, sizes)
    out = TensorDesc(F32, sizes, strides)
    expect_error(add(t, t, out), FL.FL_6_4, "output_tensor.strides", str(strides), "overlap")


def test_overlapping_output_strides_by_more_than_one() -> None:
    """Layouts that overlap by more than one element."""
    t = TensorDesc(F32, (2, 3))
    expect_error(add(t, t, TensorDesc(F32, (2, 3), (1, 0))), FL.FL_6_4, "output_tensor.strides")
    t3 = TensorDesc(F32, (4, 3))
    expect_error(add(t3, t3, TensorDesc(F32, (4, 3), (1, 2))), FL.FL_6_4, "output_tensor.strides", "overlap")


def test_non_overlapping_output_strides_accepted() -> None:
    t = TensorDesc(F32, (2, 2))
    for strides in ((2, 1), (1, 2), (5, 1), (1, 3), (4, 2)):
        validate(add(t, t, TensorDesc(F32, (2, 2), strides)), FL.FL_6_4)


# --- size, alignment, flags, field types ------------------------------------------------------


def test_total_tensor_size_too_small() -> None:
    t = TensorDesc(F32, (2, 3), total_tensor_size_in_bytes=20)
    expect_error(add(t, T23, T23), FL.FL_6_4, "a_tensor.total_tensor_size_in_bytes", "20", "24")
    strided = TensorDesc(F32, (2, 3), (4, 1), total_tensor_size_in_bytes=24)  # needs (1*4 + 2 + 1) * 4 = 28
    expect_error(add(strided, T23, T23), FL.FL_6_4, "a_tensor.total_tensor_size_in_bytes", "24", "28")
    validate(add(TensorDesc(F32, (2, 3), total_tensor_size_in_bytes=64), T23, T23), FL.FL_6_4)  # larger is legal


@pytest.mark.parametrize("alignment", [12, 3, 2])
def test_alignment_not_power_of_two_or_too_small(alignment: int) -> None:
    t = TensorDesc(F32, (2, 3), guaranteed_base_offset_alignment=alignment)
    expect_error(
        add(t, T23, T23), FL.FL_6_4, "a_tensor.guaranteed_base_offset_alignment", str(alignment), "power of two"
    )


def test_alignment_accepted() -> None:
    for alignment in (0, 4, 16, 256):
        validate(add(TensorDesc(F32, (2, 3), guaranteed_base_offset_alignment=alignment), T23, T23), FL.FL_6_4)


def test_owned_by_dml_on_output() -> None:
    out = TensorDesc(F32, (2, 3), flags=TensorFlags.OWNED_BY_DML)
    expect_error(add(T23, T23, out), FL.FL_6_4, "output_tensor.flags", "OWNED_BY_DML", "input")


def test_owned_by_dml_input_is_valid_but_not_executable() -> None:
    owned = TensorDesc(F32, (2, 3), flags=TensorFlags.OWNED_BY_DML)
    validate(add(owned, T23, T23), FL.FL_6_4)
    device = gpuops.Device("numpy")
    with pytest.raises(gpuops.UnsupportedError, match="OWNED_BY_DML"):
        device.compile_operator(device.create_operator(add(owned, T23, T23)))


def test_field_none() -> None:
    expect_error(ADD(None, T23, T23), FL.FL_6_4, "a_tensor", "ELEMENT_WISE_ADD", "a_tensor", "None")  # type: ignore[arg-type]


def test_field_list() -> None:
    expect_error(ADD([2, 3], T23, T23), FL.FL_6_4, "a_tensor", "TensorDesc", "list")  # type: ignore[arg-type]
    expect_error(ADD(T23, T23, "out"), FL.FL_6_4, "output_tensor", "TensorDesc", "str")  # type: ignore[arg-type]


def test_validate_needs_a_descriptor() -> None:
    with pytest.raises(DescriptorError):
        validate(T23, FL.FL_6_4)  # type: ignore[arg-type]


def test_operator_not_yet_available() -> None:
    desc = ElementWiseAtanYxOperatorDesc(T23, T23, T23)
    expect_error(desc, FL.FL_3_0, "operator_type", "ELEMENT_WISE_ATAN_YX", "FL_3_0", "introduced at FL_3_1")
    validate(desc, FL.FL_3_1)
    with pytest.raises(DescriptorError) as info:
        gpuops.Device("numpy", max_feature_level=FL.FL_3_0).create_operator(desc)
    assert info.value.field == "operator_type"


def test_tensor_desc_rejects_bad_field_types() -> None:
    with pytest.raises(DescriptorError) as info:
        TensorDesc(F32, (2, "3"))  # type: ignore[arg-type]
    assert info.value.field == "sizes"
    with pytest.raises(DescriptorError) as info:
        TensorDesc(99, (2, 3))  # type: ignore[arg-type]
    assert info.value.field == "data_type"
    with pytest.raises(DescriptorError) as info:
        TensorDesc(F32, (2, 3), (1.5, 1))  # type: ignore[arg-type]
    assert info.value.field == "strides"


def test_descriptor_error_is_reexported() -> None:
    assert gpuops.DescriptorError is DescriptorError
    assert issubclass(DescriptorError, ValueError)


def test_device_validates_at_its_level() -> None:
    t = TensorDesc(DataType.INT8, (2, 3))
    with pytest.raises(DescriptorError) as info:
        gpuops.Device("numpy", max_feature_level="5_0").create_operator(add(t))
    assert "needs FL_5_1 or later" in str(info.value)
    gpuops.Device("numpy", max_feature_level="5_1").create_operator(add(t))


# --- device capability queries ----------------------------------------------------------------


def test_min_feature_level_above_max_is_unsupported() -> None:
    with pytest.raises(gpuops.UnsupportedError, match="FL_5_0"):
        gpuops.Device("numpy", min_feature_level=FL.FL_5_0, max_feature_level=FL.FL_4_1)
    device = gpuops.Device("numpy", min_feature_level=FL.FL_4_1, max_feature_level=FL.FL_4_1)
    assert device.feature_level is FL.FL_4_1
    assert gpuops.Device("numpy", min_feature_level=FL.FL_6_4).feature_level is FL.FL_6_4


def test_device_backends() -> None:
    from conftest import cuda_unusable_reason

    auto = gpuops.Device()
    assert auto.backend == ("numpy" if cuda_unusable_reason() else "cupy")
    assert auto.feature_level is FL.FL_6_4
    with pytest.raises(ValueError):
        gpuops.Device("opencl")
    if cuda_unusable_reason():
        with pytest.raises(gpuops.UnsupportedError):
            gpuops.Device("cupy")


def test_max_supported_feature_level() -> None:
    device = gpuops.Device("numpy", max_feature_level=FL.FL_3_0)
    assert device.max_supported_feature_level([FL.FL_2_0, FL.FL_3_1, FL.FL_3_0]) is FL.FL_3_0
    assert device.max_supported_feature_level([FL.FL_1_0]) is FL.FL_1_0
    full = gpuops.Device("numpy")
    assert full.max_supported_feature_level(list(FL)) is FL.FL_6_4
    # The highest level OF THE LIST, not the device's absolute maximum.
    assert full.max_supported_feature_level([FL.FL_2_1, FL.FL_4_0]) is FL.FL_4_0
    with pytest.raises((gpuops.UnsupportedError, ValueError)):
        device.max_supported_feature_level([FL.FL_4_0, FL.FL_6_4])


def test_supports_data_type() -> None:
    full = gpuops.Device("numpy")
    plain = gpuops.Device("numpy", extensions=False)
    for dt in DataType:
        assert full.supports_data_type(dt)
    for name in (
        "FLOAT32",
        "FLOAT16",
        "UINT32",
        "UINT16",
        "UINT8",
        "INT32",
        "INT16",
        "INT8",
        "FLOAT64",
        "UINT64",
        "INT64",
    ):
        assert plain.supports_data_type(DataType[name]), name
    assert not plain.supports_data_type(DataType.BFLOAT16)
    assert not plain.supports_data_type(DataType.BOOL)


# LOGICAL_EQUALS output types per level (directml.md 2.4): UINT32 only at 1.0, UINT32 and UINT8 from 2.0.
EQUALS_OUTPUT = {FL.FL_1_0: {"UINT32"}}


@pytest.mark.parametrize("level", list(FL), ids=lambda lv: lv.name)
def test_operator_support_logical_equals_output(level: FeatureLevel) -> None:
    want = EQUALS_OUTPUT.get(level, {"UINT32", "UINT8"})
    sup = operator_support(OperatorType.ELEMENT_WISE_LOGICAL_EQUALS, level)
    assert sup.supported
    out = sup.tensor("output_tensor")
    assert {d.name for d in out.data_types} == want
    assert {d.name for d in out.extension_data_types} == {"BOOL"}
    plain = operator_support(OperatorType.ELEMENT_WISE_LOGICAL_EQUALS, level, extensions=False)
    assert plain.tensor("output_tensor").extension_data_types == ()
    device = gpuops.Device("numpy", max_feature_level=level)
    assert {
        d.name
        for d in device.operator_support(OperatorType.ELEMENT_WISE_LOGICAL_EQUALS).tensor("output_tensor").data_types
    } == want
    # and validate agrees with the table
    inp = TensorDesc(F32, (1, 1, 2, 3))
    for name in ("UINT32", "UINT8"):
        desc = ElementWiseLogicalEqualsOperatorDesc(inp, inp, TensorDesc(DataType[name], (1, 1, 2, 3)))
        if name in want:
            validate(desc, level)
        else:
            expect_error(desc, level, "output_tensor.data_type", name, "needs FL_2_0 or later")


def test_operator_support_before_introduction() -> None:
    sup = operator_support(OperatorType.ELEMENT_WISE_ATAN_YX, FL.FL_3_0)
    assert not sup.supported
    assert sup.introduced is FL.FL_3_1
    assert operator_support(OperatorType.ELEMENT_WISE_ATAN_YX, FL.FL_3_1).supported
