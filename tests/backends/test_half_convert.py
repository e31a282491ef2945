"""half_convert: float16 <-> float32 conversion bit-identical to NumPy's own cast.

Every reference is ``np.copyto(out, src, casting="unsafe")`` (NumPy's cast, independent of the
code under test), and results are compared as bits (uint16/uint32 views), so NaN payloads,
signs and -0.0 count. float16 -> float32 is checked on all 65536 patterns; float32 -> float16
on every exponent with the mantissas at float16's rounding, overflow and subnormal boundaries,
NaNs and infinities, plus 2**22 random patterns. The fixture ``kernels`` lowers the size
thresholds so that small arrays go through the kernels too.
"""

from __future__ import annotations

import threading
import tracemalloc
import warnings

import numpy as np
import pytest

from gpuops.backends import half_convert as hc

U16 = np.uint16
U32 = np.uint32


@pytest.fixture
def kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    """The conversion kernels for every size (no small-array fallback to NumPy's cast)."""
    monkeypatch.setattr(hc, "MIN_F32", 1)
    monkeypatch.setattr(hc, "MIN_F16", 1)


def numpy_cast(src: np.ndarray, dtype: type) -> np.ndarray:
    out = np.empty(src.shape, dtype)
    with np.errstate(all="ignore"):
        np.copyto(out, src, casting="unsafe")
    return out


def assert_bits(src: np.ndarray, got: np.ndarray) -> None:
    """``got`` has the bits of NumPy's cast of ``src``; the message names the first few mismatches."""
    want = numpy_cast(src, got.dtype.type)
    uint = U16 if got.dtype.itemsize == 2 else U32
    g, w = got.view(uint), want.view(uint)
    if not np.array_equal(g, w):
        sbits = src.view(U32 if src.dtype.itemsize == 4 else U16)
        bad = np.argwhere(g != w)[:5]
        rows = [f"src {int(sbits[tuple(i)]):#x}: got {int(g[tuple(i)]):#x}, numpy {int(w[tuple(i)]):#x}" for i in bad]
        pytest.fail(f"{int((g != w).sum())} of {g.size} differ: " + "; ".join(rows))


ALL_F16 = np.arange(1 << 16, dtype=np.uint32).astype(U16).view(np.float16)


