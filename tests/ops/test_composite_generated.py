"""Generated tests for the composite rows (``CompositeRow``: the softmax family, MEAN_VARIANCE_NORMALIZATION1).

Rows x data types (``dtype_combinations`` at FL 6_4) x shape/axes/layout cases x backends (NumPy, and the CUDA
emulator or CuPy), against float64 references from the formulas (``reference_composite.py``) within the bound
each row states; literal edge cases (stability at large inputs, infinities, NaN, constant slices); validation
(axes, effective rank, ScaleTensor broadcast, BOOL); kernel counts; composites inside graphs; NVRTC.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest
from helpers import buffer_for, read_tensor, sandwich_graph, to_backend, to_host, uint_view
from reference_composite import REFERENCES

import gpuops
from descriptors import ROWS, DataType, DescriptorError, FeatureLevel, TensorDesc, desc_class, dtype_combinations
from gpuops.errors import BindingError

LEVEL = FeatureLevel.FL_6_4
COMPOSITE_ROWS = [r for r in ROWS if r.is_composite]
F32, F16, F64, BF16 = DataType.FLOAT32, DataType.FLOAT16, DataType.FLOAT64, DataType.BFLOAT16
MVN = "MEAN_VARIANCE_NORMALIZATION1"

# name -> (case id, sizes, input strides, output strides, params); MVN params may name "scale"/"bias" sizes.
SOFTMAX_CASES = [
    ("vector", (13,), None, None, {}),
    ("batch", (4, 7), None, None, {}),
    ("leading-ones", (1, 1, 3, 5), None, None, {}),
    ("permuted", (4, 7), (1, 4), None, {}),
    ("padded", (3, 6), (8, 1), (7, 1), {}),
    ("bcast", (3, 5), (0, 1), None, {}),
]
AXES_CASES = [
    ("last", (2, 3, 4), None, None, {"axes": (2,)}),
    ("joint", (2, 3, 4), None, None, {"axes": (0, 2)}),
    ("middle", (2, 3, 4), None, None, {"axes": (1,)}),
    ("all", (2, 3, 4), None, None, {"axes": (0, 1, 2)}),
    ("unsorted", (2, 3, 4), None, None, {"axes": (2, 0)}),
    ("permuted", (2, 3, 4), (1, 2, 6), (12, 1, 3), {"axes": (0, 2)}),
    ("8d", (1, 2, 1, 3, 1, 2, 1, 2), None, None, {"axes": (1, 3, 7)}),
    ("wide", (3, 257), None, None, {"axes": (1,)}),
]
MVN_CASES = [
    ("nchw", (2, 3, 4, 5), None, None, {"axes": (0, 2, 3), "scale": (1, 3, 1, 1), "bias": (1, 3, 1, 1)}),
    ("cross-channel", (2, 3, 4, 5), None, None, {"axes": (1, 2, 3)}),
    (
        "no-variance",
        (2, 3, 4, 5),
        None,
        None,
        {"axes": (2, 3), "normalize_variance": False, "scale": (1, 3, 1, 1), "bias": (1, 3, 1, 1)},
    ),  # fmt: skip
    (
        "relu",
        (2, 3, 4, 5),
        None,
        None,
        {"axes": (2, 3), "scale": (1, 3, 1, 1), "bias": (1, 3, 1, 1), "activation": "ACTIVATION_RELU"},
    ),  # fmt: skip
    (
        "elu",
        (2, 3, 4),
        None,
        None,
        {
            "axes": (2,),
            "scale": (1, 3, 1),
            "bias": (1, 3, 1),
            "epsilon": 0.01,
            "activation": "ACTIVATION_ELU",
            "activation_params": {"alpha": 0.5},
        },
    ),  # fmt: skip
    ("scale-only", (3, 4, 5), None, None, {"axes": (2,), "scale": (3, 4, 1)}),
    ("bias-only", (3, 4, 5), None, None, {"axes": (0, 1), "bias": (1, 1, 5)}),
    (
        "permuted",
        (2, 3, 4, 5),
        (60, 1, 15, 3),
        (1, 2, 6, 24),
        {"axes": (1, 3), "scale": (1, 3, 1, 1), "bias": (2, 1, 1, 1)},
    ),  # fmt: skip
    ("1d", (31,), None, None, {"axes": (0,), "epsilon": 0.0}),
]


def cases_of(name: str) -> list[tuple[str, tuple[int, ...], Any, Any, dict[str, Any]]]:
    if name == MVN:
        return MVN_CASES
    return AXES_CASES if name.endswith("1") else SOFTMAX_CASES


CASES = [
    pytest.param(row.name, combo, case, id=f"{row.name}-{combo['input_tensor'].name}-{case[0]}")
    for row in COMPOSITE_ROWS
    for combo in dtype_combinations(row.name, LEVEL)
    for case in cases_of(row.name)
]


def _unit(dt: DataType) -> float:
    """The unit roundoff of the compute type (float32 for the 16-bit types)."""
    return 2.0**-53 if dt is F64 else 2.0**-24


def _eps(dt: DataType) -> float:
    return {F64: 2.0**-52, F32: 2.0**-23, F16: 2.0**-10, BF16: 2.0**-7}[dt]


def mvn_amplification(x: np.ndarray, axes: tuple[int, ...], normalize_variance: bool, epsilon: float) -> np.ndarray:
    """How much MEAN_VARIANCE_NORMALIZATION1 amplifies the rounding of its mean: ``max|x| / sigma + |z|`` per
    element (``sigma = sqrt(variance + epsilon)``, 1 without NormalizeVariance; ``z`` the normalized value), from
    float64. The mean's error (about n·u·max|x|) is divided by sigma: a slice of nearly equal values (sigma near
    sqrt(epsilon)) turns a last-place error of its mean into a large one of its output, in any two-pass MVN."""
    with np.errstate(invalid="ignore", divide="ignore"):
        d = x - x.mean(axis=axes, keepdims=True)
        sigma = (
            np.sqrt((d * d).mean(axis=axes, keepdims=True) + float(np.float32(epsilon))) if normalize_variance else 1.0
        )
        big = np.abs(x).max(axis=axes, keepdims=True)
        return np.nan_to_num(big / sigma + np.abs(d / sigma), nan=0.0, posinf=0.0)


def mvn_in_domain(
    x: np.ndarray, axes: tuple[int, ...], dt: DataType, scale: np.ndarray | None, bias: np.ndarray | None
) -> np.ndarray:
    """Where MEAN_VARIANCE_NORMALIZATION1's bound holds (README, MVN's row): finite inputs, scale and bias, and a
    slice whose sum and sum of squared deviations stay within the compute type's range (half of it: rounding
    near the edge). Outside, the result is what the formula gives in the compute type (an overflowed variance
    normalizes the slice to 0, so the output is the bias), as the activations' ``domain`` rule says for theirs."""
    top = float(np.finfo(np.float64 if dt is F64 else np.float32).max) / 2
    with np.errstate(all="ignore"):
        finite = np.isfinite(x).all(axis=axes, keepdims=True)
        total = np.abs(x.sum(axis=axes, keepdims=True))
        d = x - x.mean(axis=axes, keepdims=True)
        ok = finite & (total < top) & ((d * d).sum(axis=axes, keepdims=True) < top)
        for v in (scale, bias):
            if v is not None:
                ok = ok & np.isfinite(v)
    return np.broadcast_to(ok, x.shape)


