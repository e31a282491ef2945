// gpuops CUDA-on-host layer: force-included (-include) before a CUDA translation unit so that it
// compiles as host C++17. Threads of a block run as cooperative fibers (see launcher.h); blocks
// run one at a time. Built-in variables are per OS thread and set by the launcher at every switch.
#pragma once
#ifndef GPUOPS_CUDA_HOST_H
#define GPUOPS_CUDA_HOST_H

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>
#include <initializer_list>

#define GPUOPS_EMULATOR 1
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12  // CuPy's float16.cuh then includes <cuda_fp16.h>: ours (include/)
#endif

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)
// Per block storage: blocks run one at a time on one OS thread, whose fibers share these.
#define __shared__ alignas(16) static thread_local
#define __constant__ static
#define __managed__

struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

namespace gpuops_emu {
inline thread_local uint3 thread_idx;
inline thread_local uint3 block_idx;
inline thread_local dim3 block_dim;
inline thread_local dim3 grid_dim;
// Set by the launcher: the barrier of the current block (switches fibers), null outside fiber mode.
inline thread_local void (*barrier_hook)() = nullptr;
[[noreturn]] inline void fatal(const char *what) {
  std::fprintf(stderr, "gpuops emulator: %s\n", what);
  std::fflush(stderr);
  std::abort();
}
}  // namespace gpuops_emu

#define threadIdx (static_cast<const uint3 &>(::gpuops_emu::thread_idx))
#define blockIdx (static_cast<const uint3 &>(::gpuops_emu::block_idx))
#define blockDim (static_cast<const dim3 &>(::gpuops_emu::block_dim))
#define gridDim (static_cast<const dim3 &>(::gpuops_emu::grid_dim))
static constexpr int warpSize = 32;

inline void __syncthreads() {
  if (::gpuops_emu::barrier_hook) {
    ::gpuops_emu::barrier_hook();
  } else if (::gpuops_emu::block_dim.x * ::gpuops_emu::block_dim.y * ::gpuops_emu::block_dim.z != 1) {
    ::gpuops_emu::fatal("__syncthreads() in a kernel launched without fibers (the build did not see a barrier)");
  }
}
inline int __syncthreads_count(int p) = delete;
inline void __threadfence() {}
inline void __threadfence_block() {}
inline void __threadfence_system() {}

