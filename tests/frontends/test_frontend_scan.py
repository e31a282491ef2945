"""OpenVINO's CumSum-3 front-end (issue 18) over CUMULATIVE_SUMMATION: the spec's examples, other axes and types
against sums written out from the formula, a device's own arrays, and argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import gpuops
from gpuops.frontends import openvino as ov

X = np.array([1.0, 2.0, 3.0, 4.0], np.float32)


@pytest.mark.parametrize(
    ("exclusive", "reverse", "want"),
    [(False, False, [1, 3, 6, 10]), (True, False, [0, 1, 3, 6]), (False, True, [10, 9, 7, 4]),
     (True, True, [9, 7, 4, 0])],
)  # fmt: skip
def test_openvino_cum_sum_spec_examples(exclusive: bool, reverse: bool, want: list) -> None:
    got = ov.cum_sum(X, 0, exclusive, reverse)
    assert got.dtype == np.float32 and got.tolist() == want


@pytest.mark.parametrize("axis", [0, 1, -1, np.int64(-2), np.array(1, np.int32)])
def test_openvino_cum_sum_axes(axis: object) -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4) - 5
    a = int(np.asarray(axis)) % 2
    got = ov.cum_sum(x, axis)
    lines = np.moveaxis(x.astype(np.int64), a, -1)
    want = np.stack([[line[: j + 1].sum() for j in range(line.size)] for line in lines.reshape(-1, lines.shape[-1])])
    assert got.dtype == np.int32
    assert np.array_equal(got, np.moveaxis(want.reshape(lines.shape), -1, a))


def test_openvino_cum_sum_default_axis_float16_and_wrap() -> None:
    h = np.array([[60000.0, 1.0], [60000.0, 2.0], [-60000.0, 3.0]], np.float16)
    got = ov.cum_sum(h)  # axis 0; float32 running sums, each output rounded once
    assert (
        got.dtype == np.float16
        and got[:, 0].tolist() == [60000.0, np.inf, 60000.0]
        and got[:, 1].tolist()
        == [
            1.0,
            3.0,
            6.0,
        ]
    )
    assert ov.cum_sum(np.array([100, 100], np.int8)).tolist() == [100, -56]


def test_openvino_cum_sum_on_the_emulator() -> None:
    dev = gpuops.Device("emulator")
    xd = dev.backend_impl.to_device(np.arange(6, dtype=np.float32).reshape(2, 3))
    got = ov.cum_sum(xd, 1, reverse=True, device=dev)
    assert dev.backend_impl.to_host(got).tolist() == [[3.0, 3.0, 2.0], [12.0, 9.0, 5.0]]


def test_openvino_cum_sum_refuses() -> None:
    with pytest.raises(ValueError, match="outside"):
        ov.cum_sum(X, 1)
    with pytest.raises(TypeError, match="axis must be one integer"):
        ov.cum_sum(X, 0.0)
    with pytest.raises(TypeError, match="axis must be one integer"):
        ov.cum_sum(X, [0, 1])
    with pytest.raises(TypeError, match="exclusive must be a bool"):
        ov.cum_sum(X, 0, 1)
    with pytest.raises(TypeError, match="bool"):
        ov.cum_sum(X.astype(np.bool_))
    with pytest.raises(TypeError, match="host array"):
        ov.cum_sum(X, device=gpuops.Device("emulator"))
