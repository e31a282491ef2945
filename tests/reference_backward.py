"""References for oneDNN's eltwise backward rows (see opinfo.py for the contract).

Each is the seed's "Backward formula" column (docs/seeds/003_0fd48c5d47d20a7e.txt), taken
literally and evaluated in float64 with s (or d) = inputs[0] and dd = inputs[1]; the mish
reference uses the seed's own e^s * omega / delta^2 form. test_backward_formulas.py checks
these formulas against central differences of the seed's forward column.

The stated accuracy (descriptors/accuracy.py) is carried by each ``Expected``: its absolute
term is per unit of |dd| (``Expected.atol = atol * |dd|``), and elements outside its domain
(f'(s) or an intermediate named in its row's ``accuracy.domain`` beyond the compute type's normal range;
an infinite dd where |f'(s)| <= atol) are ``Expected.unchecked``. ``INTERMEDIATES`` holds those
values, from the same float64 formulas.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from accuracy_bounds import PINNED, pinned
from opinfo import from_tables
from reference_common import Expected, compute_type, f64, outside_normal
from scipy.special import erf

from descriptors import DataType
from descriptors.optable import ELEMENTWISE_ROWS

REFERENCES: dict[str, Callable[..., Any]] = {}
DATA: dict[str, tuple[Callable[..., Any], ...]] = {}
PARAMS: dict[str, list[dict[str, Any]]] = {}
TOLERANCE: dict[str, tuple[float, float]] = {}
EDGES: dict[str, list[tuple[Any, ...]]] = {}


def _sig(s: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-s))


def _swish_factor(z: np.ndarray) -> np.ndarray:
    """The seed's swish backward over dd, sigma(z) (1 + z (1 - sigma(z))), z = alpha s."""
    return 1 / (1 + np.exp(-z)) * (1 + z * (1 - 1 / (1 + np.exp(-z))))


def _gelu_tanh_grad(s: np.ndarray, dd: np.ndarray) -> np.ndarray:
    """The seed's formula (1), literally."""
    k = math.sqrt(2 / math.pi)
    t = np.tanh(k * (s + 0.044715 * s**3))
    return dd * 0.5 * (1 + t) * (1 + k * (s + 0.134145 * s**3) * (1 - t))


