"""Scalar float32 <-> float16 / bfloat16 conversions for numba kernels, bit-identical to NumPy's and ml_dtypes' casts.

For kernels that work on raw 16-bit patterns (float16 / bfloat16 arrays viewed as uint16). numba is optional:
only this module imports it. Scalars, ``@njit(nogil=True, inline="always")``, callable from other kernels and
from Python:

  ``f16_to_f32(h) -> float32``   ``h`` any integer, its low 16 bits (normally a uint16 array element)
  ``f32_to_f16(x) -> uint16``    ``x`` float32 only: a float64 is a TypingError (converting it would round twice)
  ``bf16_to_f32(b) -> float32``  ``f32_to_bf16(x) -> uint16`` (same argument rules)

and ``f16_to_f32_array(src_u16, out_f32)``, ``f32_to_f16_array(src_f32, out_u16)``, ``bf16_to_f32_array``,
``f32_to_bf16_array``: 1-D loops over the scalars (any strides, ValueError on a length mismatch), ``nogil``.

float16 has two paths with the same results: ``F16C`` (True where numba compiles for x86 with F16C and SSE4.1:
``NUMBA_CPU_FEATURES`` where set, else the host's features) makes ``f16_to_f32`` / ``f32_to_f16`` and their
array loops the F16C path, else the integer path. Both are there by name for the tests and the benchmark:
``f16_to_f32_integer``, ``f32_to_f16_integer``, ``f16_to_f32_f16c``, ``f32_to_f16_f16c`` (the F16C ones only
where ``F16C``: elsewhere LLVM would call a runtime library for half). Nothing else selects the path; numba's
disk cache keys compiled code by the CPU name and features, so a cache never crosses from one path to the other.

Rules (``mag`` = the bits without the sign, which is always carried over):
  float16 -> float32, NumPy's ``npy_halfbits_to_floatbits``: normal ``(mag << 13) + (112 << 23)``; exponent 31
  ``sign | 0x7F800000 | mantissa << 13`` (payload, sign and signalling bit kept); subnormal ``mag * 2**-24``.
  float32 -> float16, NumPy's ``npy_floatbits_to_halfbits``: round to nearest even, to 10 mantissa bits for
  normal results and to a multiple of 2**-24 for subnormal ones (|x| <= 2**-25 gives +-0); a carry steps the
  exponent (65520 and up give inf); NaN ``sign | 0x7C00 | max(mantissa >> 13, 1)``. NumPy 2.4 casts in
  software here (its baseline has no F16C), so a signalling NaN stays signalling: 0x7F800001 -> 0x7C01,
  0x7FC00000 -> 0x7E00.
  bfloat16 -> float32: ``bits << 16``.
  float32 -> bfloat16, ml_dtypes 0.6 (Eigen's ``float_to_bfloat16_rtne``): ``(bits + 0x7FFF + lsb) >> 16``
  (round to nearest even, float32 subnormals kept, overflow to inf by the carry); every NaN becomes
  ``sign | 0x7FC0``: ml_dtypes drops the payload and the signalling state but keeps the sign.

Code: each conversion is one numba ``intrinsic`` that emits straight-line LLVM IR (no branches; no calls but LLVM
intrinsics that are one instruction), so a loop over it vectorizes (8 lanes per AVX2 register, 16 per AVX-512).
``inline="always"`` (numba-IR inlining) measured the same as plain ``@njit`` (LLVM inlined that too); it is kept
so that inlining does not rest on LLVM's heuristics.
  Integer path (and bfloat16): ``bitcast`` between float and i32, i32 integer ops, ``select`` (the float16 ->
  float32 loop was 19 instructions per 8 elements on AVX2). The same code as numba Python was 2.2x / 2.4x slower
  (0.62 / 0.89 ns/element, Zen 3): numba widens uint32 arithmetic to 64 bits. The only float instruction is the
  int -> float conversion of a float16 subnormal's mantissa (< 2**10, exact; a count-leading-zeros).
  F16C path, float16 -> float32: ``fpext half`` (vcvtph2ps: exact, whatever MXCSR says, DAZ included), then an
  xor clears float32's quiet bit for a signalling NaN (0x7C01-0x7DFF), which vcvtph2ps quiets and NumPy does not.
  F16C path, float32 -> float16: not LLVM's ``fptrunc``, which becomes vcvtps2ph with immediate 4, "round as MXCSR
  says": with round toward zero set in the calling thread, 1.59 million of 3.1 million test patterns came out
  different (from about 0.27 ns/element against this path's 0.34 in the float16 add below). Normal results take
  the integer path's rounding; subnormal ones are ``llvm.roundeven(|x| * 2**24)`` converted to int, which is
  the float16 pattern (|x| clamped to 2**-14 first; 2**-14 itself rounds to 0x0400, the smallest normal): the
  multiply by 2**24 is exact, roundeven is vroundps / vrndscaleps with immediate 8 (to nearest even whatever
  MXCSR says, no precision flag), and the conversion of the integral result to int is exact.
So results do not depend on the caller's ``fastmath`` / ``error_model``, on the MXCSR rounding mode, or on
denormals-are-zero / flush-to-zero: ``tests/backends/test_numba_convert.py`` runs both paths with DAZ + FTZ + round
toward zero, round down, round up, and DAZ + FTZ + round up set. Floating-point status flags (sticky, masked;
they change no result, and NumPy clears them before its own checks): the integer path raises none; the F16C
path may raise invalid (vcvtph2ps on a signalling NaN) and denormal (a float32 subnormal times 2**24, when DAZ
is off), nothing else; the test checks that too. (Raising neither, by quieting the NaN before vcvtph2ps and
keeping subnormals out of the multiply, made the float16 add below 1.2-1.5x slower, 0.46-0.57 against 0.38
ns/element in one run, depending on how.)

Speed, ``python -m gpuops.backends.numba_convert`` (AMD EPYC, Zen 4 (LLVM: znver4), 2 vCPUs shared, AVX-512;
numba 0.68.1, NumPy 2.4.6, ml_dtypes 0.6.0; each numba column a loop compiled over one scalar; contiguous
arrays; float32 source N(0, 100**2), so NumPy's ~80 ns/element overflow path is not hit; ns/element, best /
median, all variants interleaved in one process; medians vary by 10-20% between runs):
  65536 elements, ns/element, best / median of 200:  F16C path    |  integer path |  NumPy / ml_dtypes
    float16 -> float32   0.070 / 0.084  |  0.106 / 0.114  |  1.369 / 1.376
    float32 -> float16   0.205 / 0.215  |  0.260 / 0.267  |  2.451 / 2.456
    bfloat16 -> float32                 |  0.077 / 0.107  |  0.088 / 0.096
    float32 -> bfloat16                 |  0.102 / 0.107  |  0.420 / 0.425
    float16 a + b        0.338 / 0.348  |  0.544 / 0.550  |  5.315 / 5.453
  4194304 elements, ns/element, best / median of 40:  F16C path    |  integer path |  NumPy / ml_dtypes
    float16 -> float32   0.184 / 0.209  |  0.158 / 0.187  |  1.634 / 1.665
    float32 -> float16   0.220 / 0.239  |  0.261 / 0.273  |  2.492 / 2.532
    bfloat16 -> float32                 |  0.180 / 0.214  |  0.166 / 0.201
    float32 -> bfloat16                 |  0.193 / 0.220  |  0.407 / 0.422
    float16 a + b        0.337 / 0.353  |  0.543 / 0.563  |  5.462 / 5.547
(The array functions above pass the scalar to ``_convert_array`` as an argument: about 5 us more per call,
0.08 ns/element at 64 Ki.) So at 64 Ki the F16C path is 1.35x / 1.25x the integer path (float16 -> float32 /
float32 -> float16) and 16x / 11x NumPy's float16 casts; at 4 Mi the conversions are memory-bound and the paths
are within 15% of each other (either way, run to run). Fused (float16 ``a + b`` through float32, as the
compiled tier's loops do it: two loads converted, one add, one store converted): the F16C path is 1.6x the
integer path and about 16x NumPy's float16 ``np.add``.
bfloat16 -> float32 ties with ml_dtypes; float32 -> bfloat16 is 2-4x ml_dtypes.

Exactness: ``python -m gpuops.backends.numba_convert exhaustive [f16c | integer]`` compares float32 -> float16
(the default path unless named) and float32 -> bfloat16 with ``np.copyto`` for all 2**32 float32 patterns
(blocks of 2**24): F16C path 0 float16 mismatches and 0 for bfloat16 (239 s, Zen 4); integer path 0 and 0
(261 s, Zen 3). The tests cover all 65536 16-bit patterns for both widenings (both paths), the rounding
boundaries at every float32 exponent and 2**22 random float32 patterns, and for both float16 paths float32
patterns in 2**-26 .. 2**-14 at every multiple of 2**12 (low bits 0, 1, 0x7FF, 0x800, 0x801, 0xFFF) plus 2**20
random ones there.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = [
    "bf16_to_f32",
    "bf16_to_f32_array",
    "f16_to_f32",
    "f16_to_f32_array",
    "f32_to_bf16",
    "f32_to_bf16_array",
    "f32_to_f16",
    "f32_to_f16_array",
]

_I16 = ir.IntType(16)
_I32 = ir.IntType(32)
_F32 = ir.FloatType()
_HALF = ir.HalfType()


def _target_has_f16c() -> bool:
    """Whether numba compiles for an x86 CPU with F16C (and SSE4.1, for ``roundps``): the features numba's JIT
    gives LLVM, ``NUMBA_CPU_FEATURES`` where set, else the host's."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    from numba.core import config as numba_config

    features = getattr(numba_config, "CPU_FEATURES", None)  # NUMBA_CPU_FEATURES
    if features is None:
        try:
            from llvmlite import binding

            host = binding.get_host_cpu_features()
        except RuntimeError:
            return False
        return bool(host.get("f16c")) and bool(host.get("sse4.1"))
    given = set(features.split(","))
    return "+f16c" in given and "+sse4.1" in given