def bound(
    name: str, dt: DataType, n: int, ref: np.ndarray, scale: np.ndarray | None, amp: np.ndarray | None = None
) -> np.ndarray:
    """The row's stated error bound (``CompositeRow.error_bound``), plus one ulp of the output type. MVN needs
    ``amp`` (:func:`mvn_amplification`)."""
    u = (n + 16) * _unit(dt)
    mag = np.abs(np.nan_to_num(ref, nan=0.0, posinf=0.0, neginf=0.0))
    if "HARDMAX" in name:  # exact: 1 or 0
        return np.zeros(ref.shape)
    if "LOG_SOFTMAX" in name:
        err = u * np.maximum(1.0, mag)
    elif "SOFTMAX" in name:
        err = np.full(ref.shape, u)
    else:
        assert amp is not None, "MVN's bound needs the amplification of its mean's rounding"
        s = np.abs(scale) if scale is not None else 1.0
        err = u * (mag + s * amp + 1.0)
    return err + _eps(dt) * mag + (2.0**-24 if dt in (F16, BF16) else 0.0)


def _values(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator, spread: float) -> np.ndarray:
    return (rng.standard_normal(shape) * spread).astype(dt.numpy_dtype)


def run_case(
    device: gpuops.Device, xp: Any, name: str, dt: DataType, case: tuple, x: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, int, dict[str, Any]]:
    """Run one case: (got, float64 reference, count reduced, what MVN's bound needs: ``scale``, ``amp``) on the
    output's logical shape."""
    _, sizes, in_st, out_st, params = case
    rng = np.random.default_rng(zlib.crc32(f"{name}|{dt.name}|{case[0]}".encode()))
    if x is None:
        x = _values(dt, sizes, rng, 4.0 if name != MVN else 2.0)
        if in_st is not None and 0 in in_st:  # a stride-0 input reads one row
            x = np.broadcast_to(x[:1], sizes).copy()
    if name != MVN and dt in (F32, F64) and case[0] != "edge":  # stability: values far beyond exp's range
        x = x + np.asarray(300.0, x.dtype)
    if "HARDMAX" in name and case[0] != "edge":  # ties: the first maximum wins
        x = np.round(x / 4).astype(x.dtype)
    x_desc = TensorDesc(dt, sizes, in_st)
    out_desc = TensorDesc(dt, sizes, out_st)
    fields: dict[str, Any] = {}
    bufs = [buffer_for(x_desc, x)]
    extra: dict[str, Any] = {}
    if "axes" in params:
        fields["axes"] = params["axes"]
    if name == MVN:
        for role in ("scale", "bias"):
            if role in params:
                v = _values(dt, params[role], rng, 1.5)
                extra[role] = v.astype(np.float64)
                t = TensorDesc(dt, params[role])
                fields[f"{role}_tensor"] = t
                bufs.append(buffer_for(t, v))
            else:
                fields[f"{role}_tensor"] = None
        for key in ("normalize_variance", "epsilon"):
            if key in params:
                fields[key] = params[key]
        if "activation" in params:
            fields["fused_activation"] = desc_class(params["activation"])(**params.get("activation_params", {}))
    desc = desc_class(name)(input_tensor=x_desc, output_tensor=out_desc, **fields)
    op = device.compile_operator(device.create_operator(desc))
    dev_in = [to_backend(xp, b) for b in bufs]
    out = buffer_for(out_desc, np.zeros(sizes))
    out[...] = np.frombuffer(bytes([0x5A]) * out.nbytes, dtype=out.dtype)
    dev_out = to_backend(xp, out)
    before = [b.copy() for b in bufs]
    inputs = [dev_in[0]]
    if name == MVN:
        k = 1
        for role in ("scale", "bias"):
            inputs.append(dev_in[k] if role in params else None)
            k += role in params
    op.execute(inputs, [dev_out])
    for old, new in zip(before, dev_in, strict=True):
        assert np.array_equal(uint_view(old), uint_view(to_host(new))), "an input buffer was modified"
    got = read_tensor(to_host(dev_out), out_desc).astype(np.float64)
    axes = tuple(params.get("axes", (len(sizes) - 1,)))
    n = int(np.prod([sizes[a] for a in axes]))
    x64 = x.astype(np.float64)
    ref = REFERENCES[name](x64, {**params, **extra})
    if name != MVN:
        return got, ref, n, {}
    amp = mvn_amplification(x64, axes, params.get("normalize_variance", True), params.get("epsilon", 1e-5))
    return got, ref, n, {"scale": extra.get("scale"), "amp": amp}