# Backward formulas, literally from the seed: f(s_or_d, dd, alpha, beta) in float64.
FORMULAS: dict[str, Callable[[np.ndarray, np.ndarray, float, float], np.ndarray]] = {
    "abs": lambda s, dd, a, b: np.where(s > 0, dd, np.where(s < 0, -dd, 0.0)),
    "bounded_relu": lambda s, dd, a, b: np.where((s > 0) & (s <= a), dd, 0.0),
    "clip": lambda s, dd, a, b: np.where((s > a) & (s <= b), dd, 0.0),
    "clip_v2": lambda s, dd, a, b: np.where((s > a) & (s < b), dd, 0.0),
    "clip_v2_use_dst_for_bwd": lambda d, dd, a, b: np.where((d > a) & (d < b), dd, 0.0),
    "elu": lambda s, dd, a, b: np.where(s > 0, dd, dd * a * np.exp(s)),
    "elu_use_dst_for_bwd": lambda d, dd, a, b: np.where(d > 0, dd, dd * (d + a)),
    "exp": lambda s, dd, a, b: dd * np.exp(s),
    "exp_use_dst_for_bwd": lambda d, dd, a, b: dd * d,
    "gelu_erf": lambda s, dd, a, b: (
        dd * (0.5 + 0.5 * erf(s / math.sqrt(2)) + s / math.sqrt(2 * math.pi) * np.exp(-0.5 * s**2))
    ),
    # Formula (1); at s = +-inf it is inf * 0, so those take its limits (1, 0): s clipped to +-1e6.
    "gelu_tanh": lambda s, dd, a, b: _gelu_tanh_grad(np.clip(s, -1e6, 1e6), dd),
    "hardswish": lambda s, dd, a, b: np.where(s > 3, dd, np.where(s > -3, dd * (2 * s + 3) / 6, 0.0)),
    "linear": lambda s, dd, a, b: a * dd,
    "log": lambda s, dd, a, b: dd / s,
    "logistic": lambda s, dd, a, b: dd / (1 + np.exp(-s)) * (1 - 1 / (1 + np.exp(-s))),
    "logistic_use_dst_for_bwd": lambda d, dd, a, b: dd * d * (1 - d),
    "logsigmoid": lambda s, dd, a, b: dd / (1 + np.exp(s)),
    # e^s * omega / delta^2; for s > 0 the same fraction with numerator and denominator
    # divided by e^{4s}, so e^{3s} cannot overflow even in float64.
    "mish": lambda s, dd, a, b: (
        dd
        * np.where(
            s > 0,
            (1 + 4 * np.exp(-s) + np.exp(-2 * s) * (4 * s + 6) + 4 * (s + 1) * np.exp(-3 * s))
            / (1 + 2 * np.exp(-s) + 2 * np.exp(-2 * s)) ** 2,
            np.exp(s)
            * (np.exp(3 * s) + 4 * np.exp(2 * s) + np.exp(s) * (4 * s + 6) + 4 * (s + 1))
            / (np.exp(2 * s) + 2 * np.exp(s) + 2) ** 2,
        )
    ),
    "pow": lambda s, dd, a, b: dd * a * b * s ** (b - 1),
    "relu": lambda s, dd, a, b: np.where(s > 0, dd, a * dd),
    "relu_use_dst_for_bwd": lambda d, dd, a, b: np.where(d > 0, dd, a * dd),
    "soft_relu": lambda s, dd, a, b: dd / (1 + np.exp(-s)),
    "sqrt": lambda s, dd, a, b: dd / (2 * np.sqrt(s)),
    "sqrt_use_dst_for_bwd": lambda d, dd, a, b: dd / (2 * d),
    "square": lambda s, dd, a, b: dd * 2 * s,
    # gpuops: at alpha * s = +-inf (an infinite s) the limits 1 and 0, not inf * 0 (README, backward).
    "swish": lambda s, dd, a, b: dd * _swish_factor(np.clip(a * s, -1e300, 1e300)),
    "tanh": lambda s, dd, a, b: dd * (1 - np.tanh(s) ** 2),
    "tanh_use_dst_for_bwd": lambda d, dd, a, b: dd * (1 - d**2),
}


def row_name(alg: str) -> str:
    return f"ELTWISE_{alg.upper()}_GRAD"


def _fprime(alg: str) -> Callable[[np.ndarray, np.ndarray, float, float], np.ndarray]:
    """f'(s) = ds / dd: the formula at dd = 1."""
    return lambda s, dd, a, b: FORMULAS[alg](s, np.ones_like(s), a, b)


def _atol(name: str) -> float:
    """The absolute term (per unit of |dd|) of a row's stated accuracy; 0 without one."""
    return PINNED[name][1] if name in PINNED else 0.0


# The values each row's accuracy domain names (s, dd, alpha, beta -> float64 arrays); where a
# formula's branch does not compute one, 1.0 (in range).
INTERMEDIATES: dict[str, list[Callable[[np.ndarray, np.ndarray, float, float], np.ndarray]]] = {
    "elu": [
        lambda s, dd, a, b: np.where(s > 0, 1.0, np.exp(s)),
        lambda s, dd, a, b: np.where(s > 0, 1.0, a * np.exp(s)),
    ],
    "exp": [lambda s, dd, a, b: np.exp(s)],
    "gelu_erf": [_fprime("gelu_erf")],
    "gelu_tanh": [_fprime("gelu_tanh")],
    "logistic": [_fprime("logistic")],
    "logsigmoid": [_fprime("logsigmoid")],
    "mish": [_fprime("mish"), lambda s, dd, a, b: _sig(s)],
    "pow": [lambda s, dd, a, b: a * dd, lambda s, dd, a, b: s ** (b - 1), lambda s, dd, a, b: b * s ** (b - 1)],
    "soft_relu": [_fprime("soft_relu")],
    "swish": [_fprime("swish"), lambda s, dd, a, b: _sig(a * s)],
    "tanh": [_fprime("tanh")],
}
_WITH_DOMAIN = {r.name for r in ELEMENTWISE_ROWS if r.accuracy is not None and r.accuracy.domain}
assert {row_name(a) for a in INTERMEDIATES} == {k for k in _WITH_DOMAIN if k.startswith("ELTWISE_")}, "see the rows"


