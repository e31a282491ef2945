"""Every transcendental element-wise row on a dense grid, in float32, float16 and bfloat16 (issue 34).

float16 and bfloat16: every one of the 65536 values of the type. float32: 20,001 evenly spaced values over the
row's interesting domain (``DOMAIN``), 16,384 values spaced evenly in bits over every binade of both signs
(subnormals to the largest finite value) and the specials. References in float64 (tests/reference_unary.py,
tests/reference_activation.py); the error of each result in ulps of its own type at the reference (a subnormal
result in units of the type's smallest subnormal) must stay within the pinned bound (tests/accuracy_bounds.py):
``PINNED[row][0]`` in float32, ``HALF_ULPS`` in float16 and bfloat16. Elements outside the row's stated domain
(``Expected.unchecked``) are not held to it.

On CuPy and the CUDA emulator float32 math flushes subnormal inputs and results to zeros (README, "Subnormals, per
backend"): there a float32 or bfloat16 subnormal input is measured against the reference of both it and its flushed
zero (the closer one counts), and a result whose reference rounds to a subnormal may be a zero.
"""

from __future__ import annotations

import functools
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from accuracy_bounds import HALF_ULPS, PINNED
from helpers import buffer_for, flush_subnormals, flushes_subnormals, read_tensor, to_backend, to_host
from reference_activation import PARAMS as ACTIVATION_PARAMS
from reference_activation import REFERENCES as ACTIVATION_REFERENCES
from reference_unary import PARAMS as UNARY_PARAMS
from reference_unary import REFERENCES as UNARY_REFERENCES
from test_activation_accuracy import EMULATOR_UNCONTRACTED
from test_nary_generated import param_values

import gpuops
from descriptors import DataType, TensorDesc, desc_class, row_of

# The transcendental rows (not exact, not a single correctly rounded IEEE operation) of one input, and the
# float32 domain where each is interesting (its dense part; the bit-spaced part covers every binade anyway).
DOMAIN: dict[str, tuple[float, float]] = {
    "ELEMENT_WISE_EXP": (-105.0, 90.0),
    "ELEMENT_WISE_ACOS": (-1.0, 1.0),
    "ELEMENT_WISE_ASIN": (-1.0, 1.0),
    "ELEMENT_WISE_ATAN": (-20.0, 20.0),
    "ELEMENT_WISE_COS": (-100.0, 100.0),
    "ELEMENT_WISE_SIN": (-100.0, 100.0),
    "ELEMENT_WISE_TAN": (-100.0, 100.0),
    "ELEMENT_WISE_LOG": (0.0, 4.0),
    "ELEMENT_WISE_ERF": (-5.0, 5.0),
    "ELEMENT_WISE_SINH": (-90.0, 90.0),
    "ELEMENT_WISE_COSH": (-90.0, 90.0),
    "ELEMENT_WISE_TANH": (-10.0, 10.0),
    "ELEMENT_WISE_ASINH": (-20.0, 20.0),
    "ELEMENT_WISE_ACOSH": (1.0, 20.0),
    "ELEMENT_WISE_ATANH": (-1.0, 1.0),
    "ELEMENT_WISE_CONSTANT_POW": (-20.0, 20.0),
    "ACTIVATION_ELU": (-20.0, 20.0),
    "ACTIVATION_SOFTPLUS": (-100.0, 100.0),
    "ACTIVATION_CELU": (-20.0, 20.0),
    "ACTIVATION_GELU": (-15.0, 15.0),
    "ACTIVATION_HARD_SWISH": (-10.0, 10.0),
    "ACTIVATION_PARAMETRIC_SOFTPLUS": (-100.0, 100.0),
    "ACTIVATION_SCALED_ELU": (-20.0, 20.0),
    "ACTIVATION_SCALED_TANH": (-10.0, 10.0),
    "ACTIVATION_SIGMOID": (-100.0, 100.0),
    "ACTIVATION_SOFTSIGN": (-10.0, 10.0),
    "ACTIVATION_SWISH": (-100.0, 100.0),
    "ACTIVATION_TANH": (-10.0, 10.0),
    "ACTIVATION_GELU_TANH": (-15.0, 15.0),
    "ACTIVATION_LOG_SIGMOID": (-100.0, 100.0),
    "ACTIVATION_MISH": (-100.0, 100.0),
    "ACTIVATION_POW": (-20.0, 20.0),
}
DTYPES = (DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16)