def check(
    name: str, dt: DataType, got: np.ndarray, ref: np.ndarray, n: int, scale: Any = None, amp: Any = None
) -> None:
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(got), nan), f"{name} {dt.name}: NaN where the reference has none (or not)"
    tol = bound(name, dt, n, ref, scale, amp)
    with np.errstate(invalid="ignore"):  # equal infinities: decided by ==
        err = np.abs(got - ref)
    # A result beyond the output type's range rounds to an infinity of its sign.
    top = float(np.finfo(dt.numpy_dtype).max) if dt is not BF16 else 3.3895313892515355e38
    overflow = np.isinf(got) & (np.sign(got) == np.sign(ref)) & (np.abs(ref) + tol >= top)
    bad = ~nan & ~(err <= tol) & (got != ref) & ~overflow
    assert not bad.any(), (
        f"{name} {dt.name}: {int(bad.sum())} of {bad.size} beyond the bound; worst err {err[bad].max():.3g} "
        f"(bound {tol[bad][np.argmax(err[bad])]:.3g}) at got {got[bad][0]!r} want {ref[bad][0]!r}"
    )


@pytest.mark.parametrize(("name", "combo", "case"), CASES)
def test_matches_reference(name: str, combo: dict, case: tuple, device: gpuops.Device, xp: Any) -> None:
    dt = combo["input_tensor"]
    got, ref, n, extras = run_case(device, xp, name, dt, case)
    check(name, dt, got, ref, n, **extras)


# ---------------------------------------------------------------------------------------------- edge cases

INF, NAN = np.inf, np.nan
# (row, data type, input, params, expected): expectations from the formulas, by hand.
EDGE_CASES = [
    # Stability: the maximum is subtracted first, so exp never overflows.
    ("ACTIVATION_SOFTMAX", F32, [1000.0, 1000.0], {}, [0.5, 0.5]),
    ("ACTIVATION_SOFTMAX", F32, [-1000.0, 0.0], {}, [0.0, 1.0]),
    ("ACTIVATION_SOFTMAX", F16, [10.0, 10.0, 10.0, 10.0], {}, [0.25, 0.25, 0.25, 0.25]),
    ("ACTIVATION_SOFTMAX", F32, [0.0, -INF], {}, [1.0, 0.0]),
    # +inf: inf - inf is NaN over its slice (NumPy, PyTorch and ONNX's reference agree); all -inf likewise.
    ("ACTIVATION_SOFTMAX", F32, [INF, 0.0], {}, [NAN, NAN]),
    ("ACTIVATION_SOFTMAX", F32, [-INF, -INF], {}, [NAN, NAN]),
    ("ACTIVATION_SOFTMAX", F32, [NAN, 1.0], {}, [NAN, NAN]),
    ("ACTIVATION_LOG_SOFTMAX", F32, [0.0, 200.0], {}, [-200.0, 0.0]),  # log(softmax) would give -inf
    ("ACTIVATION_LOG_SOFTMAX", F32, [0.0, -INF], {}, [0.0, -INF]),
    ("ACTIVATION_LOG_SOFTMAX", F64, [5.0, 5.0], {}, [-np.log(2.0), -np.log(2.0)]),
    ("ACTIVATION_SOFTMAX1", F32, [[1.0, 1.0], [1.0, 1.0]], {"axes": (0, 1)}, [[0.25, 0.25], [0.25, 0.25]]),
    ("ACTIVATION_LOG_SOFTMAX1", BF16, [[3.0], [3.0]], {"axes": (0,)}, [[-0.69140625], [-0.69140625]]),
    # Hardmax: the first maximum on ties; a NaN is the maximum (ARGMAX's rule); -inf everywhere still picks one.
    ("ACTIVATION_HARDMAX", F32, [[1.0, 3.0, 3.0, 0.0], [5.0, 5.0, 5.0, 5.0]], {}, [[0, 1, 0, 0], [1, 0, 0, 0]]),
    ("ACTIVATION_HARDMAX", F16, [2.0, NAN, 7.0, NAN], {}, [0, 1, 0, 0]),
    ("ACTIVATION_HARDMAX", F32, [-INF, -INF, -INF], {}, [1, 0, 0]),
    (
        "ACTIVATION_HARDMAX1",
        F32,
        [[[0, 1], [2, 3]], [[4, 100], [6, 7]]],
        {"axes": (0, 2)},
        [[[0, 0], [0, 0]], [[0, 1], [0, 1]]],
    ),  # fmt: skip  (directml.md 3: the HARDMAX1 page's example shape)
    # MVN: a constant slice normalizes to 0 (variance 0, epsilon keeps it finite); [1, 3] to [-1, 1].
    (MVN, F32, [3.0, 3.0, 3.0, 3.0], {"axes": (0,)}, [0.0, 0.0, 0.0, 0.0]),
    (MVN, F32, [1.0, 3.0], {"axes": (0,), "epsilon": 0.0}, [-1.0, 1.0]),
    (MVN, F16, [1.0, 3.0], {"axes": (0,), "epsilon": 0.0}, [-1.0, 1.0]),
    (MVN, F32, [1.0, 3.0], {"axes": (0,), "normalize_variance": False}, [-1.0, 1.0]),
    (MVN, F32, [2.0, 2.0], {"axes": (0,), "epsilon": 0.0}, [NAN, NAN]),  # 0 / sqrt(0)
]