def unchecked(alg: str, s: np.ndarray, dd: np.ndarray, a: float, b: float, compute: np.dtype) -> np.ndarray:
    """Elements outside the row's stated domain (descriptors/accuracy.py): an intermediate of
    ``INTERMEDIATES`` (float64) finite and nonzero but beyond ``compute``'s normal range, or an
    infinite dd where |f'(s)| <= atol (f'(s) may then come out 0, and dd * 0 is NaN)."""
    shape = np.broadcast_shapes(s.shape, dd.shape)
    with np.errstate(all="ignore"):
        values = [np.broadcast_to(f(s, dd, a, b), shape) for f in INTERMEDIATES.get(alg, [])]
        out = outside_normal(values, compute) if values else np.zeros(shape, bool)
        atol = _atol(row_name(alg))
        if atol:
            out |= np.isinf(dd) & ~(np.abs(_fprime(alg)(s, dd, a, b)) > atol)
    return out


def _make(alg: str) -> Callable[..., Expected]:
    formula = FORMULAS[alg]
    atol = _atol(row_name(alg))

    def ref(inputs: list[np.ndarray], out_dtype: np.dtype, params: dict, scale_bias: Any) -> Expected:
        s, dd = f64(inputs[0]), f64(inputs[1])
        a, b = float(np.float32(params["alpha"])), float(np.float32(params["beta"]))
        compute = compute_type(out_dtype)
        with np.errstate(all="ignore"):
            values = formula(s, dd, a, b)
            return Expected(
                np.asarray(values, dtype=np.float64),
                False,
                atol=np.nan_to_num(atol * np.abs(np.broadcast_to(dd, np.shape(values))), nan=0.0, posinf=np.inf),
                unchecked=unchecked(alg, s, dd, a, b, compute),
            )

    return ref


