"""The CUDA emulator's host layer (gpuops.emulator.build): compile CUDA translation units with the host C++
compiler and run their grids. References are computed independently in NumPy / Python."""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gpuops import config
from gpuops.emulator import build as eb
from gpuops.emulator.build import HostKernel, KernelSource

ROOT = Path(__file__).resolve().parents[2]


def _ptr(a: np.ndarray) -> bytes:
    return struct.pack("<Q", a.ctypes.data)


def _i32(v: int) -> bytes:
    return struct.pack("<i", v)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private cache folder for this module (the conftest's GPUOPS_CACHE_DIR is shared by the session)."""
    return tmp_path_factory.mktemp("emulator-cache")


@pytest.fixture(autouse=True)
def _private_cache(cache_dir: Path):  # type: ignore[no-untyped-def]
    with config.override(cache_dir=cache_dir):
        yield


def _one(code: str, name: str, **kw: object) -> HostKernel:
    return eb.build([KernelSource(code, name)], **kw)[0]  # type: ignore[arg-type]


def _run_python(script: str, cache_dir: Path, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, GPUOPS_CACHE_DIR=str(cache_dir), PYTHONPATH=str(ROOT))
    env.update(extra_env or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, env=env, timeout=300
    )


AXPY = r"""
extern "C" __global__ void axpy(const float* __restrict__ x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""


def test_compiler_found() -> None:
    exe = eb.compiler()
    assert os.path.isabs(exe) and os.access(exe, os.X_OK)


def test_compiler_unavailable_names_what_was_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "no-such-compiler-gpuops")
    monkeypatch.setattr(eb, "_compiler", None)
    with pytest.raises(eb.CompilerUnavailable, match="no-such-compiler-gpuops: not found"):
        eb.compiler()
    monkeypatch.setattr(eb, "_compiler", None)  # forget the failure for the tests after this one


def test_elementwise_raw_kernel() -> None:
    k = _one(AXPY, "axpy")
    assert k.param_sizes == (8, 8, 4, 4) and k.param_aligns == (8, 8, 4, 4)
    n = 1000
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    y = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    want = np.float32(2.5) * x + y  # float32 NumPy arithmetic: one rounding per operation, no FMA
    k.launch((8, 1, 1), (128, 1, 1), [_ptr(x), _ptr(y), struct.pack("<f", 2.5), _i32(n)])
    assert np.array_equal(y.view(np.uint32), want.view(np.uint32))


def test_param_size_mismatch_is_value_error() -> None:
    k = _one(AXPY, "axpy")
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match=r"axpy: parameter 3 takes 4 bytes, got 8"):
        k.launch((1, 1, 1), (4, 1, 1), [_ptr(x), _ptr(x), struct.pack("<f", 1.0), struct.pack("<q", 4)])
    with pytest.raises(ValueError, match="axpy takes 4 parameters, got 3"):
        k.launch((1, 1, 1), (4, 1, 1), [_ptr(x), _ptr(x), struct.pack("<f", 1.0)])
    with pytest.raises(ValueError, match="more than 1024 threads"):
        k.launch((1, 1, 1), (64, 32, 1), [_ptr(x), _ptr(x), struct.pack("<f", 1.0), _i32(4)])


REDUCE = r"""
extern "C" __global__ void block_sum(const long long* x, long long* partial, int n) {
  __shared__ long long s[256];
  unsigned int tid = threadIdx.x;
  long long v = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + tid; i < n; i += (long long)blockDim.x * gridDim.x)
    v += x[i] * (long long)(tid + 1);
  s[tid] = v;
  __syncthreads();
  for (unsigned int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0];
}