@pytest.mark.parametrize(("name", "dt", "x", "params", "want"), EDGE_CASES, ids=lambda v: getattr(v, "name", None))
def test_edge_cases(name: str, dt: DataType, x: list, params: dict, want: list, device: gpuops.Device, xp: Any) -> None:
    arr = np.asarray(x, dtype=dt.numpy_dtype)
    got, _, _, _ = run_case(device, xp, name, dt, ("edge", arr.shape, None, None, params), x=arr)
    want_arr = np.asarray(want, dtype=np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want_arr)), (got, want)
    with np.errstate(invalid="ignore"):  # inf - inf where both are -inf: equal, decided by ==
        ok = np.isnan(want_arr) | (got == want_arr) | (np.abs(got - want_arr) <= 4 * _eps(dt) * np.abs(want_arr))
    assert ok.all(), (got, want)


# ---------------------------------------------------------------------------------------------- validation


def _desc(name: str, sizes: tuple[int, ...], **fields: Any) -> Any:
    t = TensorDesc(F32, sizes)
    if name == MVN:  # the optional tensors keep DirectML's positions: passed, None when absent
        fields = {"scale_tensor": None, "bias_tensor": None, **fields}
    return desc_class(name)(input_tensor=t, output_tensor=t, **fields)


@pytest.mark.parametrize(
    ("name", "sizes", "fields", "field", "words"),
    [
        ("ACTIVATION_SOFTMAX", (2, 3, 4), {}, "input_tensor.sizes", "effective rank 3"),
        ("ACTIVATION_LOG_SOFTMAX", (2, 1, 4, 1), {}, "input_tensor.sizes", "effective rank 4"),
        ("ACTIVATION_SOFTMAX1", (2, 3), {"axes": (2,)}, "axes", "axes are 0 to 1"),
        ("ACTIVATION_SOFTMAX1", (2, 3), {"axes": (1, 1)}, "axes", "lists an axis twice"),
        ("ACTIVATION_LOG_SOFTMAX1", (2, 3), {"axes": ()}, "axes", "is empty"),
        (MVN, (2, 3), {"axes": (0,), "normalize_variance": 1}, "normalize_variance", "True or False"),
        (MVN, (2, 3), {"axes": (0,), "scale_tensor": TensorDesc(F32, (2, 2))}, "scale_tensor.sizes", "or 1"),
    ],
)
def test_invalid_descriptors_say_what_is_wrong(name: str, sizes: tuple, fields: dict, field: str, words: str) -> None:
    device = gpuops.Device("numpy")
    with pytest.raises(DescriptorError) as err:
        device.create_operator(_desc(name, sizes, **fields))
    assert err.value.field == field and words in str(err.value) and name in str(err.value)


def test_scale_and_bias_come_together_below_5_2() -> None:
    t = TensorDesc(F32, (2, 3, 4, 5))
    s = TensorDesc(F32, (1, 3, 1, 1))
    alone = desc_class(MVN)(t, s, None, t, axes=(2, 3))
    with pytest.raises(DescriptorError, match="FL_5_2") as err:
        gpuops.Device("numpy", max_feature_level="5_1").create_operator(alone)
    assert err.value.field == "bias_tensor"
    gpuops.Device("numpy", max_feature_level="5_2").create_operator(alone)
    channel = desc_class(MVN)(t, TensorDesc(F32, (1, 1, 1, 5)), TensorDesc(F32, (1, 1, 1, 5)), t, axes=(2, 3))
    with pytest.raises(DescriptorError, match="channel"):
        gpuops.Device("numpy", max_feature_level="3_1").create_operator(channel)
    gpuops.Device("numpy", max_feature_level="4_0").create_operator(channel)


def test_feature_levels() -> None:
    one = _desc("ACTIVATION_SOFTMAX1", (2, 3), axes=(1,))
    with pytest.raises(DescriptorError, match="FL_5_1"):
        gpuops.Device("numpy", max_feature_level="5_0").create_operator(one)
    four = _desc("ACTIVATION_SOFTMAX", (1, 1, 2, 3))
    gpuops.Device("numpy", max_feature_level="1_0").create_operator(four)
    with pytest.raises(DescriptorError, match="dimension"):
        gpuops.Device("numpy", max_feature_level="2_0").create_operator(_desc("ACTIVATION_SOFTMAX", (2, 3)))


# (row, device level, sizes): operators their level takes whose parts DirectML's table at that level refuses (issue 34:
# compile_operator refused them through a part): REDUCE MAX takes 4 dimensions only below FL_3_0, ARGMAX comes at
# FL_3_0, FILL_VALUE_SEQUENCE takes 4 dimensions only below FL_4_0.
LOW_LEVEL_CASES = [
    ("ACTIVATION_SOFTMAX", "2_0", (1, 1, 1, 4, 3)),
    ("ACTIVATION_LOG_SOFTMAX", "2_1", (1, 1, 1, 4, 3)),
    ("ACTIVATION_HARDMAX", "1_0", (1, 1, 4, 3)),
    ("ACTIVATION_HARDMAX", "3_1", (1, 4, 3)),
]


@pytest.mark.parametrize(("name", "level", "sizes"), LOW_LEVEL_CASES)
def test_parts_are_not_held_to_the_operators_level(name: str, level: str, sizes: tuple, backend: str, xp: Any) -> None:
    """A composite its device's level takes compiles and matches the reference there, also with extensions off:
    its parts are gpuops' own, never held to a tier the operator itself is not."""
    from descriptors import validate
    from gpuops.graph_plan import composite_graph

    device = gpuops.Device(backend, max_feature_level=level, extensions=False)
    desc = _desc(name, sizes)
    refused = []
    for node in composite_graph(desc).nodes:  # the case is one that reaches the bug: a part the level refuses
        try:
            validate(node.desc, device.feature_level, extensions=False)
        except DescriptorError as exc:
            refused.append(exc)
    assert refused, f"no part of {name} {sizes} is refused at FL_{level}: the case tests nothing"
    compiled = device.compile_operator(device.create_operator(desc))
    assert compiled.device is device
    got, ref, n, _ = run_case(device, xp, name, F32, ("low-level", sizes, None, None, {}))
    check(name, F32, got, ref, n)


