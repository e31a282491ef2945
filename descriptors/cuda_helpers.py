"""CUDA device helpers that op-table expressions call, as source text (no CUDA needed).

Each helper is named ``gpuops_*`` and written to give, bit for bit, what the NumPy
backend computes (NumPy's own ``npy_divmod`` for float floor division and modulus, C
truncation with the zero-divisor and ``INT_MIN / -1`` rules of API.md for integers).
"""

from __future__ import annotations

__all__ = ["HELPERS", "helper_source"]

# name -> (source, dependencies)
HELPERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "float_overloads": (
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
    "bitcast": (
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
    "nan_max_min": (
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
    "int_div": (
        """
// Integer division truncating toward zero; x / 0 == 0; INT_MIN / -1 wraps to INT_MIN.
template <typename T, typename U>
__device__ __forceinline__ T gpuops_div_trunc(T x, T y) {
  if (y == T(0)) return T(0);
  if (T(-1) < T(0) && y == T(-1)) return T(U(0) - U(x));
  return T(x / y);
}
// C remainder (sign of the dividend); x % 0 == 0; INT_MIN % -1 == 0.
template <typename T>
__device__ __forceinline__ T gpuops_mod_trunc(T x, T y) {
  if (y == T(0)) return T(0);
  if (T(-1) < T(0) && y == T(-1)) return T(0);
  return T(x % y);
}
// Python remainder (sign of the divisor); x % 0 == 0.
template <typename T>
__device__ __forceinline__ T gpuops_mod_floor(T x, T y) {
  T r = gpuops_mod_trunc<T>(x, y);
  if (r != T(0) && ((r < T(0)) != (y < T(0)))) r = T(r + y);
  return r;
}
// Floor division; x // 0 == 0; INT_MIN // -1 wraps to INT_MIN.
template <typename T, typename U>
__device__ __forceinline__ T gpuops_div_floor(T x, T y) {
  T q = gpuops_div_trunc<T, U>(x, y);
  if (gpuops_mod_trunc<T>(x, y) != T(0) && ((x < T(0)) != (y < T(0)))) q = T(U(q) - U(1));
  return q;
}
""",
        (),
    ),
    "float_divmod": (
        """
// NumPy's npy_divmod: Python's floor division and remainder for floats.
template <typename F>
__device__ __forceinline__ F gpuops_fmod_floor(F a, F b) {
  F mod = gpuops_fmod(a, b);
  if (b == F(0)) return mod;
  if (mod != F(0)) {
    if ((b < F(0)) != (mod < F(0))) mod += b;
  } else {
    mod = gpuops_copysign(F(0), b);
  }
  return mod;
}
template <typename F>
__device__ __forceinline__ F gpuops_fdiv_floor(F a, F b) {
  if (b == F(0)) return a / b;
  F mod = gpuops_fmod(a, b);
  F div = (a - mod) / b;
  if (mod != F(0) && ((b < F(0)) != (mod < F(0)))) div -= F(1);
  F floordiv;
  if (div != F(0)) {
    floordiv = gpuops_floor(div);
    if (div - floordiv > F(0.5)) floordiv += F(1);
  } else {
    floordiv = gpuops_copysign(F(0), a / b);
  }
  return floordiv;
}
""",
        ("float_overloads",),
    ),
    "int_pow": (
        """
// Exact integer power, wrapping like C unsigned arithmetic. A negative exponent gives the
// truncated result: 1 for x == 1, +-1 for x == -1, otherwise 0 (0 ** -n too, like x / 0).
template <typename T, typename U, typename E>
__device__ __forceinline__ T gpuops_ipow(T x, E e) {
  if (E(-1) < E(0) && e < E(0)) {
    if (x == T(1)) return T(1);
    if (T(-1) < T(0) && x == T(U(0) - U(1))) return (e & E(1)) ? x : T(1);
    return T(0);
  }
  U r = U(1), b = U(x);
  unsigned long long n = (unsigned long long)e;
  while (n) {
    if (n & 1ULL) r = U(r * b);
    b = U(b * b);
    n >>= 1;
  }
  return T(r);
}
""",
        (),
    ),
    "shift": (
        """
// Logical shifts; a shift by the width or more gives 0 (as NumPy's npy_lshift/npy_rshift).
template <typename T>
__device__ __forceinline__ T gpuops_shl(T x, T y) {
  return y >= T(8 * sizeof(T)) ? T(0) : T(x << y);
}
template <typename T>
__device__ __forceinline__ T gpuops_shr(T x, T y) {
  return y >= T(8 * sizeof(T)) ? T(0) : T(x >> y);
}
""",
        (),
    ),
    "reduce_limits": (
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
    "reduce_int": (
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
    "reduce_lse": (
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
    "reduce_arg": (
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


def helper_source(names: tuple[str, ...]) -> str:
    """Source of the named helpers and what they need, each once, dependencies first."""
    seen: list[str] = []

    def visit(name: str) -> None:
        if name in seen:
            return
        for dep in HELPERS[name][1]:
            visit(dep)
        seen.append(name)

    for n in names:
        visit(n)
    return "".join(HELPERS[n][0] for n in seen)
