"""gpuops.backends.numba_convert against NumPy's float16 cast and ml_dtypes' bfloat16 cast, compared as bits."""

from __future__ import annotations

import platform
import re

import ml_dtypes
import numpy as np
import pytest

numba = pytest.importorskip("numba")

from gpuops.backends import numba_convert as nc  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)
ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)

# Both float16 paths: (float16 -> float32, float32 -> float16) scalars; the F16C one where numba compiles for it.
PATHS = {
    "integer": (nc.f16_to_f32_integer, nc.f32_to_f16_integer),
    "f16c": (nc.f16_to_f32_f16c, nc.f32_to_f16_f16c),
}
needs_f16c = pytest.mark.skipif(not nc.F16C, reason="numba does not compile for an x86 CPU with F16C here")
PATH_PARAMS = [pytest.param("integer"), pytest.param("f16c", marks=needs_f16c)]


def _cast(src: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The reference: ``np.copyto(out, src, casting="unsafe")`` with warnings silenced."""
    out = np.empty(src.shape, dtype)
    with np.errstate(all="ignore"):
        np.copyto(out, src, casting="unsafe")
    return out


def _boundary_patterns() -> np.ndarray:
    """float32 bit patterns at every exponent where float16 or bfloat16 rounding decides something."""
    exps = np.arange(256, dtype=np.uint32)[:, None]
    mants = [0, 1, 0x7FFFFF, 0x400000, 0x3FFFFF]
    for d in range(1, 24):  # d mantissa bits dropped: 13 (float16 normal), 14-23 (subnormal), 16 (bfloat16)
        half = 1 << (d - 1)
        for k in (0, 1, 2, 3, (0x7FFFFF >> d) - 1, 0x7FFFFF >> d):  # kept bits: even and odd, the largest
            tie = (k << d) | half
            mants += [tie, tie - 1, tie + 1, k << d, (k << d) | ((1 << d) - 1)]
    m = np.array(sorted({x & 0x7FFFFF for x in mants}), dtype=np.uint32)[None, :]
    pos = ((exps << 23) | m).ravel()
    special = np.array(
        [
            0x00000000, 0x00000001, 0x007FFFFF, 0x00800000,  # zero, float32 subnormals, smallest normal
            0x33000000, 0x33000001, 0x32FFFFFF, 0x33800000, 0x33400000, 0x33C00000,  # 2**-25 (tie to 0), 2**-24
            0x387FC000, 0x387FDFFF, 0x387FE000, 0x387FEFFF, 0x387FF000, 0x38800000,  # up to float16's 2**-14
            0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FFFFF, 0x47800000,  # 65504, the tie to inf at 65520, 65536
            0x7F7F7FFF, 0x7F7F8000, 0x7F7FFFFF, 0x7F800000,  # bfloat16's overflow boundary, inf
            0x7F800001, 0x7F801FFF, 0x7F802000, 0x7F803FFF, 0x7FA00000, 0x7FBFFFFF,  # signalling NaNs
            0x7FC00000, 0x7FC00001, 0x7FC01000, 0x7FE00000, 0x7FFFE000, 0x7FFFFFFF,  # quiet NaNs
        ],
        dtype=np.uint32,
    )  # fmt: skip
    pos = np.concatenate([pos, special])
    return np.concatenate([pos, pos | np.uint32(0x80000000)])


def _random_patterns() -> np.ndarray:
    return np.random.default_rng(20240610).integers(0, 1 << 32, size=1 << 22, dtype=np.uint64).astype(np.uint32)


@pytest.fixture(scope="module")
def f32_patterns() -> np.ndarray:
    return np.concatenate([_boundary_patterns(), _random_patterns()])


def _mismatches(got: np.ndarray, want: np.ndarray, src: np.ndarray) -> list[str]:
    bad = np.flatnonzero(got != want)
    return [f"{int(src[i]):#010x}: got {int(got[i]):#x}, want {int(want[i]):#x}" for i in bad[:8]]


def test_f16_to_f32_all_patterns() -> None:
    got = np.empty(ALL16.size, np.float32)
    nc.f16_to_f32_array(ALL16, got)
    want = _cast(ALL16.view(np.float16), np.dtype(np.float32))
    assert not _mismatches(got.view(np.uint32), want.view(np.uint32), ALL16)


@pytest.mark.parametrize("path", PATH_PARAMS)
def test_f16_to_f32_all_patterns_by_path(path: str) -> None:
    got = np.empty(ALL16.size, np.float32)
    nc._convert_array(PATHS[path][0], ALL16, got)
    want = _cast(ALL16.view(np.float16), np.dtype(np.float32))
    assert not _mismatches(got.view(np.uint32), want.view(np.uint32), ALL16)


@pytest.mark.parametrize("path", PATH_PARAMS)
def test_f32_to_f16_by_path(path: str, f32_patterns: np.ndarray) -> None:
    """The boundaries and random patterns, and more where the F16C path rounds in floating point (|x| from 2**-26
    to 2**-14, float16 subnormals): every float32 there whose low 12 bits are 0, 1, 0x7FF, 0x800, 0x801 or 0xFFF
    (a tie has at least its low 13 bits 0 and 1 above them) and 2**20 random ones, both signs."""
    high = np.arange(0x32800000 >> 12, 0x38800000 >> 12, dtype=np.uint32) << np.uint32(12)
    small = np.concatenate(
        [high | np.uint32(low) for low in (0, 1, 0x7FF, 0x800, 0x801, 0xFFF)]
        + [np.random.default_rng(5).integers(0x32800000, 0x38800000, size=1 << 20, dtype=np.uint32)]
    )
    x = np.concatenate([f32_patterns, small, small | np.uint32(0x80000000)])
    got = np.empty(x.size, np.uint16)
    nc._convert_array(PATHS[path][1], x.view(np.float32), got)
    want = _cast(x.view(np.float32), np.dtype(np.float16))
    assert not _mismatches(got, want.view(np.uint16), x)


def test_default_path() -> None:
    """The default scalars are the F16C path where numba compiles for F16C: their loops then use vcvtph2ps and
    roundps / rndscaleps with immediate 8 (and not vcvtps2ph, which would round as MXCSR says)."""
    to_f32, to_f16 = nc._loop(nc.f16_to_f32), nc._loop(nc.f32_to_f16)
    to_f32(ALL16[:4], np.empty(4, np.float32))
    to_f16(np.zeros(4, np.float32), np.empty(4, np.uint16))
    asm32 = "".join(to_f32.inspect_asm().values())
    asm16 = "".join(to_f16.inspect_asm().values())
    assert ("vcvtph2ps" in asm32) == nc.F16C
    assert bool(re.search(r"v(round|rndscale)ps\s+\$8,", asm16)) == nc.F16C
    assert "cvtps2ph" not in asm16


def test_bf16_to_f32_all_patterns() -> None:
    got = np.empty(ALL16.size, np.float32)
    nc.bf16_to_f32_array(ALL16, got)
    want = _cast(ALL16.view(BF16), np.dtype(np.float32))
    assert not _mismatches(got.view(np.uint32), want.view(np.uint32), ALL16)


def test_f32_to_f16(f32_patterns: np.ndarray) -> None:
    got = np.empty(f32_patterns.size, np.uint16)
    nc.f32_to_f16_array(f32_patterns.view(np.float32), got)
    want = _cast(f32_patterns.view(np.float32), np.dtype(np.float16))
    assert not _mismatches(got, want.view(np.uint16), f32_patterns)


def test_f32_to_bf16(f32_patterns: np.ndarray) -> None:
    got = np.empty(f32_patterns.size, np.uint16)
    nc.f32_to_bf16_array(f32_patterns.view(np.float32), got)
    want = _cast(f32_patterns.view(np.float32), BF16)
    assert not _mismatches(got, want.view(np.uint16), f32_patterns)


@pytest.mark.parametrize("path", PATH_PARAMS)
def test_nan_rules(path: str) -> None:
    """The NaN rules found in the references: NumPy keeps payload, sign and signalling; ml_dtypes canonicalizes.
    (F16C's instructions quiet a signalling NaN: the F16C path undoes that.)"""
    to_f32, to_f16 = PATHS[path]
    nans = np.array([0x7F800001, 0xFF802000, 0x7FC00000, 0xFFFFFFFF], dtype=np.uint32)
    h = np.empty(nans.size, np.uint16)
    nc._convert_array(to_f16, nans.view(np.float32), h)
    assert h.tolist() == [0x7C01, 0xFC01, 0x7E00, 0xFFFF]
    nc.f32_to_bf16_array(nans.view(np.float32), h)
    assert h.tolist() == [0x7FC0, 0xFFC0, 0x7FC0, 0xFFC0]
    f = np.empty(4, np.float32)
    nc._convert_array(to_f32, np.array([0x7C01, 0xFE00, 0x7DFF, 0xFE01], dtype=np.uint16), f)
    assert f.view(np.uint32).tolist() == [0x7F802000, 0xFFC00000, 0x7FBFE000, 0xFFC02000]


@pytest.mark.parametrize("path", PATH_PARAMS)
def test_scalars_in_a_caller_kernel(path: str) -> None:
    """The scalar functions inside another kernel (fastmath, numpy error model), and from Python."""
    to_f32, to_f16 = PATHS[path]

    @numba.njit(nogil=True, error_model="numpy", fastmath=True)
    def round_trip(h: np.ndarray, out16: np.ndarray, outb: np.ndarray) -> None:
        for i in range(h.shape[0]):
            x = to_f32(h[i])
            out16[i] = to_f16(x)
            outb[i] = nc.f32_to_bf16(nc.bf16_to_f32(nc.f32_to_bf16(x)))

    out16 = np.empty(ALL16.size, np.uint16)
    outb = np.empty(ALL16.size, np.uint16)
    round_trip(ALL16, out16, outb)
    assert not _mismatches(out16, ALL16, ALL16)  # float16 -> float32 -> float16 is the identity, NaNs included
    want_b = _cast(_cast(ALL16.view(np.float16), np.dtype(np.float32)), BF16)
    assert not _mismatches(outb, want_b.view(np.uint16), ALL16)

    assert to_f32(np.uint16(0x3C00)) == np.float32(1.0)
    assert to_f16(np.float32(65520.0)) == 0x7C00
    assert to_f16(np.float32(2.0**-25 * 3)) == 0x0002  # a subnormal tie, to even
    assert nc.bf16_to_f32(0xBF80) == np.float32(-1.0)
    assert nc.f32_to_bf16(np.float32(1.00390625)) == 0x3F80  # tie, even kept
    with pytest.raises(numba.core.errors.TypingError):
        to_f16(1.0)  # float64: refused, it would round twice


def test_array_kernels_strided_and_lengths() -> None:
    h = ALL16[::3]
    f = np.empty(2 * h.size, np.float32)[::2]
    nc.f16_to_f32_array(h, f)
    assert not _mismatches(f.view(np.uint32), _cast(h.view(np.float16), np.dtype(np.float32)).view(np.uint32), h)
    out = np.empty(2 * f.size, np.uint16)[::-2]
    nc.f32_to_f16_array(f, out)
    assert not _mismatches(out, h, h)
    with pytest.raises(ValueError, match="differ in length"):
        nc.f16_to_f32_array(np.zeros(4, np.uint16), np.empty(3, np.float32))


_MASKED = 0x1F80  # all exceptions masked, round to nearest even: the default
_DAZ, _FTZ, _RD, _RU, _RZ = 0x0040, 0x8000, 0x2000, 0x4000, 0x6000


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"), reason="MXCSR is x86's")
@pytest.mark.parametrize("path", PATH_PARAMS)
@pytest.mark.parametrize(
    "mxcsr",
    [_MASKED | _DAZ | _FTZ | _RZ, _MASKED | _RD, _MASKED | _RU, _MASKED | _DAZ | _FTZ | _RU],
    ids=["daz-ftz-rz", "rd", "ru", "daz-ftz-ru"],
)
def test_independent_of_mxcsr(path: str, mxcsr: int) -> None:
    """Denormals-are-zero, flush-to-zero and rounding toward zero, down or up set in the calling thread change
    nothing. (LLVM's fptrunc to half, vcvtps2ph with immediate 4, fails this: it rounds as MXCSR says.)"""
    to_f32, to_f16 = PATHS[path]
    from llvmlite import ir
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def swap_mxcsr(typingctx, new):  # type: ignore[no-untyped-def]
        def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
            i8p = ir.IntType(8).as_pointer()
            fnty = ir.FunctionType(ir.VoidType(), [i8p])
            st = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse.stmxcsr")
            ld = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse.ldmxcsr")
            slot = cgutils.alloca_once(builder, ir.IntType(32))
            builder.call(st, [builder.bitcast(slot, i8p)])
            old = builder.load(slot)
            builder.store(builder.trunc(args[0], ir.IntType(32)), slot)
            builder.call(ld, [builder.bitcast(slot, i8p)])
            return builder.zext(old, ir.IntType(64))

        return numba.types.int64(new), codegen

    @numba.njit(nogil=True)
    def convert_under(mxcsr, h, f, x, o16, ob, probe):  # type: ignore[no-untyped-def]
        old = swap_mxcsr(mxcsr)
        probe[0] = probe[0] * probe[2]  # float32 subnormals times 0.5 + 2**-24: see below
        probe[1] = probe[1] * probe[2]
        swap_mxcsr(mxcsr)  # the probe's status flags cleared
        for i in range(h.shape[0]):
            f[i] = to_f32(h[i])
        for i in range(x.shape[0]):
            o16[i] = to_f16(x[i])
            ob[i] = nc.f32_to_bf16(x[i])
        return swap_mxcsr(old)  # the state the loops ran under, with the flags they raised; the caller's is restored

    # The boundaries, and float32 patterns in 2**-26 .. 2**-13 that the F16C path rounds in floating point.
    small = np.random.default_rng(7).integers(0x32800000, 0x39000000, size=1 << 18, dtype=np.uint32)
    u = np.concatenate([_boundary_patterns(), small, small | np.uint32(0x80000000)])
    x = u.view(np.float32)
    f = np.empty(ALL16.size, np.float32)
    o16 = np.empty(x.size, np.uint16)
    ob = np.empty(x.size, np.uint16)
    # 2 and 3 times 2**-149 (subnormals), times 0.5 + 2**-24: 1 and 1.5 units plus a little. Rounded to nearest
    # 1 and 2, toward zero or down 1 and 1, up 2 and 2; DAZ makes them 0.
    probe = np.array([2, 3, 0x3F000001], dtype=np.uint32).view(np.float32)
    after = convert_under(mxcsr, ALL16, f, x, o16, ob, probe)
    assert after & ~0x3F == mxcsr
    # Status flags raised by the loops: none by the integer path; the F16C path may raise invalid (vcvtph2ps on a
    # signalling NaN) and denormal (a float32 subnormal times 2**24; not under DAZ), nothing else.
    assert after & 0x3F in ((0,) if path == "integer" else (0, 1) if mxcsr & _DAZ else (0, 1, 2, 3))
    rounded = {_RZ: [1, 1], _RD: [1, 1], _RU: [2, 2]}[mxcsr & 0x6000]
    assert probe.view(np.uint32)[:2].tolist() == ([0, 0] if mxcsr & _DAZ else rounded)  # the state was in effect
    want = _cast(ALL16.view(np.float16), np.dtype(np.float32))
    assert not _mismatches(f.view(np.uint32), want.view(np.uint32), ALL16)
    assert not _mismatches(o16, _cast(x, np.dtype(np.float16)).view(np.uint16), u)
    assert not _mismatches(ob, _cast(x, BF16).view(np.uint16), u)