def test_output_may_not_alias_the_input(device: gpuops.Device, xp: Any) -> None:
    """No composite states in-place execution: the output reads x after writing in two-pass plans."""
    desc = _desc("ACTIVATION_SOFTMAX1", (4, 5), axes=(1,))
    op = device.compile_operator(device.create_operator(desc))
    buf = to_backend(xp, np.ones(20, np.float32))
    with pytest.raises(BindingError):
        op.execute([buf], [buf])


# ---------------------------------------------------------------------------------------------- plans


@pytest.mark.gpu
@pytest.mark.parametrize(
    ("name", "sizes", "fields", "kernels"),
    [
        # Rows of 40 contiguous elements: one row program (32 threads a row, 2 elements each).
        ("ACTIVATION_SOFTMAX1", (6, 40), {"axes": (1,)}, 1),
        ("ACTIVATION_LOG_SOFTMAX1", (6, 40), {"axes": (0, 1)}, 1),  # one row of 240
        ("ACTIVATION_SOFTMAX", (6, 40), {}, 1),
        (MVN, (6, 40), {"axes": (1,)}, 1),
        (MVN, (6, 40), {"axes": (1,), "normalize_variance": False}, 1),
        # The parts: every element-wise part fuses into a reduction or the final pass.
        ("ACTIVATION_SOFTMAX1", (6, 40), {"axes": (0,)}, 3),  # max; sum of exp(x - max); exp(x - max) / sum
        ("ACTIVATION_LOG_SOFTMAX1", (2, 4097), {"axes": (1,)}, 3),  # longer than 256 x 16; the log in an epilogue
        ("ACTIVATION_HARDMAX1", (6, 40), {"axes": (1,)}, 1),  # ARGMAX, the index sequence, compare, cast
        ("ACTIVATION_HARDMAX", (6, 40), {}, 1),
        ("ACTIVATION_HARDMAX1", (6, 40), {"axes": (0,)}, 3),  # ARGMAX; the index sequence; compare and cast
        ("ACTIVATION_HARDMAX1", (2, 4097), {"axes": (1,)}, 3),
        (MVN, (6, 40), {"axes": (0,)}, 3),  # mean; variance (epsilon and sqrt in its epilogue); normalize
        (MVN, (6, 40), {"axes": (0,), "normalize_variance": False}, 2),
    ],
)
def test_kernel_counts(name: str, sizes: tuple[int, ...], fields: dict, kernels: int) -> None:
    """On the CUDA path a composite over one contiguous span per row that fits 256 threads x 16 elements is one
    row program (issue 33); the others run their parts."""
    from conftest import GPU

    device = gpuops.Device(GPU)
    op = device.compile_operator(device.create_operator(_desc(name, sizes, **fields)))
    assert op.kernel_count == kernels
    assert op.launch_path == "composite" and op.operator_name == name
    assert (op.step_paths == ("row program",)) == (kernels == 1), op.step_paths


# Which cases of test_matches_reference run as one row program on the CUDA path (by hand: their reduced axes are
# one contiguous span per row of the input and the output).
ROW_PROGRAM_IDS = {
    **dict.fromkeys(("ACTIVATION_SOFTMAX", "ACTIVATION_LOG_SOFTMAX", "ACTIVATION_HARDMAX"),
                    {"vector", "batch", "leading-ones", "padded", "bcast"}),
    **dict.fromkeys(("ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX1", "ACTIVATION_HARDMAX1"), {"last", "all", "wide"}),
    MVN: {"cross-channel", "no-variance", "relu", "elu", "scale-only", "1d"},
}  # fmt: skip


def case_desc(name: str, dt: DataType, case: tuple) -> Any:
    """The descriptor ``run_case`` builds for ``case``."""
    _, sizes, in_st, out_st, params = case
    fields: dict[str, Any] = {k: params[k] for k in ("axes", "normalize_variance", "epsilon") if k in params}
    if name == MVN:
        for role in ("scale", "bias"):
            fields[f"{role}_tensor"] = TensorDesc(dt, params[role]) if role in params else None
        if "activation" in params:
            fields["fused_activation"] = desc_class(params["activation"])(**params.get("activation_params", {}))
    return desc_class(name)(input_tensor=TensorDesc(dt, sizes, in_st), output_tensor=TensorDesc(dt, sizes, out_st),
                            **fields)  # fmt: skip


@pytest.mark.gpu
def test_reference_cases_take_the_row_program_where_they_fit() -> None:
    """test_matches_reference runs both paths on the GPU: the cases listed in ROW_PROGRAM_IDS as one row program,
    the others as their parts (compiled here, not run)."""
    from conftest import GPU

    device = gpuops.Device(GPU)
    for row in COMPOSITE_ROWS:
        for case in cases_of(row.name):
            op = device.compile_operator(device.create_operator(case_desc(row.name, F32, case)))
            one = case[0] in ROW_PROGRAM_IDS.get(row.name, set())
            assert (op.step_paths == ("row program",)) == one, (row.name, case[0], op.step_paths)
            assert op.kernel_count == (1 if one else len(op.step_paths)) and (one or op.kernel_count >= 2)


@pytest.mark.gpu
def test_cupy_fast_off_runs_the_parts() -> None:
    """GPUOPS_CUPY_FAST=0 (CuPy's own kernels only) runs a composite that fits a row program as its parts, and
    ``cost()`` says so."""
    from conftest import GPU

    from gpuops import config

    device = gpuops.Device(GPU)
    desc = _desc("ACTIVATION_SOFTMAX1", (6, 40), axes=(1,))
    with config.override(cupy_fast=False):
        op = device.compile_operator(device.create_operator(desc))
    assert op.kernel_count == 3 and "row program" not in op.step_paths and op.cost().launches == 3


