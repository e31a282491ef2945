"""Op-table rows of the reductions: DML_REDUCE (twelve functions), DML_ARGMAX, DML_ARGMIN.

Reference section 4. ``{Function, InputTensor, OutputTensor, AxisCount, Axes}``: the output
keeps the input's rank with the reduced axes of size 1; axes are unique and in range. ARG
outputs index the reduced axes jointly, row-major (3x3 [[1,2,3],[3,0,4],[2,5,2]] over axes
{0,1} gives 7), ties to the first index (INCREASING) or the last (DECREASING).

Each function is a :class:`schema.Reduction`: CuPy ``ReductionKernel`` parts (accumulator,
map, reduce, identity, post-map) plus its NumPy form. The compute type ``T`` of float16 and
bfloat16 is float32, so they accumulate in float32. Semantics where DirectML is silent (the
same on both backends):

- Integer SUM, MULTIPLY, L1, SUM_SQUARE and AVERAGE's sum wrap modulo 2**64 in the
  accumulator and then modulo 2**bits in the output: the result is the exact one, wrapped
  to the output type. Integer AVERAGE truncates toward zero, as DirectML's integer DIVIDE.
- MAX and MIN propagate NaN and order -0 < +0, as the element-wise MAX/MIN (IEEE 754-2019
  maximum/minimum): a zero MAX is +0 if any input is +0, a zero MIN is -0 if any input is -0,
  in any reduction order. ARGMAX and ARGMIN treat NaN as winning (NumPy: the
  first NaN's index). LOG_SUM of a negative sum is NaN; of 0 it is -inf.
- LOG_SUM_EXP is ``m + log(sum(exp(x - m)))`` with ``m`` the maximum, so it is finite for
  large inputs; all -inf gives -inf, any +inf gives +inf, any NaN gives NaN.
- L2 squares in the accumulator: float32 inputs beyond about 1.8e19 overflow to inf.
- Extensions (TensorRT's Reduce types and more): BFLOAT16 and FLOAT64 for every function;
  8/16-bit integers for SUM, MULTIPLY, L1 and SUM_SQUARE; every integer type for AVERAGE.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..cuda_helpers import Helper
from ..enums import AxisDirection, ReduceFunction
from ..enums import FeatureLevel as FL
from ..schema import Domain, Family, Field, FieldKind, Reduction, ReductionRow, Tier, types
from . import reduce_numpy as npr

__all__ = ["REDUCE_HELPERS", "REDUCE_ROWS"]

_IN, _OUT = "input_tensor", "output_tensor"
_SAME = ((_IN, _OUT),)
_REDUCE_DOC = "sdk-api ns-directml-dml_reduce_operator_desc.md (reference section 4)"
_ARG_DOC = "sdk-api ns-directml-dml_argmax_operator_desc.md (reference section 4: as REDUCE's ARGMAX/ARGMIN)"
_ARG_OUT = "I64 I32 U64 U32"
_SUM_BOUND = "sum"  # Reduction.error kind of an accumulated sum


def _tiers(*rows: tuple[FL, tuple[int, int], str, str], same: bool = True, doc: str = _REDUCE_DOC) -> tuple[Tier, ...]:
    """``(level, dims, input types, output types or "" for the same)`` per doc table."""
    return tuple(
        Tier(level, dims, {_IN: types(ins), _OUT: types(outs or ins)}, _SAME if same else (), doc)
        for level, dims, ins, outs in rows
    )


def _ext(ins: str, outs: str = "") -> Mapping[str, frozenset]:
    return {_IN: types(ins), _OUT: types(outs or ins)}


_D4, _D8 = (4, 4), (1, 8)
_ARG_TIERS_3_0 = (FL.FL_3_0, _D8, "F32 F16 I32 I16 I8 U32 U16 U8", _ARG_OUT)
_ARG_TIERS_4_1 = (FL.FL_4_1, _D8, "F32 F16 all-int", _ARG_OUT)

VARIANT_TIERS: dict[str, tuple[Tier, ...]] = {}
for _f in ("ARGMAX", "ARGMIN"):
    VARIANT_TIERS[_f] = _tiers(
        (FL.FL_1_0, _D4, "F32 F16", "U32"),
        (FL.FL_2_1, _D4, "F32 F16 I32 I16 I8 U32 U16 U8", "U32"),
        _ARG_TIERS_3_0,
        _ARG_TIERS_4_1,
        same=False,
    )
for _f in ("AVERAGE", "L2", "LOG_SUM", "LOG_SUM_EXP"):
    VARIANT_TIERS[_f] = _tiers((FL.FL_1_0, _D4, "F32 F16", ""), (FL.FL_3_0, _D8, "F32 F16", ""))
for _f in ("L1", "SUM_SQUARE"):
    VARIANT_TIERS[_f] = _tiers(
        (FL.FL_1_0, _D4, "F32 F16", ""),
        (FL.FL_3_0, _D8, "F32 F16", ""),
        (FL.FL_5_0, _D8, "F32 F16 I64 I32 U64 U32", ""),
    )
for _f in ("MAX", "MIN"):
    VARIANT_TIERS[_f] = _tiers(
        (FL.FL_1_0, _D4, "F32 F16", ""),
        (FL.FL_2_1, _D4, "F32 F16 I32 U32", ""),
        (FL.FL_3_0, _D8, "F32 F16 I32 I16 I8 U32 U16 U8", ""),
        (FL.FL_5_0, _D8, "F32 F16 all-int", ""),
    )
for _f in ("MULTIPLY", "SUM"):
    VARIANT_TIERS[_f] = _tiers(
        (FL.FL_1_0, _D4, "F32 F16", ""),
        (FL.FL_2_1, _D4, "F32 F16 I32 U32", ""),
        (FL.FL_3_0, _D8, "F32 F16 I32 U32", ""),
        (FL.FL_5_0, _D8, "F32 F16 I64 I32 U64 U32", ""),
    )
VARIANT_TIERS = {f.name: VARIANT_TIERS[f.name] for f in ReduceFunction}  # directml.h order

_FLOAT_EXT = "BF16 F64"
VARIANT_EXTENSIONS: dict[str, Mapping[str, frozenset]] = {
    "ARGMAX": _ext(_FLOAT_EXT, ""),
    "ARGMIN": _ext(_FLOAT_EXT, ""),
    "AVERAGE": _ext(f"{_FLOAT_EXT} all-int"),
    "L1": _ext(f"{_FLOAT_EXT} I16 I8 U16 U8"),
    "L2": _ext(_FLOAT_EXT),
    "LOG_SUM": _ext(_FLOAT_EXT),
    "LOG_SUM_EXP": _ext(_FLOAT_EXT),
    "MAX": _ext(_FLOAT_EXT),
    "MIN": _ext(_FLOAT_EXT),
    "MULTIPLY": _ext(f"{_FLOAT_EXT} I16 I8 U16 U8"),
    "SUM": _ext(f"{_FLOAT_EXT} I16 I8 U16 U8"),
    "SUM_SQUARE": _ext(f"{_FLOAT_EXT} I16 I8 U16 U8"),
}
for _f in ("ARGMAX", "ARGMIN"):  # the output keeps DirectML's index types; no extension there
    VARIANT_EXTENSIONS[_f] = {_IN: types(_FLOAT_EXT), _OUT: frozenset()}

# CUDA helpers of this family: the identities of MAX/MIN, 64-bit wrapping integer accumulation,
# LOG_SUM_EXP's running (max, sum) pair, ARGMAX/ARGMIN's (value, index) pair.
REDUCE_HELPERS: dict[str, Helper] = {
    "reduce_limits": Helper(
        """