// Each thread of a 2-D block reads the value another thread wrote before the barrier.
extern "C" __global__ void mirror(const int* x, int* y) {
  __shared__ int s[16 * 8];
  unsigned int t = threadIdx.y * blockDim.x + threadIdx.x, n = blockDim.x * blockDim.y;
  unsigned int base = (blockIdx.y * gridDim.x + blockIdx.x) * n;
  s[t] = x[base + t];
  __syncthreads();
  y[base + t] = s[n - 1 - t] + (int)(threadIdx.x * 1000 + threadIdx.y * 100 + blockIdx.y * 10 + blockIdx.x);
}
"""


def _reduce_reference(x: np.ndarray, grid: int, block: int) -> np.ndarray:
    want = np.zeros(grid, np.int64)
    for i, v in enumerate(x.tolist()):
        tid = i % block
        want[(i // block) % grid] += v * (tid + 1)
    return want


def test_shared_memory_tree_reduction_with_barriers() -> None:
    k, m = eb.build([KernelSource(REDUCE, "block_sum"), KernelSource(REDUCE, "mirror")])
    n, grid, block = 5000, 7, 256
    x = np.random.default_rng(3).integers(-1000, 1000, n).astype(np.int64)
    partial = np.full(grid, -1, np.int64)
    k.launch((grid, 1, 1), (block, 1, 1), [_ptr(x), _ptr(partial), _i32(n)])
    assert partial.tolist() == _reduce_reference(x, grid, block).tolist()

    bx, by, gx, gy = 16, 8, 3, 2
    xs = np.arange(gx * gy * bx * by, dtype=np.int32) * 7
    ys = np.zeros_like(xs)
    m.launch((gx, gy, 1), (bx, by, 1), [_ptr(xs), _ptr(ys)])
    want = np.zeros_like(xs)
    nb = bx * by
    for b_y in range(gy):
        for b_x in range(gx):
            base = (b_y * gx + b_x) * nb
            for t_y in range(by):
                for t_x in range(bx):
                    t = t_y * bx + t_x
                    want[base + t] = xs[base + nb - 1 - t] + t_x * 1000 + t_y * 100 + b_y * 10 + b_x
    assert ys.tolist() == want.tolist()


def test_reduction_fails_without_real_barriers() -> None:
    """The test above detects a barrier that does not wait: the same kernels with a no-op barrier give
    different (wrong) results."""
    broken = "#define __syncthreads() ((void)0)\n" + REDUCE
    k, m = eb.build([KernelSource(broken, "block_sum"), KernelSource(broken, "mirror")])
    n, grid, block = 5000, 7, 256
    x = np.random.default_rng(3).integers(-1000, 1000, n).astype(np.int64)
    partial = np.zeros(grid, np.int64)
    k.launch((grid, 1, 1), (block, 1, 1), [_ptr(x), _ptr(partial), _i32(n)])
    assert partial.tolist() != _reduce_reference(x, grid, block).tolist()
    xs = np.arange(2 * 16 * 8, dtype=np.int32) + 1
    ys = np.zeros_like(xs)
    m.launch((2, 1, 1), (16, 8, 1), [_ptr(xs), _ptr(ys)])
    assert ys[0] - 0 != xs[127]  # thread 0 read s[127] before thread 127 wrote it


HALF = r"""
#include <cupy/carray.cuh>
#include <cupy/float16.cuh>
#include <cupy/bfloat16.cuh>
extern "C" __global__ void to_float(const unsigned short* h, float* fh, float* fb, int n) {
  CUPY_FOR(i, n) {
    fh[i] = __half2float(__ushort_as_half(h[i]));
    fb[i] = float(bfloat16::from_bits(h[i]));
  }
}
extern "C" __global__ void from_float(const float* f, unsigned short* h, unsigned short* h2, unsigned short* b,
                                      int n) {
  CUPY_FOR(i, n) {
    h[i] = __half_as_ushort(__float2half_rn(f[i]));
    h2[i] = float16(f[i]).to_bits();  // CuPy's class
    b[i] = __bfloat16_as_ushort(__float2bfloat16_rn(f[i]));
  }
}
extern "C" __global__ void from_double(const double* d, unsigned short* h, int n) {
  CUPY_FOR(i, n) { h[i] = __half_as_ushort(__double2half(d[i])); }
}
extern "C" __global__ void from_ll(const long long* v, unsigned short* b, int n) {
  CUPY_FOR(i, n) { b[i] = __bfloat16_as_ushort(__nv_bfloat16(v[i])); }
}
"""


def _bf16_bits_of_int(v: int) -> int:
    """bfloat16 bits of the integer v rounded once to 8 significant bits, ties to even (exact integer math)."""
    a = abs(v)
    shift = max(a.bit_length() - 8, 0)
    q, r = divmod(a, 1 << shift)
    if shift and (r > 1 << (shift - 1) or (r == 1 << (shift - 1) and q & 1)):
        q += 1
    value = np.float32(q << shift) * (-1 if v < 0 else 1)  # at most 8 significant bits: exact in float32
    return int(value.view(np.uint32)) >> 16


def _same_bits_or_both_nan(got: np.ndarray, want: np.ndarray, utype: type) -> None:
    with np.errstate(all="ignore"):
        gn, wn = np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32))
    assert np.array_equal(gn, wn)
    bad = np.flatnonzero(got.view(utype)[~wn] != want.view(utype)[~wn])
    assert bad.size == 0, (got[~wn][bad[:5]], want[~wn][bad[:5]])


def test_half_and_bfloat16_conversions() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes gives the bfloat16 reference")
    to_f, from_f, from_d, from_ll = eb.build(
        [KernelSource(HALF, n) for n in ("to_float", "from_float", "from_double", "from_ll")]
    )
    bits = np.arange(1 << 16, dtype=np.uint16)
    fh, fb = np.empty(1 << 16, np.float32), np.empty(1 << 16, np.float32)
    to_f.launch((64, 1, 1), (256, 1, 1), [_ptr(bits), _ptr(fh), _ptr(fb), _i32(bits.size)])
    _same_bits_or_both_nan(fh, bits.view(np.float16).astype(np.float32), np.uint32)
    _same_bits_or_both_nan(fb, bits.view(ml_dtypes.bfloat16).astype(np.float32), np.uint32)

    # float32 -> 16 bits: every midpoint between neighbouring 16-bit values (ties to even), one float32 ulp
    # either side of it, and random float32 patterns.
    all_h = bits.view(np.float16).astype(np.float32)
    all_b = bits.view(ml_dtypes.bfloat16).astype(np.float32)
    finite_h, finite_b = all_h[np.isfinite(all_h)], all_b[np.isfinite(all_b)]
    parts = []
    for vals in (np.unique(finite_h), np.unique(finite_b)):
        mid = ((vals[:-1].astype(np.float64) + vals[1:]) / 2).astype(np.float32)  # exact in float32
        parts += [mid, np.nextafter(mid, np.float32(np.inf)), np.nextafter(mid, np.float32(-np.inf))]
    parts.append(
        np.random.default_rng(4).integers(0, 1 << 32, 300_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    )
    parts.append(np.array([65504, 65519.996, 65520, 1e-8, 2.0**-25, 2.0**-24 * 1.5, np.inf, -np.inf], np.float32))
    f = np.concatenate(parts).astype(np.float32)
    h, h2, b = (np.empty(f.size, np.uint16) for _ in range(3))
    from_f.launch((120, 1, 1), (256, 1, 1), [_ptr(f), _ptr(h), _ptr(h2), _ptr(b), _i32(f.size)])
    with np.errstate(over="ignore"):
        want_h = f.astype(np.float16)  # NumPy rounds to nearest even
    _same_bits_or_both_nan(h.view(np.float16), want_h, np.uint16)
    _same_bits_or_both_nan(h2.view(np.float16), want_h, np.uint16)
    with np.errstate(all="ignore"):
        want_b = f.astype(ml_dtypes.bfloat16)  # ml_dtypes rounds to nearest even
    _same_bits_or_both_nan(b.view(ml_dtypes.bfloat16), want_b, np.uint16)
    assert int(h[np.isnan(f)].min(initial=0x7FFF)) & 0x7FFF > 0x7C00  # NaN stays NaN

    # double -> half rounds once (a double just above a half midpoint must not double-round via float).
    mids = (np.unique(finite_h)[:-1].astype(np.float64) + np.unique(finite_h)[1:]) / 2
    d = np.concatenate([mids * (1 + 2.0**-40), mids * (1 - 2.0**-40), mids])
    hd = np.empty(d.size, np.uint16)
    from_d.launch((32, 1, 1), (256, 1, 1), [_ptr(d), _ptr(hd), _i32(d.size)])
    with np.errstate(over="ignore"):
        _same_bits_or_both_nan(hd.view(np.float16), d.astype(np.float16), np.uint16)

    # 64-bit integers -> bfloat16 round once too (2^40 + 2^32 + 1 is just above a midpoint; via float it ties).
    ll = [2**40 + 2**32 + 1, -(2**40 + 2**32 + 1), 2**40 + 2**32, 2**62 + 2**54 - 1, 3, -(2**63), 2**63 - 1]
    ll += [0, 255, 257, 65535]
    ll += np.random.default_rng(6).integers(-(2**63), 2**63 - 1, 2000, dtype=np.int64).tolist()
    v = np.array(ll, np.int64)
    bb = np.empty(v.size, np.uint16)
    from_ll.launch((8, 1, 1), (256, 1, 1), [_ptr(v), _ptr(bb), _i32(v.size)])
    assert bb.tolist() == [_bf16_bits_of_int(x) for x in ll]


def _carray(a: np.ndarray, ndim: int) -> bytes:
    """cupy/carray.cuh: CArray { T* data_; ptrdiff_t size_; ptrdiff_t shape_[ndim]; ptrdiff_t strides_[ndim]; }"""
    assert a.ndim == ndim
    return struct.pack(f"<Qq{ndim}q{ndim}q", a.ctypes.data, a.size, *a.shape, *a.strides)


def _cindexer(shape: tuple[int, ...]) -> bytes:
    """cupy/carray.cuh: CIndexer { ptrdiff_t size_; ptrdiff_t shape_[ndim]; ptrdiff_t index_[ndim]; }"""
    return struct.pack(f"<q{len(shape)}q{len(shape)}q", int(np.prod(shape)), *shape, *([0] * len(shape)))


def test_cupy_elementwise_translation_unit() -> None:
    """A real op-table kernel in CuPy's ElementwiseKernel shape, in the batch TU gpuops.nvrtc builds."""
    from descriptors import DataType
    from descriptors.optable import row_of
    from gpuops.codegen import elementwise_kernel_spec
    from gpuops.nvrtc import batch_source

    row = row_of("ELEMENT_WISE_ADD")
    specs = [
        elementwise_kernel_spec(row, {"a_tensor": dt, "b_tensor": dt, "output_tensor": dt})
        for dt in (DataType.FLOAT16, DataType.FLOAT32)
    ]
    assert len({s.preamble for s in specs}) == 1
    code = batch_source(specs, ((1, True, True), (2, False, True)))
    names = [f"{s.name}_2d01" for s in specs]
    k16, k32 = eb.build([KernelSource(code, n) for n in names])
    rng = np.random.default_rng(5)
    for k, dt in ((k16, np.float16), (k32, np.float32)):
        a = rng.standard_normal((6, 9)).astype(dt)
        b = rng.standard_normal((1, 9)).astype(dt)
        b = np.broadcast_to(b, (6, 9))  # a stride-0 row broadcast
        at = np.asfortranarray(a)  # a column-major input
        out = np.full((12, 9), np.nan, dt)[::2]  # a padded (every other row) output
        args = [_carray(at, 2), _carray(b, 2), _carray(out, 2), _cindexer(out.shape)]
        assert [len(x) for x in args] == list(k.param_sizes)
        k.launch((1, 1, 1), (32, 1, 1), args)
        want = (at.astype(np.float32) + b.astype(np.float32)).astype(dt)
        assert np.array_equal(
            out.view(np.uint16 if dt == np.float16 else np.uint32),
            want.view(out.view(np.uint16 if dt == np.float16 else np.uint32).dtype),
        )


