"""The front-ends' softmax and normalization layers (issue 18): TensorRT SoftMax, OpenVINO SoftMax-8,
LogSoftmax-5 and MVN-6, against float64 references from the formulas (``reference_composite``), and their
argument errors."""

from __future__ import annotations

import numpy as np
import pytest
from reference_composite import REFERENCES

from gpuops.frontends import openvino as ov
from gpuops.frontends import tensorrt as trt

RNG = np.random.default_rng(18)
X4 = (RNG.standard_normal((2, 3, 4, 5)) * 3).astype(np.float32)


def close(got: np.ndarray, want: np.ndarray, tol: float = 2e-6) -> None:
    assert got.shape == want.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize(("shape", "axes", "axis"), [((2, 3, 4, 5), None, 1), ((4, 5), None, 0), ((7,), None, 0),
                                                     ((2, 3, 4), 0b100, 2), ((2, 3, 4, 5), 0b1000, 3)])  # fmt: skip
def test_tensorrt_softmax(shape: tuple, axes: int | None, axis: int) -> None:
    """``axes=None`` is TensorRT's default: dimension rank - 3 (NCHW: C), 0 below rank 3."""
    x = (RNG.standard_normal(shape) * 3).astype(np.float32)
    got = trt.softmax(x) if axes is None else trt.softmax(x, axes)
    close(got, REFERENCES["ACTIVATION_SOFTMAX1"](x.astype(np.float64), {"axes": (axis,)}))


def test_tensorrt_softmax_refuses_what_tensorrt_refuses() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        trt.softmax(X4, 0b0110)
    with pytest.raises(ValueError, match="beyond"):
        trt.softmax(X4, 1 << 4)
    with pytest.raises(TypeError, match="input"):
        trt.softmax(X4.astype(np.int32))
    with pytest.raises(ValueError, match="rank 0"):
        trt.softmax(np.float32(1.0))


@pytest.mark.parametrize("axis", [1, -1, 0, -4])
def test_openvino_softmax_and_log_softmax(axis: int) -> None:
    axes = (axis % 4,)
    close(ov.softmax(X4, axis), REFERENCES["ACTIVATION_SOFTMAX1"](X4.astype(np.float64), {"axes": axes}))
    close(ov.log_softmax(X4, axis), REFERENCES["ACTIVATION_LOG_SOFTMAX1"](X4.astype(np.float64), {"axes": axes}))


def test_openvino_softmax_default_axis_and_float16() -> None:
    x = X4.astype(np.float16)
    got = ov.softmax(x)
    assert got.dtype == np.float16
    want = REFERENCES["ACTIVATION_SOFTMAX1"](x.astype(np.float64), {"axes": (1,)})
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2**-10, atol=2**-14)


@pytest.mark.parametrize(("axes", "nv"), [([2, 3], True), ([-1], True), ([0, 2, 3], False), ([1, 2, 3], True)])
def test_openvino_mvn(axes: list, nv: bool) -> None:
    norm = tuple(sorted(a % 4 for a in axes))
    want = REFERENCES["MEAN_VARIANCE_NORMALIZATION1"](
        X4.astype(np.float64), {"axes": norm, "normalize_variance": nv, "epsilon": 1e-6}
    )
    close(ov.mvn(X4, axes, nv, 1e-6, "inside_sqrt"), want, 1e-5)


def test_openvino_arguments_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match=r"axis=4 is outside \[-4, 3\]"):
        ov.softmax(X4, 4)
    with pytest.raises(TypeError, match="axis must be an integer"):
        ov.log_softmax(X4, 1.0)
    with pytest.raises(ValueError, match="outside_sqrt"):
        ov.mvn(X4, [2, 3], True, 1e-9, "outside_sqrt")
    with pytest.raises(ValueError, match="names an axis twice"):
        ov.mvn(X4, [3, -1], True, 1e-9, "inside_sqrt")
    with pytest.raises(TypeError, match="normalize_variance"):
        ov.mvn(X4, [3], 1, 1e-9, "inside_sqrt")
    with pytest.raises(TypeError, match="int32"):
        ov.softmax(X4.astype(np.int32))
