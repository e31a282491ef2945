"""The whole ADD page of the seed (docs/seeds/001_2a776cbd5d29bb02.txt, DirectML's page in Russian).

Transcribed here by hand from the seed text, not from the op table:
"Поддержка тензоров" (tensor support) lists five tiers, "DML_FEATURE_LEVEL_X_Y и выше"
(X_Y and above), each with ATensor / BTensor / OutputTensor rows giving
"Поддерживаемые счетчики измерений" (dimension counts) and "Поддерживаемые типы данных"
(data types). A level between two tiers inherits the tier below it.
"Ограничения тензоров": ATensor, BTensor and OutputTensor must have the same DataType,
DimensionCount and Sizes. "Этот оператор поддерживает выполнение на месте": in place is
supported. "Этот оператор появился в DML_FEATURE_LEVEL_1_0": introduced at FL 1.0.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from grid_check import check_grid

from descriptors import (
    DataType,
    DescriptorError,
    ElementWiseAddOperatorDesc,
    FeatureLevel,
    OperatorType,
    TensorDesc,
    operator_support,
    validate,
)

# The repository's copy of the seed (docs/seeds/), so the test runs wherever the checkout is;
# test_vendored_seed_is_verbatim guards the copy where the project's shared/ folder is beside it.
SEED = Path(__file__).resolve().parents[2] / "docs" / "seeds" / "001_2a776cbd5d29bb02.txt"
_SHARED_SEED = Path(__file__).resolve().parents[3] / "shared" / "seeds" / SEED.name


def test_vendored_seed_is_verbatim() -> None:
    if not _SHARED_SEED.exists():
        pytest.skip(f"shared/ is not beside this checkout ({_SHARED_SEED}); the vendored copy is used as is")
    assert SEED.read_bytes() == _SHARED_SEED.read_bytes()


# (tier level, {tensor: (min dims, max dims, data types)}) exactly as the seed's tables read.
SEED_TIERS = [
    (
        "FL_5_1",
        {
            "ATensor": (1, 8, "FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8"),
            "BTensor": (1, 8, "FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8"),
            "OutputTensor": (1, 8, "FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8"),
        },
    ),
    (
        "FL_4_1",
        {
            "ATensor": (1, 8, "FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32"),
            "BTensor": (1, 8, "FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32"),
            "OutputTensor": (1, 8, "FLOAT32, FLOAT16, INT64, INT32, UINT64, UINT32"),
        },
    ),
    (
        "FL_3_0",
        {
            "ATensor": (1, 8, "FLOAT32, FLOAT16, INT32, UINT32"),
            "BTensor": (1, 8, "FLOAT32, FLOAT16, INT32, UINT32"),
            "OutputTensor": (1, 8, "FLOAT32, FLOAT16, INT32, UINT32"),
        },
    ),
    (
        "FL_2_1",
        {
            "ATensor": (4, 5, "FLOAT32, FLOAT16, INT32, UINT32"),
            "BTensor": (4, 5, "FLOAT32, FLOAT16, INT32, UINT32"),
            "OutputTensor": (4, 5, "FLOAT32, FLOAT16, INT32, UINT32"),
        },
    ),
    (
        "FL_1_0",
        {
            "ATensor": (4, 5, "FLOAT32, FLOAT16"),
            "BTensor": (4, 5, "FLOAT32, FLOAT16"),
            "OutputTensor": (4, 5, "FLOAT32, FLOAT16"),
        },
    ),
]
ROLE = {"ATensor": "a_tensor", "BTensor": "b_tensor", "OutputTensor": "output_tensor"}
DML_TYPES = [d for d in DataType if not d.is_extension]


def seed_tier(level: FeatureLevel) -> dict[str, tuple[int, int, set[str]]]:
    """The seed's table in force at ``level``: the newest tier at or below it."""
    for name, table in SEED_TIERS:  # newest first
        if FeatureLevel[name] <= level:
            return {t: (lo, hi, {s.strip() for s in types.split(",")}) for t, (lo, hi, types) in table.items()}
    raise AssertionError(f"ADD exists from FL_1_0, {level.name} is below it")


def test_transcription_matches_the_seed_text() -> None:
    """Guard the transcription: each tier heading and each row string is in the seed, in this order."""
    if not SEED.exists():
        pytest.fail(f"seed file missing: {SEED}")
    text = SEED.read_text(encoding="utf-8")
    pos = 0
    for name, table in SEED_TIERS:
        heading = f"DML_FEATURE_LEVEL_{name[3:]} и выше"
        pos = text.index(heading, pos)
        for tensor, (lo, hi, types) in table.items():
            line_start = text.index(f"\n{tensor} |", pos) + 1
            line = text[line_start : text.index("\n", line_start)]
            cells = [c.strip() for c in line.split("|")]
            assert cells[0] == tensor
            assert cells[2].lower() == f"от {lo} до {hi}", line
            assert cells[3] == types, line
            pos = line_start
    assert "Этот оператор поддерживает выполнение на месте" in text
    assert "ATensor, BTensor и OutputTensor должны иметь одинаковые значения DataType, DimensionCount и Sizes" in text
    assert "Этот оператор появился в DML_FEATURE_LEVEL_1_0" in text


