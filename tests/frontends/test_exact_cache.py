"""Caches of compiled operators key descriptors by type and bits, not by ``==`` (issue 31, item 3).

``0.0 == -0.0``, ``True == 1`` and ``nan != nan``: a cache keyed by equality hands a descriptor the operator
compiled (and validated) for another one. Each test runs the "equal" descriptor first, then the one under test,
through one cache (``gpuops.run``, a front-end, the Dask layer), and checks the second answer by IEEE's rules:
``-0.0 + -0.0 = -0.0`` and ``-0.0 + +0.0 = +0.0`` (round to nearest, IEEE 754 6.3).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import gpuops
from descriptors import (
    DataType,
    ElementWiseIdentityOperatorDesc,
    FillValueConstantOperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    ScaleBias,
    TensorDesc,
)
from descriptors.errors import DescriptorError

NUMPY = gpuops.Device("numpy")


def _sign_bits(a: np.ndarray) -> list[bool]:
    return [math.copysign(1.0, float(v)) < 0 for v in np.asarray(a, np.float64).ravel()]


def test_exact_key_tells_apart_what_equality_merges() -> None:
    from descriptors.exact import Exact, exact_key

    assert exact_key(0.0) != exact_key(-0.0)
    assert exact_key(True) != exact_key(1)
    assert exact_key(1) != exact_key(1.0)
    assert exact_key(float("nan")) == exact_key(float("nan"))  # the same bits: one key, not a miss each time
    assert exact_key(np.float32(-0.0)) != exact_key(np.float32(0.0))
    assert exact_key(np.float32(1.0)) != exact_key(np.float64(1.0))
    assert exact_key((1, 2)) == exact_key((1, 2)) and exact_key((1, 2)) != exact_key([1, 2])
    assert Exact(ScaleBias(1.0, -0.0)) != Exact(ScaleBias(1.0, 0.0))
    assert Exact(ScaleBias(1.0, -0.0)) == Exact(ScaleBias(1.0, -0.0))
    assert ScaleBias(1.0, -0.0) == ScaleBias(1.0, 0.0)  # why: dataclass equality merges them
    with pytest.raises(TypeError):
        exact_key(np.array([object()]))


def test_run_fill_value_constant_keeps_the_sign_of_zero() -> None:
    out = TensorDesc(DataType.FLOAT32, (4,))
    plus = gpuops.run(FillValueConstantOperatorDesc(out, value_data_type=DataType.FLOAT32, value=0.0), device=NUMPY)
    minus = gpuops.run(FillValueConstantOperatorDesc(out, value_data_type=DataType.FLOAT32, value=-0.0), device=NUMPY)
    assert _sign_bits(plus) == [False] * 4
    assert _sign_bits(minus) == [True] * 4


def test_run_scale_bias_keeps_the_sign_of_its_bias() -> None:
    t = TensorDesc(DataType.FLOAT32, (2,))
    x = np.array([-0.0, -0.0], np.float32)
    plus = gpuops.run(ElementWiseIdentityOperatorDesc(t, t, ScaleBias(1.0, 0.0)), x, device=NUMPY)
    minus = gpuops.run(ElementWiseIdentityOperatorDesc(t, t, ScaleBias(1.0, -0.0)), x, device=NUMPY)
    assert _sign_bits(plus) == [False, False]  # -0 * 1 + +0 = +0
    assert _sign_bits(minus) == [True, True]  # -0 * 1 + -0 = -0


def test_run_validates_bool_axes_after_int_axes_ran() -> None:
    t, o = TensorDesc(DataType.FLOAT32, (2, 3)), TensorDesc(DataType.FLOAT32, (2, 1))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(
        gpuops.run(ReduceOperatorDesc(ReduceFunction.SUM, t, o, axes=(1,)), x, device=NUMPY),
        x.sum(axis=1, keepdims=True),
    )
    with pytest.raises(DescriptorError, match="axes"):
        gpuops.run(ReduceOperatorDesc(ReduceFunction.SUM, t, o, axes=(True,)), x, device=NUMPY)


def test_frontend_cache_keeps_the_sign_of_zero() -> None:
    from gpuops.frontends import onednn

    x = np.array([-0.0, 0.0], np.float32)
    # eltwise_linear: alpha * x + beta; with alpha = 1: -0 + beta, 0 + beta
    plus = onednn.eltwise_forward("eltwise_linear", x, 1.0, 0.0, device=NUMPY)
    minus = onednn.eltwise_forward("eltwise_linear", x, 1.0, -0.0, device=NUMPY)
    assert _sign_bits(plus) == [False, False]
    assert _sign_bits(minus) == [True, False]


def test_dask_cache_keeps_the_sign_of_zero() -> None:
    da = pytest.importorskip("dask.array")
    import gpuops.dask as gd

    x = da.from_array(np.array([-0.0, -0.0], np.float32), chunks=1)
    plus = gd.map_operator("ELEMENT_WISE_IDENTITY", x, scale_bias=ScaleBias(1.0, 0.0)).compute()
    minus = gd.map_operator("ELEMENT_WISE_IDENTITY", x, scale_bias=ScaleBias(1.0, -0.0)).compute()
    assert _sign_bits(plus) == [False, False]
    assert _sign_bits(minus) == [True, True]
