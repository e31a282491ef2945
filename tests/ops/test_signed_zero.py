"""The sign of zero results of MAX/MIN and their relatives, bit for bit, on every path (issue #13).

gpuops' rule is IEEE 754-2019 maximum/minimum (5.3.1): NaN propagates and -0.0 < +0.0 whatever
the operand order, so max(+0, -0) = max(-0, +0) = +0 and min(+0, -0) = min(-0, +0) = -0; a
zero REDUCE MAX is +0 if any input is +0, a zero REDUCE MIN -0 if any input is -0.

- The CUDA text without a GPU: every kernel body checked here is the one ``gpuops.codegen``
  generates (the reductions' parts as ``gpuops.codegen.reduce`` takes them), with the op
  table's helpers, compiled by the host C++ compiler (``g++ -O2``, no fast math, no FMA
  contraction; ``__device__`` stubbed out, ``float16`` as ``_Float16``, ``bfloat16`` as a
  round-to-nearest-even struct) and run over every zero and NaN case. NVRTC compiles the same
  text in tests/slow/test_nvrtc.py and tests/slow/test_nvrtc_reduce.py.
- The NumPy backend: ELEMENT_WISE_MAX/MIN for float16, bfloat16, float32 and float64, every
  order of the zero pairs, NaNs, mixed with ordinary values, at lengths that hit NumPy's SIMD
  bodies, tails and the chunked path, packed, strided, transposed (tiles), broadcast (stride
  0), in place into either input, threaded, with the compiled (numba) tier on and off; REDUCE
  MAX/MIN over several axis sets. The CuPy backend runs a subset of the same where a GPU is.
- The relatives, on both sides: ARGMAX/ARGMIN (-0.0 == +0.0 is a tie, decided by the index),
  CLIP/CLIP1/THRESHOLD (plain comparisons: a zero against a zero bound stays as it is) and
  RELU (-0.0 gives +0.0).

References are worked out here from comparisons and sign bits (``_ieee``), never by the code
under test; ``test_reference_is_ieee`` checks them against a ``math.copysign`` form.
NaN results: float32/float64 bits must match too (the NaN operand as it is, A's if both are,
as NumPy documents); float16/bfloat16 only need a NaN (CUDA's conversion to 16 bits
canonicalizes NaNs).
"""

from __future__ import annotations

import atexit
import functools
import itertools
import math
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import buffer_for, float_info, flush_subnormals, flushes_subnormals, read_tensor, to_backend, uint_view

import gpuops
from descriptors import (
    AxisDirection,
    DataType,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
    desc_class,
    row_of,
)
from descriptors.optable import HELPERS
from descriptors.schema import OpRow
from gpuops import config
from gpuops.backends import numba_loops
from gpuops.backends.cpu import policy as cpu_policy
from gpuops.codegen import elementwise_kernel_spec
from gpuops.codegen.numba import translate

F16, BF16, F32, F64 = DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT32, DataType.FLOAT64
FLOATS = (F16, BF16, F32, F64)
_UINT = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
# Quiet NaNs of both signs and one with a payload, as storage bits.
_NAN_BITS = {
    F16: (0x7E00, 0xFE00, 0x7E5A),
    BF16: (0x7FC0, 0xFFC0, 0x7FD3),
    F32: (0x7FC00000, 0xFFC00000, 0x7FC12345),
    F64: (0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000012345),
}
MAXMIN = ("ELEMENT_WISE_MAX", "ELEMENT_WISE_MIN")


def _specials(dt: DataType) -> np.ndarray:
    """+0, -0 first, then ordinary values, infinities, subnormals and NaNs, in the storage type."""
    tiny = float(float_info(dt).smallest_subnormal)  # type: ignore[attr-defined]
    values = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, np.inf, -np.inf, tiny, -tiny], np.float64)
    u = _UINT[dt.numpy_dtype.itemsize]
    nans = np.array(_NAN_BITS[dt], u).view(dt.numpy_dtype)
    return np.concatenate([values.astype(dt.numpy_dtype), nans])


