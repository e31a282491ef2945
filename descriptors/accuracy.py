"""The op table's accuracy column: what an element-wise row's ``accuracy=`` states.

``Accuracy(ulps, atol)``: a float32 (or float64) result is within ``ulps`` units in the last
place of the exact (float64) value, plus ``atol`` absolute where a formula cancels (the
gradients' ``1 - d^2`` kinds). float16 and bfloat16 results are computed in float32 and rounded
once, so they are within one ulp of their own type. A row with ``accuracy=None`` is exact
(integers, bits, selections) or a single IEEE operation, correctly rounded (0.5 ulp).

The bounds hold on both backends: each is the larger of CUDA's documented bound (CUDA C++
Programming Guide, math functions) and NumPy's documented float32 bound (``ulperrortol`` of
its validation tables), added up through each formula. The tests hold every operator to its
bound (tests/ops/test_nary_generated.py, test_umath_validation.py, test_activation_accuracy.py).
The comment beside each row's ``accuracy=``: CUDA bound / NumPy bound / measured max on the
NumPy backend; on NumPy's table.

The backward rows (``ELTWISE_*_GRAD``, oneDNN's eltwise backward) compute ds = dd * f'(s), the
factor f'(s) (ds/dd: e^s, 1 - tanh(s)^2, ...) in the compute type; their ``atol`` is per unit
of |dd| (``per_dd``): an absolute error in f'(s), where its formula cancels, is |dd| times that
in ds. The bound is ``ulps`` relative plus ``atol * |dd|``. Where dd is infinite and
|f'(s)| <= atol, f'(s) may come out 0 (or of either sign), and ds NaN (or the other infinity):
the bound promises nothing there.

Domain (``domain``). Where a formula scales an intermediate by dd or by a parameter (f'(s) above,
softplus(beta * x) in PARAMETRIC_SOFTPLUS, x^beta in POW), the kernel holds that intermediate in
the compute type. The bound holds where the values ``domain`` names are 0, exactly infinite (from
an infinite input) or within the compute type's normal range (float32 for float16, bfloat16 and
float32). Outside, the result is what the formula gives in the compute type, as oneDNN's own
float32 kernels give it: an intermediate that underflows (e^{-104} is below float32's
subnormals) makes the result too small, 0, or NaN when an infinite dd (or parameter) scales it;
one that overflows (e^{89}) makes it infinite, or NaN for a zero dd. Exact results there would
need a type wider than the compute type in every kernel. Products whose order alone overflowed
(2 * s * dd, alpha * beta * s^(beta - 1), d * d, steepness * x in SOFTPLUS) are computed in an
order, or take the limit, that does not: they are not in a ``domain``.

For the backward rows a domain names f'(s) = ds/dd, which they compute before multiplying by
dd, and the intermediates of their formulas that can leave the compute type's range while f'(s)
is inside it; for the activations, what a parameter scales. "In range": 0, an exact infinity or
within the normal range; "not below": only an underflow leaves the domain (an overflow gives
the right result there). Rows without such a value have no domain.

Reductions state their bound per function instead (``schema.Reduction.error``).
"""

from __future__ import annotations

import dataclasses

__all__ = ["Accuracy"]


@dataclasses.dataclass(frozen=True, slots=True)
class Accuracy:
    """A stated float32 error bound (module docstring): ``ulps`` relative plus ``atol`` absolute.

    ``per_dd``: ``atol`` is per unit of |dd| (the ``ELTWISE_*_GRAD`` rows). ``domain``: the
    intermediates that must stay in the compute type's range for the bound to hold ("" for none).
    """

    ulps: float
    atol: float = 0.0
    domain: str = ""
    per_dd: bool = False

    @property
    def bound(self) -> tuple[float, float]:
        """``(ulps, atol)``, the form the tests' tolerance tables use."""
        return (self.ulps, self.atol)