def test_gpuops_reduction_kernel_in_cupys_template() -> None:
    """gpuops' REDUCE SUM kernel (CuPy's ReductionKernel template: shared memory tree, a barrier per level) in the
    TU gpuops.nvrtc builds, launched the way CuPy launches it, for several block strides."""
    from descriptors import DataType, FeatureLevel, dtype_combinations
    from descriptors.optable import row_of
    from gpuops.codegen.reduce import reduction_kernel_spec
    from gpuops.nvrtc import batch_reduction_source

    row = row_of("REDUCE")
    spec = next(
        reduction_kernel_spec(row, d, v)
        for v in row.reductions
        for d in dtype_combinations("REDUCE", FeatureLevel.FL_6_4, variant=v)
        if reduction_kernel_spec(row, d, v).name == "gpuops_reduce_sum_int32"
    )
    assert dict(spec.inputs) and spec.scalar_params[0][1] == DataType.INT64
    code = batch_reduction_source([([spec], [(2, 1, True)])])
    (k,) = eb.build([KernelSource(code, f"{spec.name}_211")])
    reduced, kept = 700, 37
    x = np.random.default_rng(7).integers(-(2**20), 2**20, (reduced, kept)).astype(np.int32)
    for block_stride in (1, 32, 64, 512):
        out = np.full(kept, 12345, np.int32)
        grid = (kept + block_stride - 1) // block_stride
        args = [_carray(x, 2), struct.pack("<q", reduced), _carray(out, 1), _cindexer(x.shape), _cindexer(out.shape)]
        args.append(_i32(block_stride))
        assert [len(a) for a in args] == list(k.param_sizes)
        k.launch((grid, 1, 1), (512, 1, 1), args)
        assert out.tolist() == x.sum(axis=0, dtype=np.int64).astype(np.int32).tolist(), block_stride


