"""CUDA device helpers that op-table expressions call, as source text (no CUDA needed).

Each helper is named ``gpuops_*`` and written to give, bit for bit, what the NumPy backend
computes. Each family module (``ops/<family>.py``) declares the helpers its rows call, beside the
rows, as a ``dict[str, Helper]``; the few that several families and the code generator itself
use (float overloads, bit casts, IEEE maximum/minimum) are :data:`COMMON_HELPERS` here. The op
table merges them into one :class:`HelperRegistry` (``optable.HELPERS``), which refuses a name
declared twice or a dependency declared nowhere, and resolves a row's helper names into
source, dependencies first (CuPy's ``preamble=`` strings, built the same way).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import NamedTuple

__all__ = ["COMMON_HELPERS", "Helper", "HelperRegistry"]


class Helper(NamedTuple):
    """One helper: its CUDA source and the helpers that source calls."""

    source: str
    deps: tuple[str, ...] = ()


COMMON_HELPERS: dict[str, Helper] = {
    "float_overloads": Helper(
        """
__device__ __forceinline__ float gpuops_fmod(float x, float y) { return fmodf(x, y); }
__device__ __forceinline__ double gpuops_fmod(double x, double y) { return fmod(x, y); }
__device__ __forceinline__ float gpuops_floor(float x) { return floorf(x); }
__device__ __forceinline__ double gpuops_floor(double x) { return floor(x); }
__device__ __forceinline__ float gpuops_copysign(float x, float y) { return copysignf(x, y); }
__device__ __forceinline__ double gpuops_copysign(double x, double y) { return copysign(x, y); }
__device__ __forceinline__ float gpuops_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double gpuops_pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float gpuops_atan2(float y, float x) { return atan2f(y, x); }
__device__ __forceinline__ double gpuops_atan2(double y, double x) { return atan2(y, x); }
// x * scale + bias with two roundings and no FMA contraction (NumPy rounds twice too).
__device__ __forceinline__ float gpuops_scale_bias(float x, float s, float b) {
  return __fadd_rn(__fmul_rn(x, s), b);
}
__device__ __forceinline__ double gpuops_scale_bias(double x, float s, float b) {
  return __dadd_rn(__dmul_rn(x, (double)s), (double)b);
}
""",
        (),
    ),
    "bitcast": Helper(
        """
template <typename To, typename From>
__device__ __forceinline__ To gpuops_bitcast(const From& v) {
  static_assert(sizeof(To) == sizeof(From), "gpuops_bitcast needs equal widths");
  To r;
  memcpy(&r, &v, sizeof(To));
  return r;
}
""",
        (),
    ),
    "nan_max_min": Helper(
        """
// IEEE 754-2019 maximum/minimum (5.3.1): a NaN operand is returned as it is (x's if both are,
// as NumPy's maximum/minimum), and -0.0 < +0.0 whatever the order: max(+0, -0) = +0 and
// min(+0, -0) = -0. On a tie of zeros x + y is +0 unless both are -0, and -(-x - y) is -0
// unless both are +0. One expression each, so the NumPy backend's compiled tier inlines them.
template <typename F>
__device__ __forceinline__ F gpuops_max_nan(F x, F y) {
  return (x > y || x != x) ? x : (y > x || y != y) ? y : (x == F(0) ? x + y : x);
}
template <typename F>
__device__ __forceinline__ F gpuops_min_nan(F x, F y) {
  return (x < y || x != x) ? x : (y < x || y != y) ? y : (x == F(0) ? -(-x - y) : x);
}
""",
        (),
    ),
}


class HelperRegistry(Mapping[str, Helper]):
    """The helpers of several families, merged; each name declared once, every dependency known."""

    def __init__(self, *families: Mapping[str, Helper]) -> None:
        merged: dict[str, Helper] = {}
        for family in families:
            for name, helper in family.items():
                if name in merged:
                    raise ValueError(f"CUDA helper {name!r} is declared by two families")
                merged[name] = helper
        unknown = sorted({d for h in merged.values() for d in h.deps} - merged.keys())
        if unknown:
            raise ValueError(f"CUDA helpers depend on undeclared helpers: {', '.join(unknown)}")
        self._helpers = merged

    def __getitem__(self, name: str) -> Helper:
        try:
            return self._helpers[name]
        except KeyError:
            raise KeyError(f"no CUDA helper {name!r} (declare it in the family module of the row)") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._helpers)

    def __len__(self) -> int:
        return len(self._helpers)

    def closure(self, names: Iterable[str]) -> tuple[str, ...]:
        """The named helpers and what they need, each once, dependencies first."""
        seen: list[str] = []

        def visit(name: str) -> None:
            if name in seen:
                return
            for dep in self[name].deps:
                visit(dep)
            seen.append(name)

        for n in names:
            visit(n)
        return tuple(seen)

    def source(self, names: Iterable[str]) -> str:
        """Source of the named helpers and what they need, each once, dependencies first."""
        return "".join(self[n].source for n in self.closure(names))
