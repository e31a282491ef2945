"""Descriptor fields at and past their C types' limits (issue 13, items 2, 4, 5 and 10).

DirectML's structs fix every field's type: ``DML_TENSOR_FLAGS`` (NONE, OWNED_BY_DML), sizes and
strides UINT (32 bits), TotalTensorSizeInBytes UINT64, FLOAT (a C float: float32), a
``DML_SCALAR_UNION`` read as the tensor's type. A value no C caller could pass gets a clear
``DescriptorError`` (or ``TypeError`` for a wrong type) naming the field, before any work is
done with it; a finite number beyond a float type's range is refused rather than turned into
an infinity (README, Semantics: "FLOAT and SCALAR values").
"""

from __future__ import annotations

import fractions
import itertools
import math
import warnings

import numpy as np
import pytest

import gpuops
from descriptors import (
    ActivationLinearOperatorDesc,
    DataType,
    DescriptorError,
    ElementWiseAdd1OperatorDesc,
    ElementWiseAddOperatorDesc,
    ElementWiseClip1OperatorDesc,
    ElementWiseClipOperatorDesc,
    FeatureLevel,
    ScaleBias,
    TensorDesc,
    TensorFlags,
    desc_class,
    operator_support,
    row_of,
)

F16, F32, I8 = DataType.FLOAT16, DataType.FLOAT32, DataType.INT8
FLOAT32_MAX = float(np.finfo(np.float32).max)


def create(desc: object) -> gpuops.Operator:
    return gpuops.Device("numpy").create_operator(desc)


# --- item 2: TensorDesc.flags ----------------------------------------------------------------


@pytest.mark.parametrize("flags", [2, 3, 2**31, 2**40, -1, 2**70])
def test_unknown_flag_bits_are_refused(flags: int) -> None:
    with pytest.raises(DescriptorError, match="flags.*allowed: NONE") as info:
        TensorDesc(F32, (2,), flags=flags)
    assert info.value.field == "flags"


@pytest.mark.parametrize("flags", ["x", 1.0, True, None])
def test_flags_of_the_wrong_type_are_refused(flags: object) -> None:
    with pytest.raises(DescriptorError, match="flags must be a TensorFlags"):
        TensorDesc(F32, (2,), flags=flags)  # type: ignore[arg-type]


def test_known_flags_still_work() -> None:
    assert TensorDesc(F32, (2,), flags=0).flags is TensorFlags.NONE
    assert TensorDesc(F32, (2,), flags=TensorFlags.OWNED_BY_DML).flags is TensorFlags.OWNED_BY_DML


# --- item 10: sizes and strides are bounded before anything is computed from them -----------


@pytest.mark.parametrize(
    ("field", "kwargs"),
    [
        ("sizes", {"sizes": (2**4000,)}),
        ("sizes", {"sizes": (2**40000, 2)}),  # str() of this int would raise ValueError (4300 digits)
        ("sizes", {"sizes": (2**32,)}),
        ("sizes", {"sizes": (-1,)}),
        ("strides", {"sizes": (3,), "strides": (2**32,)}),
        ("strides", {"sizes": (3, 2), "strides": (2**5000, 1)}),
        ("total_tensor_size_in_bytes", {"sizes": (2,), "total_tensor_size_in_bytes": 2**64}),
        ("total_tensor_size_in_bytes", {"sizes": (2,), "total_tensor_size_in_bytes": -4}),
        ("guaranteed_base_offset_alignment", {"sizes": (2,), "guaranteed_base_offset_alignment": 2**33}),
    ],
)
def test_out_of_range_fields_are_refused_by_the_constructor(field: str, kwargs: dict) -> None:
    with pytest.raises(DescriptorError, match="unsigned (32|64)-bit") as info:
        TensorDesc(F32, **kwargs)
    assert info.value.field == field
    assert len(str(info.value)) < 300  # a huge value is named by its size, not printed


