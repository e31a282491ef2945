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

// ---- exactly rounded float intrinsics (the host is IEEE with round-to-nearest-even, no contraction) ----
inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
inline float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
inline float __fdiv_rn(float a, float b) { volatile float r = a / b; return r; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline float __frcp_rn(float a) { volatile float r = 1.0f / a; return r; }
inline double __dadd_rn(double a, double b) { volatile double r = a + b; return r; }
inline double __dsub_rn(double a, double b) { volatile double r = a - b; return r; }
inline double __dmul_rn(double a, double b) { volatile double r = a * b; return r; }
inline double __ddiv_rn(double a, double b) { volatile double r = a / b; return r; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline double __dsqrt_rn(double a) { return std::sqrt(a); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float v) { return v != v ? 0.0f : (v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v)); }

// ---- math: the C library's, with CUDA's float names and fast-intrinsic spellings ----
using std::abs; using std::acos; using std::acosh; using std::asin; using std::asinh; using std::atan; using std::atan2;
using std::atanh; using std::cbrt; using std::ceil; using std::copysign; using std::cos; using std::cosh; using std::erf;
using std::erfc; using std::exp; using std::exp2; using std::expm1; using std::fabs; using std::fdim; using std::floor;
using std::fma; using std::fmax; using std::fmin; using std::fmod; using std::hypot; using std::ilogb; using std::isfinite;
using std::isinf; using std::isnan; using std::ldexp; using std::lgamma; using std::llrint; using std::llround;
using std::log; using std::log10; using std::log1p; using std::log2; using std::logb; using std::lrint; using std::lround;
using std::nearbyint; using std::nextafter; using std::pow; using std::remainder; using std::rint; using std::round;
using std::scalbn; using std::signbit; using std::sin; using std::sinh; using std::sqrt; using std::tan; using std::tanh;
using std::tgamma; using std::trunc; using std::frexp; using std::modf;
inline float rsqrtf(float v) { return 1.0f / std::sqrt(v); }
inline double rsqrt(double v) { return 1.0 / std::sqrt(v); }
inline float rcbrtf(float v) { return 1.0f / std::cbrt(v); }
inline double rcbrt(double v) { return 1.0 / std::cbrt(v); }
inline float exp10f(float v) { return std::pow(10.0f, v); }
inline double exp10(double v) { return std::pow(10.0, v); }
inline float sinpif(float v) { return std::sin(static_cast<float>(M_PI) * v); }
inline double sinpi(double v) { return std::sin(M_PI * v); }
inline float cospif(float v) { return std::cos(static_cast<float>(M_PI) * v); }
inline double cospi(double v) { return std::cos(M_PI * v); }
inline float normcdff(float v) { return 0.5f * std::erfc(-v / std::sqrt(2.0f)); }
inline double normcdf(double v) { return 0.5 * std::erfc(-v / std::sqrt(2.0)); }
inline void sincosf(float v, float *s, float *c) { *s = std::sin(v); *c = std::cos(v); }
inline void sincos(double v, double *s, double *c) { *s = std::sin(v); *c = std::cos(v); }
// Scaled complementary error function exp(x*x) * erfc(x), computed in long double (asymptotic series far out).
inline long double gpuops_erfcx_ld(long double x) {
  if (x < 100.0L) return std::exp(x * x) * std::erfc(x);
  long double r = 1.0L / (x * x), t = 1.0L, s = 1.0L;
  for (int k = 1; k < 8; ++k) { t *= -(2 * k - 1) * r / 2; s += t; }
  return s / (x * 1.7724538509055160272981674833411452L);
}
inline double erfcx(double x) { return static_cast<double>(gpuops_erfcx_ld(x)); }
inline float erfcxf(float x) { return static_cast<float>(gpuops_erfcx_ld(x)); }
inline float __expf(float v) { return std::exp(v); }
inline float __exp10f(float v) { return exp10f(v); }
inline float __logf(float v) { return std::log(v); }
inline float __log2f(float v) { return std::log2(v); }
inline float __log10f(float v) { return std::log10(v); }
inline float __sinf(float v) { return std::sin(v); }
inline float __cosf(float v) { return std::cos(v); }
inline float __tanf(float v) { return std::tan(v); }
inline float __powf(float a, float b) { return std::pow(a, b); }
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
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
inline double min(double a, double b) { return std::fmin(a, b); }
inline double max(double a, double b) { return std::fmax(a, b); }
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


#endif  // GPUOPS_CUDA_HOST_H
