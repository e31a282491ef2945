"""Every pow gpuops computes on the CPU is IEEE pow (C99 F.9.4.4), at exponent 0.5 too (issue 31, item 2).

NumPy's float32/float64 ``power`` takes ``x ** 0.5`` as ``sqrt(x)`` when the exponent is a scalar or a
broadcast array: ``sqrt(-0.0) = -0.0`` and ``sqrt(-inf) = NaN``, where pow gives ``+0.0`` and ``+inf`` (and so
does the CUDA kernel, ``powf``/``pow``). References are Python's ``math.pow`` (C's pow, in float64: exact for
these operands) with C99's special cases written out where it raises.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gpuops
from descriptors import (
    ActivationPowOperatorDesc,
    DataType,
    ElementWiseConstantPowOperatorDesc,
    ElementWisePowOperatorDesc,
    EltwisePowGradOperatorDesc,
    TensorDesc,
)

NUMPY = gpuops.Device("numpy")
# The zeros and infinities of each sign, ordinary values, a NaN; several lengths: NumPy's SIMD body and tail,
# and one past the CPU backend's threading/compiled-tier thresholds.
SPECIALS = [-0.0, 0.0, -np.inf, np.inf, 4.0, 0.25, -4.0, np.nan]
LENGTHS = [8, 37, 1 << 17]
TYPES = [DataType.FLOAT32, DataType.FLOAT64, DataType.FLOAT16]


def _c_pow(x: float, y: float) -> float:
    """C99 pow (F.9.4.4) in float64; ``math.pow`` raises where C returns inf or NaN."""
    odd = math.isfinite(y) and y == int(y) and int(y) % 2 == 1
    if x == 0 and y < 0:  # pow(+-0, y < 0): +-inf for an odd integer y, else +inf
        return math.copysign(math.inf, x) if odd else math.inf
    try:
        return math.pow(x, y)
    except ValueError:  # a finite negative x and a non-integral y
        return math.nan
    except OverflowError:
        return math.copysign(math.inf, x) if odd else math.inf


def _reference(x: np.ndarray, y: np.ndarray, dt: DataType) -> np.ndarray:
    ref = np.array([_c_pow(float(a), float(b)) for a, b in zip(x.ravel(), y.ravel(), strict=True)], np.float64)
    return ref.astype(dt.numpy_dtype).reshape(x.shape)


def _assert_bits(got: np.ndarray, want: np.ndarray, what: str) -> None:
    got, want = np.asarray(got, np.float64).ravel(), np.asarray(want, np.float64).ravel()
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        same = (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
        assert same, f"{what}: element {k}: got {g!r}, IEEE pow gives {w!r}"


def _inputs(n: int, dt: DataType) -> np.ndarray:
    return np.resize(np.array(SPECIALS), n).astype(dt.numpy_dtype)


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dt", TYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("exponent", [0.5, 2.0, -0.5])
def test_element_wise_pow_with_a_broadcast_exponent(dt: DataType, n: int, exponent: float) -> None:
    x = _inputs(n, dt)
    t = TensorDesc(dt, (n,))
    e = TensorDesc.broadcast(dt, (1,), to=(n,))
    got = gpuops.run(ElementWisePowOperatorDesc(t, e, t), x, np.array([exponent], dt.numpy_dtype), device=NUMPY)
    _assert_bits(got, _reference(x, np.full(n, exponent), dt), f"ELEMENT_WISE_POW {dt.name} n={n} y={exponent}")


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dt", TYPES, ids=lambda d: d.name)
def test_constant_and_activation_pow_at_one_half(dt: DataType, n: int) -> None:
    x = _inputs(n, dt)
    t = TensorDesc(dt, (n,))
    want = _reference(x, np.full(n, 0.5), dt)
    _assert_bits(
        gpuops.run(ElementWiseConstantPowOperatorDesc(t, t, exponent=0.5), x, device=NUMPY),
        want,
        f"ELEMENT_WISE_CONSTANT_POW {dt.name}",
    )
    _assert_bits(
        gpuops.run(ActivationPowOperatorDesc(t, t, alpha=1.0, beta=0.5), x, device=NUMPY),
        want,
        f"ACTIVATION_POW {dt.name}",
    )


def test_onednn_eltwise_pow_at_one_half() -> None:
    from gpuops.frontends import onednn

    x = _inputs(37, DataType.FLOAT32)
    got = onednn.eltwise_forward("eltwise_pow", x, 1.0, 0.5, device=NUMPY)
    _assert_bits(got, _reference(x, np.full(37, 0.5), DataType.FLOAT32), "onednn eltwise_pow")


def test_pow_grad_at_three_halves() -> None:
    """ds = dd * alpha * beta * s^(beta - 1): beta = 1.5 takes s^0.5, +0 at s = -0 and +inf at s = -inf."""
    s = np.array([-0.0, -np.inf, 4.0, 0.0], np.float32)
    dd = np.ones(4, np.float32)
    t = TensorDesc(DataType.FLOAT32, (4,))
    got = gpuops.run(EltwisePowGradOperatorDesc(t, t, t, alpha=1.0, beta=1.5), s, dd, device=NUMPY)
    _assert_bits(got, np.array([0.0, np.inf, 3.0, 0.0], np.float32), "ELTWISE_POW_GRAD beta=1.5")