// The identities of MAX and MIN: -inf / +inf for floats, the type's range for integers.
template <typename T> __device__ __forceinline__ T gpuops_lowest() {
  return T(T(0) < T(-1) ? 0ULL : 1ULL << (8 * sizeof(T) - 1));
}
template <typename T> __device__ __forceinline__ T gpuops_highest() { return T(~gpuops_lowest<T>()); }
template <> __device__ __forceinline__ float gpuops_lowest<float>() { return __int_as_float(0xff800000); }
template <> __device__ __forceinline__ float gpuops_highest<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double gpuops_lowest<double>() {
  return __longlong_as_double(0xfff0000000000000ULL);
}
template <> __device__ __forceinline__ double gpuops_highest<double>() {
  return __longlong_as_double(0x7ff0000000000000ULL);
}
""",
        (),
    ),
    "reduce_int": Helper(
        """
// Integer reductions accumulate in 64-bit unsigned arithmetic, which wraps (signed overflow
// is undefined in C++); the result is reduced modulo 2**bits by the final store.
template <typename T> __device__ __forceinline__ unsigned long long gpuops_wide(T x) {
  return T(-1) < T(0) ? (unsigned long long)(long long)x : (unsigned long long)x;
}
template <typename T> __device__ __forceinline__ unsigned long long gpuops_wide_abs(T x) {
  return (T(-1) < T(0) && x < T(0)) ? 0ULL - gpuops_wide(x) : gpuops_wide(x);
}
// AVERAGE of integers: the (wrapped) sum divided by the count, truncated toward zero.
template <typename T> __device__ __forceinline__ long long gpuops_int_average(unsigned long long a, long long n) {
  if (T(-1) < T(0)) return (long long)a / n;
  return (long long)(a / (unsigned long long)n);
}
""",
        (),
    ),
    "reduce_lse": Helper(
        """
