"""Which float32 operations flush subnormals under CuPy's ``-ftz=true``: run on a real GPU.

``python tools/ftz_probe.py OUT.json``: each expression below runs in a ``cupy.ElementwiseKernel`` over probe
inputs (float32 subnormals, zeros, normals, NaN; bfloat16 and float64 subnormals); the output bit patterns are
written as JSON (``tests/data/gpu_ftz_probe_h200.json`` came from an NVIDIA H200, CuPy 14.2, CUDA 13).
The emulator's flush model (README, "what the emulator cannot prove") is checked
against this file by tests/backends/test_emulator_ftz.py.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

F32 = [0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00400000, 0x00800000, 0x00000000, 0x80000000, 0x3F800000,
       0x7FC00000, 0x1E3CE508]  # fmt: skip
BF16 = [0x0001, 0x8001, 0x007F, 0x0080, 0x0000, 0x3F80]
F64 = [0x0000000000000001, 0x8000000000000001, 0x000FFFFFFFFFFFFF, 0x3FF0000000000000]

# name -> (in type, out type, expression over x, y)
F = "float32"
EXPRS = {
    "copy": (F, F, "y = x"),
    "neg": (F, F, "y = -x"),
    "fabsf": (F, F, "y = fabsf(x)"),
    "copysignf": (F, F, "y = copysignf(x, -1.0f)"),
    "add0": (F, F, "y = x + 0.0f"),
    "sub0": (F, F, "y = x - 0.0f"),
    "mul1": (F, F, "y = x * 1.0f"),
    "div1": (F, F, "y = x / 1.0f"),
    "fmaf": (F, F, "y = fmaf(x, 1.0f, 0.0f)"),
    "fmaxf0": (F, F, "y = fmaxf(x, 0.0f)"),
    "fminf0": (F, F, "y = fminf(x, 0.0f)"),
    "max0": (F, F, "y = max(x, 0.0f)"),
    "gt0_select": (F, F, "y = x > 0.0f ? 1.0f : 0.0f"),
    "ne0_select": (F, F, "y = x != 0.0f ? 1.0f : 0.0f"),
    "eq0_select": (F, F, "y = x == 0.0f ? 1.0f : 0.0f"),
    "select_keep": (F, F, "y = x > 1.0f ? 0.0f : x"),
    "isnan_keep": (F, F, "y = isnan(x) ? 0.0f : x"),
    "signbit_select": (F, F, "y = signbit(x) ? -1.0f : 1.0f"),
    "ceilf": (F, F, "y = ceilf(x)"),
    "floorf": (F, F, "y = floorf(x)"),
    "truncf": (F, F, "y = truncf(x)"),
    "rintf": (F, F, "y = rintf(x)"),
    "sqrtf": (F, F, "y = sqrtf(x)"),
    "tanhf": (F, F, "y = tanhf(x)"),
    "expf_m": (F, F, "y = expf(x) - 1.0f"),
    "sq_underflow": (F, F, "y = x * 1e-20f * 1e-20f"),
    "to_double": (F, "float64", "y = (double)x"),
    "to_int_bits": (F, "int32", "y = __float_as_int(x)"),
    "to_bool": (F, "bool", "y = (bool)x"),
    "to_half_bits": (F, "uint16", "y = __half_as_ushort(__float2half(x))"),
    "to_bf16_bits": (F, "uint16", "y = __bfloat16_as_ushort(__float2bfloat16(x))"),
    "bf16_to_float": ("uint16", F, "y = __bfloat162float(__ushort_as_bfloat16(x))"),
    "bf16_add0": ("uint16", F, "y = __bfloat162float(__ushort_as_bfloat16(x)) + 0.0f"),
    "f64_add0": ("float64", "float64", "y = x + 0.0"),
    "f64_to_float": ("float64", F, "y = (float)x"),
}
PREAMBLE = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"


def inputs(t: str) -> np.ndarray:
    if t == "float32":
        return np.array(F32, np.uint32).view(np.float32)
    if t == "uint16":
        return np.array(BF16, np.uint16)
    return np.array(F64, np.uint64).view(np.float64)


def bits(a: np.ndarray) -> list[str]:
    if a.dtype == np.bool_:
        return [str(int(v)) for v in a]
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    return [f"{int(v):#x}" for v in a.view(u)]


def run(xp: Any, names: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Output bits of each probe expression (all by default) on ``xp``: ``cupy`` or the emulator's stand-in for it
    (``gpuops.emulator.runtime``)."""
    out = {}
    for name in EXPRS if names is None else names:
        tin, tout, expr = EXPRS[name]
        k = xp.ElementwiseKernel(f"{np.dtype(tin).name} x", f"{np.dtype(tout).name} y", expr, "probe_" + name,
                                 preamble=PREAMBLE)  # fmt: skip
        out[name] = bits(xp.asnumpy(k(xp.asarray(inputs(tin)))))
    return out


def main(path: str) -> None:
    import cupy

    result: dict[str, object] = {"cupy": cupy.__version__}
    for name, (tin, _, expr) in EXPRS.items():
        try:
            result[name] = {"in": bits(inputs(tin)), "out": run(cupy, [name])[name], "expr": expr}
        except Exception as exc:  # noqa: BLE001 - record and go on
            result[name] = {"error": f"{type(exc).__name__}: {exc}"[:400], "expr": expr}
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result)[:3000])


if __name__ == "__main__":
    main(sys.argv[1])