# As test_activation_accuracy.EMULATOR_UNCONTRACTED (the emulator flushes a product that NVRTC contracts into an
# fmaf), and PARAMETRIC_SOFTPLUS with alpha -2, beta -0.6 at x = 126.375 (beyond that test's [-100, 100] grid):
# beta * x = -75.825, whose rounding error times sigmoid(beta * x) (~4e-39) is flushed: 39 ulps on the emulator.
EMULATOR_FLUSHED_PRODUCT = EMULATOR_UNCONTRACTED | {("ACTIVATION_PARAMETRIC_SOFTPLUS", 2)}


def _params(name: str) -> list[dict[str, Any]]:
    return (ACTIVATION_PARAMS if name.startswith("ACTIVATION_") else UNARY_PARAMS).get(name) or [{}]


def _references(name: str) -> Any:
    return ACTIVATION_REFERENCES[name] if name.startswith("ACTIVATION_") else UNARY_REFERENCES[name]


@functools.cache
def grid(name: str, dtype_name: str) -> np.ndarray:
    """The inputs: every value of a 16-bit type; float32's dense domain, bit-spaced binades and specials."""
    if dtype_name != "float32":
        bits = np.arange(65536, dtype=np.uint16)
        return bits.view(np.float16 if dtype_name == "float16" else ml_dtypes.bfloat16)
    lo, hi = DOMAIN[name]
    dense = np.linspace(lo, hi, 20_001, dtype=np.float64).astype(np.float32)
    spaced = np.arange(1, 0x7F800000, 0x7F800000 // 8192, dtype=np.uint32).view(np.float32)
    tiny = float(np.finfo(np.float32).smallest_subnormal)
    specials = np.float32([0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, 1.0, -1.0, 3.4028235e38, -3.4028235e38])
    return np.concatenate([dense, spaced, -spaced, specials])


def ulps_of(dt: np.dtype) -> tuple[float, float, int]:
    """(smallest normal, smallest subnormal, mantissa bits) of a float type."""
    info = ml_dtypes.finfo(dt)
    return float(info.smallest_normal), float(info.smallest_subnormal), int(info.nmant)


def ulp_error(got: np.ndarray, ref: np.ndarray, dt: np.dtype) -> np.ndarray:
    """|got - ref| in ulps of ``dt`` at the reference rounded to ``dt`` (its smallest subnormal below the normals);
    0 where both are NaN or the rounded reference is the infinity ``got`` holds."""
    normal, sub, nmant = ulps_of(dt)
    with np.errstate(all="ignore"):
        g = got.astype(np.float64)
        r_dt = ref.astype(dt).astype(np.float64)
        mag = np.abs(r_dt)
        exp = np.floor(np.log2(np.where((mag >= normal) & np.isfinite(mag), mag, 1.0)))
        spacing = np.where(mag >= normal, np.exp2(exp - nmant), sub)
        err = np.abs(g - ref) / spacing
    both_nan = np.isnan(g) & np.isnan(ref)
    same_inf = np.isinf(r_dt) & (g == r_dt)
    return np.where(both_nan | same_inf, 0.0, np.where(np.isnan(err), np.inf, err))


@functools.cache
def reference(name: str, index: int, dtype_name: str, flushed: bool) -> tuple[np.ndarray, np.ndarray]:
    """The float64 reference of the grid (of its flushed inputs, with ``flushed``) and its unchecked mask."""
    x = grid(name, dtype_name)
    if flushed:
        x = flush_subnormals(x)
    dt = np.dtype(dtype_name) if dtype_name != "bfloat16" else np.dtype(ml_dtypes.bfloat16)
    with np.errstate(all="ignore"):  # NaN inputs: ml_dtypes' casts of a NaN warn
        expected = _references(name)([x], dt, param_values(row_of(name), _params(name)[index]), None)
    values = np.asarray(expected.values, dtype=np.float64)
    unchecked = getattr(expected, "unchecked", None)
    mask = np.zeros(values.shape, bool) if unchecked is None else np.broadcast_to(unchecked, values.shape)
    return values, mask


def run(device: gpuops.Device, xp: Any, name: str, params: dict[str, Any], dt: DataType, x: np.ndarray) -> np.ndarray:
    t = TensorDesc(dt, x.shape)
    op = device.compile_operator(device.create_operator(desc_class(name)(t, t, **params)))
    out = to_backend(xp, buffer_for(t, np.zeros(x.shape)))
    op.execute([to_backend(xp, buffer_for(t, x))], [out])
    return read_tensor(to_host(out), t)


CASES = [
    pytest.param(name, i, dt, id=f"{name}-p{i}-{dt.name.lower()}")
    for name in DOMAIN
    for i in range(len(_params(name)))
    for dt in DTYPES
]


@pytest.mark.parametrize(("name", "index", "dt"), CASES)
def test_dense_grid_within_pinned_bound(
    name: str, index: int, dt: DataType, device: gpuops.Device, xp: Any, request: pytest.FixtureRequest
) -> None:
    npdt = np.dtype(dt.numpy_dtype)
    if device.backend == "emulator" and dt is DataType.FLOAT32 and (name, index) in EMULATOR_FLUSHED_PRODUCT:
        reason = "the emulator flushes the product NVRTC contracts into an fmaf (EMULATOR_FLUSHED_PRODUCT)"
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    x = grid(name, npdt.name)
    got = run(device, xp, name, _params(name)[index], dt, x)
    ref, unchecked = reference(name, index, npdt.name, False)
    err = ulp_error(got, ref, npdt)
    if flushes_subnormals(device) and npdt != np.float16:
        # float32 math flushes: a float32 subnormal (input, intermediate or result) is a zero of its sign. A
        # subnormal input is measured against the reference of it and of its flushed zero, a subnormal result as
        # the zero it stands for; a zero where the exact result is below float32's normal range (or within the
        # pinned bound of it) is the flushed result.
        ref_f, unchecked_f = reference(name, index, npdt.name, True)
        got_f = flush_subnormals(got)
        for g, r, u in ((got_f, ref, unchecked), (got, ref_f, unchecked_f), (got_f, ref_f, unchecked_f)):
            err = np.minimum(err, np.where(u, 0.0, ulp_error(g, r, npdt)))
        below = float(np.finfo(np.float32).tiny) * (1.0 + PINNED[name][0] * 2.0**-23)
        for r in (ref, ref_f):
            err[(np.abs(r) < below) & (got_f == 0)] = 0.0
    err[unchecked] = 0.0
    bound = PINNED[name][0] if dt is DataType.FLOAT32 else HALF_ULPS[npdt.name]
    worst = float(err.max())
    i = int(err.argmax())
    params = _params(name)[index]
    print(f"{name} {params} {npdt.name}: max {worst:.3f} ulp at x={x[i]!r} (got {got[i]!r}, float64 {ref[i]!r})")
    assert worst <= bound, (
        f"{name} {params} {npdt.name}: {worst:.3f} ulps at x={x[i]!r} (got {got[i]!r}, float64 {ref[i]!r})"
        f" > pinned {bound}"
    )


# CELU where x / alpha is tiny: subnormal (flushed to 0 by float32 math on CuPy and the emulator) or below float32's
# subnormals. Before the fix: alpha 1.3, x = -1.500219e-38 gave -0.0 where float32 flushes (float64: about x);
# alpha 1e3, x = -1.5e-38 358 ulps and alpha 3e38, x = -0.1 22 ulps on NumPy, -0.0 on the emulator.
@pytest.mark.parametrize("alpha", [1e3, -1e3, 3e38, -3e38])
def test_celu_tiny_x_over_alpha_within_pinned_bound(alpha: float, device: gpuops.Device, xp: Any) -> None:
    x = grid("ACTIVATION_CELU", "float32")
    x = x[np.isfinite(x)]
    got = run(device, xp, "ACTIVATION_CELU", {"alpha": alpha}, DataType.FLOAT32, x)
    xs = flush_subnormals(x, device)  # a subnormal input is a zero of its sign where float32 math flushes
    ref = ACTIVATION_REFERENCES["ACTIVATION_CELU"]([xs], np.dtype(np.float32), {"alpha": alpha}, None).values
    err = ulp_error(flush_subnormals(got, device), ref, np.dtype(np.float32))
    if flushes_subnormals(device):
        err[(np.abs(ref) < float(np.finfo(np.float32).tiny)) & (flush_subnormals(got) == 0)] = 0.0
    i = int(err.argmax())
    assert err[i] <= PINNED["ACTIVATION_CELU"][0], (
        f"CELU alpha {alpha}: {err[i]:.3f} ulps at x={x[i]!r} (got {got[i]!r})"
    )
