"""float64 references of the composite rows (softmax family, MEAN_VARIANCE_NORMALIZATION1), from their formulas.

Each ``REFERENCES[name](x, params)`` takes the logical input in float64 (``params``: the axes and, for MVN, its
scale, bias, flags and activation) and returns float64 values; the error bound each row states
(``CompositeRow.error_bound``) is ``test_composite_generated.bound``. Written from DirectML's formulas
(docs/reference/directml.md sections 3 and 14): softmax exp(x_i) / sum_j exp(x_j) in its max-subtracted form
(the same function; the form decides what +inf gives: NaN over its slice, as NumPy, PyTorch and ONNX's
reference give), log-softmax its logarithm, hardmax a one-hot of the first maximum, MVN
scale * (x - mean) / sqrt(variance + epsilon) + bias with the population variance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["REFERENCES", "activation"]


def _softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x - x.max(axis=axes, keepdims=True))
        return e / e.sum(axis=axes, keepdims=True)


def _log_softmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        d = x - x.max(axis=axes, keepdims=True)
        return d - np.log(np.exp(d).sum(axis=axes, keepdims=True))


def _hardmax(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """1 at the first maximum of each slice over ``axes`` (row-major over them), 0 elsewhere; a NaN is the
    maximum (the first NaN), as DirectML's ARGMAX picks it (README, REDUCE ARGMAX)."""
    axes = tuple(sorted(axes))
    rest = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, rest + list(axes))
    flat = moved.reshape(*(x.shape[d] for d in rest), -1)
    out = np.zeros_like(flat)
    for idx in np.ndindex(*flat.shape[:-1]):
        row = flat[idx].tolist()
        nan = [i for i, v in enumerate(row) if v != v]
        out[idx + (nan[0] if nan else row.index(max(row)),)] = 1.0
    back = np.argsort(rest + list(axes))
    return np.transpose(out.reshape(moved.shape), back)


def activation(name: str | None, params: dict[str, Any]) -> Callable[[np.ndarray], np.ndarray]:
    """The fused activations the MVN tests use, from their formulas (directml.md section 3)."""
    if name is None:
        return lambda v: v
    if name == "ACTIVATION_RELU":
        return lambda v: np.maximum(v, 0.0)
    if name == "ACTIVATION_ELU":
        a = params.get("alpha", 1.0)
        return lambda v: np.where(v >= 0, v, a * np.expm1(np.minimum(v, 0.0)))
    if name == "ACTIVATION_LINEAR":
        return lambda v: params["alpha"] * v + params["beta"]
    raise KeyError(name)


def _mvn(
    x: np.ndarray,
    axes: tuple[int, ...],
    scale: np.ndarray | None,
    bias: np.ndarray | None,
    normalize_variance: bool,
    epsilon: float,
    act: Callable[[np.ndarray], np.ndarray],
) -> np.ndarray:
    d = x - x.mean(axis=axes, keepdims=True)
    if normalize_variance:
        with np.errstate(invalid="ignore", divide="ignore"):  # 0 / sqrt(0 + 0) is NaN, as IEEE says
            d = d / np.sqrt((d * d).mean(axis=axes, keepdims=True) + float(np.float32(epsilon)))
    if scale is not None:
        d = d * scale
    if bias is not None:
        d = d + bias
    return act(d)


def _last(x: np.ndarray) -> tuple[int, ...]:
    return (x.ndim - 1,)


REFERENCES: dict[str, Callable[..., np.ndarray]] = {
    "ACTIVATION_SOFTMAX": lambda x, p: _softmax(x, _last(x)),
    "ACTIVATION_LOG_SOFTMAX": lambda x, p: _log_softmax(x, _last(x)),
    "ACTIVATION_HARDMAX": lambda x, p: _hardmax(x, _last(x)),
    "ACTIVATION_SOFTMAX1": lambda x, p: _softmax(x, tuple(p["axes"])),
    "ACTIVATION_LOG_SOFTMAX1": lambda x, p: _log_softmax(x, tuple(p["axes"])),
    "ACTIVATION_HARDMAX1": lambda x, p: _hardmax(x, tuple(p["axes"])),
    "MEAN_VARIANCE_NORMALIZATION1": lambda x, p: _mvn(
        x,
        tuple(p["axes"]),
        p.get("scale"),
        p.get("bias"),
        p.get("normalize_variance", True),
        p.get("epsilon", 1e-5),
        activation(p.get("activation"), p.get("activation_params", {})),
    ),
}