def test_endless_sizes_are_refused_without_reading_them_all() -> None:
    with pytest.raises(DescriptorError, match="more than 64 entries"):
        TensorDesc(F32, itertools.count(1))  # an endless iterable: must not hang
    with pytest.raises(DescriptorError, match="more than 64 entries"):
        TensorDesc(F32, (1,) * 10**6)


def test_largest_legal_values_still_construct() -> None:
    t = TensorDesc(F32, (2**32 - 1,), (2**32 - 1,))
    assert t.sizes == (2**32 - 1,)
    create(ElementWiseAddOperatorDesc(t, t, TensorDesc(F32, (2**32 - 1,))))  # 2**32-1 elements are allowed
    with pytest.raises(DescriptorError, match="at most 2\\*\\*32-1 are allowed"):
        big = TensorDesc(F32, (2**16, 2**16))
        create(ElementWiseAddOperatorDesc(big, big, big))


# --- item 4: FLOAT and SCALAR parameters beyond their type's range ---------------------------


T4 = TensorDesc(F32, (4,))


@pytest.mark.parametrize("value", [10**400, -(10**400), 1e39, -1e39, np.float64(1e300), fractions.Fraction(10**400, 3)])
def test_float_parameter_beyond_float32_is_refused_at_create_operator(value: object) -> None:
    desc = ElementWiseClipOperatorDesc(T4, T4, min=value, max=1.0)  # type: ignore[arg-type]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning on the way either
        with pytest.raises(DescriptorError, match="beyond FLOAT32's finite range") as info:
            create(desc)
    assert info.value.field == "min"


def test_float_parameter_of_a_fused_activation_is_checked_too() -> None:
    act = ActivationLinearOperatorDesc(alpha=1e39, beta=0.0)
    with pytest.raises(DescriptorError, match="beyond FLOAT32") as info:
        create(ElementWiseAdd1OperatorDesc(T4, T4, T4, fused_activation=act))
    assert info.value.field == "fused_activation.alpha"


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, FLOAT32_MAX, -0.0, 3.4028235e38])
def test_float_parameter_in_range_or_written_as_infinity_runs(value: float) -> None:
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(ElementWiseClipOperatorDesc(T4, T4, min=value, max=math.inf)))
    x = np.array([-np.inf, -1.0, 0.0, 2.0], np.float32)
    out = np.empty(4, np.float32)
    op.execute([x], [out])
    lo = np.float32(value)
    want = [xi if math.isnan(lo) else max(xi, lo) for xi in x.astype(np.float64)]  # CLIP: min(max, max(min, x))
    np.testing.assert_array_equal(out, np.array(want, np.float32))


def test_scalar_parameter_beyond_the_output_type_is_refused() -> None:
    t16 = TensorDesc(F16, (4,))
    desc = ElementWiseClip1OperatorDesc(t16, t16, min_max_data_type=F16, min=-1e5, max=1.0)
    with pytest.raises(DescriptorError, match="read as FLOAT16.*beyond FLOAT16's finite range") as info:
        create(desc)
    assert info.value.field == "min"
    ok = ElementWiseClip1OperatorDesc(t16, t16, min_max_data_type=F16, min=-65504.0, max=math.inf)
    create(ok)


def test_integer_scalar_parameter_beyond_its_type_is_refused() -> None:
    t8 = TensorDesc(I8, (4,))
    desc = ElementWiseClip1OperatorDesc(t8, t8, min_max_data_type=I8, min=-(10**5000), max=1)
    with pytest.raises(DescriptorError, match="outside INT8") as info:
        create(desc)
    assert "bits" in str(info.value)  # the 5000-digit value is named by its size


# --- item 5: constructors and queries raise DescriptorError or TypeError --------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scale": 10**400}, "beyond FLOAT32"),
        ({"bias": 1e39}, "beyond FLOAT32"),
        ({"scale": np.array([1.0, 2.0])}, "must be a number"),
        ({"scale": "2"}, "must be a number"),
        ({"bias": True}, "must be a number"),
    ],
)
def test_scale_bias_values(kwargs: dict, match: str) -> None:
    with pytest.raises(DescriptorError, match=match) as info:
        ScaleBias(**kwargs)
    assert info.value.field == next(iter(kwargs))