def _ieee(x: np.ndarray, y: np.ndarray, is_max: bool, ftz: bool = False) -> np.ndarray:
    """IEEE 754-2019 maximum (minimum) of equal-shape arrays of one float type, from comparisons
    and sign bits: a NaN operand as it is (x's first), else the larger (smaller) value, and on
    a tie of zeros -0.0 < +0.0. ``ftz`` (CuPy, the emulator: ``helpers.flushes_subnormals``): the
    comparisons see float32/bfloat16 subnormals as zeros of their sign; the chosen operand keeps its bits."""
    u = _UINT[x.dtype.itemsize]
    xb, yb = uint_view(x), uint_view(y)
    xv, yv = flush_subnormals(x, ftz).astype(np.float64), flush_subnormals(y, ftz).astype(np.float64)
    x_nan, y_nan = np.isnan(xv), np.isnan(yv)
    better = xv > yv if is_max else xv < yv
    out = np.where(x_nan | (~y_nan & (better | (xv == yv))), xb, yb)  # equal nonzero values: equal bits
    sign = u.type(1 << (8 * u.itemsize - 1))
    x_neg, y_neg = (xb & sign) != 0, (yb & sign) != 0
    negative = x_neg & y_neg if is_max else x_neg | y_neg
    out = np.where((xv == 0) & (yv == 0), np.where(negative, sign, u.type(0)), out)
    return out.astype(u).view(x.dtype)


def _scalar_ieee(a: float, b: float, is_max: bool) -> float:
    """The same on Python floats, written the other way: copysign on a tie of zeros."""
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == b == 0.0:
        a_neg, b_neg = math.copysign(1.0, a) < 0, math.copysign(1.0, b) < 0
        negative = (a_neg and b_neg) if is_max else (a_neg or b_neg)
        return math.copysign(0.0, -1.0 if negative else 1.0)
    return (a if a >= b else b) if is_max else (a if a <= b else b)


def _exact_nan(dt: DataType) -> bool:
    """NaN bits are compared for float32/float64; for float16/bfloat16 any NaN matches any NaN."""
    return dt in (F32, F64)


def _same(got: np.ndarray, want: np.ndarray, exact_nan: bool) -> np.ndarray:
    """Elementwise: equal bits, or (``exact_nan`` False) both NaN."""
    same = uint_view(got) == uint_view(want)
    if not exact_nan:
        same |= np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))
    return same


def _assert_same(got: np.ndarray, want: np.ndarray, exact_nan: bool, what: str, *inputs: np.ndarray) -> None:
    bad = np.argwhere(~_same(got, want, exact_nan))
    if bad.size:
        i = tuple(bad[0])
        ins = [hex(int(uint_view(np.asarray(v))[i])) for v in inputs]
        raise AssertionError(
            f"{what}: {len(bad)} of {got.size} differ, first at {i}: inputs {ins}, "
            f"got {hex(int(uint_view(got)[i]))} want {hex(int(uint_view(want)[i]))}"
        )


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("is_max", [True, False], ids=["max", "min"])
def test_reference_is_ieee(dt: DataType, is_max: bool) -> None:
    s = _specials(dt)
    x, y = (np.array(v, dt.numpy_dtype) for v in zip(*itertools.product(s, s), strict=True))
    got = _ieee(x, y, is_max)
    for a, b, r, rb in zip(x.tolist(), y.tolist(), got.astype(np.float64).tolist(), uint_view(got), strict=True):
        want = _scalar_ieee(float(a), float(b), is_max)
        if math.isnan(want):
            src = x if math.isnan(float(a)) else y
            assert math.isnan(r) and rb in uint_view(src)
        else:
            assert r == want and math.copysign(1.0, r) == math.copysign(1.0, want), (a, b, r, want)
    zeros = _ieee(
        np.array([0.0, -0.0, -0.0, 0.0], dt.numpy_dtype), np.array([-0.0, 0.0, -0.0, 0.0], dt.numpy_dtype), is_max
    )
    assert list(np.signbit(zeros.astype(np.float64))) == (
        [False, False, True, False] if is_max else [True, True, True, False]
    )


def _operands(dt: DataType, n: int, seed: int, swap: bool) -> tuple[np.ndarray, np.ndarray]:
    """Two length-``n`` operands: every ordered pair of specials at the front (the four zero
    pairs first), then a mix of specials (zeros weighted up: many ties) and ordinary values."""
    s = _specials(dt)
    zero_pairs = [(0, 1), (1, 0), (1, 1), (0, 0)]
    front = zero_pairs + [p for p in itertools.product(range(len(s)), repeat=2) if p not in zero_pairs]
    rng = np.random.default_rng(seed)
    pool = np.concatenate([s, s[:2], s[:2], s[:2], s[:2]])
    a, b = pool[rng.integers(len(pool), size=n)], pool[rng.integers(len(pool), size=n)]
    ordinary = rng.random(n) < 0.25
    a[ordinary] = rng.standard_normal(int(ordinary.sum())).astype(dt.numpy_dtype)
    k = min(n, len(front))
    a[:k] = s[[i for i, _ in front[:k]]]
    b[:k] = s[[j for _, j in front[:k]]]
    return (b, a) if swap else (a, b)