# (row, data type, case, kernels on the CUDA path): the row program's geometries and reads, and its fallback.
ROW_PROGRAM_CASES = [
    ("ACTIVATION_SOFTMAX1", F32, ("one", (5, 1), None, None, {"axes": (1,)}), 1),  # a row of one element
    ("ACTIVATION_LOG_SOFTMAX1", F16, ("one", (5, 1), None, None, {"axes": (1,)}), 1),
    ("ACTIVATION_SOFTMAX1", F32, ("t256", (3, 3000), None, None, {"axes": (1,)}), 1),  # 256 threads x 12 of 16
    ("ACTIVATION_SOFTMAX", F64, ("t128", (2, 1000), None, None, {}), 1),  # 128 threads x 8
    # 37 rows (4 per block: not a multiple), a padded output
    ("ACTIVATION_LOG_SOFTMAX1", BF16, ("rows", (37, 100), None, (128, 1), {"axes": (1,)}), 1),
    ("ACTIVATION_SOFTMAX1", F32, ("long", (2, 4097), None, None, {"axes": (1,)}), 3),  # over 256 x 16: the parts
    # ScaleTensor and BiasTensor along the columns (two column dimensions, one)
    (MVN, F32, ("cols", (2, 3, 4), None, None, {"axes": (1, 2), "scale": (1, 3, 1), "bias": (1, 1, 4)}), 1),
    # three row dimensions; no variance
    (MVN, F16, ("rows3", (2, 3, 4, 5), None, None, {"axes": (3,), "scale": (2, 1, 4, 1),
                                                    "normalize_variance": False}), 1),
    (MVN, BF16, ("strided", (4, 33), (40, 1), (35, 1), {"axes": (1,), "bias": (4, 1), "epsilon": 0.01}), 1),
    # HARDMAX: values rounded (run_case), so ties within and across lanes; 64 threads x 8; rows not filling the
    # last block and a padded output; one row of all 24 elements; over 256 x 16: the parts
    ("ACTIVATION_HARDMAX1", F16, ("t64", (3, 257), None, None, {"axes": (1,)}), 1),
    ("ACTIVATION_HARDMAX", BF16, ("rows", (37, 100), None, (128, 1), {}), 1),
    ("ACTIVATION_HARDMAX1", F32, ("all", (2, 3, 4), None, None, {"axes": (0, 1, 2)}), 1),
    ("ACTIVATION_HARDMAX1", F32, ("long", (2, 4097), None, None, {"axes": (1,)}), 3),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "dt", "case", "kernels"),
    ROW_PROGRAM_CASES,
    ids=[f"{c[0]}-{c[1].name}-{c[2][0]}" for c in ROW_PROGRAM_CASES],
)
def test_row_program_matches_reference(
    name: str, dt: DataType, case: tuple, kernels: int, device: gpuops.Device, xp: Any
) -> None:
    """Row programs of each geometry (threads x elements per thread), rows not filling the last block, strided
    outputs, ScaleTensor and BiasTensor read along rows and along columns; and a row too long for one (the parts),
    against the float64 formulas within the row's bound."""
    if device.backend != "numpy":
        op = device.compile_operator(device.create_operator(case_desc(name, dt, case)))
        assert op.kernel_count == kernels and (op.step_paths == ("row program",)) == (kernels == 1)
    got, ref, n, extras = run_case(device, xp, name, dt, case)
    check(name, dt, got, ref, n, **extras)


@pytest.mark.parametrize("name", ["ACTIVATION_SOFTMAX1", "ACTIVATION_LOG_SOFTMAX1"])
@pytest.mark.parametrize("dt", [F32, F16], ids=lambda d: d.name)
def test_row_program_special_rows(name: str, dt: DataType, device: gpuops.Device, xp: Any) -> None:
    """Rows of one program with NaN, +inf, all -inf and -inf among finite values next to an ordinary row: each
    row's result is its own (softmax: NaN over a row with a NaN or +inf, or of -inf only; 0 at -inf elsewhere;
    log-softmax: -inf there), as the float64 formula gives."""
    x = np.random.default_rng(5).standard_normal((5, 40)) * 3
    x[1, 7] = NAN
    x[2, 30] = INF
    x[3, :] = -INF
    x[4, ::3] = -INF
    arr = x.astype(dt.numpy_dtype)
    got, ref, n, _ = run_case(device, xp, name, dt, ("edge", arr.shape, None, None, {"axes": (1,)}), x=arr)
    assert np.isnan(got[1:4]).all() and not np.isnan(got[[0, 4]]).any()
    want = 0.0 if name == "ACTIVATION_SOFTMAX1" else -INF
    assert (got[4, ::3] == want).all()
    check(name, dt, got, ref, n)