// LOG_SUM_EXP in one pass, stable for large inputs: the running maximum m and the sum s of
// exp(x - m); log(sum exp(x)) = m + log(s). s == 0 marks the empty reduction.
template <typename F> struct gpuops_lse {
  F m, s;
  __device__ gpuops_lse() : m(F(0)), s(F(0)) {}
  __device__ explicit gpuops_lse(F x) : m(x), s(F(1)) {}
  __device__ gpuops_lse(F m_, F s_) : m(m_), s(s_) {}
};
template <typename F>
__device__ __forceinline__ gpuops_lse<F> gpuops_lse_combine(const gpuops_lse<F>& a, const gpuops_lse<F>& b) {
  if (b.s == F(0)) return a;
  if (a.s == F(0)) return b;
  if (a.m != a.m) return a;
  if (b.m != b.m) return b;
  const gpuops_lse<F>& hi = a.m >= b.m ? a : b;
  const gpuops_lse<F>& lo = a.m >= b.m ? b : a;
  if (hi.m == lo.m) return gpuops_lse<F>(hi.m, hi.s + lo.s);
  return gpuops_lse<F>(hi.m, hi.s + lo.s * exp(lo.m - hi.m));
}
template <typename F> __device__ __forceinline__ F gpuops_lse_result(const gpuops_lse<F>& a) {
  if (a.s == F(0)) return gpuops_lowest<F>();
  if (a.m != a.m || a.m == gpuops_highest<F>() || a.m == gpuops_lowest<F>()) return a.m;
  return a.m + log(a.s);
}
""",
        ("reduce_limits",),
    ),
    "reduce_arg": Helper(
        """