# ---------------------------------------------------------------------------------------------
# CUDA text on the host compiler

_PRELUDE = r"""
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#define __device__
#define __forceinline__ inline
using std::isnan;
typedef float float32;
typedef double float64;
typedef _Float16 float16;
struct bfloat16 {  // round to nearest even, as __float2bfloat16_rn
  uint16_t v;
  bfloat16() = default;
  bfloat16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
    v = nan ? uint16_t((u >> 16) | 0x40u) : uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  operator float() const {
    uint32_t u = uint32_t(v) << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
};
static inline float __int_as_float(unsigned int i) { float f; memcpy(&f, &i, 4); return f; }
static inline double __longlong_as_double(unsigned long long i) { double d; memcpy(&d, &i, 8); return d; }
template <typename S> static std::vector<S> load(const char* path, long n) {
  std::vector<S> v(n);
  FILE* f = fopen(path, "rb");
  if (!f || fread(v.data(), sizeof(S), n, f) != (size_t)n) exit(2);
  fclose(f);
  return v;
}
template <typename S> static void store(const char* path, const std::vector<S>& v) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(v.data(), sizeof(S), v.size(), f) != v.size()) exit(3);
  fclose(f);
}
"""

# Elementwise kernels run on the host: (row, data type), every tensor of that type.
HOST_ELEMENTWISE = [
    *((name, dt) for name in MAXMIN for dt in FLOATS),
    *((name, F32) for name in ("ELEMENT_WISE_CLIP", "ELEMENT_WISE_CLIP1", "ELEMENT_WISE_THRESHOLD")),
    ("ACTIVATION_RELU", F32),
    ("ACTIVATION_RELU", F16),
]
# Reductions folded on the host in float32: (row, variant).
HOST_REDUCTIONS = [
    ("REDUCE", "MAX"),
    ("REDUCE", "MIN"),
    *((name, d) for name in ("ARGMAX", "ARGMIN") for d in ("INCREASING", "DECREASING")),
]


def _dtypes(row: OpRow, dt: DataType) -> dict[str, DataType]:
    return {f.name: dt for f in row.tensor_fields}


def _elementwise_source(k: int, name: str, dt: DataType) -> str:
    """``ew<k>(n, files, scalars)``: the generated kernel body over ``n`` elements read from files."""
    row = row_of(name)
    spec = elementwise_kernel_spec(row, _dtypes(row, dt))
    params = [p.rsplit(" ", 1) for p in spec.in_params.split(", ")]
    out_type, out_name = spec.out_params.rsplit(" ", 1)
    lines = [f"static void ew{k}(long n, char** files, const double* scalars) {{"]
    tensors = [(t, p) for t, p in params if p not in spec.scalar_params]
    for i, (t, p) in enumerate(tensors):
        lines.append(f"  std::vector<{t}> in_{p} = load<{t}>(files[{i}], n);")
    lines.append(f"  std::vector<{out_type}> out_(n);")
    for i, p in enumerate(spec.scalar_params):
        t = next(t for t, q in params if q == p)
        lines.append(f"  const {t} {p} = static_cast<{t}>(scalars[{i}]);")
    lines.append("  for (long i = 0; i < n; ++i) {")
    lines += [f"    const {t} {p} = in_{p}[i];" for t, p in tensors]
    lines.append(f"    {out_type} {out_name};")
    lines.append("    {")
    lines += [f"      {line}" for line in spec.operation.splitlines()]
    lines.append("    }")
    lines.append(f"    out_[i] = {out_name};")
    lines.append("  }")
    lines.append(f"  store(files[{len(tensors)}], out_);")
    lines.append("}")
    return "\n".join(lines)


def _pick(table: Mapping[str, str]) -> str:
    return table.get("float", table.get("any", ""))


