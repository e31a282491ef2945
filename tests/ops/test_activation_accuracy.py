"""Float32 accuracy of the activations, in ulps, against the stated bounds as the tests pin them (TOLERANCE:
tests/accuracy_bounds.py, checked equal to the op table by tests/unit/test_accuracy_bounds.py).

- ACTIVATION_TANH against NumPy's own validation table
  (numpy/_core/tests/data/umath-validation-set-tanh.csv: inputs and correctly rounded float32
  results): at most 2 ulps from the correctly rounded value (CUDA tanhf's and NumPy's bound).
- The steep activations on a dense grid of 100,001 float32 values over [-100, 100] (the tails
  included: overflow, cancellation and subnormal intermediates would show there), against the
  float64 references of tests/reference_activation.py: the largest error in ulps of the float32
  result (subnormal results in units of the smallest subnormal) must stay within the stated
  bound. Each test prints its maximum (``pytest -s``) and records it as a property.

On CuPy and the CUDA emulator float32 math flushes subnormal inputs and results to zeros (README, "Subnormals, per
backend"): there a result whose reference rounds to a float32 subnormal is held to the flushed reference, a zero.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import assert_expected, buffer_for, flush_subnormals, flushes_subnormals, read_tensor, to_backend, to_host
from reference_activation import PARAMS, REFERENCES, TOLERANCE
from test_nary_generated import param_values
from test_umath_validation import flushed_errors

import gpuops
from descriptors import DataType, TensorDesc, desc_class, row_of

F32 = DataType.FLOAT32
TANH_CSV = Path(np.__file__).parent / "_core" / "tests" / "data" / "umath-validation-set-tanh.csv"
TANH_ULPS = 2  # from the correctly rounded result (CUDA tanhf: 2; NumPy's table: 2)

# Required by the issue: SIGMOID, SOFTPLUS, GELU, MISH, LOG_SIGMOID; the other transcendental
# activations ride along.
GRID_OPS = [
    "ACTIVATION_SIGMOID",
    "ACTIVATION_SOFTPLUS",
    "ACTIVATION_GELU",
    "ACTIVATION_MISH",
    "ACTIVATION_LOG_SIGMOID",
    "ACTIVATION_TANH",
    "ACTIVATION_SWISH",
    "ACTIVATION_GELU_TANH",
    "ACTIVATION_ELU",
    "ACTIVATION_CELU",
    "ACTIVATION_SCALED_ELU",
    "ACTIVATION_SCALED_TANH",
    "ACTIVATION_PARAMETRIC_SOFTPLUS",
    "ACTIVATION_SOFTSIGN",
    "ACTIVATION_HARD_SWISH",
]
GRID = np.linspace(-100.0, 100.0, 100_001).astype(np.float32)


def run_f32(device: gpuops.Device, xp: Any, name: str, x: np.ndarray, params: dict[str, Any]) -> np.ndarray:
    t = TensorDesc(F32, x.shape)
    op = device.compile_operator(device.create_operator(desc_class(name)(t, t, **params)))
    out = to_backend(xp, buffer_for(t, np.zeros(x.shape)))
    op.execute([to_backend(xp, buffer_for(t, x))], [out])
    return read_tensor(to_host(out), t)


def ulp_error(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in ulps of the float32 value of ref (the spacing there; 2**-149 below 2**-126)."""
    ref_f32 = ref.astype(np.float32)
    spacing = np.spacing(np.abs(ref_f32)).astype(np.float64)
    with np.errstate(all="ignore"):
        err = np.abs(got.astype(np.float64) - ref) / spacing
    both_nan = np.isnan(got) & np.isnan(ref)
    same_inf = np.isinf(ref_f32) & (got == ref_f32)
    return np.where(both_nan | same_inf, 0.0, np.where(np.isnan(err), np.inf, err))


def float_ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in representable float32 values (as numpy.testing's nulp); NaN against NaN is 0."""
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, np.int64(-(2**31)) - ia, ia)
    ib = np.where(ib < 0, np.int64(-(2**31)) - ib, ib)
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, np.where(np.isnan(a) | np.isnan(b), 2**32, np.abs(ia - ib)))


