"""The stated accuracy's domain (descriptors/accuracy.py; each row's ``accuracy.domain``) is the one the tests apply.

The references (tests/reference_activation.py, reference_backward.py) mark elements outside the
documented domain ``Expected.unchecked``; helpers.assert_expected, the generated tests and the
contract fuzz test skip them. This keeps the two in step: a row the table names has elements
outside on special values, and only those rows do (besides the backward rows' other rule, an
infinite dd where |f'(s)| is within the absolute term).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from opinfo import record, records
from test_nary_generated import param_values

from descriptors import row_of
from descriptors.optable import ELEMENTWISE_ROWS

F32_MAX = float(np.finfo(np.float32).max)
SPECIAL = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.0, -1.0, 0.5, 1e-45, -1e-40, 1e-30, 1e4, -1e4, 88.75, -104.0]
SPECIAL += [1e30, -1e38, F32_MAX, -F32_MAX, 3.0, -3.0, 2.125]
# The families whose references apply a domain: activations and oneDNN's backward rows.
NARY = [r for r in ELEMENTWISE_ROWS if r.name.startswith(("ACTIVATION_", "ELTWISE_")) and r.name in records()]
# Each row's stated domain (descriptors/accuracy.py), where it has one.
DOMAIN = {r.name: r.accuracy.domain for r in ELEMENTWISE_ROWS if r.accuracy is not None and r.accuracy.domain}
# Parameters that reach outside the domain: a large scale on what it multiplies.
BIG = {"alpha": F32_MAX, "gamma": F32_MAX, "beta": 1.0, "steepness": 0.5}


def _inputs(row: object) -> list[np.ndarray]:
    n_in = len(row.input_fields)  # type: ignore[attr-defined]
    if n_in == 1:
        return [np.array(SPECIAL, np.float32)]
    pairs = np.array(list(itertools.product(SPECIAL, SPECIAL)), np.float64)
    return [pairs[:, 0].astype(np.float32), pairs[:, 1].astype(np.float32)]


def _unchecked(name: str, params: dict) -> np.ndarray:
    row = row_of(name)
    expected = record(name).evaluate(_inputs(row), np.dtype(np.float32), param_values(row, params))
    return np.zeros(1, bool) if expected.unchecked is None else np.asarray(expected.unchecked)


def _float_params(name: str) -> list[dict]:
    return [p for p in record(name).param_sets if all(isinstance(v, float | int) for v in p.values())]


@pytest.mark.parametrize("name", sorted(DOMAIN))
def test_documented_domain_has_elements_outside(name: str) -> None:
    row = row_of(name)
    sets = _float_params(name) or [{}]
    big = {f.name: BIG[f.name] for f in row.param_fields if f.name in BIG}
    assert any(_unchecked(name, {**p, **big}).any() or _unchecked(name, p).any() for p in sets), name


# PARAMETERIZED_RELU's slope is a tensor: it has no parameter that could leave a domain.
@pytest.mark.parametrize(
    "name", sorted(r.name for r in NARY if r.name not in DOMAIN and r.name != "ACTIVATION_PARAMETERIZED_RELU")
)
def test_rows_without_a_domain_check_every_element(name: str) -> None:
    row = row_of(name)
    for params in _float_params(name):
        unchecked = _unchecked(name, params)
        acc = row.accuracy
        if acc is not None and acc.per_dd and acc.atol > 0:
            # Only the infinite-dd rule (module docstring): dd = +-inf.
            dd = _inputs(row)[1]
            assert not (unchecked & np.isfinite(dd)).any(), (name, params)
        else:
            assert not unchecked.any(), (name, params)


def test_readme_lists_the_domain() -> None:
    import tools.gen_readme_ops as gen

    for name, text in DOMAIN.items():
        assert f"domain: {text}" in gen._accuracy(row_of(name)), name
