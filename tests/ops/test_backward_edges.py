"""Every oneDNN backward row at the special values: NaN, +-inf, +-0.0, subnormals, +-max.

The reference is the seed's backward formula evaluated in float64 (reference_backward.FORMULAS)
and compared as the generated tests compare: NaN where NaN, infinities where the float64
value rounds to one in float32, otherwise within the row's stated accuracy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from accuracy_bounds import PINNED
from helpers import assert_expected, buffer_for, flush_subnormals, flushes_subnormals, read_tensor, to_backend, to_host
from opinfo import record
from reference_backward import FORMULAS, row_name

from descriptors import DataType, TensorDesc, desc_class, row_of

F32_MAX = float(np.finfo(np.float32).max)
SPECIAL = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-40, -1e-40, F32_MAX, -F32_MAX, 3.0, -3.0, 0.5]


@pytest.mark.parametrize("alg", sorted(FORMULAS))
def test_backward_special_values(alg: str, device: Any, xp: Any) -> None:
    name = row_name(alg)
    params = record(name).param_sets[0]
    a = float(np.float32(params.get("alpha", 0.0)))
    b = float(np.float32(params.get("beta", 0.0)))
    n = len(SPECIAL)
    t = TensorDesc(DataType.FLOAT32, (n,))
    desc = desc_class(name)(t, t, t, **params)
    op = device.compile_operator(device.create_operator(desc))
    x = np.array(SPECIAL, dtype=np.float32)
    dd = np.full(n, 1.5, dtype=np.float32)
    out = to_backend(xp, buffer_for(t, np.zeros(n)))
    op.execute([to_backend(xp, buffer_for(t, x)), to_backend(xp, buffer_for(t, dd))], [out])
    got = read_tensor(to_host(out), t)
    with np.errstate(all="ignore"):
        want = FORMULAS[alg](x.astype(np.float64), dd.astype(np.float64), a, b)
    expected = record(name).evaluate([x, dd], np.dtype(np.float32), {"alpha": a, "beta": b})
    np.testing.assert_array_equal(expected.values, want)  # the reference is the seed's formula, with its domain
    if flushes_subnormals(device):  # CuPy's -ftz=true: the float32 subnormal x (+-1e-40) reads as a zero of its sign
        expected = record(name).evaluate([flush_subnormals(x), dd], np.dtype(np.float32), {"alpha": a, "beta": b})
    ulps = PINNED[name][0] if name in PINNED else 4.0
    assert_expected(got, expected, DataType.FLOAT32, ulps, name)


# --- extreme values where the result is in range (no spurious overflow) -------------------------
# (row, params, s or d, dd): the float64 formula's result is finite and every value the row's
# domain names (each row's ``accuracy.domain``, descriptors/accuracy.py) is in float32's range; a float32 kernel that
# multiplied in the wrong order overflowed (2 * s, alpha * beta, d * d, 2 * d) or took inf * 0.
F32_TINY = float(np.finfo(np.float32).tiny)
IN_DOMAIN = [
    ("square", {}, F32_MAX, 0.27),  # 2 * s overflows; dd * 2 s = 1.84e38
    ("square", {}, 0.27, -F32_MAX),
    ("square", {}, 1e-45, 1e38),  # the subnormal doubled exactly
    ("sqrt_use_dst_for_bwd", {}, -3e38, -104.0),  # 2 d overflows; dd / (2 d) = 1.7e-37
    ("sqrt_use_dst_for_bwd", {}, 2e38, 1e-37),
    ("pow", {"alpha": 3.4e38, "beta": 2.0}, 1.0, 0.2),  # alpha * beta overflows; 1.36e38
    ("pow", {"alpha": 2.0, "beta": 0.1}, 1e-30, 1.0),  # beta - 1 inexact in float32: folded back
    ("pow", {"alpha": 2.0, "beta": 0.1}, 1e30, 1.0),
    ("swish", {"alpha": 1.5}, F32_MAX, -0.34),  # alpha * s overflows: the limit 1
    ("swish", {"alpha": 1.5}, -F32_MAX, -1.0),  # ... and 0, not inf * 0
    ("swish", {"alpha": -2.0}, F32_MAX, 3.0),
    ("tanh_use_dst_for_bwd", {}, 1e20, 1e-30),  # d * d overflows; dd (1 - d^2) = -1e10
    ("tanh_use_dst_for_bwd", {}, -3e19, -2e-38),
    ("logistic_use_dst_for_bwd", {}, 1e20, 1e-30),  # d (1 - d) overflows; -1e10
    ("logistic_use_dst_for_bwd", {}, -3e19, 2e-38),
    ("exp", {}, 88.5, 1e-3),  # e^s just inside float32's range
    ("elu", {"alpha": 1.0}, -87.0, 1e30),  # e^s just above float32's smallest normal
]


@pytest.mark.parametrize(("alg", "params", "s", "dd"), IN_DOMAIN, ids=[f"{c[0]}-{i}" for i, c in enumerate(IN_DOMAIN)])
@pytest.mark.parametrize("dt", [DataType.FLOAT32, DataType.FLOAT64], ids=["f32", "f64"])
def test_no_spurious_overflow_in_domain(
    alg: str, params: dict, s: float, dd: float, dt: DataType, device: Any, xp: Any
) -> None:
    name = row_name(alg)
    full = {"alpha": 0.0, "beta": 0.0, **params}
    x, y = np.array([s, s], dt.numpy_dtype), np.array([dd, dd], dt.numpy_dtype)
    # On CuPy and the emulator a float32 subnormal operand reads as a zero (square's 1e-45: 2 * 0 * dd = 0); float64
    # keeps it. The case stays in the domain either way.
    flushed = [flush_subnormals(v, device) for v in (x, y)]
    expected = record(name).evaluate(flushed, dt.numpy_dtype, full)
    assert not expected.unchecked.any(), "the case is in the stated domain"
    assert np.isfinite(expected.values).all() and np.all(np.abs(expected.values) < F32_MAX)
    got = _run(device, xp, name, full, x, y, dt)
    assert_expected(got, expected, dt, PINNED[name][0] if name in PINNED else 0.5, name)


def _run(device: Any, xp: Any, name: str, params: dict, x: np.ndarray, y: np.ndarray, dt: DataType) -> np.ndarray:
    t = TensorDesc(dt, x.shape)
    op = device.compile_operator(device.create_operator(desc_class(name)(t, t, t, **params)))
    out = to_backend(xp, buffer_for(t, np.zeros(x.shape)))
    op.execute([to_backend(xp, buffer_for(t, x)), to_backend(xp, buffer_for(t, y))], [out])
    return read_tensor(to_host(out), t)


# --- outside the domain: the formula in the compute type (README, Accuracy) ----------------------
OUT_OF_DOMAIN = [
    ("soft_relu", -104.0, 1e38, np.float32),  # sigmoid(-104) = 6.8e-46: below float32's subnormals
    ("soft_relu", -104.0, float("inf"), np.float32),
    ("logistic", -104.0, 1e38, np.float32),
    ("exp", 88.75, -0.14, np.float32),  # e^88.75 > float32's max
    ("exp", 89.0, 0.0, np.float32),
    ("exp", -104.0, -F32_MAX, np.float32),
    ("elu", -104.0, -1e38, np.float32),
    ("elu", -104.0, float("inf"), np.float32),
    ("mish", -104.0, -float("inf"), np.float16),  # float16 computes in float32
    ("tanh", 8.5, float("inf"), np.float32),  # 1 - tanh(8.5)^2 = 1.7e-7 is within the absolute term
]


@pytest.mark.parametrize(
    ("alg", "s", "dd", "dt"), OUT_OF_DOMAIN, ids=[f"{c[0]}-{i}" for i, c in enumerate(OUT_OF_DOMAIN)]
)
def test_out_of_domain_is_marked(alg: str, s: float, dd: float, dt: type) -> None:
    """Where f'(s) or a named intermediate is beyond float32's normal range (the true result may
    be finite), or dd is infinite and |f'(s)| within the absolute term, the references leave the
    element unchecked: the stated accuracy does not cover it."""
    name = row_name(alg)
    full = {"alpha": 1.0, "beta": 0.0}
    expected = record(name).evaluate([np.array([s], dt), np.array([dd], dt)], np.dtype(dt), full)
    assert expected.unchecked.all(), (name, s, dd, dt)
    if np.isfinite(dd):
        expected = record(name).evaluate([np.array([s]), np.array([dd])], np.dtype(np.float64), full)
        assert not expected.unchecked.any(), "float64 computes these in range"


def test_readme_out_of_domain_examples(device: Any, xp: Any) -> None:
    """README, Accuracy: EXP_GRAD(-104, -3.4e38) is -0.0 (e^-104 is below float32's subnormals), and
    EXP_GRAD(89, 0) NaN (e^89 overflows): the seed's dd * e^s in float32, as oneDNN's kernels give it."""
    x = np.array([-104.0, 89.0], np.float32)
    y = np.array([-F32_MAX, 0.0], np.float32)
    got = _run(device, xp, "ELTWISE_EXP_GRAD", {}, x, y, DataType.FLOAT32)
    with np.errstate(all="ignore"):
        in_float32 = y * np.exp(x)  # the formula evaluated in float32, by NumPy
    assert got[0] == 0 and np.signbit(got[0]) and in_float32[0] == 0
    assert np.isnan(got[1]) and np.isnan(in_float32[1])


# --- the absolute term is per unit of |dd| (descriptors/accuracy.py) --------------------------------
# ds = dd * f'(s): f'(s) = 1 - tanh(s)^2 and the gelu forms cancel, to an absolute error of a few
# float32 eps; |dd| times that in ds. The findings of the contract fuzz test, at |dd| > 1:
SCALED = [("tanh", -3.125, 88.75), ("gelu_erf", -4.0, 88.75), ("gelu_tanh", -3.625, 1e4), ("tanh", 8.5, -3e4)]


@pytest.mark.parametrize(("alg", "s", "dd"), SCALED, ids=[f"{c[0]}-{i}" for i, c in enumerate(SCALED)])
def test_absolute_term_scales_with_dd(alg: str, s: float, dd: float, device: Any, xp: Any) -> None:
    name = row_name(alg)
    acc = row_of(name).accuracy
    ulps, atol = PINNED[name]
    assert atol > 0 and acc is not None and acc.per_dd
    full = {"alpha": 0.0, "beta": 0.0}
    x, y = np.array([s, s, s], np.float32), np.array([dd, 1.0, -0.5], np.float32)
    expected = record(name).evaluate([x, y], np.dtype(np.float32), full)
    np.testing.assert_allclose(expected.atol, atol * np.abs(y.astype(np.float64)))
    got = _run(device, xp, name, full, x, y, DataType.FLOAT32)
    assert_expected(got, expected, DataType.FLOAT32, ulps, name)


def test_readme_states_the_scaled_term() -> None:
    import tools.gen_readme_ops as gen

    for name in ("ELTWISE_TANH_GRAD", "ELTWISE_GELU_ERF_GRAD", "ELTWISE_TANH_USE_DST_FOR_BWD_GRAD"):
        assert "·\\|dd\\| absolute" in gen._accuracy(row_of(name))