def _read_tanh_table() -> tuple[np.ndarray, np.ndarray]:
    rows = [line.split(",") for line in TANH_CSV.read_text().splitlines() if line.startswith("np.float32,")]
    x = np.array([int(r[1], 16) for r in rows], dtype=np.uint32).view(np.float32)
    y = np.array([int(r[2], 16) for r in rows], dtype=np.uint32).view(np.float32)
    return x, y


def test_tanh_against_numpy_validation_table(device: gpuops.Device, xp: Any, record_property: Any) -> None:
    if not TANH_CSV.exists():
        pytest.skip(f"NumPy's validation data is not installed ({TANH_CSV})")
    x, want = _read_tanh_table()
    assert x.size > 500
    got = run_f32(device, xp, "ACTIVATION_TANH", x, {})
    nulp = float_ulps(got, want)
    if flushes_subnormals(device):  # CuPy and the emulator: subnormal inputs and results are zeros (tanh(+-0) = +-0)
        nulp = flushed_errors("tanh", x, got, want, device)
    worst = int(nulp.max())
    i = int(nulp.argmax())
    print(f"ACTIVATION_TANH vs umath-validation-set-tanh.csv ({x.size} float32 rows): max {worst} ulp at x={x[i]!r}")
    record_property("max_ulp", worst)
    assert worst <= TANH_ULPS, f"tanh({x[i]!r}) = {got[i]!r}, correctly rounded {want[i]!r}: {worst} ulps"
    assert TOLERANCE["ACTIVATION_TANH"][0] >= TANH_ULPS + 0.5  # the stated bound covers it


GRID_CASES = [
    pytest.param(name, i, id=f"{name.removeprefix('ACTIVATION_')}-p{i}")
    for name in GRID_OPS
    for i in range(len(PARAMS.get(name, [{}])))
]


# Where the emulator does not compute what the GPU computes: it compiles without FMA contraction
# (gpuops/emulator/build.py: -ffp-contract=off), NVRTC contracts by default (these kernels are compiled without
# --fmad=false). SOFTPLUS folds the product's rounding error back as r + dz * sigmoid(z): one fmaf on the GPU, whose
# product is never flushed; on the emulator dz * sigmoid(z) rounds to a float32 subnormal and is flushed first, so
# results near 1e-37..1e-32 lose up to 64 ulps where steepness (beta) times x is inexact (x = -27.592, steepness 3:
# the emulator gives 3.7472983e-37, the H200 3.7473127e-37, float64 3.7473128e-37). On an H200 (2026-11-27, these
# references) the three cases measured 2.90, 3.07 and 2.86 ulps, within the stated 6.5. Strict: an emulator that
# contracts as NVRTC does makes these pass, and then this list must go.
EMULATOR_UNCONTRACTED = {("ACTIVATION_SOFTPLUS", 1), ("ACTIVATION_SOFTPLUS", 3), ("ACTIVATION_PARAMETRIC_SOFTPLUS", 1)}


@pytest.mark.parametrize(("name", "index"), GRID_CASES)
def test_dense_grid_within_stated_bound(
    name: str, index: int, device: gpuops.Device, xp: Any, record_property: Any, request: pytest.FixtureRequest
) -> None:
    if device.backend == "emulator" and (name, index) in EMULATOR_UNCONTRACTED:
        reason = "the emulator flushes the product NVRTC contracts into an fmaf (EMULATOR_UNCONTRACTED)"
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    params = PARAMS.get(name, [{}])[index]
    got = run_f32(device, xp, name, GRID, params)
    ref = REFERENCES[name]([GRID], np.dtype(np.float32), param_values(row_of(name), params), None).values
    err = ulp_error(got, ref)
    if flushes_subnormals(device):
        # CuPy's -ftz=true (README, "Subnormals, per backend"): a result that rounds to a float32 subnormal is
        # flushed to a zero (its sign follows the kernel's intermediate flushes), so there the flushed reference, a
        # zero, is what the GPU gives. The grid holds no subnormal input. Normal results are measured as above.
        ref32 = ref.astype(np.float32)
        flushed = flush_subnormals(ref32).view(np.uint32) != ref32.view(np.uint32)
        err[flushed & (got == 0)] = 0.0
    worst = float(err.max())
    i = int(err.argmax())
    bound = TOLERANCE[name][0]
    print(f"{name} {params}: max {worst:.3f} ulp at x={GRID[i]!r} (got {got[i]!r}, float64 {ref[i]!r}); stated {bound}")
    record_property("max_ulp", worst)
    assert worst <= bound, f"{name} {params}: {worst:.3f} ulps at x={GRID[i]!r} > stated {bound}"