def test_unguarded_integer_division_by_zero_is_a_crash(cache_dir: Path) -> None:
    """x86 traps where a GPU does not: a kernel without a guard must fail loudly (SIGFPE), never pass."""
    script = """
        import struct, numpy as np
        from gpuops.emulator.build import build, KernelSource
        code = 'extern "C" __global__ void divide(const int* a, const int* b, int* c) {'\\
               ' int i = threadIdx.x; c[i] = a[i] / b[i]; }'
        k, = build([KernelSource(code, "divide")])
        a = np.arange(1, 5, dtype=np.int32); b = np.array([1, 2, 0, 4], np.int32); c = np.zeros(4, np.int32)
        k.launch((1, 1, 1), (4, 1, 1), [struct.pack("<Q", x.ctypes.data) for x in (a, b, c)])
        print("NO TRAP", c.tolist())
    """
    res = _run_python(script, cache_dir)
    assert res.returncode == -signal.SIGFPE, (res.returncode, res.stdout, res.stderr[-2000:])
    assert "NO TRAP" not in res.stdout


def test_barrier_divergence_is_a_crash(cache_dir: Path) -> None:
    """Threads that leave before a barrier others wait at: undefined on a GPU, a loud failure here."""
    script = """
        import struct, numpy as np
        from gpuops.emulator.build import build, KernelSource
        code = 'extern "C" __global__ void k(int* o) { __shared__ int s[64]; if (threadIdx.x < 5) return;'\\
               ' s[threadIdx.x] = 1; __syncthreads(); o[threadIdx.x] = s[63 - threadIdx.x]; }'
        k, = build([KernelSource(code, "k")])
        o = np.zeros(64, np.int32)
        k.launch((1, 1, 1), (64, 1, 1), [struct.pack("<Q", o.ctypes.data)])
        print("NOT CAUGHT")
    """
    res = _run_python(script, cache_dir)
    assert res.returncode == -signal.SIGABRT and "NOT CAUGHT" not in res.stdout, (res.returncode, res.stderr[-2000:])
    assert "barrier divergence in block (0, 0, 0)" in res.stderr