@pytest.mark.parametrize("level", list(FeatureLevel), ids=lambda lv: lv.name)
def test_operator_support_matches_seed(level: FeatureLevel) -> None:
    sup = operator_support(OperatorType.ELEMENT_WISE_ADD, level)
    assert sup.supported
    assert sup.introduced is FeatureLevel.FL_1_0
    assert not sup.extension
    assert sup.in_place
    want = seed_tier(level)
    assert {t.name for t in sup.tensors} == set(ROLE.values())
    for tensor, (lo, hi, types) in want.items():
        got = sup.tensor(ROLE[tensor])
        assert got.kind == ("output" if tensor == "OutputTensor" else "input")
        assert tuple(got.dimension_counts) == tuple(range(lo, hi + 1)), (tensor, got.dimension_counts)
        assert {d.name for d in got.data_types} == types, (tensor, level.name)
        assert all(d.is_extension or d is DataType.FLOAT64 for d in got.extension_data_types)
        assert not set(got.extension_data_types) & set(got.data_types)
    # DirectML's own table, extensions off, says the same.
    plain = operator_support(OperatorType.ELEMENT_WISE_ADD, level, extensions=False)
    for tensor, (_, _, types) in want.items():
        assert {d.name for d in plain.tensor(ROLE[tensor]).data_types} == types
        assert plain.tensor(ROLE[tensor]).extension_data_types == ()
    # One DataType shared by all three (the seed's constraint).
    assert any(set(group) == set(ROLE.values()) for group in sup.same_type)


def _check_validate_types(point: tuple[FeatureLevel, DataType]) -> None:
    level, dt = point
    lo, hi, types = seed_tier(level)["ATensor"]
    t = TensorDesc(dt, (1,) * (lo - 1) + (3,))  # a dimension count the tier accepts
    desc = ElementWiseAddOperatorDesc(t, t, t)
    if dt.name in types:
        validate(desc, level)
        validate(desc, level, extensions=False)
    else:
        with pytest.raises(DescriptorError) as info:
            validate(desc, level, extensions=False)
        assert info.value.field == "a_tensor.data_type"
        # The lowest seed tier that has the type, if any, is what the message must name.
        later = [
            FeatureLevel[n]
            for n, table in SEED_TIERS
            if dt.name in table["ATensor"][2].split(", ") and FeatureLevel[n] > level
        ]
        if later:
            assert f"needs {min(later).name} or later" in str(info.value)


def test_validate_accepts_exactly_the_seed_types() -> None:
    """Every DirectML data type at every feature level: accepted where the seed's tier lists it, else refused naming
    the field and the lowest level that has it."""
    check_grid(
        itertools.product(FeatureLevel, DML_TYPES), _check_validate_types, lambda p: f"{p[1].name} at {p[0].name}"
    )


@pytest.mark.parametrize("level", list(FeatureLevel), ids=lambda lv: lv.name)
def test_validate_dimension_range_matches_seed(level: FeatureLevel) -> None:
    lo, hi, _ = seed_tier(level)["ATensor"]
    for n in range(1, 10):
        t = TensorDesc(DataType.FLOAT32, (1,) * (n - 1) + (2,))
        desc = ElementWiseAddOperatorDesc(t, t, t)
        if lo <= n <= hi:
            validate(desc, level)
        else:
            with pytest.raises(DescriptorError) as info:
                validate(desc, level)
            assert info.value.field == "a_tensor.sizes"


def test_same_data_type_required() -> None:
    a = TensorDesc(DataType.FLOAT32, (1, 1, 2, 3))
    b = TensorDesc(DataType.FLOAT16, (1, 1, 2, 3))
    for level in FeatureLevel:
        with pytest.raises(DescriptorError) as info:
            validate(ElementWiseAddOperatorDesc(a, b, a), level)
        assert info.value.field == "b_tensor.data_type"
        with pytest.raises(DescriptorError) as info:
            validate(ElementWiseAddOperatorDesc(a, a, b), level)
        assert info.value.field == "output_tensor.data_type"


def test_same_dimension_count_and_sizes_required() -> None:
    a = TensorDesc(DataType.FLOAT32, (1, 1, 2, 3))
    five = TensorDesc(DataType.FLOAT32, (1, 1, 1, 2, 3))  # same elements, other DimensionCount
    other = TensorDesc(DataType.FLOAT32, (1, 1, 3, 2))
    for level in FeatureLevel:
        for bad in (five, other):
            with pytest.raises(DescriptorError) as info:
                validate(ElementWiseAddOperatorDesc(a, bad, a), level)
            assert info.value.field == "b_tensor.sizes"
            with pytest.raises(DescriptorError) as info:
                validate(ElementWiseAddOperatorDesc(a, a, bad), level)
            assert info.value.field == "output_tensor.sizes"


def test_in_place_supported_on_a_device() -> None:
    import numpy as np

    import gpuops

    t = TensorDesc(DataType.FLOAT32, (1, 1, 2, 3))
    device = gpuops.Device("numpy", max_feature_level=FeatureLevel.FL_1_0)
    op = device.compile_operator(device.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
    a = np.arange(6, dtype=np.float32)
    op.execute([a, np.ones(6, np.float32)], [a])  # OutputTensor aliases ATensor
    np.testing.assert_array_equal(a, np.arange(6, dtype=np.float32) + 1)