@pytest.mark.parametrize("dt", [F32, F16, BF16], ids=lambda d: d.name)
def test_row_program_hardmax_special_rows(dt: DataType, device: gpuops.Device, xp: Any) -> None:
    """HARDMAX1 rows of one program (300 columns: several elements per lane) with ARGMAX's rule (README): ties go
    to the first maximum, also between lanes and between a lane's elements; a NaN is the maximum (the first NaN);
    a row of -inf only picks its first element; +inf and -inf among finite values; next to an ordinary row."""
    x = np.round(np.random.default_rng(6).standard_normal((7, 300)) * 3)
    x[1, [7, 200]] = NAN
    x[2, :] = -INF
    x[3, ::2] = -INF
    x[4, [250, 40, 170, 41]] = 50.0  # columns 40 and 41: lanes 40 and 41 of 64 or more; 170, 250: later elements
    x[5, [299, 3]] = INF
    x[6, :] = 1.0
    arr = x.astype(dt.numpy_dtype)
    want = np.zeros(x.shape)
    want[np.arange(7), [int(np.argmax(r)) for r in x]] = 1.0  # NumPy: the first NaN, else the first maximum
    assert [int(np.flatnonzero(r)[0]) for r in want[1:]] == [7, 0, int(np.argmax(x[3])), 40, 3, 0]
    if device.backend != "numpy":
        desc = case_desc("ACTIVATION_HARDMAX1", dt, ("edge", arr.shape, None, None, {"axes": (1,)}))
        assert device.compile_operator(device.create_operator(desc)).step_paths == ("row program",)
    got, ref, n, _ = run_case(device, xp, "ACTIVATION_HARDMAX1", dt, ("edge", arr.shape, None, None, {"axes": (1,)}),
                              x=arr)  # fmt: skip
    assert np.array_equal(got, want) and np.array_equal(ref, want)


def test_composite_node_in_a_graph(device: gpuops.Device, xp: Any) -> None:
    """A softmax node between element-wise nodes: its own steps, the neighbours as fused kernels; the result
    equals the float64 formula."""
    t = TensorDesc(F32, (5, 9))
    soft = desc_class("ACTIVATION_SOFTMAX1")(t, t, axes=(1,))
    graph = sandwich_graph(t, soft)
    op = device.compile_graph(graph)
    rng = np.random.default_rng(7)
    a, b, c = (rng.standard_normal((5, 9)).astype(np.float32) for _ in range(3))
    out = to_backend(xp, np.zeros(45, np.float32))
    op.execute([to_backend(xp, v.reshape(-1)) for v in (a, b, c)], [out])
    ref = REFERENCES["ACTIVATION_SOFTMAX1"]((a + b).astype(np.float64), {"axes": (1,)}) * c
    assert np.allclose(to_host(out).reshape(5, 9), ref, rtol=1e-5, atol=1e-6)


def test_plans_compile_with_nvrtc() -> None:
    """Every fused kernel of every composite's plan (each row, data type and a case of each kind) compiles with
    NVRTC for the real target."""
    from test_graph_compile import fused_step_sources
    from test_nvrtc import _check_nvrtc

    import gpuops.nvrtc as gnvrtc
    from gpuops.graph_plan import composite_graph

    _check_nvrtc()
    graphs = []
    for row in COMPOSITE_ROWS:
        for combo in dtype_combinations(row.name, LEVEL):
            dt = combo["input_tensor"]
            for case in cases_of(row.name):
                _, sizes, in_st, out_st, params = case
                fields: dict[str, Any] = {k: params[k] for k in ("axes", "normalize_variance") if k in params}
                if row.name == MVN:
                    for role in ("scale", "bias"):
                        fields[f"{role}_tensor"] = TensorDesc(dt, params[role]) if role in params else None
                    if "activation" in params:
                        fields["fused_activation"] = desc_class(params["activation"])(
                            **params.get("activation_params", {})
                        )
                desc = desc_class(row.name)(
                    input_tensor=TensorDesc(dt, sizes, in_st), output_tensor=TensorDesc(dt, sizes, out_st), **fields
                )
                graphs.append(composite_graph(desc))
    sources, reductions, epilogues = fused_step_sources(graphs)
    assert reductions >= len(graphs) and epilogues >= 1, (reductions, epilogues)
    for name, source in sources.items():
        gnvrtc.compile_source(source, f"{name}.cu", syntax_only=True, options=("--fmad=false",))
    gnvrtc.compile_source(next(iter(sources.values())), "composite.cu", options=("--fmad=false",))  # to PTX


# ---------------------------------------------------------------------------------------------- any descriptor


def check_descriptor(desc: Any, logical_in: list[np.ndarray | None], got: np.ndarray) -> None:
    """The output of any composite descriptor (the contract fuzz's) against the float64 reference within the
    row's bound. A fused activation is applied by its OpInfo reference at the pre-activation value and at both
    ends of that value's bound, so a jump (THRESHOLDED_RELU at Alpha) is judged over the interval it can land in."""
    from opinfo import record
    from test_nary_generated import param_values

    row = desc.row
    name = row.name
    dt = desc.output_tensor.data_type
    x = np.asarray(logical_in[0], np.float64)
    axes = tuple(int(a) for a in desc.axes) if hasattr(desc, "axes") else (x.ndim - 1,)
    params: dict[str, Any] = {"axes": axes}
    scale = None
    if name == MVN:
        for role, v in zip(("scale", "bias"), logical_in[1:], strict=True):
            if v is not None:
                params[role] = np.asarray(v, np.float64)
        scale = params.get("scale")
        params |= {"normalize_variance": desc.normalize_variance, "epsilon": desc.epsilon}
    n = int(np.prod([x.shape[a] for a in axes]))
    got = np.asarray(got, np.float64)
    with np.errstate(all="ignore"):
        pre = REFERENCES[name](x, params)
    amp = mvn_amplification(x, axes, desc.normalize_variance, desc.epsilon) if name == MVN else None
    if name == MVN:  # the bound holds in MVN's domain only (mvn_in_domain): judge those elements
        keep = mvn_in_domain(x, axes, F64 if dt is F64 else F32, scale, params.get("bias"))
        if scale is not None:
            scale = np.broadcast_to(scale, x.shape)[keep]
        assert amp is not None
        got, pre, amp = got[keep], pre[keep], np.broadcast_to(amp, x.shape)[keep]
    act = getattr(desc, "fused_activation", None)
    if act is None:
        check(name, dt, got, pre, n, scale, amp)
        return
    act_params = param_values(act.row, {f.name: getattr(act, f.name) for f in act.row.param_fields})
    delta = bound(name, F64 if dt is F64 else F32, n, pre, scale, amp)
    with np.errstate(all="ignore"):
        ends = [
            record(act.row.name).evaluate([v], np.dtype(np.float64), act_params).values
            for v in (pre - delta, pre, pre + delta)
        ]
    lo, hi = np.minimum.reduce(ends), np.maximum.reduce(ends)
    slack = _eps(dt) * np.maximum(np.abs(lo), np.abs(hi)) * 4 + (n + 16) * _unit(dt) + 2.0**-24
    nan = np.isnan(ends[1])
    with np.errstate(invalid="ignore"):
        inside = (got >= lo - slack) & (got <= hi + slack) | (got == ends[1])
    bad = ~nan & ~inside & ~(np.isnan(lo) | np.isnan(hi))
    shown = f"got {got[bad][:4]} outside [{lo[bad][:4]}, {hi[bad][:4]}]"
    assert not bad.any(), f"{name} with {act.row.name} {dt.name}: {shown}"