F16C: bool = _target_has_f16c()
"""Whether ``f16_to_f32`` / ``f32_to_f16`` (and the array loops) are the F16C path; else the integer path."""


def _k(value: int) -> ir.Constant:
    return ir.Constant(_I32, value)


def _umin(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_unsigned("<", x, y), x, y)


def _umax(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_unsigned(">", x, y), x, y)


def _smax(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(b.icmp_signed(">", x, y), x, y)


# Each _emit_* builds one conversion as straight-line 32-bit LLVM IR: no branches, no calls, no
# floating-point rounding (the only float instructions are exact, see f16 -> f32), so a loop over it
# vectorizes at 8 lanes per AVX2 register and the caller's fastmath / error_model cannot change it.
# All magnitudes compared are below 2**31, so the signed compares are the unsigned ones.


def _emit_f16_to_f32(b: ir.IRBuilder, h16: ir.Value) -> ir.Value:
    h = b.zext(h16, _I32)
    sign = b.shl(b.and_(h, _k(0x8000)), _k(16))
    mag = b.and_(h, _k(0x7FFF))
    shifted = b.shl(mag, _k(13))  # float16 exponent and mantissa moved to float32's fields
    normal = b.add(shifted, _k(112 << 23))  # exponent bias 15 -> 127
    special = b.or_(shifted, _k(0x7F800000))  # exponent 31: inf, or NaN with its payload kept
    # Subnormal float16, mag * 2**-24: the int -> float conversion of mag < 2**10 is exact (it serves as a
    # count-leading-zeros), then 24 is taken off the exponent field; mag = 0 goes negative and max() makes it +0.
    tiny = _smax(b, b.sub(b.bitcast(b.sitofp(mag, _F32), _I32), _k(24 << 23)), _k(0))
    bits = b.select(b.icmp_signed("<", mag, _k(0x0400)), tiny, normal)
    bits = b.select(b.icmp_signed(">=", mag, _k(0x7C00)), special, bits)
    return b.bitcast(b.or_(bits, sign), _F32)


def _emit_f32_to_f16(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    bits = b.bitcast(x, _I32)
    sign = b.and_(b.lshr(bits, _k(16)), _k(0x8000))
    a = b.and_(bits, _k(0x7FFFFFFF))
    # The result is v / 2**s rounded. Normal results: v is the rebiased bits and s = 13 (the exponent sits above
    # the mantissa, so a rounding carry steps it, up to inf). Subnormal ones: v is the significand with its
    # implicit bit and s = 126 - exponent, which counts in float16's smallest subnormal, 2**-24.
    normal = b.icmp_signed(">=", a, _k(0x38800000))  # |x| >= 2**-14, float16's smallest normal
    exp = b.lshr(a, _k(23))
    v = b.select(normal, b.sub(a, _k(112 << 23)), b.or_(b.and_(a, _k(0x7FFFFF)), _k(0x800000)))
    s = b.select(normal, _k(13), _umin(b, b.sub(_k(126), exp), _k(31)))  # s >= 25 gives 0
    # Round half to even: add half an ulp minus 1, plus the kept lsb, then shift (no overflow: v < 2**31).
    half_m1 = b.sub(b.shl(_k(1), b.sub(s, _k(1))), _k(1))
    lsb = b.and_(b.lshr(v, s), _k(1))
    h = _umin(b, b.lshr(b.add(b.add(v, half_m1), lsb), s), _k(0x7C00))  # overflow and inf -> inf
    # NaN, NumPy's npy_floatbits_to_halfbits: the top 10 payload bits, at least 1 (stays a NaN).
    nan = b.or_(_umax(b, b.and_(b.lshr(a, _k(13)), _k(0x3FF)), _k(1)), _k(0x7C00))
    h = b.select(b.icmp_signed(">", a, _k(0x7F800000)), nan, h)
    return b.trunc(b.or_(h, sign), _I16)


# The F16C path. Same results as the integer emitters above, for every input and every MXCSR state.


def _emit_f16_to_f32_f16c(b: ir.IRBuilder, h16: ir.Value) -> ir.Value:
    # fpext half -> float: vcvtph2ps, exact (it ignores DAZ and the rounding mode, measured). It quiets a
    # signalling NaN (sets float32's bit 22) where NumPy keeps it signalling: the xor clears that bit again for
    # 0x7C01-0x7DFF. (Converting such a NaN with its quiet bit set, so that vcvtph2ps raises no invalid flag,
    # made the float16 add loop 10% slower.)
    bits = b.bitcast(b.fpext(b.bitcast(h16, _HALF), _F32), _I32)
    mag = b.and_(b.zext(h16, _I32), _k(0x7FFF))
    snan = b.icmp_unsigned("<", b.sub(mag, _k(0x7C01)), _k(0x1FF))
    return b.bitcast(b.xor(bits, b.select(snan, _k(0x400000), _k(0))), _F32)


def _emit_f32_to_f16_f16c(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    # Not fptrunc: LLVM lowers it to vcvtps2ph with immediate 4, "round as MXCSR says", so a caller's
    # round-toward-zero (or up, or down) would change the result. Instead: normal results by the integer
    # rounding of _emit_f32_to_f16; subnormal ones as roundeven(|x| * 2**24), which is the float16 pattern
    # (the multiply by a power of two is exact, roundeven is vroundps with immediate 8: to nearest even whatever
    # MXCSR says, and the float -> int conversion of the integral result is exact; 2**-14 rounds up to 0x400).
    bits = b.bitcast(x, _I32)
    sign = b.and_(b.lshr(bits, _k(16)), _k(0x8000))
    a = b.and_(bits, _k(0x7FFFFFFF))
    lsb = b.and_(b.lshr(a, _k(13)), _k(1))
    rebiased = b.sub(a, _k(112 << 23))  # wraps for subnormal results, which take the other branch
    normal = _umin(b, b.lshr(b.add(b.add(rebiased, _k(0xFFF)), lsb), _k(13)), _k(0x7C00))  # overflow, inf -> inf
    small = b.icmp_signed("<", a, _k(0x38800000))  # |x| < 2**-14
    # |x| clamped to 2**-14 (larger ones take the other branch): no overflow, no NaN or inf operand, and the
    # conversion to int is in range (no poison). A float32 subnormal |x| gives 0 (with DAZ as without).
    scaled = b.fmul(b.bitcast(_umin(b, a, _k(0x38800000)), _F32), ir.Constant(_F32, 2.0**24))
    roundeven = cgutils.get_or_insert_function(b.module, ir.FunctionType(_F32, [_F32]), "llvm.roundeven.f32")
    h = b.select(small, b.fptosi(b.call(roundeven, [scaled]), _I32), normal)
    nan = b.or_(_umax(b, b.and_(b.lshr(a, _k(13)), _k(0x3FF)), _k(1)), _k(0x7C00))
    h = b.select(b.icmp_signed(">", a, _k(0x7F800000)), nan, h)
    return b.trunc(b.or_(h, sign), _I16)


def _emit_bf16_to_f32(b: ir.IRBuilder, h16: ir.Value) -> ir.Value:
    return b.bitcast(b.shl(b.zext(h16, _I32), _k(16)), _F32)


def _emit_f32_to_bf16(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    bits = b.bitcast(x, _I32)
    high = b.lshr(bits, _k(16))
    # Round half to even on the high half (wraps only for negative NaNs, which are replaced below).
    r = b.lshr(b.add(b.add(bits, _k(0x7FFF)), b.and_(high, _k(1))), _k(16))
    # NaN, ml_dtypes (Eigen's float_to_bfloat16_rtne): 0x7FC0 with the sign, payload dropped.
    nan = b.or_(b.and_(high, _k(0x8000)), _k(0x7FC0))
    r = b.select(b.icmp_signed(">", b.and_(bits, _k(0x7FFFFFFF)), _k(0x7F800000)), nan, r)
    return b.trunc(r, _I16)


def _from_bits_intrinsic(emit: Callable[[ir.IRBuilder, ir.Value], ir.Value]) -> Any:
    """An intrinsic taking any integer (its low 16 bits are the pattern) and returning float32."""

    def typer(typingctx: Any, h: types.Type) -> Any:
        if not isinstance(h, types.Integer):
            return None

        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: list[ir.Value]) -> ir.Value:
            h16 = context.cast(builder, args[0], sig.args[0], types.uint16)
            return emit(builder, h16)

        return types.float32(h), codegen

    typer.__name__ = emit.__name__.replace("_emit", "")
    return intrinsic(typer)


def _to_bits_intrinsic(emit: Callable[[ir.IRBuilder, ir.Value], ir.Value]) -> Any:
    """An intrinsic taking a float32 (only: a float64 would need a second rounding) and returning uint16."""

    def typer(typingctx: Any, x: types.Type) -> Any:
        if x != types.float32:
            return None

        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, args: list[ir.Value]) -> ir.Value:
            return emit(builder, args[0])

        return types.uint16(x), codegen

    typer.__name__ = emit.__name__.replace("_emit", "")
    return intrinsic(typer)


_f16_to_f32_integer = _from_bits_intrinsic(_emit_f16_to_f32)
_f32_to_f16_integer = _to_bits_intrinsic(_emit_f32_to_f16)
_f16_to_f32_f16c = _from_bits_intrinsic(_emit_f16_to_f32_f16c)
_f32_to_f16_f16c = _to_bits_intrinsic(_emit_f32_to_f16_f16c)
_f16_to_f32 = _f16_to_f32_f16c if F16C else _f16_to_f32_integer
_f32_to_f16 = _f32_to_f16_f16c if F16C else _f32_to_f16_integer
_bf16_to_f32 = _from_bits_intrinsic(_emit_bf16_to_f32)
_f32_to_bf16 = _to_bits_intrinsic(_emit_f32_to_bf16)

_SCALAR: dict[str, Any] = {"nogil": True, "inline": "always"}


@njit(**_SCALAR)
def f16_to_f32(h):  # type: ignore[no-untyped-def]
    """float16 bits (the low 16 bits of any integer, normally a uint16) -> float32, as NumPy casts."""
    return _f16_to_f32(h)


@njit(**_SCALAR)
def f32_to_f16(x):  # type: ignore[no-untyped-def]
    """float32 -> uint16 bits of float16, as NumPy casts (round to nearest even, NaN payload kept)."""
    return _f32_to_f16(x)


# Both float16 paths by name, whatever F16C says, so that the tests compare them (the F16C ones only where
# F16C is: elsewhere LLVM would need a runtime library call for half).


@njit(**_SCALAR)
def f16_to_f32_integer(h):  # type: ignore[no-untyped-def]
    """``f16_to_f32`` by the integer path."""
    return _f16_to_f32_integer(h)


@njit(**_SCALAR)
def f32_to_f16_integer(x):  # type: ignore[no-untyped-def]
    """``f32_to_f16`` by the integer path."""
    return _f32_to_f16_integer(x)


@njit(**_SCALAR)
def f16_to_f32_f16c(h):  # type: ignore[no-untyped-def]
    """``f16_to_f32`` by the F16C path (x86 with F16C only)."""
    return _f16_to_f32_f16c(h)


@njit(**_SCALAR)
def f32_to_f16_f16c(x):  # type: ignore[no-untyped-def]
    """``f32_to_f16`` by the F16C path (x86 with F16C only)."""
    return _f32_to_f16_f16c(x)


@njit(**_SCALAR)
def bf16_to_f32(b):  # type: ignore[no-untyped-def]
    """bfloat16 bits (the low 16 bits of any integer, normally a uint16) -> float32: ``bits << 16``."""
    return _bf16_to_f32(b)


@njit(**_SCALAR)
def f32_to_bf16(x):  # type: ignore[no-untyped-def]
    """float32 -> uint16 bits of bfloat16, as ml_dtypes casts (round to nearest even, NaN -> +-0x7FC0)."""
    return _f32_to_bf16(x)


@njit(nogil=True)
def _convert_array(convert, src, out):  # type: ignore[no-untyped-def]
    """``out[i] = convert(src[i])`` over 1-D arrays (numba compiles one loop per ``convert``)."""
    if src.shape[0] != out.shape[0]:
        raise ValueError("src and out differ in length")
    for i in range(src.shape[0]):
        out[i] = convert(src[i])


def f16_to_f32_array(src: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = f16_to_f32(src[i])``: uint16 (float16 bits) 1-D ``src`` into float32 1-D ``out``."""
    _convert_array(f16_to_f32, src, out)


def f32_to_f16_array(src: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = f32_to_f16(src[i])``: float32 1-D ``src`` into uint16 (float16 bits) 1-D ``out``."""
    _convert_array(f32_to_f16, src, out)


def bf16_to_f32_array(src: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = bf16_to_f32(src[i])``: uint16 (bfloat16 bits) 1-D ``src`` into float32 1-D ``out``."""
    _convert_array(bf16_to_f32, src, out)


def f32_to_bf16_array(src: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = f32_to_bf16(src[i])``: float32 1-D ``src`` into uint16 (bfloat16 bits) 1-D ``out``."""
    _convert_array(f32_to_bf16, src, out)


def _loop(convert: Any) -> Any:
    """``out[i] = convert(src[i])`` compiled for this ``convert`` alone (no first-class function argument to
    dispatch on: ``_convert_array``'s call costs about 5 us more, 0.08 ns/element at 64 Ki)."""

    @njit(nogil=True)
    def run(src, out):  # type: ignore[no-untyped-def]
        for i in range(src.shape[0]):
            out[i] = convert(src[i])

    return run


if __name__ == "__main__":  # the speed and exactness runs: numba_convert_bench (which imports this module)
    import runpy

    runpy.run_module("gpuops.backends.numba_convert_bench", run_name="__main__", alter_sys=True)