def test_scale_bias_keeps_nan_inf_and_negative_zero() -> None:
    sb = ScaleBias(-0.0, math.inf)
    assert math.copysign(1.0, sb.scale) == -1.0 and sb.bias == math.inf
    assert math.isnan(ScaleBias(math.nan).scale)


@pytest.mark.parametrize("level", [5.1, 6.4, [5.1], True, object()])
def test_feature_level_of_the_wrong_type_is_a_type_error(level: object) -> None:
    with pytest.raises(TypeError, match="max_feature_level: a feature level is"):
        gpuops.Device("numpy", max_feature_level=level)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", ["9_9", 0x1234, "0x1234", "FL_", ""])
def test_unknown_feature_level_is_a_descriptor_error(level: object) -> None:
    with pytest.raises(DescriptorError, match="unknown feature level.*allowed: 1_0"):
        gpuops.Device("numpy", min_feature_level=level)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", ["5_1", "5.1", "FL_5_1", "fl_5_1", 0x5100, "0x5100", FeatureLevel.FL_5_1])
def test_feature_level_spellings(level: object) -> None:
    assert gpuops.Device("numpy", max_feature_level=level).feature_level is FeatureLevel.FL_5_1  # type: ignore[arg-type]


def test_max_supported_feature_level_arguments() -> None:
    dev = gpuops.Device("numpy")
    with pytest.raises(TypeError, match="a float is ambiguous"):
        dev.max_supported_feature_level([5.1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="pass a list"):
        dev.max_supported_feature_level("5_1")
    with pytest.raises(DescriptorError, match="unknown feature level '9_9'"):
        dev.max_supported_feature_level(["5_1", "9_9"])
    assert dev.max_supported_feature_level(["5_1", FeatureLevel.FL_6_0]) is FeatureLevel.FL_6_0


def test_device_arguments() -> None:
    with pytest.raises(TypeError, match="backend"):
        gpuops.Device(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="extensions"):
        gpuops.Device("numpy", extensions="no")  # type: ignore[arg-type]
    dev = gpuops.Device("numpy")
    with pytest.raises(DescriptorError, match="supports_data_type: 'x' is not a data type; allowed: FLOAT32"):
        dev.supports_data_type("x")  # type: ignore[arg-type]
    with pytest.raises(DescriptorError, match="999 is not a data type"):
        dev.supports_data_type(999)  # type: ignore[arg-type]
    assert dev.supports_data_type("bfloat16") and dev.supports_data_type(np.float16)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="an operator is an OperatorType, a descriptor class or a name"):
        dev.operator_support(5)  # type: ignore[arg-type]


def test_operator_lookups() -> None:
    with pytest.raises(DescriptorError, match="unknown operator 'nope'") as info:
        row_of("nope")
    assert isinstance(info.value, KeyError)  # still a KeyError for mapping-style callers
    with pytest.raises(TypeError, match="feature level is"):
        operator_support("ELEMENT_WISE_ADD", 6.4)  # type: ignore[arg-type]
    with pytest.raises(DescriptorError, match="function 99 is not one of"):
        operator_support("REDUCE", "5_1", variant=99)
    assert operator_support("REDUCE", "5_1", variant="sum").variant == "SUM"


# --- the same kinds of hole, found elsewhere -------------------------------------------------


@pytest.mark.parametrize("flags", [8, 2**40, -1, 10**400])
def test_unknown_execution_flag_bits_are_refused(flags: int) -> None:
    dev = gpuops.Device("numpy")
    op = dev.create_operator(ElementWiseAddOperatorDesc(T4, T4, T4))
    with pytest.raises(DescriptorError, match="flags is .*allowed: NONE") as info:
        dev.compile_operator(op, flags=flags)  # type: ignore[arg-type]
    assert info.value.field == "flags"
    with pytest.raises(TypeError, match="flags must be ExecutionFlags"):
        dev.compile_operator(op, flags="x")  # type: ignore[arg-type]
    assert dev.compile_operator(op, flags=5).flags == 5  # ALLOW_HALF_PRECISION_COMPUTATION | DESCRIPTORS_VOLATILE