def test_one_compiled_composite_runs_on_many_threads(device: gpuops.Device, xp: Any) -> None:
    """``gpuops.run`` caches compiled operators and shares them: a compiled composite's executes may overlap,
    so each takes workspaces of its own (a shared maximum would mix the threads' rows)."""
    import concurrent.futures

    t = TensorDesc(F32, (64, 33))
    op = device.compile_operator(device.create_operator(_desc("ACTIVATION_SOFTMAX1", (64, 33), axes=(1,))))
    rng = np.random.default_rng(3)
    xs = [(rng.standard_normal((64, 33)) * (k + 1)).astype(np.float32) for k in range(8)]

    def one(x: np.ndarray) -> np.ndarray:
        out = to_backend(xp, np.zeros(t.element_count, np.float32))
        for _ in range(5):
            op.execute([to_backend(xp, x.reshape(-1))], [out])
        return to_host(out).reshape(64, 33)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(one, xs))
    for x, got in zip(xs, results, strict=True):
        check("ACTIVATION_SOFTMAX1", F32, got.astype(np.float64), REFERENCES["ACTIVATION_SOFTMAX1"](
            x.astype(np.float64), {"axes": (1,)}), 33)  # fmt: skip


# (row, data type, sizes, fields): row programs whose parts also run one by one on the rows reduction kernel.
BITWISE_CASES = [
    ("ACTIVATION_SOFTMAX1", F32, (6, 40), {"axes": (1,)}),
    ("ACTIVATION_LOG_SOFTMAX", F16, (3, 257), {}),
    ("ACTIVATION_SOFTMAX1", F32, (3, 3000), {"axes": (1,)}),
    (MVN, F32, (2, 3, 4, 5), {"axes": (2, 3), "scale": (1, 3, 1, 1), "bias": (1, 3, 1, 1), "act": "ACTIVATION_ELU"}),
    (MVN, BF16, (4, 33), {"axes": (1,), "normalize_variance": False, "bias": (1, 33)}),
    ("ACTIVATION_HARDMAX1", F32, (6, 40), {"axes": (1,)}),  # values rounded: ties
    ("ACTIVATION_HARDMAX", F16, (3, 257), {}),
    ("ACTIVATION_HARDMAX1", BF16, (3, 3000), {"axes": (1,)}),
]


@pytest.mark.gpu
@pytest.mark.parametrize(("name", "dt", "sizes", "fields"), BITWISE_CASES, ids=lambda v: getattr(v, "name", None))
def test_row_program_equals_its_parts_bit_for_bit(name: str, dt: DataType, sizes: tuple, fields: dict) -> None:
    """The row program computes each part as the part's own kernel does, rounding to the part's output type, and
    sums in the rows reduction kernel's order (each thread its columns t, t + threads, ..., then the tree): its
    output equals, bit for bit, the composite's parts run one operator at a time (``fuse=False``) with REDUCE on
    the rows kernel (``cupy_rows_reduce``)."""
    from conftest import GPU

    from descriptors import ExecutionFlags
    from gpuops import config
    from gpuops.compiled_graph import CompiledGraph
    from gpuops.graph_plan import composite_graph

    device = gpuops.Device(GPU)
    xp = device.backend_impl.xp
    rng = np.random.default_rng(11)
    t = TensorDesc(dt, sizes)
    extra: dict[str, Any] = {k: v for k, v in fields.items() if k == "axes"}
    if name == MVN:
        for role in ("scale", "bias"):
            extra[f"{role}_tensor"] = TensorDesc(dt, fields[role]) if role in fields else None
        extra["normalize_variance"] = fields.get("normalize_variance", True)
        if "act" in fields:
            extra["fused_activation"] = desc_class(fields["act"])(alpha=0.5)
    desc = desc_class(name)(input_tensor=t, output_tensor=t, **extra)
    tensors = desc.input_tensors  # None for an absent ScaleTensor or BiasTensor
    ties = np.round if "HARDMAX" in name else np.asarray  # HARDMAX: equal maxima, the first wins
    bufs = [
        None
        if d is None
        else to_backend(xp, buffer_for(d, ties(rng.standard_normal(d.sizes) * 3).astype(dt.numpy_dtype)))
        for d in tensors
    ]
    op = device.compile_operator(device.create_operator(desc))
    assert op.step_paths == ("row program",)
    with config.override(cupy_rows_reduce=True):
        parts = CompiledGraph(device, composite_graph(desc), ExecutionFlags.NONE, fuse=False)
    assert "rows reduction" in parts.step_paths and len(parts.step_paths) > 3, parts.step_paths
    one, apart = (to_backend(xp, buffer_for(t, np.zeros(sizes))) for _ in range(2))
    op.execute(bufs, [one])
    parts.execute([b for b in bufs if b is not None], [apart])
    assert np.array_equal(uint_view(to_host(one)), uint_view(to_host(apart)))
