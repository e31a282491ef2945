"""The NumPy backend's threaded single-ufunc path gives the one-call result, in place too.

``THREAD_MIN`` is lowered so small arrays take the path; references are float64 NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

import gpuops
from descriptors import DataType, ElementWiseAddOperatorDesc, ElementWiseMaxOperatorDesc, TensorDesc
from gpuops.backends import numpy_backend


@pytest.fixture
def threaded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numpy_backend, "THREAD_MIN", 16)
    monkeypatch.setenv("GPUOPS_NUM_THREADS", "3")


def _op(desc: object) -> gpuops.CompiledOperator:
    dev = gpuops.Device("numpy")
    return dev.compile_operator(dev.create_operator(desc))


def test_threaded_add_matches_one_call(threaded: None) -> None:
    calls = []
    real = numpy_backend._threaded_ufunc

    def spy(*args: object, **kw: object) -> bool:
        calls.append(real(*args, **kw))  # type: ignore[arg-type]
        return calls[-1]

    numpy_backend._threaded_ufunc = spy  # type: ignore[assignment]
    try:
        n = 1001
        t = TensorDesc(DataType.FLOAT32, (n,))
        rng = np.random.default_rng(1)
        a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        out = np.full(n, np.nan, np.float32)
        _op(ElementWiseAddOperatorDesc(t, t, t)).execute([a, b], [out])
        np.testing.assert_array_equal(out, (a.astype(np.float64) + b).astype(np.float32))
        assert calls == [True], "the threaded path did not run"
        # In place (output = input A's buffer), and a 2-D broadcast operand split along axis 0.
        want = (a.astype(np.float64) + b).astype(np.float32)
        _op(ElementWiseAddOperatorDesc(t, t, t)).execute([a, b], [a])
        np.testing.assert_array_equal(a, want)
        shape = (37, 29)
        row = TensorDesc.broadcast(DataType.FLOAT32, (29,), to=shape)
        full = TensorDesc(DataType.FLOAT32, shape)
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.standard_normal(29).astype(np.float32)
        out2 = np.empty(shape, np.float32)
        _op(ElementWiseMaxOperatorDesc(full, row, full)).execute([x.ravel(), y], [out2.ravel()])
        np.testing.assert_array_equal(out2, np.maximum(x, y))
        assert calls[-1] is True
    finally:
        numpy_backend._threaded_ufunc = real  # type: ignore[assignment]
