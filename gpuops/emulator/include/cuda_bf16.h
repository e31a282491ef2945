// gpuops emulator: shadows CUDA's cuda_bf16.h on the host (see gpuops_small_float.h).
#pragma once
#include "gpuops_small_float.h"
GPUOPS_SMALL_FLOAT(__nv_bfloat16, __nv_bfloat16_raw, 7, 127, __float2bfloat16_rn, __double2bfloat16,
                   __bfloat162float, __bfloat16_as_ushort, __ushort_as_bfloat16, __hisnan, __hisinf)
typedef __nv_bfloat16 nv_bfloat16;
inline __nv_bfloat16 __float2bfloat16(float v) { return __nv_bfloat16(v); }
inline short __bfloat16_as_short(__nv_bfloat16 v) { return static_cast<short>(v.__x); }
inline __nv_bfloat16 __short_as_bfloat16(short v) { return __ushort_as_bfloat16(static_cast<unsigned short>(v)); }
