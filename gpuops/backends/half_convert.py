"""float16 <-> float32 conversion with whole-array NumPy integer/float passes, bit-identical to NumPy's cast.

Why: NumPy 2.4 casts float16 one element at a time in software (its ``npy_half`` functions, not
F16C). On the development machine (AMD EPYC, 2 vCPUs, NumPy SIMD baseline X86_V2, AVX2 found),
on 64 Ki-element chunks (in cache), ``np.copyto(f32, f16, casting="unsafe")`` costs 1.9
ns/element and float32 -> float16 3.15 (about 80 where the value overflows or underflows
float16: NumPy raises the floating-point flag once per element), while one ufunc pass over a
uint32 chunk costs 0.07-0.13 ns/element and a max reduction 0.04-0.07. The NumPy backend
computes float16 operations in float32 chunks (convert in, compute, convert out), so these casts
were most of a float16 ``ADD``. Measured with this module (best of 15): float16 -> float32 0.54
ns/element (3.5x), float32 -> float16 1.6 (1.9x), and a chunked float16 add (two conversions
in, float32 add, one out) 2.9 against 6.6 for NumPy's own float16 ``np.add`` (2.2x).
``python -m gpuops.backends.half_convert`` prints the table.

float16 -> float32 (4 passes, plus 2 reductions over the int16 view):
  ``x = int32(h) << 13`` (a sign-extending copy, so the sign lands in bits 28-31),
  ``x &= 0x8FFFE000`` (sign in bit 31, the 15 magnitude bits in 13-27: a float32 whose exponent
  field is the float16 one), then ``x *= 2**112`` as float32, which moves the exponent bias from
  15 to 127 and normalizes float16 subnormals (exact: every product is a normal float32).
  Inf/NaN (float16 exponent 31) leave the multiply as finite values in [2**16, 2**17); they exist
  only if ``max(int16 view) >= 0x7C00`` or ``max(uint16 view) >= 0xFC00``, and only then 5 more
  integer passes OR 0x7F800000 into them, keeping the payload (``sign | 0x7F800000 |
  mantissa << 13``: NumPy's rule, signalling NaNs stay signalling).

float32 -> float16 (13 passes, plus 1 reduction):
  Maratyszcza's branch-free ``fp16_ieee_from_fp32_value`` (github.com/Maratyszcza/FP16) on the
  magnitude ``a = bits & 0x7FFFFFFF``: ``base = (a * 2**112) * 2**-110`` (inf for |x| >= 2**16);
  ``bias = max(a, 0x38800000) & 0x7F800000 + 0x07800000`` (2**(max(E, 113) + 15 - 127));
  the float sum ``base + bias`` rounds 4|x| to nearest even exactly at x's float16 precision
  (subnormal float16 results included), and its bits hold the float16 exponent (bits 23-27) and
  significand (bits 0-11, with the carry). ``(bits & 0x0F800FFF) * 0x10008`` adds both into the
  high half (bits 16-30), the sign (``bits(x) & 0x80000000``) is OR-ed into bit 31, and ``>> 16``
  plus a truncating uint32 -> uint16 copy writes the result. ``max`` runs against a constant
  array (with a scalar operand ``np.maximum`` takes a non-SIMD loop, 3x slower). The algorithm
  canonicalizes NaNs; a chunk has NaNs only if ``max(a) > 0x7F800000``, and only then NumPy's own
  cast is applied to its NaN elements (``np.copyto(..., where=isnan(src))``), so NaN payload,
  sign and quiet bit are NumPy's by construction.

Exactness: both directions are bit-identical to ``np.copyto(out, src, casting="unsafe")`` for
every input: checked exhaustively for all 65536 float16 and all 2**32 float32 bit patterns
against NumPy 2.4; ``tests/backends/test_half_convert.py`` repeats the float16 sweep, the float32
rounding/overflow/subnormal/NaN boundaries at every exponent and 2**22 random patterns. It needs
IEEE round-to-nearest-even (the default). float32 -> float16 does not depend on subnormal
arithmetic (a subnormal intermediate only arises for |x| < 2**-126, whose result is +-0 either
way, so flush-to-zero / denormals-are-zero cannot change it); float16 -> float32 multiplies
float32 subnormals, so if the calling thread has denormals-are-zero set (one scalar multiply
per call checks), it uses NumPy's cast.

NumPy's cast is used instead for: arrays below ``MIN_F32`` / ``MIN_F16`` elements (the fixed cost
of 6-17 ufunc calls, 9-18 us here, exceeds NumPy's cast there), a source or output with more
than one non-trivial axis whose innermost step exceeds ``MAX_INNER_STRIDE`` bytes (a transposed
matrix: the strided copy alone costs as much as NumPy's cast), non-native byte order,
denormals-are-zero (above), a float32 chunk with a NaN whose ``out`` shares memory with ``src``,
and float16 inf/NaN if the running NumPy ever stopped keeping NaN payloads (probed once). No
warnings are emitted: the passes and the fallbacks run with floating-point warnings silenced (``fpstate.quiet``).

Scratch: a ``HalfConverter(n)`` owns two uint32 arrays of ``n`` elements, a third one for a
non-contiguous float32 source and a bool NaN mask (each made on first need); after those, calls
on arrays of up to ``n`` elements allocate nothing, and larger arrays are converted in blocks of
at most ``n``. A converter is not thread-safe: one per thread. ``f16_to_f32`` / ``f32_to_f16``
take one as ``work`` or use this thread's own ``HalfConverter(BLOCK)``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from .fpstate import quiet

__all__ = ["BLOCK", "MIN_F16", "MIN_F32", "HalfConverter", "f16_to_f32", "f32_to_f16"]

BLOCK = 1 << 16  # scratch elements of the per-thread converter (the NumPy backend's CHUNK)
MIN_F32 = 8192  # below this many elements float16 -> float32 uses np.copyto (faster there: fixed ufunc costs)
MIN_F16 = 12288  # the same for float32 -> float16
MAX_INNER_STRIDE = 64  # bytes; a multi-axis array whose innermost axis steps further uses np.copyto

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_TWO112 = np.float32(2.0**112)
_TWO_M110 = np.float32(2.0**-110)
_TINY = np.float32(2.0**-149)  # the smallest float32 subnormal

_lock = threading.Lock()
_floor: np.ndarray = np.empty(0, np.uint32)  # read-only 0x38800000 (2**-14) array shared by all converters
_nan_payload_kept: bool | None = None


def _floor_array(n: int) -> np.ndarray:
    """A read-only array of at least ``n`` copies of 0x38800000 (``np.maximum`` is slow with a scalar)."""
    global _floor
    with _lock:
        if _floor.size < n:
            arr = np.full(max(n, BLOCK), 0x38800000, np.uint32)
            arr.flags.writeable = False
            _floor = arr
        return _floor


def _numpy_keeps_nan_payload() -> bool:
    """Whether NumPy's float16 -> float32 cast maps inf/NaN to ``sign | 0x7F800000 | mantissa << 13``."""
    global _nan_payload_kept
    if _nan_payload_kept is None:
        h = np.arange(0x7C00, 0x8000, dtype=np.uint32)
        h = np.concatenate([h, h | 0x8000])
        got = np.empty(h.size, np.float32)
        with np.errstate(all="ignore"):
            np.copyto(got, h.astype(np.uint16).view(np.float16), casting="unsafe")
        want = ((h & 0x8000) << 16) | 0x7F800000 | ((h & 0x3FF) << 13)
        _nan_payload_kept = bool(np.array_equal(got.view(np.uint32), want))
    return _nan_payload_kept