// ARGMAX / ARGMIN: a value and its row-major index over the reduced axes (-1: empty). NaN
// wins over every number (NumPy's argmax and argmin both return the first NaN); ties go to
// the smaller index (AxisDirection INCREASING) or the larger (DECREASING).
template <typename T> struct gpuops_arg {
  T value;
  long long index;
  __device__ gpuops_arg() : value(T(0)), index(-1) {}
  __device__ gpuops_arg(T v, long long i) : value(v), index(i) {}
};
template <bool IsMax, bool Last, typename T>
__device__ __forceinline__ gpuops_arg<T> gpuops_arg_pick(const gpuops_arg<T>& a, const gpuops_arg<T>& b) {
  if (a.index < 0) return b;
  if (b.index < 0) return a;
  const bool an = a.value != a.value, bn = b.value != b.value;
  bool a_wins;
  if (an || bn) {
    a_wins = an && !bn;
    if (an == bn) a_wins = Last ? a.index > b.index : a.index < b.index;
  } else if (a.value == b.value) {
    a_wins = Last ? a.index > b.index : a.index < b.index;
  } else {
    a_wins = IsMax ? a.value > b.value : a.value < b.value;
  }
  return a_wins ? a : b;
}
""",
        (),
    ),
}

_WIDE = {"float": "T", "int": "unsigned long long"}  # adding/multiplying accumulators
_ZERO = {"any": "static_cast<A>(0)"}
_PLUS = {"any": "a + b"}
_SAME_POST = {"any": "a"}


def _arg(is_max: bool, last: bool, summary: str) -> Reduction:
    flags = f"{str(is_max).lower()}, {str(last).lower()}"
    return Reduction(
        summary=summary,
        accumulator={"any": "gpuops_arg<T>"},
        map={"any": "gpuops_arg<T>(x, _J)"},
        reduce={"any": f"gpuops_arg_pick<{flags}>(a, b)"},
        identity={"any": "gpuops_arg<T>()"},
        post={"any": "a.index"},
        numpy=npr.ARG[(is_max, last)],
        helpers=("reduce_arg",),
    )


def _added(
    name: str,
    summary: str,
    float_map: str,
    int_map: str,
    post: Mapping[str, str] = _SAME_POST,
    error: tuple[str, float] = (_SUM_BOUND, 1.0),
    numpy_ufunc: npr.UfuncReduce | None = None,
) -> Reduction:
    """A sum of mapped values: SUM, L1, SUM_SQUARE, AVERAGE (integers in 64-bit wrapping)."""
    return Reduction(
        summary=summary,
        accumulator=_WIDE,
        map={"float": float_map, "int": int_map},
        reduce=_PLUS,
        identity=_ZERO,
        post=post,
        numpy=npr.REDUCE[name],
        error=error,
        helpers=("reduce_int",),
        numpy_ufunc=numpy_ufunc,
    )


def _extreme(name: str, word: str, better: str, identity: str, numpy_ufunc: npr.UfuncReduce) -> Reduction:
    """MAX / MIN: exact, in the compute type; NaN propagates for floats."""
    return Reduction(
        summary=f"{word}(x1, ..., xn), NaN if any is NaN",
        accumulator={"any": "T"},
        map={"any": "x"},
        reduce={"float": f"gpuops_{word}_nan(a, b)", "int": f"(a {better} b ? a : b)"},
        identity={"any": identity},
        post=_SAME_POST,
        numpy=npr.REDUCE[name],
        helpers=("nan_max_min", "reduce_limits"),
        numpy_ufunc=numpy_ufunc,
    )


REDUCTIONS: dict[str, Reduction] = {
    "ARGMAX": _arg(True, False, "index of the maximum over the axes, first on ties"),
    "ARGMIN": _arg(False, False, "index of the minimum over the axes, first on ties"),
    "AVERAGE": _added(
        "AVERAGE",
        "(x1 + ... + xn) / n",
        "x",
        "gpuops_wide(x)",
        post={"float": "a / static_cast<A>(n)", "int": "gpuops_int_average<T>(a, n)"},
        error=("mean", 1.0),
    ),
    "L1": _added("L1", "|x1| + ... + |xn|", "fabs(x)", "gpuops_wide_abs(x)"),
    "L2": Reduction(
        summary="sqrt(x1^2 + ... + xn^2)",
        accumulator={"float": "T"},
        map={"float": "x * x"},
        reduce=_PLUS,
        identity=_ZERO,
        post={"float": "sqrt(a)"},
        numpy=npr.REDUCE["L2"],
        error=("relative", 1.0),
    ),
    "LOG_SUM": Reduction(
        summary="log(x1 + ... + xn)",
        accumulator={"float": "T"},
        map={"float": "x"},
        reduce=_PLUS,
        identity=_ZERO,
        post={"float": "log(a)"},
        numpy=npr.REDUCE["LOG_SUM"],
        error=("log", 2.0),
    ),
    "LOG_SUM_EXP": Reduction(
        summary="log(exp(x1) + ... + exp(xn)), computed as m + log(sum exp(x - m)), m = max",
        accumulator={"float": "gpuops_lse<T>"},
        map={"float": "gpuops_lse<T>(x)"},
        reduce={"float": "gpuops_lse_combine(a, b)"},
        identity={"float": "gpuops_lse<T>()"},
        post={"float": "gpuops_lse_result(a)"},
        numpy=npr.REDUCE["LOG_SUM_EXP"],
        error=("lse", 4.0),
        helpers=("reduce_lse",),
    ),
    "MAX": _extreme("MAX", "max", ">", "gpuops_lowest<T>()", npr.UfuncReduce(np.maximum, False, npr.fix_max_zeros)),
    "MIN": _extreme("MIN", "min", "<", "gpuops_highest<T>()", npr.UfuncReduce(np.minimum, False, npr.fix_min_zeros)),
    "MULTIPLY": Reduction(
        summary="x1 * ... * xn",
        accumulator=_WIDE,
        map={"float": "x", "int": "gpuops_wide(x)"},
        reduce={"any": "a * b"},
        identity={"any": "static_cast<A>(1)"},
        post=_SAME_POST,
        numpy=npr.REDUCE["MULTIPLY"],
        error=("relative", 1.0),
        helpers=("reduce_int",),
        numpy_ufunc=npr.UfuncReduce(np.multiply, True),
    ),
    "SUM": _added("SUM", "x1 + ... + xn", "x", "gpuops_wide(x)", numpy_ufunc=npr.UfuncReduce(np.add, True)),
    "SUM_SQUARE": _added("SUM_SQUARE", "x1^2 + ... + xn^2", "x * x", "gpuops_wide(x) * gpuops_wide(x)"),
}
if list(REDUCTIONS) != [f.name for f in ReduceFunction]:
    raise RuntimeError(f"REDUCTIONS {list(REDUCTIONS)} are not ReduceFunction's names in order")


def _union(variants: Mapping[str, tuple[Tier, ...]]) -> tuple[Tier, ...]:
    """The operator's tiers without a function: at each level, what any function accepts."""
    levels = sorted({t.since for ts in variants.values() for t in ts})
    out = []
    for level in levels:
        present = [max((t for t in ts if t.since <= level), key=lambda t: t.since) for ts in variants.values()]
        dims = (min(t.dims[0] for t in present), max(t.dims[1] for t in present))
        roles = {r: frozenset().union(*(t.types[r] for t in present)) for r in (_IN, _OUT)}
        out.append(Tier(level, dims, roles, (), f"{_REDUCE_DOC}; union over the functions"))
    return tuple(out)