// ---- vector types, with CUDA's sizes and alignments ----
#define GPUOPS_VEC1(T, N, A) struct alignas(A) N##1 { T x; };
#define GPUOPS_VEC2(T, N, A) struct alignas(A) N##2 { T x, y; };
#define GPUOPS_VEC3(T, N) struct N##3 { T x, y, z; };
#define GPUOPS_VEC4(T, N, A) struct alignas(A) N##4 { T x, y, z, w; };
#define GPUOPS_VECS(T, N, A1, A2, A4) GPUOPS_VEC1(T, N, A1) GPUOPS_VEC2(T, N, A2) GPUOPS_VEC3(T, N) GPUOPS_VEC4(T, N, A4)
GPUOPS_VECS(signed char, char, 1, 2, 4)
GPUOPS_VECS(unsigned char, uchar, 1, 2, 4)
GPUOPS_VECS(short, short, 2, 4, 8)
GPUOPS_VECS(unsigned short, ushort, 2, 4, 8)
GPUOPS_VECS(int, int, 4, 8, 16)
GPUOPS_VEC1(unsigned int, uint, 4) GPUOPS_VEC2(unsigned int, uint, 8) GPUOPS_VEC4(unsigned int, uint, 16)
GPUOPS_VECS(long long, longlong, 8, 16, 16)
GPUOPS_VECS(unsigned long long, ulonglong, 8, 16, 16)
GPUOPS_VECS(float, float, 4, 8, 16)
GPUOPS_VECS(double, double, 8, 16, 16)
GPUOPS_VECS(long, long, 8, 16, 16)
GPUOPS_VECS(unsigned long, ulong, 8, 16, 16)
static_assert(alignof(float4) == 16 && sizeof(float4) == 16, "float4");
static_assert(alignof(double2) == 16 && alignof(float2) == 8 && alignof(int2) == 8, "vector alignment");
inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline double2 make_double2(double x, double y) { return double2{x, y}; }
inline int2 make_int2(int x, int y) { return int2{x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

// ---- bit casts and integer intrinsics ----
namespace gpuops_emu {
template <class To, class From>
inline To bitcast(const From &v) {
  static_assert(sizeof(To) == sizeof(From), "size");
  To r;
  std::memcpy(&r, &v, sizeof r);
  return r;
}
}  // namespace gpuops_emu
inline int __float_as_int(float v) { return ::gpuops_emu::bitcast<int>(v); }
inline unsigned int __float_as_uint(float v) { return ::gpuops_emu::bitcast<unsigned int>(v); }
inline float __int_as_float(int v) { return ::gpuops_emu::bitcast<float>(v); }
inline float __uint_as_float(unsigned int v) { return ::gpuops_emu::bitcast<float>(v); }
inline long long __double_as_longlong(double v) { return ::gpuops_emu::bitcast<long long>(v); }
inline double __longlong_as_double(long long v) { return ::gpuops_emu::bitcast<double>(v); }
inline int __double2hiint(double v) { return static_cast<int>(__double_as_longlong(v) >> 32); }
inline int __double2loint(double v) { return static_cast<int>(__double_as_longlong(v)); }
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(static_cast<long long>((static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) |
                                                     static_cast<unsigned>(lo)));
}
inline int __popc(unsigned int v) { return __builtin_popcount(v); }
inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz(static_cast<unsigned>(v)); }
inline int __clzll(long long v) { return v == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(v)); }
inline int __ffs(int v) { return __builtin_ffs(v); }
inline int __ffsll(long long v) { return __builtin_ffsll(v); }
inline unsigned int __brev(unsigned int v) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned int __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline long long __mul64hi(long long a, long long b) { return static_cast<long long>((static_cast<__int128>(a) * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
template <class T>
inline T __ldg(const T *p) { return *p; }
template <class T>
inline T __ldcg(const T *p) { return *p; }  // cache-global load: one memory, no caches to pass

// ---- float32 flush-to-zero, as CuPy compiles every kernel (NVRTC -ftz=true) ----
// On the GPU, float32 arithmetic and math flush subnormal inputs and results to a zero of the same sign; float64
// does not flush; data movement (copies, selects, __float_as_int, bfloat16<->float conversions) keeps
// subnormals. The emulator: the launcher (gpuops_launch.h) sets the host's MXCSR FTZ|DAZ around every launch
// except one whose kernel holds float64 data and no 32/16-bit float data, so the built-in float operators
// (+ - * /, comparisons, float<->double conversions) flush as the GPU's do; and every float overload below
// flushes its input and result explicitly, since the C library and the bit-operation implementations
// (fabs, copysign, fmax: andps/orps) ignore MXCSR and glibc takes shortcuts for tiny arguments
// (tanhf(x) = x). What stays different: unary minus (-x is xorps on the host: a stored -subnormal keeps its
// bits; the GPU flushes it), NaN payloads (the GPU's arithmetic returns 0x7fffffff), and float32 arithmetic in a
// kernel that holds only float64 data (not flushed here).
namespace gpuops_emu {
inline float ftz(float v) {
  unsigned int b;
  std::memcpy(&b, &v, 4);
  if ((b & 0x7f800000u) == 0u) {
    b &= 0x80000000u;
    std::memcpy(&v, &b, 4);
  }
  return v;
}
// The GPU's fmax/fmin (float and double): -0 orders below +0, and where one operand is NaN the other comes out.
template <class T>
inline T gpu_fmax(T a, T b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <class T>
inline T gpu_fmin(T a, T b) {
  if (a != a) return b;
  if (b != b) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
inline float fmax_ftz(float a, float b) { return gpu_fmax(ftz(a), ftz(b)); }
inline float fmin_ftz(float a, float b) { return gpu_fmin(ftz(a), ftz(b)); }
}  // namespace gpuops_emu

// float-only C names (tanhf, ...): a flushing version each, gpuops_ftz_<name>; the macros at the end of this file
// make the C names mean them (also as std::<name>). The overloaded names (tanh, ...) get float overloads that flush.
#define GPUOPS_F1(N) \
  inline float gpuops_ftz_##N##f(float x) { return ::gpuops_emu::ftz(::N##f(::gpuops_emu::ftz(x))); }
#define GPUOPS_F2(N)                                                               \
  inline float gpuops_ftz_##N##f(float x, float y) {                              \
    return ::gpuops_emu::ftz(::N##f(::gpuops_emu::ftz(x), ::gpuops_emu::ftz(y))); \
  }
#define GPUOPS_FLOAT_UNARY(X)                                                                                  \
  X(acos) X(acosh) X(asin) X(asinh) X(atan) X(atanh) X(cbrt) X(ceil) X(cos) X(cosh) X(erf) X(erfc) X(exp) X(exp2) \
  X(expm1) X(fabs) X(floor) X(lgamma) X(log) X(log10) X(log1p) X(log2) X(logb) X(nearbyint) X(rint) X(round)   \
  X(sin) X(sinh) X(sqrt) X(tan) X(tanh) X(tgamma) X(trunc)
#define GPUOPS_FLOAT_BINARY(X) X(atan2) X(copysign) X(fdim) X(fmod) X(hypot) X(nextafter) X(pow) X(remainder)
GPUOPS_FLOAT_UNARY(GPUOPS_F1)
GPUOPS_FLOAT_BINARY(GPUOPS_F2)
inline float gpuops_ftz_fmaxf(float a, float b) { return ::gpuops_emu::fmax_ftz(a, b); }
inline float gpuops_ftz_fminf(float a, float b) { return ::gpuops_emu::fmin_ftz(a, b); }
inline float gpuops_ftz_fmaf(float a, float b, float c) {
  using ::gpuops_emu::ftz;
  return ftz(::fmaf(ftz(a), ftz(b), ftz(c)));
}
inline float gpuops_ftz_ldexpf(float x, int e) { return ::gpuops_emu::ftz(::ldexpf(::gpuops_emu::ftz(x), e)); }
inline float gpuops_ftz_scalbnf(float x, int e) { return ::gpuops_emu::ftz(::scalbnf(::gpuops_emu::ftz(x), e)); }
inline float gpuops_ftz_frexpf(float x, int *e) { return ::frexpf(::gpuops_emu::ftz(x), e); }
inline float gpuops_ftz_modff(float x, float *i) { return ::modff(::gpuops_emu::ftz(x), i); }
inline int gpuops_ftz_ilogbf(float x) { return ::ilogbf(::gpuops_emu::ftz(x)); }
inline long gpuops_ftz_lrintf(float x) { return ::lrintf(::gpuops_emu::ftz(x)); }
inline long gpuops_ftz_lroundf(float x) { return ::lroundf(::gpuops_emu::ftz(x)); }
inline long long gpuops_ftz_llrintf(float x) { return ::llrintf(::gpuops_emu::ftz(x)); }
inline long long gpuops_ftz_llroundf(float x) { return ::llroundf(::gpuops_emu::ftz(x)); }

// The overloaded names: float flushes, double and long double are the C library's, integers go to double.
#define GPUOPS_O1(N)                                                                    \
  inline float N(float x) { return gpuops_ftz_##N##f(x); }                              \
  inline long double N(long double x) { return std::N(x); }                             \
  template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type> \
  inline double N(I x) {                                                                \
    return ::N(static_cast<double>(x));                                                 \
  }
#define GPUOPS_O2(N)                                                                                          \
  inline float N(float x, float y) { return gpuops_ftz_##N##f(x, y); }                                        \
  inline long double N(long double x, long double y) { return std::N(x, y); }                                 \
  template <class A, class B,                                                                                 \
            class = typename std::enable_if<                                                                  \
                std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&                               \
                !(std::is_same<A, float>::value && std::is_same<B, float>::value) &&                          \
                !(std::is_same<A, double>::value && std::is_same<B, double>::value) &&                        \
                !std::is_same<A, long double>::value && !std::is_same<B, long double>::value>::type>          \
  inline double N(A x, B y) {                                                                                 \
    return ::N(static_cast<double>(x), static_cast<double>(y));                                               \
  }
GPUOPS_FLOAT_UNARY(GPUOPS_O1)
GPUOPS_FLOAT_BINARY(GPUOPS_O2)
GPUOPS_O2(fmax)
GPUOPS_O2(fmin)
inline float fma(float a, float b, float c) { return gpuops_ftz_fmaf(a, b, c); }
inline long double fma(long double a, long double b, long double c) { return std::fma(a, b, c); }
// abs stays std::abs (CuPy's headers include <stdlib.h>, whose using std::abs a float overload here would
// conflict with): abs(float) does not flush; fabs/fabsf do.
using std::abs;
inline float ldexp(float x, int e) { return gpuops_ftz_ldexpf(x, e); }
inline float scalbn(float x, int e) { return gpuops_ftz_scalbnf(x, e); }
inline float frexp(float x, int *e) { return gpuops_ftz_frexpf(x, e); }
inline float modf(float x, float *i) { return gpuops_ftz_modff(x, i); }
inline int ilogb(float x) { return gpuops_ftz_ilogbf(x); }
inline long lrint(float x) { return gpuops_ftz_lrintf(x); }
inline long lround(float x) { return gpuops_ftz_lroundf(x); }
inline long long llrint(float x) { return gpuops_ftz_llrintf(x); }
inline long long llround(float x) { return gpuops_ftz_llroundf(x); }
#undef GPUOPS_F1
#undef GPUOPS_F2
#undef GPUOPS_O1
#undef GPUOPS_O2
// Classification reads bits, on the GPU too (signbit/isnan keep a subnormal's sign and class).
using std::isfinite; using std::isinf; using std::isnan; using std::signbit;

// ---- exactly rounded float intrinsics (the host is IEEE with round-to-nearest-even, no contraction) ----
inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
inline float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
inline float __fdiv_rn(float a, float b) { volatile float r = a / b; return r; }
inline float __fmaf_rn(float a, float b, float c) { return gpuops_ftz_fmaf(a, b, c); }
inline float __fsqrt_rn(float a) { return gpuops_ftz_sqrtf(a); }
inline float __frcp_rn(float a) { volatile float r = 1.0f / a; return r; }
inline double __dadd_rn(double a, double b) { volatile double r = a + b; return r; }
inline double __dsub_rn(double a, double b) { volatile double r = a - b; return r; }
inline double __dmul_rn(double a, double b) { volatile double r = a * b; return r; }
inline double __ddiv_rn(double a, double b) { volatile double r = a / b; return r; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline double __dsqrt_rn(double a) { return std::sqrt(a); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float v) { return v != v ? 0.0f : (v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v)); }

// ---- math: CUDA's float names and fast-intrinsic spellings (the float ones flush, through the overloads) ----
inline float rsqrtf(float v) { return 1.0f / sqrt(v); }
inline double rsqrt(double v) { return 1.0 / std::sqrt(v); }
inline float rcbrtf(float v) { return 1.0f / cbrt(v); }
inline double rcbrt(double v) { return 1.0 / std::cbrt(v); }
inline float exp10f(float v) { return pow(10.0f, v); }
inline double exp10(double v) { return std::pow(10.0, v); }
inline float sinpif(float v) { return sin(static_cast<float>(M_PI) * v); }
inline double sinpi(double v) { return std::sin(M_PI * v); }
inline float cospif(float v) { return cos(static_cast<float>(M_PI) * v); }
inline double cospi(double v) { return std::cos(M_PI * v); }
inline float normcdff(float v) { return 0.5f * erfc(-v / sqrt(2.0f)); }
inline double normcdf(double v) { return 0.5 * std::erfc(-v / std::sqrt(2.0)); }
inline void sincosf(float v, float *s, float *c) { *s = sin(v); *c = cos(v); }
inline void sincos(double v, double *s, double *c) { *s = std::sin(v); *c = std::cos(v); }
// Scaled complementary error function exp(x*x) * erfc(x), computed in long double (asymptotic series far out).
inline long double gpuops_erfcx_ld(long double x) {
  if (x < 100.0L) return std::exp(x * x) * std::erfc(x);
  long double r = 1.0L / (x * x), t = 1.0L, s = 1.0L;
  for (int k = 1; k < 8; ++k) { t *= -(2 * k - 1) * r / 2; s += t; }
  return s / (x * 1.7724538509055160272981674833411452L);
}
inline double erfcx(double x) { return static_cast<double>(gpuops_erfcx_ld(x)); }
inline float erfcxf(float x) { return ::gpuops_emu::ftz(static_cast<float>(gpuops_erfcx_ld(::gpuops_emu::ftz(x)))); }
inline float __expf(float v) { return exp(v); }
inline float __exp10f(float v) { return exp10f(v); }
inline float __logf(float v) { return log(v); }
inline float __log2f(float v) { return log2(v); }
inline float __log10f(float v) { return log10(v); }
inline float __sinf(float v) { return sin(v); }
inline float __cosf(float v) { return cos(v); }
inline float __tanf(float v) { return tan(v); }
inline float __powf(float a, float b) { return pow(a, b); }
inline void __sincosf(float v, float *s, float *c) { sincosf(v, s, c); }

// CUDA's integer min/max overloads (the device library has them for every integer width).
#define GPUOPS_MINMAX(T)                                   \
  inline T min(T a, T b) { return a < b ? a : b; }          \
  inline T max(T a, T b) { return a > b ? a : b; }
GPUOPS_MINMAX(int)
GPUOPS_MINMAX(unsigned int)
GPUOPS_MINMAX(long)
GPUOPS_MINMAX(unsigned long)
GPUOPS_MINMAX(long long)
GPUOPS_MINMAX(unsigned long long)
#undef GPUOPS_MINMAX
inline float min(float a, float b) { return ::gpuops_emu::fmin_ftz(a, b); }
inline float max(float a, float b) { return ::gpuops_emu::fmax_ftz(a, b); }
inline double min(double a, double b) { return ::gpuops_emu::gpu_fmin(a, b); }
inline double max(double a, double b) { return ::gpuops_emu::gpu_fmax(a, b); }
// Mixed argument types, as CUDA's math headers declare them: the wider / unsigned type wins.
#define GPUOPS_MINMAX_MIXED(R, A, B)                                                      \
  inline R min(A a, B b) { return min(static_cast<R>(a), static_cast<R>(b)); }           \
  inline R max(A a, B b) { return max(static_cast<R>(a), static_cast<R>(b)); }
GPUOPS_MINMAX_MIXED(unsigned int, int, unsigned int)
GPUOPS_MINMAX_MIXED(unsigned int, unsigned int, int)
GPUOPS_MINMAX_MIXED(unsigned long long, long long, unsigned long long)
GPUOPS_MINMAX_MIXED(unsigned long long, unsigned long long, long long)
GPUOPS_MINMAX_MIXED(double, float, double)
GPUOPS_MINMAX_MIXED(double, double, float)
#undef GPUOPS_MINMAX_MIXED

// ---- atomics: fibers are cooperative (no switch inside an atomic), so plain reads and writes are atomic ----
#define GPUOPS_ATOMICS(T)                                                                     \
  inline T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }                            \
  inline T atomicSub(T *p, T v) { T o = *p; *p = o - v; return o; }                            \
  inline T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }                               \
  inline T atomicMin(T *p, T v) { T o = *p; *p = v < o ? v : o; return o; }                    \
  inline T atomicMax(T *p, T v) { T o = *p; *p = v > o ? v : o; return o; }                    \
  inline T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }                            \
  inline T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }                             \
  inline T atomicXor(T *p, T v) { T o = *p; *p = o ^ v; return o; }                            \
  inline T atomicCAS(T *p, T c, T v) { T o = *p; if (o == c) *p = v; return o; }
GPUOPS_ATOMICS(int)
GPUOPS_ATOMICS(unsigned int)
GPUOPS_ATOMICS(unsigned long long)
#undef GPUOPS_ATOMICS
inline unsigned short atomicCAS(unsigned short *p, unsigned short c, unsigned short v) {
  unsigned short o = *p; if (o == c) *p = v; return o;
}
inline float atomicAdd(float *p, float v) { float o = *p; *p = o + v; return o; }
inline float atomicExch(float *p, float v) { float o = *p; *p = v; return o; }
inline unsigned int atomicInc(unsigned int *p, unsigned int v) { unsigned o = *p; *p = o >= v ? 0 : o + 1; return o; }
inline unsigned int atomicDec(unsigned int *p, unsigned int v) {
  unsigned o = *p; *p = (o == 0 || o > v) ? v : o - 1; return o;
}

// Warp-level primitives are not emulated: no template gpuops or CuPy's ElementwiseKernel/ReductionKernel
// generates uses them. A use fails to compile instead of computing something wrong.
#define __shfl_sync(...) static_assert(false, "gpuops emulator: warp shuffles are not emulated")
#define __shfl_down_sync(...) static_assert(false, "gpuops emulator: warp shuffles are not emulated")
#define __shfl_xor_sync(...) static_assert(false, "gpuops emulator: warp shuffles are not emulated")
#define __ballot_sync(...) static_assert(false, "gpuops emulator: warp votes are not emulated")

// The C library's float names mean the flushing versions (also as std::<name>), from here on.
namespace std {
using ::gpuops_ftz_acosf;
using ::gpuops_ftz_acoshf;
using ::gpuops_ftz_asinf;
using ::gpuops_ftz_asinhf;
using ::gpuops_ftz_atanf;
using ::gpuops_ftz_atanhf;
using ::gpuops_ftz_cbrtf;
using ::gpuops_ftz_ceilf;
using ::gpuops_ftz_cosf;
using ::gpuops_ftz_coshf;
using ::gpuops_ftz_erff;
using ::gpuops_ftz_erfcf;
using ::gpuops_ftz_expf;
using ::gpuops_ftz_exp2f;
using ::gpuops_ftz_expm1f;
using ::gpuops_ftz_fabsf;
using ::gpuops_ftz_floorf;
using ::gpuops_ftz_lgammaf;
using ::gpuops_ftz_logf;
using ::gpuops_ftz_log10f;
using ::gpuops_ftz_log1pf;
using ::gpuops_ftz_log2f;
using ::gpuops_ftz_logbf;
using ::gpuops_ftz_nearbyintf;
using ::gpuops_ftz_rintf;
using ::gpuops_ftz_roundf;
using ::gpuops_ftz_sinf;
using ::gpuops_ftz_sinhf;
using ::gpuops_ftz_sqrtf;
using ::gpuops_ftz_tanf;
using ::gpuops_ftz_tanhf;
using ::gpuops_ftz_tgammaf;
using ::gpuops_ftz_truncf;
using ::gpuops_ftz_atan2f;
using ::gpuops_ftz_copysignf;
using ::gpuops_ftz_fdimf;
using ::gpuops_ftz_fmodf;
using ::gpuops_ftz_hypotf;
using ::gpuops_ftz_nextafterf;
using ::gpuops_ftz_powf;
using ::gpuops_ftz_remainderf;
using ::gpuops_ftz_fmaxf;
using ::gpuops_ftz_fminf;
using ::gpuops_ftz_fmaf;
using ::gpuops_ftz_ldexpf;
using ::gpuops_ftz_scalbnf;
using ::gpuops_ftz_frexpf;
using ::gpuops_ftz_modff;
using ::gpuops_ftz_ilogbf;
using ::gpuops_ftz_lrintf;
using ::gpuops_ftz_lroundf;
using ::gpuops_ftz_llrintf;
using ::gpuops_ftz_llroundf;
}  // namespace std
#define acosf gpuops_ftz_acosf
#define acoshf gpuops_ftz_acoshf
#define asinf gpuops_ftz_asinf
#define asinhf gpuops_ftz_asinhf
#define atanf gpuops_ftz_atanf
#define atanhf gpuops_ftz_atanhf
#define cbrtf gpuops_ftz_cbrtf
#define ceilf gpuops_ftz_ceilf
#define cosf gpuops_ftz_cosf
#define coshf gpuops_ftz_coshf
#define erff gpuops_ftz_erff
#define erfcf gpuops_ftz_erfcf
#define expf gpuops_ftz_expf
#define exp2f gpuops_ftz_exp2f
#define expm1f gpuops_ftz_expm1f
#define fabsf gpuops_ftz_fabsf
#define floorf gpuops_ftz_floorf
#define lgammaf gpuops_ftz_lgammaf
#define logf gpuops_ftz_logf
#define log10f gpuops_ftz_log10f
#define log1pf gpuops_ftz_log1pf
#define log2f gpuops_ftz_log2f
#define logbf gpuops_ftz_logbf
#define nearbyintf gpuops_ftz_nearbyintf
#define rintf gpuops_ftz_rintf
#define roundf gpuops_ftz_roundf
#define sinf gpuops_ftz_sinf
#define sinhf gpuops_ftz_sinhf
#define sqrtf gpuops_ftz_sqrtf
#define tanf gpuops_ftz_tanf
#define tanhf gpuops_ftz_tanhf
#define tgammaf gpuops_ftz_tgammaf
#define truncf gpuops_ftz_truncf
#define atan2f gpuops_ftz_atan2f
#define copysignf gpuops_ftz_copysignf
#define fdimf gpuops_ftz_fdimf
#define fmodf gpuops_ftz_fmodf
#define hypotf gpuops_ftz_hypotf
#define nextafterf gpuops_ftz_nextafterf
#define powf gpuops_ftz_powf
#define remainderf gpuops_ftz_remainderf
#define fmaxf gpuops_ftz_fmaxf
#define fminf gpuops_ftz_fminf
#define fmaf gpuops_ftz_fmaf
#define ldexpf gpuops_ftz_ldexpf
#define scalbnf gpuops_ftz_scalbnf
#define frexpf gpuops_ftz_frexpf
#define modff gpuops_ftz_modff
#define ilogbf gpuops_ftz_ilogbf
#define lrintf gpuops_ftz_lrintf
#define lroundf gpuops_ftz_lroundf
#define llrintf gpuops_ftz_llrintf
#define llroundf gpuops_ftz_llroundf

#endif  // GPUOPS_CUDA_HOST_H