def _subnormals_flushed() -> bool:
    """True if this thread's FPU treats subnormal inputs as zero (DAZ, e.g. set by -ffast-math code)."""
    return bool(_TINY * _TWO112 == 0)


def _native(src: np.ndarray, out: np.ndarray, src_dtype: np.dtype, out_dtype: np.dtype) -> bool:
    """Validate the pair; False where only NumPy's cast applies (non-native byte order)."""
    if not isinstance(src, np.ndarray) or not isinstance(out, np.ndarray):
        raise TypeError("src and out must be numpy arrays")
    if src.shape != out.shape:
        raise ValueError(f"shape mismatch: src {src.shape}, out {out.shape}")
    if src.dtype == src_dtype and out.dtype == out_dtype:
        return True
    for arr, want, name in ((src, src_dtype, "src"), (out, out_dtype, "out")):
        if arr.dtype.newbyteorder("=") != want:
            raise TypeError(f"{name} must be {want}, got {arr.dtype}")
    return False


def _layout_ok(arr: np.ndarray) -> bool:
    """C-contiguous, one axis of more than one element, or an innermost step of at most MAX_INNER_STRIDE.

    The excluded layouts (a transposed matrix, a column walk) make the copy into or out of the
    scratch about as slow as NumPy's whole cast (cache-set conflicts of the large power-of-two
    strides), so NumPy's cast is used for them.
    """
    if arr.flags.c_contiguous:
        return True
    axes = [s for n, s in zip(arr.shape, arr.strides, strict=True) if n > 1]
    return len(axes) <= 1 or abs(axes[-1]) <= MAX_INNER_STRIDE