def test_disk_cache_hit_and_concurrent_builds(tmp_path: Path) -> None:
    fresh = tmp_path / "cache"
    script = """
        import json, struct, sys, numpy as np
        from gpuops.emulator import build as eb
        k, = eb.build([eb.KernelSource(sys.argv[1] if len(sys.argv) > 1 else %r, "axpy")])
        x = np.arange(10, dtype=np.float32); y = np.ones(10, np.float32)
        k.launch((1, 1, 1), (16, 1, 1), [struct.pack("<Q", x.ctypes.data), struct.pack("<Q", y.ctypes.data),
                                          struct.pack("<f", 3.0), struct.pack("<i", 10)])
        print(json.dumps({"compiles": eb.compile_count, "y": y.tolist()}))
    """ % (AXPY + "// concurrent\n")
    env = dict(os.environ, GPUOPS_CACHE_DIR=str(fresh), PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-c", textwrap.dedent(script)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) for _ in "ab"]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    results = [json.loads(o[0].strip().splitlines()[-1]) for o in outs]
    want = (np.float32(3) * np.arange(10, dtype=np.float32) + 1).tolist()
    assert all(r["y"] == want for r in results)
    assert sum(r["compiles"] for r in results) == 1  # the lock let one process compile; the other loaded it
    again = _run_python(script, fresh)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads(again.stdout.strip().splitlines()[-1])["compiles"] == 0  # a disk cache hit
    assert not [p for p in (fresh / "emulator").iterdir() if p.suffix not in (".so",)]  # no temp files left
    assert (fresh / "emulator").stat().st_mode & 0o077 == 0
    # In this process: the same batch again compiles nothing.
    with config.override(cache_dir=fresh):
        before = eb.compile_count
        eb.build([KernelSource(AXPY + "// concurrent\n", "axpy")])
        assert eb.compile_count == before


def test_cache_folder_open_to_others_is_not_used(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    with config.override(cache_dir=shared), caplog.at_level("WARNING", logger="gpuops"):
        k = _one(AXPY + "// private temp\n", "axpy")
    assert "group or others have access" in caplog.text and str(shared) in caplog.text
    assert not (shared / "emulator").exists() and not k.path.is_relative_to(shared)
    x, y = np.ones(4, np.float32), np.ones(4, np.float32)
    k.launch((1, 1, 1), (4, 1, 1), [_ptr(x), _ptr(y), struct.pack("<f", 2.0), _i32(4)])
    assert y.tolist() == [3.0] * 4


def test_compile_error_names_the_kernel() -> None:
    bad = 'extern "C" __global__ void broken_kernel(float* o) { o[0] = undefined_name; }'
    with pytest.raises(eb.CompileError, match=r"(?s)broken_kernel.*undefined_name"):
        _one(bad, "broken_kernel")
    with pytest.raises(ValueError, match="defines no __global__ void missing"):
        _one(AXPY, "missing")


def test_same_kernel_name_in_two_units() -> None:
    """Two units may define the same extern "C" kernel (and inline helper) differently."""
    a = 'inline __device__ int f() { return 1; }\nextern "C" __global__ void k(int* o) { o[threadIdx.x] = f(); }'
    b = 'inline __device__ int f() { return 2; }\nextern "C" __global__ void k(int* o) { o[threadIdx.x] = f(); }'
    ka, kb = eb.build([KernelSource(a, "k"), KernelSource(b, "k")])
    oa, ob = np.zeros(3, np.int32), np.zeros(3, np.int32)
    ka.launch((1, 1, 1), (3, 1, 1), [_ptr(oa)])
    kb.launch((1, 1, 1), (3, 1, 1), [_ptr(ob)])
    assert oa.tolist() == [1, 1, 1] and ob.tolist() == [2, 2, 2]


def test_sanitize_follows_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    with config.override(emulator_sanitize=True):
        assert eb._sanitize_default() is True
    assert eb._sanitize_default() is False
    monkeypatch.setenv("GPUOPS_EMULATOR_SANITIZE", "yes")
    with pytest.raises(ValueError, match="GPUOPS_EMULATOR_SANITIZE='yes' is not valid"):
        config.read()
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    with pytest.raises(RuntimeError, match="sanitizer runtime preloaded"):
        eb.build([KernelSource(AXPY, "axpy")], sanitize=True)


def test_sanitizer_catches_out_of_bounds_read(cache_dir: Path) -> None:
    """AddressSanitizer under fibers: a barrier kernel runs clean, then an index past the end is caught."""
    env = eb.sanitizer_environment()  # raises (fails the test) where the compiler has no libasan
    env["LD_PRELOAD"] = env["LD_PRELOAD"].replace(" ", ":")
    script = """
        import struct, numpy as np
        from gpuops.emulator.build import build, KernelSource
        import test_emulator_build as t
        code = 'extern "C" __global__ void shift(const float* x, float* y, int n) {'\\
               ' int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i + 1]; }'
        r, k = build([KernelSource(t.REDUCE, "block_sum"), KernelSource(code, "shift")], sanitize=True)
        x = np.random.default_rng(3).integers(-1000, 1000, 5000).astype(np.int64); p = np.zeros(7, np.int64)
        r.launch((7, 1, 1), (256, 1, 1), [t._ptr(x), t._ptr(p), t._i32(5000)])
        print("REDUCE", p.tolist() == t._reduce_reference(x, 7, 256).tolist(), flush=True)
        x = np.ones(1000, np.float32); y = np.zeros(1000, np.float32)
        k.launch((4, 1, 1), (256, 1, 1), [t._ptr(x), t._ptr(y), t._i32(1000)])
        print("NOT CAUGHT")
    """
    env["PYTHONPATH"] = f"{ROOT}:{Path(__file__).resolve().parent}"
    res = _run_python(script, cache_dir, env)
    assert "REDUCE True" in res.stdout, (res.stdout, res.stderr[-3000:])
    assert res.returncode != 0 and "NOT CAUGHT" not in res.stdout, (res.returncode, res.stderr[-3000:])
    assert "AddressSanitizer: heap-buffer-overflow" in res.stderr, res.stderr[-3000:]


def test_sanitizer_catches_overflowing_shift(cache_dir: Path) -> None:
    env = eb.sanitizer_environment()
    env["LD_PRELOAD"] = env["LD_PRELOAD"].replace(" ", ":")
    script = """
        import struct, numpy as np
        from gpuops.emulator.build import build, KernelSource
        code = 'extern "C" __global__ void sh(const int* a, int* b) { int i = threadIdx.x; b[i] = 1 << a[i]; }'
        k, = build([KernelSource(code, "sh")], sanitize=True)
        a = np.array([1, 40], np.int32); b = np.zeros(2, np.int32)
        k.launch((1, 1, 1), (2, 1, 1), [struct.pack("<Q", a.ctypes.data), struct.pack("<Q", b.ctypes.data)])
        print("NOT CAUGHT")
    """
    res = _run_python(script, cache_dir, env)
    assert res.returncode != 0 and "NOT CAUGHT" not in res.stdout, (res.returncode, res.stderr[-3000:])
    assert "shift exponent 40 is too large" in res.stderr, res.stderr[-3000:]


def test_first_launch_builds_counts_kernels_no_batch_built() -> None:
    """``kernels.first_launch_builds`` (the test session's summary: what its batch build missed) counts a kernel
    compiled alone at its first use, not one a ``prebuild`` batch compiled, nor a second use of either."""
    from gpuops.emulator import kernels

    tag = f"{os.getpid()}_{id(object())}"  # kernel texts no other test (or earlier run) put in the process cache
    alone = AXPY.replace("axpy", f"axpy_alone_{tag}")
    batched = AXPY.replace("axpy", f"axpy_batched_{tag}")
    before = kernels.first_launch_builds()
    kernels.prebuild([KernelSource(batched, f"axpy_batched_{tag}")])
    kernels.get_kernel(batched, f"axpy_batched_{tag}")
    assert kernels.first_launch_builds() == before
    kernels.get_kernel(alone, f"axpy_alone_{tag}")
    kernels.get_kernel(alone, f"axpy_alone_{tag}")
    assert kernels.first_launch_builds() == before + 1