def _reduction_source(k: int, name: str, variant: str) -> str:
    """``red<k>(rows, length, files)``: each row folded left, right and as a halving tree."""
    red = row_of(name).reductions[variant]
    body = f"""
namespace r{k} {{
typedef float T;
typedef {_pick(red.accumulator)} A;
static A map_(T x, long long _J) {{ return {_pick(red.map)}; }}
static A reduce_(A a, A b) {{ return {_pick(red.reduce)}; }}
static A identity_() {{ return {_pick(red.identity)}; }}
static A tree(const std::vector<A>& v, long lo, long hi) {{
  if (hi - lo == 1) return v[lo];
  long mid = lo + (hi - lo) / 2;
  return reduce_(tree(v, lo, mid), tree(v, mid, hi));
}}
}}
static void red{k}(long rows, long length, char** files) {{
  using namespace r{k};
  std::vector<float> x = load<float>(files[0], rows * length);
  std::vector<long long> idx;
  std::vector<float> val;
  for (long r = 0; r < rows; ++r) {{
    std::vector<A> m(length);
    for (long j = 0; j < length; ++j) m[j] = map_(x[r * length + j], j);
    A left = identity_(), right = identity_();
    for (long j = 0; j < length; ++j) left = reduce_(left, m[j]);
    for (long j = length - 1; j >= 0; --j) right = reduce_(m[j], right);
    A both[3] = {{left, right, reduce_(identity_(), tree(m, 0, length))}};
    for (const A& a : both) {{
      const long long n = length;
      (void)n;
      auto post = {_pick(red.post)};
      if constexpr (sizeof(post) == 8) idx.push_back((long long)post); else val.push_back((float)post);
    }}
  }}
  if (!idx.empty()) store(files[1], idx); else store(files[1], val);
}}
"""
    return body