def test_huge_axes_are_named_by_their_size() -> None:
    from descriptors import ReduceFunction, ReduceOperatorDesc

    t, o = TensorDesc(F32, (2, 3)), TensorDesc(F32, (2, 1))
    for axes in [(10**5000,), (1, 10**5000)]:  # repr() of a 5000-digit int raises ValueError
        with pytest.raises(DescriptorError, match="bits") as info:
            create(ReduceOperatorDesc(ReduceFunction.SUM, t, o, axes=axes))
        assert info.value.field == "axes"


@pytest.mark.parametrize(("sizes", "to"), [("ab", (2,)), (None, (2,)), ((2,), (2**40,))])
def test_broadcast_checks_its_arguments(sizes: object, to: object) -> None:
    with pytest.raises(DescriptorError, match="TensorDesc.sizes"):
        TensorDesc.broadcast(F32, sizes, to=to)  # type: ignore[arg-type]


# --- found by the contract fuzz test (tests/slow/test_contract_fuzz.py) ----------------------------


def test_long_double_beyond_float64_is_refused() -> None:
    huge = np.longdouble("1e4000")
    if not np.isfinite(huge):  # platforms whose long double is float64
        pytest.skip("np.longdouble is float64 here: 1e4000 is already inf")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DescriptorError, match="beyond FLOAT32"):
            ScaleBias(huge)
        desc = desc_class("ELEMENT_WISE_CONSTANT_POW")(T4, T4, exponent=huge)
        with pytest.raises(DescriptorError, match="exponent.*beyond FLOAT32"):
            create(desc)
    assert math.isinf(ScaleBias(np.longdouble("inf")).scale)  # an infinity written as such is taken


def test_device_and_compile_argument_values() -> None:
    with pytest.raises(DescriptorError, match="backend must be") as info:
        gpuops.Device("NUMPY")
    assert info.value.field == "backend"
    a, b = gpuops.Device("numpy"), gpuops.Device("numpy")
    op = a.create_operator(ElementWiseAddOperatorDesc(T4, T4, T4))
    with pytest.raises(DescriptorError, match="created by another Device") as info:
        b.compile_operator(op)
    assert info.value.field == "operator"
    with pytest.raises(DescriptorError, match="at least one feature level"):
        a.max_supported_feature_level([])


def test_an_operator_cannot_skip_validation() -> None:
    dev = gpuops.Device("numpy")
    forged = ElementWiseAddOperatorDesc(T4, None, T4)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="create_operator"):
        gpuops.Operator(dev, forged)
    with pytest.raises(DescriptorError, match="b_tensor is required"):
        dev.create_operator(forged)


def test_descriptor_helpers_check_their_arguments() -> None:
    from descriptors import calc_buffer_tensor_size, validate

    with pytest.raises(DescriptorError, match="data_type"):
        TensorDesc.packed(99, (2,))  # type: ignore[arg-type]
    with pytest.raises(DescriptorError, match="data_type"):
        TensorDesc.broadcast("x", (2,), to=(2,))  # type: ignore[arg-type]
    with pytest.raises(DescriptorError, match="1 stride for 2 sizes"):
        calc_buffer_tensor_size(F32, (2, 3), (1,))
    desc = ElementWiseAddOperatorDesc(T4, T4, T4)
    validate(desc, "5_1")
    with pytest.raises(TypeError, match="validate: a feature level is"):
        validate(desc, None)  # type: ignore[arg-type]
    with pytest.raises(DescriptorError, match="validate: unknown feature level 1"):
        validate(desc, 1)  # type: ignore[arg-type]