def _positive(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(0.125, 4.0, size=shape).astype(dt.numpy_dtype)


def _unit(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-0.99, 0.99, size=shape).astype(dt.numpy_dtype)


def _grad(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return rng.uniform(-2.0, 2.0, size=shape).astype(dt.numpy_dtype)


def _around(dt: DataType, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """[-4, 4] on a 1/8 grid, so thresholds (0, +-3, alpha, beta) are hit exactly."""
    return (rng.integers(-32, 33, size=shape) / 8.0).astype(dt.numpy_dtype)


for _alg in FORMULAS:
    REFERENCES[row_name(_alg)] = _make(_alg)
    first = _around
    if _alg in ("log", "sqrt", "sqrt_use_dst_for_bwd", "pow"):
        first = _positive
    elif _alg in ("tanh_use_dst_for_bwd",):
        first = _unit
    DATA[row_name(_alg)] = (first, _grad)

PARAMS.update(
    {
        row_name("bounded_relu"): [{"alpha": 2.0}, {"alpha": 0.5}],
        row_name("clip"): [{"alpha": -1.0, "beta": 2.0}, {"alpha": 0.5, "beta": 0.5}],
        row_name("clip_v2"): [{"alpha": -1.0, "beta": 2.0}],
        row_name("clip_v2_use_dst_for_bwd"): [{"alpha": -1.0, "beta": 2.0}],
        row_name("elu"): [{"alpha": 1.0}, {"alpha": 0.25}],
        row_name("elu_use_dst_for_bwd"): [{"alpha": 1.0}],
        row_name("linear"): [{"alpha": 2.5}],
        row_name("pow"): [{"alpha": 2.0, "beta": 3.0}, {"alpha": 1.5, "beta": 0.5}],
        row_name("relu"): [{}, {"alpha": 0.1}],
        row_name("relu_use_dst_for_bwd"): [{"alpha": 0.1}],
        row_name("swish"): [{"alpha": 1.0}, {"alpha": 1.5}],
    }
)
# Stated float32 accuracy (ulps, atol). Selections and products of exact values are within a
# few ulps; transcendental ones follow exp/tanh/erf (CUDA: 2 ulp each), and where a result is a
# difference near zero (gelu, mish, swish, tanh(1 - t^2)) an absolute term of a few float32
# eps times |dd| covers the cancellation.
# The stated accuracy is the op table's (descriptors/accuracy.py), pinned by hand in accuracy_bounds.PINNED:
# the tests hold each op to the pinned bound (tests/unit/test_accuracy_bounds.py: it equals the op table's).
TOLERANCE.update(pinned("ELTWISE_"))

_INF, _NAN = float("inf"), float("nan")
_F = {
    "input_tensor": DataType.FLOAT32,
    "input_gradient_tensor": DataType.FLOAT32,
    "output_gradient_tensor": DataType.FLOAT32,
}
EDGES.update(
    {
        # Large |s|: the stable forms do not overflow where e^{3s} or e^{-s} would.
        # mish'(-100) = e^-100 * 4(s + 1) / 4 = -99 e^-100: a float32 subnormal, not 0.
        row_name("mish"): [
            ([[100.0, -100.0, 0.0], [1.0, 1.0, 1.0]], {}, [1.0, -99.0 * math.exp(-100.0), 0.6], False, _F)
        ],
        row_name("logistic"): [([[100.0, -100.0, 0.0], [1.0, 1.0, 1.0]], {}, [0.0, math.exp(-100.0), 0.25], False, _F)],
        row_name("logsigmoid"): [
            ([[100.0, -100.0, 0.0], [1.0, 1.0, 1.0]], {}, [math.exp(-100.0), 1.0, 0.5], False, _F)
        ],
        row_name("soft_relu"): [([[100.0, -100.0], [2.0, 2.0]], {}, [2.0, 2.0 * math.exp(-100.0)], False, _F)],
        # abs: zero gradient at 0, sign elsewhere.
        row_name("abs"): [([[0.0, -0.0, -2.0, 3.0], [5.0, 5.0, 5.0, 5.0]], {}, [0.0, 0.0, -5.0, 5.0], False, _F)],
        # Thresholds taken exactly: hardswish at +-3, clip at the bounds (alpha excluded, beta included).
        row_name("hardswish"): [([[3.0, -3.0, 0.0], [6.0, 6.0, 6.0]], {}, [9.0, 0.0, 3.0], False, _F)],
        row_name("clip"): [
            ([[-1.0, 2.0, 2.5], [1.0, 1.0, 1.0]], {"alpha": -1.0, "beta": 2.0}, [0.0, 1.0, 0.0], False, _F)
        ],
        row_name("clip_v2"): [
            ([[-1.0, 2.0, 1.0], [1.0, 1.0, 1.0]], {"alpha": -1.0, "beta": 2.0}, [0.0, 0.0, 1.0], False, _F)
        ],
        row_name("sqrt"): [([[0.0, 4.0, _INF], [1.0, 1.0, 1.0]], {}, [_INF, 0.25, 0.0], False, _F)],
    }
)
# Every other row: one literal case at s = 1 (or d = 0.5), dd = 2.
for _alg, _f in FORMULAS.items():
    _name = row_name(_alg)
    if _name in EDGES:
        continue
    _s = 0.5
    _params = PARAMS.get(_name, [{}])[0]
    _a, _b = float(np.float32(_params.get("alpha", 0.0))), float(np.float32(_params.get("beta", 0.0)))
    _want = float(_f(np.array([_s]), np.array([2.0]), _a, _b)[0])
    EDGES[_name] = [([[_s], [2.0]], _params, [_want], False, _F)]


OPINFOS = from_tables(REFERENCES, DATA, PARAMS, TOLERANCE, EDGES)
