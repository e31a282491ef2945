"""Softmax, log-softmax and mean-variance normalization over Dask arrays (issue 19: "softmax-style operators").

The composite rows (``descriptors/ops/composite.py``) read across a slice, so they do not map chunk by chunk.
Over Dask they are the same plan as on one device, its reductions as Dask tree reductions
(:func:`gpuops.dask.reduce`) and its element-wise passes blockwise (:func:`gpuops.dask.map_graph`), the reduced
values broadcast back by Dask's own broadcasting (their reduced axes have size 1):

- softmax: ``m = MAX(x)``; ``e = exp(x - m)``; ``e / SUM(e)``; log-softmax: ``(x - m) - log(SUM(e))``;
- MVN: ``mean = AVERAGE(x)``; ``d = x - mean``; ``d / sqrt(AVERAGE(d * d) + epsilon) * scale + bias``.

FLOAT16 and BFLOAT16 compute in float32 and are rounded once at the end, as the single-device operators do, so the
chunked result agrees with ``ACTIVATION_SOFTMAX1`` / ``MEAN_VARIANCE_NORMALIZATION1`` within their stated bounds
(the sums' order differs: partial sums per chunk).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from descriptors import DataType, OperatorDesc, TensorDesc, desc_class

from .axes import checked_axes
from .blockwise import map_graph
from .reductions import reduce

__all__ = ["log_softmax", "mean_variance_normalization", "softmax"]


def _axes(x: Any, axes: object, what: str, op: str, **fields: Any) -> tuple[int, ...]:
    """``axes`` checked as :func:`gpuops.dask.axes.checked_axes` checks them, on the descriptor of the composite
    operator ``op`` over the whole array: the core's own ``DescriptorError`` when the Dask array is made (an axis
    that is not an integer, an empty or repeated list, an empty array)."""
    dt = DataType.parse(x.dtype, what)
    if not dt.is_float:
        raise TypeError(f"{what}: takes float arrays (got {x.dtype})")
    cls = desc_class(op)

    def whole(given: tuple[Any, ...], shape: tuple[int, ...]) -> OperatorDesc:
        t = TensorDesc(dt, shape)
        return cls(input_tensor=t, output_tensor=t, axes=given, **fields)

    return checked_axes(x, axes, what, whole)


def _compute(x: Any, what: str) -> tuple[Any, DataType]:
    """``x`` in its compute type (float32 for the 16-bit floats), and its own data type."""
    dt = DataType.parse(x.dtype, what)
    if not dt.is_float:
        raise TypeError(f"{what}: takes float arrays (got {x.dtype})")
    if dt in (DataType.FLOAT16, DataType.BFLOAT16):
        return map_graph(lambda b, v: b.cast(v, output_type=DataType.FLOAT32), x), dt
    return x, dt


def _back(y: Any, dt: DataType) -> Any:
    if DataType.parse(y.dtype) is dt:
        return y
    return map_graph(lambda b, v: b.cast(v, output_type=dt), y)


def _softmax(x: Any, axes: int | Iterable[int] | None, log: bool, what: str) -> Any:
    import dask.array as da

    x = da.asarray(x)
    op = "ACTIVATION_LOG_SOFTMAX1" if log else "ACTIVATION_SOFTMAX1"
    reduced = _axes(x, axes, what, op)
    xc, dt = _compute(x, what)
    m = reduce(xc, "MAX", reduced)
    e = map_graph(lambda b, v, mx: b.exp(v - mx), xc, m)
    s = reduce(e, "SUM", reduced)
    if log:
        log_s = map_graph(lambda b, total: b.log(total), s)  # on the reduced values: a graph input broadcasts
        y = map_graph(lambda b, v, mx, ls: (v - mx) - ls, xc, m, log_s)
    else:
        y = map_graph(lambda b, ex, total: ex / total, e, s)
    return _back(y, dt)


def softmax(x: Any, axes: int | Iterable[int] | None = -1) -> Any:
    """``exp(x - max) / sum exp(x - max)`` over ``axes`` jointly (DirectML's ACTIVATION_SOFTMAX1), a Dask array."""
    return _softmax(x, axes, False, "gpuops.dask.softmax")


def log_softmax(x: Any, axes: int | Iterable[int] | None = -1) -> Any:
    """``(x - max) - log(sum exp(x - max))`` over ``axes`` (ACTIVATION_LOG_SOFTMAX1), a Dask array."""
    return _softmax(x, axes, True, "gpuops.dask.log_softmax")


def mean_variance_normalization(
    x: Any,
    axes: int | Iterable[int] | None,
    *,
    scale: Any = None,
    bias: Any = None,
    normalize_variance: bool = True,
    epsilon: float = 1e-5,
) -> Any:
    """MEAN_VARIANCE_NORMALIZATION1 over ``axes``: ``(x - mean) / sqrt(variance + epsilon) * scale + bias``
    (population variance, two passes; ``epsilon`` a FLOAT), ``scale`` and ``bias`` broadcast by Dask."""
    import dask.array as da

    what = "gpuops.dask.mean_variance_normalization"
    x = da.asarray(x)
    eps = float(np.float32(epsilon))
    reduced = _axes(
        x,
        axes,
        what,
        "MEAN_VARIANCE_NORMALIZATION1",
        scale_tensor=None,
        bias_tensor=None,
        normalize_variance=bool(normalize_variance),
        epsilon=eps,
    )
    xc, dt = _compute(x, what)
    mean = reduce(xc, "AVERAGE", reduced)
    d = map_graph(lambda b, v, mu: v - mu, xc, mean)
    if normalize_variance:
        var = reduce(map_graph(lambda b, v: v * v, d), "AVERAGE", reduced)
        sd = map_graph(lambda b, s2: b.sqrt(s2 + eps), var)
        d = map_graph(lambda b, v, sdev: v / sdev, d, sd)
    for other, combine in ((scale, "mul"), (bias, "add")):
        if other is not None:
            oc, _ = _compute(da.asarray(other), what)
            d = map_graph((lambda b, v, o: v * o) if combine == "mul" else (lambda b, v, o: v + o), d, oc)
    return _back(d, dt)