@functools.cache
def _host_program() -> Path:
    """Every host case in one program: ``prog e <k> n files... [scalars...]`` or ``prog r <k> rows length files...``."""
    if shutil.which("g++") is None:
        pytest.skip("no host C++ compiler (g++)")
    bodies = [_elementwise_source(k, name, dt) for k, (name, dt) in enumerate(HOST_ELEMENTWISE)]
    bodies += [_reduction_source(k, name, variant) for k, (name, variant) in enumerate(HOST_REDUCTIONS)]
    # Every helper the kernels name (gpuops.codegen's preambles), each once.
    helpers = [h for name, _ in HOST_ELEMENTWISE for h in row_of(name).helpers]
    helpers += [h for name, variant in HOST_REDUCTIONS for h in row_of(name).reductions[variant].helpers]
    n_ew = len(HOST_ELEMENTWISE)
    dispatch = [
        "int main(int argc, char** argv) {",
        "  (void)argc;",
        "  const int k = atoi(argv[2]);",
        "  if (argv[1][0] == 'e') {",
        "    const long n = atol(argv[3]);",
        "    const int files = atoi(argv[4]);",
        "    std::vector<double> s;",
        "    for (int i = 5 + files; i < argc; ++i) s.push_back(strtod(argv[i], nullptr));",
        "    switch (k) {",
        *(f"      case {k}: ew{k}(n, argv + 5, s.data()); return 0;" for k in range(n_ew)),
        "    }",
        "  } else {",
        "    switch (k) {",
        *(
            f"      case {k}: red{k}(atol(argv[3]), atol(argv[4]), argv + 5); return 0;"
            for k in range(len(HOST_REDUCTIONS))
        ),
        "    }",
        "  }",
        "  return 1;",
        "}",
    ]
    source = "\n".join([_PRELUDE, HELPERS.source(dict.fromkeys(helpers)), *bodies, *dispatch])
    folder = Path(tempfile.mkdtemp(prefix="gpuops_signed_zero_"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # the program and every run's files
    (folder / "kernels.cpp").write_text(source)
    exe = folder / "kernels"
    cmd = [
        "g++",
        "-std=c++17",
        "-O2",
        "-fno-fast-math",
        "-ffp-contract=off",
        "-w",
        "-o",
        str(exe),
        str(folder / "kernels.cpp"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return exe


def _host_elementwise(name: str, dt: DataType, inputs: list[np.ndarray], scalars: tuple[float, ...] = ()) -> np.ndarray:
    """The CUDA kernel body of ``name`` for ``dt``, run on the host over 1-D ``inputs``."""
    exe = _host_program()
    k = HOST_ELEMENTWISE.index((name, dt))
    folder = Path(tempfile.mkdtemp(dir=exe.parent))
    files = []
    for i, v in enumerate(inputs):
        path = folder / f"in{i}"
        path.write_bytes(np.ascontiguousarray(v, dt.numpy_dtype).tobytes())
        files.append(str(path))
    out = folder / "out"
    n = len(inputs[0])
    args = [str(exe), "e", str(k), str(n), str(len(files) + 1), *files, str(out), *(float(s).hex() for s in scalars)]
    subprocess.run(args, check=True, timeout=60)
    return np.frombuffer(out.read_bytes(), dt.numpy_dtype).copy()


def _host_reduce(name: str, variant: str, x: np.ndarray) -> np.ndarray:
    """Each row of 2-D float32 ``x`` reduced by the CUDA parts: (rows, 3) for three fold orders."""
    exe = _host_program()
    k = HOST_REDUCTIONS.index((name, variant))
    folder = Path(tempfile.mkdtemp(dir=exe.parent))
    (folder / "x").write_bytes(np.ascontiguousarray(x, np.float32).tobytes())
    rows, length = x.shape
    subprocess.run([str(exe), "r", str(k), str(rows), str(length), str(folder / "x"), str(folder / "out")], check=True)
    dtype = np.int64 if name.startswith("ARG") else np.float32
    return np.frombuffer((folder / "out").read_bytes(), dtype).reshape(rows, 3)


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", MAXMIN)
def test_cuda_max_min_on_host(name: str, dt: DataType) -> None:
    """Every pair of specials (and a mixed tail) through the generated CUDA kernel body."""
    for swap in (False, True):
        a, b = _operands(dt, 1000, seed=7, swap=swap)
        got = _host_elementwise(name, dt, [a, b])
        _assert_same(got, _ieee(a, b, name.endswith("MAX")), _exact_nan(dt), f"CUDA {name} {dt.name}", a, b)


@pytest.mark.parametrize("name", MAXMIN)
def test_compiled_tier_translation(name: str) -> None:
    """The helper as codegen.numba translates it (evaluated in float32) gives the same zeros."""
    expr = translate(row_of(name).exprs.cuda_for("float"), {"x": "x", "y": "y"})
    s = _specials(F32)
    for a, b in itertools.product(s, s):
        got = np.asarray(eval(expr, {"T": np.float32, "x": a, "y": b}), np.float32)  # noqa: S307 - our translation
        _assert_same(got.reshape(1), _ieee(a.reshape(1), b.reshape(1), name.endswith("MAX")), True, expr, a, b)


# ---------------------------------------------------------------------------------------------
# NumPy backend: ELEMENT_WISE_MAX / MIN

LENGTHS = (1, 7, 16, 1000, 70_000)
LAYOUTS = ("packed", "strided", "transposed", "row_bcast", "col_bcast", "scalar_bcast", "in_place_a", "in_place_b")
COLS = 13


@pytest.fixture(params=[True, False], ids=["numba", "no_numba"])
def numba_on(request: pytest.FixtureRequest) -> Iterator[bool]:
    """The compiled tier as installed, or off (``GPUOPS_NUMBA=0``, through ``gpuops.config``)."""
    if not request.param:
        with config.override(numba=False):
            yield False
        return
    if not numba_loops.available():
        pytest.skip("numba not installed")
    yield True


def _layout(
    layout: str, dt: DataType, n: int, a: np.ndarray, b: np.ndarray
) -> tuple[TensorDesc, TensorDesc, TensorDesc, np.ndarray, np.ndarray]:
    """(A, B, output descriptors, A's and B's logical values) for one layout."""
    if layout in ("packed", "in_place_a", "in_place_b"):
        t = TensorDesc(dt, (n,))
        return t, t, t, a, b
    if layout == "strided":
        return TensorDesc(dt, (n,), (2,)), TensorDesc(dt, (n,), (3,)), TensorDesc(dt, (n,), (2,)), a, b
    if layout == "scalar_bcast":  # B one element, the zero whose sign a tie pick would get wrong for A's zeros
        k = min(1, n - 1)
        return TensorDesc(dt, (n,)), TensorDesc.broadcast(dt, (1,), to=(n,)), TensorDesc(dt, (n,)), a, b[k : k + 1]
    rows = -(-n // COLS)
    shape = (rows, COLS)
    a2 = np.resize(a, shape)
    if layout == "transposed":  # A read column-major: the tiled path from 65536 elements on
        full = TensorDesc(dt, shape)
        return TensorDesc(dt, shape, (1, rows)), full, full, a2, np.resize(b, shape)
    if layout == "row_bcast":
        return (
            TensorDesc(dt, shape),
            TensorDesc.broadcast(dt, (COLS,), to=shape),
            TensorDesc(dt, shape),
            a2,
            _specials(dt),
        )
    assert layout == "col_bcast"
    return (
        TensorDesc(dt, shape),
        TensorDesc.broadcast(dt, (rows, 1), to=shape),
        TensorDesc(dt, shape),
        a2,
        np.resize(b, (rows, 1)),
    )


def _run_max_min(
    name: str, dt: DataType, n: int, layout: str, swap: bool, device: Any = None, xp: Any = np
) -> tuple[gpuops.CompiledOperator, np.ndarray, np.ndarray]:
    """(compiled operator, output read back, reference) for one case (NumPy backend unless given)."""
    a, b = _operands(dt, n, seed=n * 31 + len(layout), swap=swap)
    da, db, do, av, bv = _layout(layout, dt, n, a, b)
    dev = device if device is not None else gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc_class(name)(a_tensor=da, b_tensor=db, output_tensor=do)))
    buf_a, buf_b = to_backend(xp, buffer_for(da, av)), to_backend(xp, buffer_for(db, bv))
    out = {"in_place_a": buf_a, "in_place_b": buf_b}.get(layout)
    if out is None:
        out = to_backend(xp, buffer_for(do, np.zeros(do.sizes), fill=np.nan))
    op.execute([buf_a, buf_b], [out])
    full_a, full_b = np.broadcast_to(av, do.sizes).copy(), np.broadcast_to(bv, do.sizes).copy()
    # CuPy/emulator: float32 (and bfloat16) subnormal operands compare as zeros of their sign (-ftz=true)
    want = _ieee(full_a, full_b, name.endswith("MAX"), ftz=flushes_subnormals(dev))
    got = read_tensor(out, do)
    _assert_same(got, want, _exact_nan(dt), f"{name} {dt.name} n={n} {layout}", full_a, full_b)
    return op, got, want


@pytest.mark.parametrize("swap", [False, True], ids=["ab", "ba"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", MAXMIN)
def test_numpy_max_min(name: str, dt: DataType, n: int, layout: str, swap: bool, numba_on: bool) -> None:
    op, _, _ = _run_max_min(name, dt, n, layout, swap)
    if numba_on and n >= cpu_policy.POLICY.numba_min_elements and layout == "row_bcast":
        assert op.launch_path == "numba"  # float32/float64 too: the rows loop beats a broadcasting ufunc
    elif not numba_on or (dt in (F32, F64) and n < cpu_policy.POLICY.direct_min):
        assert op.launch_path == "numpy"  # float32/float64: one NumPy pass (the direct path)
    elif n >= cpu_policy.POLICY.numba_min_elements and layout in ("packed", "in_place_a", "in_place_b"):
        assert op.launch_path == "numba"


@pytest.mark.parametrize("layout", ["packed", "strided", "row_bcast", "in_place_a", "in_place_b"])
@pytest.mark.parametrize("n", [1000, 70_000])
@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", MAXMIN)
def test_backends_max_min(name: str, dt: DataType, n: int, layout: str, device: Any, xp: Any) -> None:
    """The same cases on every backend (CuPy where a GPU is usable: its flat, rows and elementwise kernels)."""
    _run_max_min(name, dt, n, layout, swap=False, device=device, xp=xp)
    _run_max_min(name, dt, n, layout, swap=True, device=device, xp=xp)


@pytest.mark.parametrize("in_place", [False, True])
@pytest.mark.parametrize("dt", [F32, F64, BF16], ids=lambda d: d.name)
@pytest.mark.parametrize("name", MAXMIN)
def test_numpy_max_min_threaded(
    name: str, dt: DataType, in_place: bool, numba_on: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The direct path's (and the chunked path's) blocks over the backend's threads."""
    monkeypatch.setattr(cpu_policy, "POLICY", cpu_policy.POLICY.replace(thread_min=1 << 12, thread_block=1 << 12))
    _run_max_min(name, dt, 70_000, "in_place_a" if in_place else "packed", swap=False)


@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("name", MAXMIN)
def test_numpy_max_min_fused_relu(name: str, dt: DataType, numba_on: bool) -> None:
    """With a fused RELU (the chunked path, or a compiled loop): RELU(-0.0) = +0.0 after the rule."""
    n = 2000
    a, b = _operands(dt, n, seed=3, swap=False)
    t = TensorDesc(dt, (n,))
    relu = desc_class("ACTIVATION_RELU")()
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(
        dev.create_operator(desc_class(name)(a_tensor=t, b_tensor=t, output_tensor=t, fused_activation=relu))
    )
    out = np.empty(n, dt.numpy_dtype)
    op.execute([a, b], [out])
    m = _ieee(a, b, name.endswith("MAX")).astype(np.float64)
    want = np.where(m > 0, m, 0.0)  # comparisons: -0.0 -> +0.0, NaN kept below
    want = np.where(np.isnan(m), m, want).astype(dt.numpy_dtype)
    _assert_same(out, want, _exact_nan(dt), f"{name}+RELU {dt.name}", a, b)


# ---------------------------------------------------------------------------------------------
# REDUCE MAX / MIN, ARGMAX / ARGMIN


def _reduce_input(fn: str, dt: DataType, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Mostly zeros of both signs and values on the losing side, so many results are zeros."""
    rng = np.random.default_rng(seed)
    side = -1.0 if fn == "MAX" else 1.0
    pool = np.array([0.0, -0.0, -0.0, 0.0, -0.0, side, side * np.inf, side * 2.5], np.float64)
    x = pool[rng.integers(len(pool), size=shape)]
    head = x.reshape(-1)[: x.size // 2]  # NaNs and winners in the first half only: the last results stay zeros
    head[rng.random(head.size) < 0.002] = np.nan
    head[rng.random(head.size) < 0.001] = -side
    return x.astype(dt.numpy_dtype)


def _reduce_reference(fn: str, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The max (min) value, NaN if any, and a zero result's sign from the zeros present."""
    v = x.astype(np.float64)
    m = (np.max if fn == "MAX" else np.min)(v, axis=axes, keepdims=True)
    zeros = v == 0
    pos = (zeros & ~np.signbit(v)).any(axis=axes, keepdims=True)
    neg = (zeros & np.signbit(v)).any(axis=axes, keepdims=True)
    zero = np.where(pos, 0.0, -0.0) if fn == "MAX" else np.where(neg, -0.0, 0.0)
    m = np.where(m == 0, zero, m)
    return m.astype(x.dtype)


@pytest.mark.parametrize(
    ("shape", "axes"),
    [((64, 37), (1,)), ((64, 37), (0,)), ((8, 9, 10), (0, 2)), ((6, 7), (0, 1)), ((3, 70_000), (1,))],
    ids=["rows", "cols", "outer", "all", "long"],
)
@pytest.mark.parametrize("dt", FLOATS, ids=lambda d: d.name)
@pytest.mark.parametrize("fn", ["MAX", "MIN"])
def test_reduce_max_min(
    fn: str, dt: DataType, shape: tuple[int, ...], axes: tuple[int, ...], device: Any, xp: Any
) -> None:
    """On every backend (CuPy where a GPU is usable: one-pass and, for "long", two-pass reductions)."""
    x = _reduce_input(fn, dt, shape, seed=len(shape) * 100 + axes[0])
    out_shape = tuple(1 if i in axes else s for i, s in enumerate(shape))
    d_out = TensorDesc(dt, out_shape)
    desc = ReduceOperatorDesc(ReduceFunction[fn], TensorDesc(dt, shape), d_out, axes=axes)
    op = device.compile_operator(device.create_operator(desc))
    out = to_backend(xp, buffer_for(d_out, np.zeros(out_shape), fill=np.nan))
    op.execute([to_backend(xp, x.reshape(-1))], [out])
    want = _reduce_reference(fn, x, axes)
    got = read_tensor(out, d_out)
    assert (want.astype(np.float64) == 0).sum() > 0, "the data must give zero results"
    _assert_same(got, want, False, f"REDUCE {fn} {dt.name} {shape} {axes}")  # which NaN: unspecified


@pytest.mark.parametrize("fn", ["MAX", "MIN"])
def test_cuda_reduce_max_min_on_host(fn: str) -> None:
    """The reduction's CUDA parts, folded in three orders, give the reference's zero sign."""
    x = _reduce_input(fn, F32, (300, 9), seed=11)
    got = _host_reduce("REDUCE", fn, x)
    want = _reduce_reference(fn, x, (1,))
    for order in range(3):
        _assert_same(got[:, order : order + 1], want, False, f"CUDA REDUCE {fn}, fold order {order}")


ARG_ROWS = [
    [-0.0, 0.0, -1.0],
    [0.0, -0.0, -1.0],
    [-1.0, -0.0, 0.0, -0.0],
    [1.0, 0.0, -0.0, 0.0],
    [0.0, 0.0, -0.0, -0.0],
]


@pytest.mark.parametrize("direction", ["INCREASING", "DECREASING"])
@pytest.mark.parametrize("name", ["ARGMAX", "ARGMIN"])
def test_arg_ties_of_signed_zeros(name: str, direction: str) -> None:
    """-0.0 == +0.0 is a tie, decided by the index on both backends (first, or last when DECREASING)."""
    width = max(map(len, ARG_ROWS))
    fill = -np.inf if name == "ARGMAX" else np.inf
    data = ARG_ROWS if name == "ARGMAX" else [[v if v == 0 else -v for v in r] for r in ARG_ROWS]
    x = np.array([r + [fill] * (width - len(r)) for r in data], np.float32)
    want = []
    for row in x.tolist():
        best = max(row) if name == "ARGMAX" else min(row)
        hits = [i for i, v in enumerate(row) if v == best]
        want.append(hits[0] if direction == "INCREASING" else hits[-1])
    cuda = _host_reduce(name, direction, x)
    assert (cuda == np.array(want)[:, None]).all(), (cuda.tolist(), want)
    rows = len(ARG_ROWS)
    desc = desc_class(name)(
        input_tensor=TensorDesc(F32, (rows, width)),
        output_tensor=TensorDesc(DataType.UINT32, (rows, 1)),
        axes=(1,),
        axis_direction=AxisDirection[direction],
    )
    dev = gpuops.Device("numpy")
    out = np.zeros(rows, np.uint32)
    dev.compile_operator(dev.create_operator(desc)).execute([x.reshape(-1)], [out])
    assert out.tolist() == want


# ---------------------------------------------------------------------------------------------
# CLIP, CLIP1, THRESHOLD, RELU: plain comparisons on both backends

BOUNDS: dict[str, list[dict[str, Any]]] = {
    "ELEMENT_WISE_CLIP": [{"min": 0.0, "max": 1.0}, {"min": -0.0, "max": 0.0}, {"min": -1.0, "max": -0.0}],
    "ELEMENT_WISE_CLIP1": [
        {"min_max_data_type": F32, "min": 0.0, "max": 1.0},
        {"min_max_data_type": F32, "min": -0.0, "max": 0.0},
        {"min_max_data_type": F32, "min": -1.0, "max": -0.0},
    ],
    "ELEMENT_WISE_THRESHOLD": [{"min": 0.0}, {"min": -0.0}],
    "ACTIVATION_RELU": [{}],
}


def _bound_cases() -> Iterator[Any]:
    for name, sets in BOUNDS.items():
        dts = (F32, F16) if name == "ACTIVATION_RELU" else (F32,)
        for dt in dts:
            for i, params in enumerate(sets):
                yield pytest.param(name, dt, params, id=f"{name}-{dt.name}-{i}")


@pytest.mark.parametrize(("name", "dt", "params"), list(_bound_cases()))
def test_comparison_ops_agree(name: str, dt: DataType, params: dict[str, Any], numba_on: bool) -> None:
    """-0.0 against a bound 0.0 (and +0.0 against -0.0) stays as it is; RELU(-0.0) is +0.0:
    the CUDA kernel body and the NumPy backend give the same bits."""
    n = 1100  # past CpuPolicy.numba_min_elements
    x = np.resize(_specials(dt), n)
    row = row_of(name)
    t = TensorDesc(dt, (n,))
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(desc_class(name)(input_tensor=t, output_tensor=t, **params)))
    out = np.empty(n, dt.numpy_dtype)
    op.execute([x], [out])
    scalars = tuple(float(params[f.name]) for f in row.param_fields if f.name in ("min", "max"))
    cuda = _host_elementwise(name, dt, [x], scalars)
    _assert_same(out, cuda, _exact_nan(dt), f"{name} {params} NumPy vs CUDA", x)
    zeros = x.astype(np.float64) == 0
    signs = np.signbit(out[zeros].astype(np.float64))
    if name == "ACTIVATION_RELU":
        assert not signs.any()
    else:  # every bound here is a zero or clamps no zero: -0.0 == +0.0 is never beyond it, so zeros stay
        assert (signs == np.signbit(x[zeros].astype(np.float64))).all()