def _f32_boundaries() -> np.ndarray:
    """float32 patterns at every exponent around float16's rounding, overflow and subnormal edges."""
    bits: set[int] = set()
    for e in range(256):
        mants = {0, 1, 2, 0x3FFFFF, 0x400000, 0x400001, 0x7FFFFE, 0x7FFFFF}
        # float16 keeps 23 - d of the 23 mantissa bits: d = 13 for normal results, more for
        # subnormal ones (exponent 103..112); the tie is half of the dropped part.
        d = min(max(126 - e, 13), 23)
        top = 1 << (23 - d)
        for kept in {0, 1, 2, 3, top // 2, top // 2 + 1, top - 2, top - 1}:  # even and odd kept mantissas
            for low in (0, 1, (1 << (d - 1)) - 1, 1 << (d - 1), (1 << (d - 1)) + 1, (1 << d) - 1):
                mants.add(((kept << d) + low) & 0x7FFFFF)
        bits.update((e << 23) | m for m in mants)
    bits.update(
        [
            0x477FE000,  # 65504, float16's largest finite
            0x477FE001,
            0x477FEFFF,  # 65519.996: rounds down to 65504
            0x477FF000,  # 65520: the tie, rounds to inf
            0x477FF001,
            0x47800000,  # 65536
            0x7F7FFFFF,  # float32's largest finite
            0x33800000,  # 2**-24, float16's smallest subnormal
            0x33000000,  # 2**-25: the tie, rounds to 0
            0x33000001,
            0x32FFFFFF,
            0x33C00000,  # 3 * 2**-25: tie between subnormals 1 and 2 -> 2
            0x34200000,  # 5 * 2**-25: tie between 2 and 3 -> 2
            0x387FE000,  # 2**-14 - 2**-25: tie between the largest subnormal and the smallest normal
            0x387FDFFF,
            0x387FE001,
            0x387FFFFF,
            0x38800000,  # 2**-14, float16's smallest normal
            0x00000001,  # float32 subnormals
            0x007FFFFF,
            0x7F800000,  # inf
            *(0x7F800000 | p for p in (1, 0x1FFF, 0x2000, 0x2001, 0x200000, 0x3FFFFF, 0x3FE000)),  # signalling NaNs
            *(0x7FC00000 | p for p in (0, 1, 0x1FFF, 0x2000, 0x3FE000, 0x3FFFFF)),  # quiet NaNs
        ]
    )
    u = np.array(sorted(bits), U32)
    return np.concatenate([u, u | 0x80000000]).view(np.float32)


F32_EDGES = _f32_boundaries()


# float16 -> float32


def test_f16_to_f32_all_patterns() -> None:
    out = np.empty(ALL_F16.shape, np.float32)
    hc.f16_to_f32(ALL_F16, out)
    assert_bits(ALL_F16, out)


def test_f16_to_f32_keeps_nan_payloads(kernels: None) -> None:
    assert hc._numpy_keeps_nan_payload()  # NumPy 2.x: sign | 0x7F800000 | mantissa << 13, no quieting
    src = np.array([0x7C01, 0xFC01, 0x7E00, 0x7FFF, 0x7C00, 0xFC00], U16).view(np.float16)
    out = np.empty(6, np.float32)
    hc.f16_to_f32(src, out)
    assert [hex(v) for v in out.view(U32)] == [
        "0x7f802000",
        "0xff802000",
        "0x7fc00000",
        "0x7fffe000",
        "0x7f800000",
        "0xff800000",
    ]


def test_f16_to_f32_strided_views(kernels: None) -> None:
    buf = np.zeros(3 * ALL_F16.size + 1, np.float16)
    src = buf[1::3]
    src[...] = ALL_F16[::-1]
    obuf = np.full(2 * ALL_F16.size, 7.0, np.float32)
    out = obuf[1::2]  # a strided view into a larger buffer
    hc.HalfConverter(4096).to_f32(src, out)  # 16 blocks
    assert_bits(src, out)
    assert (obuf[0::2] == 7.0).all()  # nothing else written


def test_f16_to_f32_2d_non_contiguous(kernels: None) -> None:
    buf = np.zeros((256, 520), np.float16)
    src = buf[:, 3:515:2]  # (256, 256), non-contiguous rows and columns
    src[...] = ALL_F16.reshape(256, 256)
    obuf = np.full((260, 300), 7.0, np.float32)
    out = obuf[2:258, 10:266]
    hc.f16_to_f32(src, out)
    assert_bits(src, out)
    assert (obuf[:2] == 7.0).all() and (obuf[:, :10] == 7.0).all() and (obuf[:, 266:] == 7.0).all()
    # transposed (NumPy's cast, see _layout_ok) and F-ordered output
    hc.f16_to_f32(src.T, out)
    assert_bits(src.T, out)
    fout = np.empty((256, 256), np.float32, order="F")
    hc.f16_to_f32(src, fout)
    assert_bits(src, fout)


def test_f16_to_f32_finite_only(kernels: None) -> None:
    """Chunks without inf/NaN skip the inf/NaN pass; subnormals and both zeros included."""
    rng = np.random.default_rng(7)
    bits = rng.integers(0, 0x7C00, 50_000, dtype=U16) | (rng.integers(0, 2, 50_000, dtype=U16) << 15)
    bits[:4] = [0x0000, 0x8000, 0x0001, 0x83FF]
    src = bits.view(np.float16)
    out = np.empty(src.shape, np.float32)
    hc.f16_to_f32(src, out)
    assert_bits(src, out)


def test_f16_to_f32_in_place_overlap(kernels: None) -> None:
    raw = np.zeros(4 * 1000, np.uint8)
    src = raw[: 2 * 1000].view(np.float16)
    src[...] = ALL_F16[31_000:32_000]
    want = numpy_cast(src.copy(), np.float32)
    out = raw.view(np.float32)  # overlaps src
    hc.f16_to_f32(src, out)
    assert np.array_equal(out.view(U32), want.view(U32))


# float32 -> float16


def test_f32_to_f16_boundaries(kernels: None) -> None:
    out = np.empty(F32_EDGES.shape, np.float16)
    hc.HalfConverter(F32_EDGES.size).to_f16(F32_EDGES, out)
    assert_bits(F32_EDGES, out)


def test_f32_to_f16_boundaries_strided(kernels: None) -> None:
    n = F32_EDGES.size
    buf = np.zeros(3 * n, np.float32)
    src = buf[2::3]
    src[...] = F32_EDGES[::-1]
    obuf = np.full(2 * n + 1, 7.0, np.float16)
    out = obuf[1::2]
    hc.HalfConverter(5000).to_f16(src, out)  # blocks; a NaN in most of them
    assert_bits(src, out)
    assert (obuf[0::2] == 7.0).all()


def test_f32_to_f16_random_patterns() -> None:
    src = np.random.default_rng(20240617).integers(0, 1 << 32, 1 << 22, dtype=U32).view(np.float32)
    out = np.empty(src.shape, np.float16)
    hc.f32_to_f16(src, out)  # 64 blocks of 65536
    assert_bits(src, out)


def test_f32_to_f16_2d_non_contiguous(kernels: None) -> None:
    rng = np.random.default_rng(3)
    buf = (rng.standard_normal((130, 400)) * 3e4).astype(np.float32)
    buf[5, 7] = np.nan
    buf[9, 11] = -np.inf
    src = buf[1:129, 5:389:3]  # (128, 128)
    obuf = np.full((128, 200), 7.0, np.float16)
    out = obuf[:, 50:178]
    hc.f32_to_f16(src, out)
    assert_bits(src, out)
    assert (obuf[:, :50] == 7.0).all() and (obuf[:, 178:] == 7.0).all()
    hc.f32_to_f16(src.T, out)  # transposed: NumPy's cast
    assert_bits(src.T, out)


def test_f32_to_f16_nan_in_place_overlap(kernels: None) -> None:
    x = F32_EDGES[:3000].copy()  # has no NaN
    x[[5, 700, 2999]] = np.array([0x7F800001, 0xFFC00000, 0x7FA02000], U32).view(np.float32)
    raw = x.view(np.uint8).copy()
    src = raw.view(np.float32)
    out = raw[: 2 * src.size].view(np.float16)  # overlaps src
    hc.f32_to_f16(src, out)
    assert np.array_equal(out.view(U16), numpy_cast(x, np.float16).view(U16))


# both directions


@pytest.mark.parametrize("kind", ["f16", "f32"])
def test_0d_empty_and_small(kind: str, kernels: None) -> None:
    conv = hc.HalfConverter(16)
    fn, sdt, odt = (conv.to_f32, np.float16, np.float32) if kind == "f16" else (conv.to_f16, np.float32, np.float16)
    for value in (-0.0, 1.5, -np.inf, 6e4, 1e-6):
        src = np.array(value, sdt)
        out = np.empty((), odt)
        fn(src, out)
        assert_bits(src, out)
    fn(np.empty((0, 3), sdt), np.empty((0, 3), odt))
    src = np.linspace(-3, 3, 100).astype(sdt).reshape(4, 25)
    out = np.empty((4, 25), odt)
    fn(src, out)  # 100 elements, blocks of 16
    assert_bits(src, out)


def test_small_arrays_use_numpy_and_large_ones_the_kernels(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = hc._numpy_cast
    monkeypatch.setattr(hc, "_numpy_cast", lambda s, o: (calls.append("numpy"), real(s, o)))
    conv = hc.HalfConverter()
    x = np.linspace(-1, 1, hc.MIN_F16).astype(np.float32)
    conv.to_f16(x[:-1], np.empty(x.size - 1, np.float16))
    assert calls == ["numpy"]
    calls.clear()
    conv.to_f16(x, np.empty(x.size, np.float16))
    conv.to_f32(x.astype(np.float16)[: hc.MIN_F32], np.empty(hc.MIN_F32, np.float32))
    assert calls == []


def test_fallbacks_stay_exact(kernels: None, monkeypatch: pytest.MonkeyPatch) -> None:
    conv = hc.HalfConverter(1 << 16)
    out32 = np.empty(ALL_F16.shape, np.float32)
    # denormals-are-zero on this thread: float16 -> float32 must not use float32 subnormal arithmetic
    with monkeypatch.context() as mp:
        mp.setattr(hc, "_subnormals_flushed", lambda: True)
        mp.setattr(hc.HalfConverter, "_to_f32", None)  # would raise if called
        conv.to_f32(ALL_F16, out32)
    assert_bits(ALL_F16, out32)
    # a NumPy whose float16 NaN rule differed: chunks with inf/NaN use NumPy's cast
    with monkeypatch.context() as mp:
        mp.setattr(hc, "_numpy_keeps_nan_payload", lambda: False)
        conv.to_f32(ALL_F16, out32)
    assert_bits(ALL_F16, out32)
    # non-native byte order
    swapped = F32_EDGES.astype(F32_EDGES.dtype.newbyteorder())
    out16 = np.empty(swapped.shape, np.float16)
    conv.to_f16(swapped, out16)
    assert_bits(swapped, out16)


def test_argument_checks() -> None:
    with pytest.raises(ValueError, match="shape"):
        hc.f16_to_f32(np.zeros(3, np.float16), np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="float16"):
        hc.f16_to_f32(np.zeros(3, np.float64), np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="float16"):
        hc.f32_to_f16(np.zeros(3, np.float32), np.zeros(3, np.float32))
    with pytest.raises(TypeError):
        hc.f32_to_f16([1.0], np.zeros(1, np.float16))
    with pytest.raises(ValueError):
        hc.HalfConverter(-1)


def test_no_warnings_and_no_allocation() -> None:
    n = 1 << 16
    conv = hc.HalfConverter(n)
    x32 = np.resize(F32_EDGES, n)  # overflow, underflow, inf and NaN inputs
    x16 = ALL_F16.copy()
    o16 = np.empty(n, np.float16)
    o32 = np.empty(n, np.float32)
    strided = np.repeat(x32, 2)[::2]
    for _ in range(2):  # the first round makes the NaN mask and the staging array
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tracemalloc.start()
            try:
                conv.to_f16(x32, o16)
                conv.to_f16(strided, o16)
                conv.to_f32(x16, o32)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
    assert peak < 32 * 1024  # scratch would be 256 KiB
    assert_bits(x16, o32)


def test_threads_use_their_own_scratch() -> None:
    rng = np.random.default_rng(11)
    srcs = [(rng.standard_normal(200_000) * 1e3).astype(np.float32) for _ in range(4)]
    outs = [np.empty(s.shape, np.float16) for s in srcs]

    def work(i: int) -> None:
        for _ in range(3):
            hc.f32_to_f16(srcs[i], outs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s, o in zip(srcs, outs, strict=True):
        assert_bits(s, o)