# ---------------------------------------------------------------------------------------------
# CELU: the README defines it as x if x >= 0 else alpha * expm1(x / alpha); that is DirectML's
# max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) for every finite nonzero alpha (in float64).

CELU_ALPHAS = [1.0, 0.5, 1.3, -1.5, -0.25, 1e-3, -1e-3, 1e3, -1e3, 2.0**-126, 1e-40, 3e38, -3e38]


@pytest.mark.parametrize("alpha", CELU_ALPHAS)
def test_celu_reference_is_directml_form_for_finite_nonzero_alpha(alpha: float) -> None:
    from reference_activation import celu_directml

    x = np.concatenate([GRID[::97], np.float32([-1e30, -1e4, -104.0, -1e-30, -0.0, 0.0, 1e-40, 3e38, -3e38])])
    alpha32 = float(np.float32(alpha))
    assert alpha32 != 0 and math.isfinite(alpha32)
    ref = REFERENCES["ACTIVATION_CELU"]([x], np.dtype(np.float32), {"alpha": alpha}, None).values
    directml = celu_directml(x.astype(np.float64), alpha32)
    both = np.isfinite(ref) & np.isfinite(directml)
    assert np.array_equal(np.isnan(ref), np.isnan(directml)) and np.array_equal(np.isinf(ref), np.isinf(directml))
    np.testing.assert_allclose(ref[both], directml[both], rtol=1e-13, atol=1e-300)


# ---------------------------------------------------------------------------------------------
# SOFTPLUS and PARAMETRIC_SOFTPLUS never overflow on a finite result (README, activation limits):
# also where steepness * x (beta * x) is beyond float32's range.


@pytest.mark.parametrize("steepness", [3.4e38, -3.4e38, 1e30, 65504.0])
def test_softplus_steepness_times_x_beyond_float32(steepness: float, device: gpuops.Device, xp: Any) -> None:
    x = np.float32([2.125, -2.125, 1e10, -1e10, 3e38, -3e38, 0.5])
    got = run_f32(device, xp, "ACTIVATION_SOFTPLUS", x, {"steepness": steepness})
    expected = REFERENCES["ACTIVATION_SOFTPLUS"]([x], np.dtype(np.float32), {"steepness": steepness}, None)
    assert np.isfinite(expected.values).all() and not expected.unchecked.any()
    assert_expected(got, expected, F32, TOLERANCE["ACTIVATION_SOFTPLUS"][0], "SOFTPLUS")


@pytest.mark.parametrize(("alpha", "beta"), [(0.25, 3.4e38), (-0.5, 3.4e38), (0.0, 3.4e38), (1e-30, 1e30)])
def test_parametric_softplus_beta_times_x_beyond_float32(
    alpha: float, beta: float, device: gpuops.Device, xp: Any
) -> None:
    x = np.float32([1.125, -1.125, 2.0, 1e10, -1e10])
    params = {"alpha": alpha, "beta": beta}
    got = run_f32(device, xp, "ACTIVATION_PARAMETRIC_SOFTPLUS", x, params)
    expected = REFERENCES["ACTIVATION_PARAMETRIC_SOFTPLUS"]([x], np.dtype(np.float32), params, None)
    assert np.isfinite(expected.values).all() and not expected.unchecked.any()
    assert_expected(got, expected, F32, TOLERANCE["ACTIVATION_PARAMETRIC_SOFTPLUS"][0], "PARAMETRIC_SOFTPLUS")
