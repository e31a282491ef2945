// gpuops emulator: shadows CUDA's cuda_fp16.h on the host (see gpuops_small_float.h).
#pragma once
#include "gpuops_small_float.h"
GPUOPS_SMALL_FLOAT(__half, __half_raw, 10, 15, __float2half_rn, __double2half, __half2float, __half_as_ushort,
                   __ushort_as_half, __hisnan, __hisinf)
typedef __half half;
inline __half __float2half(float v) { return __half(v); }
inline __half __int2half_rn(int v) { return __half(v); }
inline short __half_as_short(__half v) { return static_cast<short>(v.__x); }
inline __half __short_as_half(short v) { return __ushort_as_half(static_cast<unsigned short>(v)); }
inline __half __hadd(__half a, __half b) { return a + b; }
inline __half __hsub(__half a, __half b) { return a - b; }
inline __half __hmul(__half a, __half b) { return a * b; }
inline __half __hdiv(__half a, __half b) { return a / b; }
inline __half __hneg(__half a) { return -a; }
inline __half __habs(__half a) { return __ushort_as_half(static_cast<unsigned short>(a.__x & 0x7fffu)); }
