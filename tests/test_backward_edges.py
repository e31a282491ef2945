"""Every oneDNN backward row at the special values: NaN, +-inf, +-0.0, subnormals, +-max.

The reference is the seed's backward formula evaluated in float64 (reference_backward.FORMULAS)
and compared as the generated tests compare: NaN where NaN, infinities where the float64
value rounds to one in float32, otherwise within the row's stated accuracy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import assert_expected, buffer_for, read_tensor, to_backend, to_host
from reference_backward import FORMULAS, PARAMS, row_name

from descriptors import DataType, TensorDesc, desc_class, row_of

F32_MAX = float(np.finfo(np.float32).max)
SPECIAL = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e-40, -1e-40, F32_MAX, -F32_MAX, 3.0, -3.0, 0.5]


@pytest.mark.parametrize("alg", sorted(FORMULAS))
def test_backward_special_values(alg: str, device: Any, xp: Any) -> None:
    name = row_name(alg)
    row = row_of(name)
    params = PARAMS.get(name, [{}])[0]
    a = float(np.float32(params.get("alpha", 0.0)))
    b = float(np.float32(params.get("beta", 0.0)))
    n = len(SPECIAL)
    t = TensorDesc(DataType.FLOAT32, (n,))
    desc = desc_class(name)(t, t, t, **params)
    op = device.compile_operator(device.create_operator(desc))
    x = np.array(SPECIAL, dtype=np.float32)
    dd = np.full(n, 1.5, dtype=np.float32)
    out = to_backend(xp, buffer_for(t, np.zeros(n)))
    op.execute([to_backend(xp, buffer_for(t, x)), to_backend(xp, buffer_for(t, dd))], [out])
    got = read_tensor(to_host(out), t)
    with np.errstate(all="ignore"):
        want = FORMULAS[alg](x.astype(np.float64), dd.astype(np.float64), a, b)
    ulps, atol = row.accuracy or (4.0, 0.0)
    from reference import Expected

    assert_expected(got, Expected(np.asarray(want, dtype=np.float64), False), DataType.FLOAT32, ulps, name, atol=atol)
