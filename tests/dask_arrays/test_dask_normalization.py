"""Softmax, log-softmax and MVN over Dask arrays (``gpuops.dask.normalization``, issue 19): uneven chunks along
the reduced axes and the others, against float64 references from the formulas (``reference_composite``) within
the composite rows' stated bounds (``test_composite_generated.check``)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.array")

import dask
import dask.array as da
from reference_composite import REFERENCES
from test_composite_generated import check, mvn_amplification

import gpuops.dask as gd
from descriptors import DataType

RNG = np.random.default_rng(19)
X = (RNG.standard_normal((7, 9, 5)) * 3).astype(np.float32)
CHUNKS = (3, 4, 2)  # uneven along every axis


def _compute(arr: da.Array) -> np.ndarray:
    with dask.config.set(scheduler="threads"):
        return np.asarray(arr.compute())


@pytest.mark.parametrize("axes", [(2,), (0, 2), (1,), (0, 1, 2)])
@pytest.mark.parametrize(
    ("dt", "name"),
    [
        (DataType.FLOAT32, "SOFTMAX1"),
        (DataType.FLOAT32, "LOG_SOFTMAX1"),
        (DataType.FLOAT16, "SOFTMAX1"),
        (DataType.FLOAT64, "LOG_SOFTMAX1"),
    ],
)
def test_softmax_over_chunks(axes: tuple, dt: DataType, name: str) -> None:
    x = X.astype(dt.numpy_dtype)
    fn = gd.softmax if name == "SOFTMAX1" else gd.log_softmax
    got = _compute(fn(da.from_array(x, chunks=CHUNKS), axes))
    assert got.dtype == x.dtype
    n = int(np.prod([x.shape[a] for a in axes]))
    ref = REFERENCES[f"ACTIVATION_{name}"](x.astype(np.float64), {"axes": axes})
    check(f"ACTIVATION_{name}", dt, got.astype(np.float64), ref, n)


def test_softmax_is_stable_across_chunks() -> None:
    """The maximum is the whole slice's (a tree reduction over chunks): 1000-valued inputs do not overflow."""
    x = np.float32([[1000.0, 1000.0, 999.0, 1000.0]])
    got = _compute(gd.softmax(da.from_array(x, chunks=(1, 1)), 1))
    e = np.exp(np.float64([0.0, 0.0, -1.0, 0.0]))
    np.testing.assert_allclose(got[0], e / e.sum(), rtol=1e-6)


@pytest.mark.parametrize("normalize_variance", [True, False])
def test_mvn_over_chunks_with_broadcast_scale_and_bias(normalize_variance: bool) -> None:
    scale = (RNG.standard_normal((1, 9, 1)) * 1.5).astype(np.float32)
    bias = RNG.standard_normal((7, 1, 1)).astype(np.float32)
    got = _compute(
        gd.mean_variance_normalization(
            da.from_array(X, chunks=CHUNKS), (0, 2), scale=da.from_array(scale, chunks=(1, 5, 1)),
            bias=bias, normalize_variance=normalize_variance, epsilon=1e-5,
        )
    )  # fmt: skip
    params = {"axes": (0, 2), "scale": scale.astype(np.float64), "bias": bias.astype(np.float64),
              "normalize_variance": normalize_variance, "epsilon": 1e-5}  # fmt: skip
    ref = REFERENCES["MEAN_VARIANCE_NORMALIZATION1"](X.astype(np.float64), params)
    amp = mvn_amplification(X.astype(np.float64), (0, 2), normalize_variance, 1e-5)
    check(
        "MEAN_VARIANCE_NORMALIZATION1", DataType.FLOAT32, got.astype(np.float64), ref, 35, scale.astype(np.float64), amp
    )


def test_arguments_say_what_is_wrong() -> None:
    x = da.from_array(X, chunks=CHUNKS)
    with pytest.raises(ValueError, match="not an axis"):
        gd.softmax(x, 3)
    with pytest.raises(ValueError, match="twice"):
        gd.log_softmax(x, (1, -2))
    with pytest.raises(ValueError, match="empty"):
        gd.mean_variance_normalization(x, ())
    with pytest.raises(TypeError, match="float"):
        gd.softmax(da.from_array(X.astype(np.int32), chunks=CHUNKS))
