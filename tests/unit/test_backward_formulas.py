"""The backward references are the derivatives of the forward formulas (no gpuops code here).

tests/reference_backward.py transcribes the seed's backward columns; a transcription slip
there would make the generated tests check the wrong thing. This compares each with a
central difference of the seed's FORWARD column (transcribed again here), in float64, away
from the kinks, for src-based formulas and, through d = f(s), for the dst-based ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from reference_backward import FORMULAS
from scipy.special import erf

# Forward column of the seed, f(s, alpha, beta).
FORWARD: dict[str, Callable[[np.ndarray, float, float], np.ndarray]] = {
    "abs": lambda s, a, b: np.abs(s),
    "bounded_relu": lambda s, a, b: np.where(s > a, a, np.where(s > 0, s, 0.0)),
    "clip": lambda s, a, b: np.where(s > b, b, np.where(s > a, s, a)),
    "clip_v2": lambda s, a, b: np.where(s >= b, b, np.where(s > a, s, a)),
    "elu": lambda s, a, b: np.where(s > 0, s, a * (np.exp(s) - 1)),
    "exp": lambda s, a, b: np.exp(s),
    "gelu_erf": lambda s, a, b: 0.5 * s * (1 + erf(s / math.sqrt(2))),
    "gelu_tanh": lambda s, a, b: 0.5 * s * (1 + np.tanh(math.sqrt(2 / math.pi) * (s + 0.044715 * s**3))),
    "hardswish": lambda s, a, b: np.where(s > 3, s, np.where(s > -3, s * (s + 3) / 6, 0.0)),
    "linear": lambda s, a, b: a * s + b,
    "log": lambda s, a, b: np.log(s),
    "logistic": lambda s, a, b: 1 / (1 + np.exp(-s)),
    "logsigmoid": lambda s, a, b: -np.log1p(np.exp(-s)),
    "mish": lambda s, a, b: s * np.tanh(np.log1p(np.exp(s))),
    "pow": lambda s, a, b: a * s**b,
    "relu": lambda s, a, b: np.where(s > 0, s, a * s),
    "soft_relu": lambda s, a, b: np.log1p(np.exp(s)),
    "sqrt": lambda s, a, b: np.sqrt(s),
    "square": lambda s, a, b: s**2,
    "swish": lambda s, a, b: s / (1 + np.exp(-a * s)),
    "tanh": lambda s, a, b: np.tanh(s),
}
PARAMS = {"bounded_relu": (2.0, 0.0), "clip": (-1.0, 2.0), "clip_v2": (-1.0, 2.0), "elu": (0.5, 0.0),
          "linear": (2.5, 1.0), "pow": (1.5, 2.5), "relu": (0.1, 0.0), "swish": (1.5, 0.0)}  # fmt: skip
POSITIVE = {"log", "sqrt", "pow"}
KINKS = {"abs": [0.0], "bounded_relu": [0.0, 2.0], "clip": [-1.0, 2.0], "clip_v2": [-1.0, 2.0],
         "elu": [0.0], "hardswish": [-3.0, 3.0], "relu": [0.0]}  # fmt: skip


def _points(alg: str) -> np.ndarray:
    s = np.linspace(0.05, 4.0, 81) if alg in POSITIVE else np.linspace(-4.0, 4.0, 161) + 0.0123
    for k in KINKS.get(alg, []):
        s = s[np.abs(s - k) > 1e-3]
    return s


@pytest.mark.parametrize("alg", sorted(FORWARD))
def test_src_formula_is_the_derivative(alg: str) -> None:
    a, b = PARAMS.get(alg, (0.0, 0.0))
    s = _points(alg)
    h = 1e-6
    numeric = (FORWARD[alg](s + h, a, b) - FORWARD[alg](s - h, a, b)) / (2 * h)
    analytic = FORMULAS[alg](s, np.ones_like(s), a, b)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-7, err_msg=alg)


@pytest.mark.parametrize(
    "alg", sorted(a.removesuffix("_use_dst_for_bwd") for a in FORMULAS if a.endswith("_use_dst_for_bwd"))
)
def test_dst_formula_is_the_derivative(alg: str) -> None:
    a, b = PARAMS.get(alg, (0.0, 0.0))
    s = _points(alg)
    d = FORWARD[alg](s, a, b)
    analytic = FORMULAS[f"{alg}_use_dst_for_bwd"](d, np.ones_like(s), a, b)
    src = FORMULAS[alg](s, np.ones_like(s), a, b)
    np.testing.assert_allclose(analytic, src, rtol=1e-9, atol=1e-12, err_msg=alg)


def test_every_backward_formula_is_checked() -> None:
    checked = set(FORWARD) | {f"{a}_use_dst_for_bwd" for a in FORWARD}
    assert set(FORMULAS) <= checked, sorted(set(FORMULAS) - checked)
    assert "round" not in FORMULAS  # the seed: round has no backward