def _blocks(shape: tuple[int, ...], cap: int) -> Iterator[tuple[Any, ...]]:
    """Index tuples that split ``shape`` into blocks of at most ``cap`` elements (``cap >= 1``)."""
    inner = 1
    axis = len(shape) - 1
    while axis > 0 and inner * shape[axis] <= cap:
        inner *= shape[axis]
        axis -= 1
    step = max(1, cap // inner)
    for head in itertools.product(*(range(n) for n in shape[:axis])):
        for j in range(0, shape[axis], step):
            yield (*head, slice(j, j + step))


def _numpy_cast(src: np.ndarray, out: np.ndarray) -> None:
    with quiet():
        np.copyto(out, src, casting="unsafe")


class HalfConverter:
    """float16 <-> float32 conversion with scratch for ``n`` elements; see the module docstring.

    ``to_f32(src, out)``: float16 ``src`` into float32 ``out``; ``to_f16(src, out)``: float32 ``src``
    into float16 ``out``. Same shape, any strides (views into larger buffers included), 0-d and
    empty arrays too; the result is bit-identical to ``np.copyto(out, src, casting="unsafe")``.
    No allocation for arrays of up to ``n`` elements (after the first NaN or non-contiguous
    float32 source, which make a mask / staging array once); larger arrays go in blocks of ``n``.
    Not thread-safe (the calls share the scratch): one converter per thread.
    """

    def __init__(self, n: int = BLOCK) -> None:
        n = int(n)
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        self.n = n
        self._a = np.empty(n, np.uint32)
        self._b = np.empty(n, np.uint32)
        self._floor = _floor_array(n)[:n]
        self._c: np.ndarray | None = None  # staging of a non-contiguous float32 source
        self._mask: np.ndarray | None = None  # NaN mask, made on the first float32 chunk with a NaN

    def _run(self, src: np.ndarray, out: np.ndarray, native: bool, min_size: int, kernel: Any) -> None:
        size = src.size
        if size == 0:
            return
        if not native or size < min_size or self.n < min_size or not (_layout_ok(src) and _layout_ok(out)):
            _numpy_cast(src, out)
        elif size <= self.n:
            kernel(src, out)
        else:
            for idx in _blocks(src.shape, self.n):
                s, o = src[idx], out[idx]
                if s.size >= min_size:
                    kernel(s, o)
                else:
                    _numpy_cast(s, o)

    # float16 -> float32

    def to_f32(self, src: np.ndarray, out: np.ndarray) -> None:
        """``out[...] = src`` for float16 ``src`` and float32 ``out``, bit-identical to NumPy's cast."""
        native = _native(src, out, _F16, _F32) and not _subnormals_flushed()
        self._run(src, out, native, MIN_F32, self._to_f32)

    def _to_f32(self, src: np.ndarray, out: np.ndarray) -> None:
        size = src.size
        if src.flags.c_contiguous:
            h = src.reshape(-1).view(np.int16)
            in_out = out.flags.c_contiguous and not np.may_share_memory(src, out)
        else:  # read the strided source once, into the second scratch array
            h = self._b.view(np.int16)[:size]
            np.copyto(h.reshape(src.shape), src.view(np.int16))
            in_out = out.flags.c_contiguous
        # Reductions before any write: is there an inf or NaN (|h| >= 0x7C00)?
        special = np.maximum.reduce(h, axis=None) >= 0x7C00 or np.maximum.reduce(h.view(np.uint16), axis=None) >= 0xFC00
        xu = out.reshape(-1).view(np.uint32) if in_out else self._a[:size]
        xi = xu.view(np.int32)
        x = xu.view(np.float32)
        np.copyto(xi, h, casting="same_kind")  # sign-extends: bits 28-31 = sign
        np.left_shift(xi, 13, out=xi)
        np.bitwise_and(xu, 0x8FFFE000, out=xu)  # sign | magnitude << 13
        np.multiply(x, _TWO112, out=x)  # exponent bias 15 -> 127, subnormals normalized
        if special:
            if not _numpy_keeps_nan_payload():
                _numpy_cast(src, out)
                return
            t = self._b[:size]  # the staged copy of src, if any, is no longer needed
            np.bitwise_and(xu, 0x7FFFFFFF, out=t)
            np.add(t, 0x38800000, out=t)  # bit 31 set iff |x| >= 2**16 (a float16 inf/NaN)
            np.right_shift(t, 31, out=t)
            np.multiply(t, 0x7F800000, out=t)
            np.bitwise_or(xu, t, out=xu)  # exponent 0xFF, payload kept
        if not in_out:
            np.copyto(out, x.reshape(src.shape))

    # float32 -> float16

    def to_f16(self, src: np.ndarray, out: np.ndarray) -> None:
        """``out[...] = src`` for float32 ``src`` and float16 ``out``, bit-identical to NumPy's cast."""
        self._run(src, out, _native(src, out, _F32, _F16), MIN_F16, self._to_f16)

    def _to_f16(self, src: np.ndarray, out: np.ndarray) -> None:
        size = src.size
        staged = not src.flags.c_contiguous
        if staged:  # read the strided source once, into a third scratch array
            if self._c is None:
                self._c = np.empty(self.n, np.uint32)
            w = self._c[:size]
            np.copyto(w.reshape(src.shape), src.view(np.uint32))
        else:
            w = src.reshape(-1).view(np.uint32)
        a = self._a[:size]
        b = self._b[:size]
        af = a.view(np.float32)
        bf = b.view(np.float32)
        with quiet():
            np.bitwise_and(w, 0x7FFFFFFF, out=a)  # |x|
            has_nan = np.maximum.reduce(a, axis=None) > 0x7F800000
            np.multiply(af, _TWO112, out=bf)  # inf for |x| >= 2**16
            np.multiply(bf, _TWO_M110, out=bf)  # 4|x|
            np.maximum(a, self._floor[:size], out=a)
            np.bitwise_and(a, 0x7F800000, out=a)
            np.add(a, 0x07800000, out=a)  # bias 2**(max(E, 113) + 15 - 127)
            np.add(bf, af, out=bf)  # rounds 4|x| at the float16 precision of x
            np.bitwise_and(b, 0x0F800FFF, out=b)  # exponent bits 23-27, significand bits 0-11
            np.multiply(b, 0x10008, out=b)  # (b << 16) + (b << 3): float16 magnitude in bits 16-30
            np.bitwise_and(w, 0x80000000, out=a)
            np.bitwise_or(b, a, out=b)  # the sign in bit 31
            np.right_shift(b, 16, out=b)
            if has_nan and not staged and np.may_share_memory(src, out):
                np.copyto(out, src, casting="unsafe")  # NumPy handles the overlap
                return
            np.copyto(out.view(np.uint16), b.reshape(src.shape), casting="unsafe")
            if has_nan:  # NumPy's own cast for the NaN elements: payload, sign, quiet bit as NumPy has them
                if self._mask is None:
                    self._mask = np.empty(self.n, np.bool_)
                wf = w.view(np.float32)
                m = self._mask[:size]
                np.isnan(wf, out=m)
                np.copyto(out, wf.reshape(src.shape), casting="unsafe", where=m.reshape(src.shape))


_local = threading.local()


def _default() -> HalfConverter:
    conv = getattr(_local, "conv", None)
    if conv is None:
        conv = _local.conv = HalfConverter(BLOCK)
    return conv


def f16_to_f32(src: np.ndarray, out: np.ndarray, work: HalfConverter | None = None) -> None:
    """float16 ``src`` into float32 ``out`` (same shape, any strides), bit-identical to NumPy's cast.

    ``work``: the converter whose scratch to use (this thread's own ``HalfConverter(BLOCK)`` if None).
    """
    (work if work is not None else _default()).to_f32(src, out)


def f32_to_f16(src: np.ndarray, out: np.ndarray, work: HalfConverter | None = None) -> None:
    """float32 ``src`` into float16 ``out`` (same shape, any strides), bit-identical to NumPy's cast.

    Round to nearest even, overflow to inf, -0.0 kept, NaN exactly as NumPy converts it.
    ``work``: the converter whose scratch to use (this thread's own ``HalfConverter(BLOCK)`` if None).
    """
    (work if work is not None else _default()).to_f16(src, out)


def _bench() -> None:  # pragma: no cover - timing report: python -m gpuops.backends.half_convert
    import timeit

    n = BLOCK
    rng = np.random.default_rng(0)
    x32 = (rng.standard_normal(4 * n) * 100).astype(np.float32)
    x16 = x32.astype(np.float16)
    o32 = np.empty(4 * n, np.float32)
    o16 = np.empty(4 * n, np.float16)
    conv = HalfConverter(n)

    def ns(fn: Any, size: int) -> float:
        return min(timeit.repeat(fn, number=50, repeat=15)) / 50 / size * 1e9

    cases = [
        ("contiguous", slice(0, n), slice(0, n), None),
        ("src[::2]", slice(0, 2 * n, 2), slice(0, n), None),
        ("out[::2]", slice(0, n), slice(0, 2 * n, 2), None),
        ("2-D src[:, :256] of (256, 512)", None, None, "cols"),
        ("2-D src transposed (256, 256)", None, None, "T"),
    ]
    print(f"ns/element, {n} elements, best of 15 x 50 calls")
    for name, fn, src_all, out_all in (("f16->f32", conv.to_f32, x16, o32), ("f32->f16", conv.to_f16, x32, o16)):
        for label, si, oi, kind in cases:
            if kind == "cols":
                s, o = src_all[: 2 * n].reshape(256, 512)[:, :256], out_all[:n].reshape(256, 256)
            elif kind == "T":
                s, o = src_all[:n].reshape(256, 256).T, out_all[:n].reshape(256, 256)
            else:
                s, o = src_all[si], out_all[oi]
            with np.errstate(all="ignore"):
                ref = ns(lambda s=s, o=o: np.copyto(o, s, casting="unsafe"), n)
            got = ns(lambda s=s, o=o, fn=fn: fn(s, o), n)
            print(f"{name} {label:32s} np.copyto {ref:6.3f}  ours {got:6.3f}  speed-up {ref / got:5.2f}")


if __name__ == "__main__":
    _bench()
