// gpuops emulator: the 16-bit float types of CUDA's cuda_fp16.h / cuda_bf16.h, on the host.
// Conversions to the 16-bit types round to nearest even in ONE step (from float or double), as CUDA's
// __float2half_rn / __double2half / __float2bfloat16_rn do; NaN becomes the canonical 0x7fff.
#pragma once
#include <cmath>
#include <cstring>
#include <limits>

namespace gpuops_emu {
// One rounding to nearest even from F (double, or long double for 64-bit integers: both exact for their inputs).
template <class F>
inline unsigned short round_to_small(F d, int mbits, int bias) {
  unsigned short sign = std::signbit(d) ? 0x8000u : 0u;
  if (std::isnan(d)) return 0x7fffu;
  const unsigned short inf = static_cast<unsigned short>(((2 * bias + 1) << mbits) | sign);
  F a = std::fabs(d);
  if (std::isinf(a)) return inf;
  const int emin = 1 - bias;
  if (a < std::ldexp(F(1), emin)) {  // subnormal (or rounds up to the smallest normal: same encoding)
    return static_cast<unsigned short>(sign | static_cast<unsigned>(std::nearbyint(std::ldexp(a, mbits - emin))));
  }
  int ex;
  std::frexp(a, &ex);
  int e = ex - 1;
  F r = std::nearbyint(std::ldexp(a, mbits - e));  // in [2^mbits, 2^(mbits+1)]
  if (r >= std::ldexp(F(1), mbits + 1)) { r = std::ldexp(F(1), mbits); ++e; }
  if (e > bias) return inf;
  unsigned m = static_cast<unsigned>(r) - (1u << mbits);
  return static_cast<unsigned short>(sign | (static_cast<unsigned>(e + bias) << mbits) | m);
}
// float -> 16 bits. bfloat16 (8 exponent bits, as float's) rounds the float's bits with integer arithmetic, so the
// launcher's float32 flush-to-zero (MXCSR DAZ) cannot touch it: a float32 subnormal rounds to a bfloat16 subnormal
// as on the GPU. float16 goes through double (a float32 subnormal is far below float16's range either way).
inline unsigned short float_to_small(float v, int mbits, int bias) {
  if (mbits != 7) return round_to_small<double>(v, mbits, bias);
  unsigned int b;
  std::memcpy(&b, &v, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
  return static_cast<unsigned short>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
inline float small_to_float(unsigned short h, int mbits, int bias) {
  if (mbits == 7) {  // bfloat16: the upper half of a float, exactly (no arithmetic: nothing flushes it)
    const unsigned int bits = static_cast<unsigned int>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  const unsigned sign = (h & 0x8000u) ? 1u : 0u;
  const unsigned e = (h & 0x7fffu) >> mbits, m = h & ((1u << mbits) - 1);
  const unsigned emax = (1u << (15 - mbits)) - 1;
  float v;
  if (e == emax) {
    v = m ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    if (m) {  // keep the payload as CUDA does (shift into float's mantissa)
      unsigned bits = 0x7f800000u | (m << (23 - mbits)) | 0x00400000u;
      std::memcpy(&v, &bits, 4);
    }
  } else if (e == 0) {
    v = static_cast<float>(std::ldexp(static_cast<double>(m), 1 - bias - mbits));
  } else {
    v = static_cast<float>(std::ldexp(static_cast<double>(m | (1u << mbits)), static_cast<int>(e) - bias - mbits));
  }
  return sign ? -v : v;
}
}  // namespace gpuops_emu

#define GPUOPS_SMALL_FLOAT(T, RAW, MB, BIAS, FROMF, FROMD, TOF, ASU, UAS, ISNAN, ISINF)                               \
  struct RAW { unsigned short x; };                                                                                   \
  struct T {                                                                                                          \
    unsigned short __x;                                                                                               \
    T() = default;                                                                                                    \
    constexpr T(const RAW &r) : __x(r.x) {}                                                                           \
    T(float v) : __x(::gpuops_emu::float_to_small(v, MB, BIAS)) {}                                                         \
    T(double v) : __x(::gpuops_emu::round_to_small<double>(v, MB, BIAS)) {}                                           \
    T(int v) : T(static_cast<double>(v)) {}                                                                           \
    T(unsigned int v) : T(static_cast<double>(v)) {}                                                                  \
    T(short v) : T(static_cast<double>(v)) {}                                                                         \
    T(unsigned short v) : T(static_cast<double>(v)) {}                                                                \
    T(long long v) : __x(::gpuops_emu::round_to_small<long double>(v, MB, BIAS)) {}                                   \
    T(unsigned long long v) : __x(::gpuops_emu::round_to_small<long double>(v, MB, BIAS)) {}                          \
    T(long v) : __x(::gpuops_emu::round_to_small<long double>(v, MB, BIAS)) {}                                        \
    T(unsigned long v) : __x(::gpuops_emu::round_to_small<long double>(v, MB, BIAS)) {}                               \
    T &operator=(const RAW &r) { __x = r.x; return *this; }                                                           \
    operator RAW() const { return RAW{__x}; }                                                                         \
    operator float() const { return ::gpuops_emu::small_to_float(__x, MB, BIAS); }                                   \
    explicit operator bool() const { return (__x & 0x7fffu) != 0; }                                                  \
  };                                                                                                                  \
  inline T FROMF(float v) { return T(v); }                                                                            \
  inline T FROMD(double v) { return T(v); }                                                                           \
  inline float TOF(T v) { return float(v); }                                                                          \
  inline unsigned short ASU(T v) { return v.__x; }                                                                    \
  inline T UAS(unsigned short v) { return T(RAW{v}); }                                                                \
  inline bool ISNAN(T v) { return (v.__x & 0x7fffu) > ((2u * BIAS + 1u) << MB); }                                    \
  inline int ISINF(T v) {                                                                                             \
    return (v.__x & 0x7fffu) == ((2u * BIAS + 1u) << MB) ? ((v.__x & 0x8000u) ? -1 : 1) : 0;                          \
  }                                                                                                                   \
  inline T operator+(const T &a, const T &b) { return T(float(a) + float(b)); }                                       \
  inline T operator-(const T &a, const T &b) { return T(float(a) - float(b)); }                                       \
  inline T operator*(const T &a, const T &b) { return T(float(a) * float(b)); }                                       \
  inline T operator/(const T &a, const T &b) { return T(float(a) / float(b)); }                                       \
  inline T operator-(const T &a) { return UAS(static_cast<unsigned short>(a.__x ^ 0x8000u)); }                       \
  inline T operator+(const T &a) { return a; }                                                                        \
  inline bool operator==(const T &a, const T &b) { return float(a) == float(b); }                                     \
  inline bool operator!=(const T &a, const T &b) { return float(a) != float(b); }                                     \
  inline bool operator<(const T &a, const T &b) { return float(a) < float(b); }                                       \
  inline bool operator>(const T &a, const T &b) { return float(a) > float(b); }                                       \
  inline bool operator<=(const T &a, const T &b) { return float(a) <= float(b); }                                     \
  inline bool operator>=(const T &a, const T &b) { return float(a) >= float(b); }