def _axes_field() -> Field:
    return Field("axes", FieldKind.AXES)


REDUCE = ReductionRow(
    name="REDUCE",
    struct="DML_REDUCE_OPERATOR_DESC",
    fields=(
        Field("function", FieldKind.SELECTOR, enum_type=ReduceFunction),
        Field(_IN, FieldKind.INPUT_TENSOR),
        Field(_OUT, FieldKind.OUTPUT_TENSOR),
        _axes_field(),
    ),
    domain=Domain.ARITH,
    tiers=_union(VARIANT_TIERS),
    summary="reduces the input over the listed axes with one of twelve functions",
    in_place=False,
    family=Family.REDUCE,
    selector="function",
    variant_tiers=VARIANT_TIERS,
    variant_extension_types=VARIANT_EXTENSIONS,
    reductions=REDUCTIONS,
    extension_types={
        _IN: frozenset().union(*(e[_IN] for e in VARIANT_EXTENSIONS.values())),
        _OUT: frozenset().union(*(e[_OUT] for e in VARIANT_EXTENSIONS.values())),
    },
)


def _arg_row(name: str, is_max: bool) -> ReductionRow:
    word = "maximum" if is_max else "minimum"
    return ReductionRow(
        name=name,
        struct=f"DML_{name}_OPERATOR_DESC",
        fields=(
            Field(_IN, FieldKind.INPUT_TENSOR),
            Field(_OUT, FieldKind.OUTPUT_TENSOR),
            _axes_field(),
            Field("axis_direction", FieldKind.SELECTOR, default=AxisDirection.INCREASING, enum_type=AxisDirection),
        ),
        domain=Domain.ARITH,
        tiers=_tiers(_ARG_TIERS_3_0, _ARG_TIERS_4_1, same=False, doc=_ARG_DOC.replace("argmax", name.lower())),
        summary=f"index of the {word} over the axes, row-major over them; ties by axis_direction",
        in_place=False,
        family=Family.REDUCE,
        selector="axis_direction",
        reductions={
            "INCREASING": _arg(is_max, False, f"index of the {word}, first on ties"),
            "DECREASING": _arg(is_max, True, f"index of the {word}, last on ties"),
        },
        extension_types={_IN: types(_FLOAT_EXT)},
    )


REDUCE_ROWS: tuple[ReductionRow, ...] = (REDUCE, _arg_row("ARGMAX", True), _arg_row("ARGMIN", False))
