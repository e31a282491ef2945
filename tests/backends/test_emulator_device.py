"""``Device("emulator")``: the CuPy backend's own code path, kernels compiled by the host C++ compiler
(gpuops.emulator), compared with the NumPy backend on every launch path; and the emulator runtime's CuPy
strictness (argument count, type, dtype, scalar kind) and bounds-checked views."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from helpers import buffer_for, random_values, read_tensor, uint_view

import gpuops
from descriptors import (
    ArgmaxOperatorDesc,
    DataType,
    ElementWiseAddOperatorDesc,
    ElementWiseDivideOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)
from gpuops import config
from gpuops.emulator import build as eb
from gpuops.layout import reduce_plan

try:
    eb.compiler()
except eb.CompilerUnavailable as exc:  # g++ is present here and in CI
    pytest.skip(f"no C++ compiler for the CUDA emulator: {exc}", allow_module_level=True)

from gpuops.emulator import runtime as rt  # noqa: E402 - after the skip

F32, F16, I32 = DataType.FLOAT32, DataType.FLOAT16, DataType.INT32
RNG = np.random.default_rng(20240614)


def _compile(backend: str, desc: object) -> gpuops.CompiledOperator:
    dev = gpuops.Device(backend)
    return dev.compile_operator(dev.create_operator(desc))


def _both(desc: object, ins: list[np.ndarray], out_desc: TensorDesc) -> tuple[str, np.ndarray, np.ndarray]:
    """(emulator launch path, emulator output buffer, NumPy-backend output buffer); outputs start as a sentinel."""
    outs = []
    path = ""
    for backend in ("emulator", "numpy"):
        op = _compile(backend, desc)
        out = buffer_for(out_desc, np.zeros(out_desc.sizes), fill=7)
        if backend == "emulator":  # device arrays, as on CuPy (host arrays are refused there)
            dev_out = rt.asarray(out)
            op.execute([rt.asarray(b) for b in ins], [dev_out])
            out = rt.asnumpy(dev_out)
        else:
            op.execute([b.copy() for b in ins], [out])
        outs.append(out)
        path = path or op.launch_path
    return path, outs[0], outs[1]


def test_readme_example() -> None:
    a_desc = TensorDesc(F32, (2, 3))
    b_desc = TensorDesc.broadcast(F32, (3,), to=(2, 3))
    desc = ElementWiseAddOperatorDesc(a_tensor=a_desc, b_tensor=b_desc, output_tensor=a_desc)
    device = gpuops.Device("emulator")
    assert device.backend == "emulator"
    op = device.compile_operator(device.create_operator(desc))
    out = rt.empty(6, dtype=np.float32)
    op.execute([rt.asarray(np.arange(6, dtype=np.float32)), rt.asarray(np.float32([10, 20, 30]))], [out])
    assert rt.asnumpy(out).tolist() == [10, 21, 32, 13, 24, 35]
    with pytest.raises(gpuops.BindingError, match="must be bound to a gpuops.emulator.memory.ndarray"):
        op.execute([np.arange(6, dtype=np.float32), np.float32([10, 20, 30])], [np.empty(6, np.float32)])
    assert op.launch_path == "rows" and "ElementwiseKernel" in op.kernel_source


def test_unusable_emulator_is_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    from gpuops.emulator import runtime

    monkeypatch.setattr(runtime, "unavailable_reason", lambda: "no usable C++ compiler (tried g++)")
    with pytest.raises(gpuops.UnsupportedError, match="'emulator' is not usable here: no usable C"):
        gpuops.Device("emulator")


@pytest.mark.parametrize("dt", [F32, F16])
@pytest.mark.parametrize("case", ["aligned", "unaligned", "scalar"])
def test_flat(dt: DataType, case: str) -> None:
    n = 16 * 64 + 5  # whole packs and a tail
    t = TensorDesc(dt, (n,))
    b_desc = TensorDesc.broadcast(dt, (1,), to=(n,)) if case == "scalar" else t
    desc = ElementWiseMultiplyOperatorDesc(t, b_desc, t)
    a = buffer_for(t, random_values(dt, (n,), RNG))
    b = buffer_for(b_desc, random_values(dt, (1,) if case == "scalar" else (n,), RNG))
    outs = []
    for backend in ("emulator", "numpy"):
        op = _compile(backend, desc)
        assert backend == "numpy" or op.launch_path == "flat"
        xp = rt if backend == "emulator" else np
        store = xp.zeros(a.size + 1, a.dtype)
        out = store[1:] if case == "unaligned" else store[:-1]  # 2 or 4 bytes off: the scalar-only path
        a_buf = xp.asarray(np.concatenate([a[:1], a]))[1:] if case == "unaligned" else xp.asarray(a.copy())
        ins = [a_buf, xp.asarray(b.copy())]
        address = out.data.ptr if backend == "emulator" else out.ctypes.data
        assert (address % 16 == 0) == (case != "unaligned")  # packs, or the scalar-only path
        op.execute(ins, [out])
        outs.append(rt.asnumpy(out) if backend == "emulator" else out)
    assert np.array_equal(uint_view(outs[0]), uint_view(outs[1]))


ROWS, COLS = 37, 45


@pytest.mark.parametrize(
    "layout",
    ["row-broadcast", "column-broadcast", "scalar-transposed", "transposed-output", "padded-rows"],
)
def test_rows(layout: str) -> None:
    packed = TensorDesc(F32, (ROWS, COLS))
    a_desc, b_desc, out_desc = packed, packed, packed
    if layout == "row-broadcast":
        b_desc = TensorDesc.broadcast(F32, (COLS,), to=(ROWS, COLS))
    elif layout == "column-broadcast":
        b_desc = TensorDesc(F32, (ROWS, COLS), strides=(1, 0))
    elif layout == "scalar-transposed":
        a_desc = TensorDesc(F32, (ROWS, COLS), strides=(1, ROWS))
        b_desc = TensorDesc(F32, (ROWS, COLS), strides=(0, 0))
    elif layout == "transposed-output":
        out_desc = TensorDesc(F32, (ROWS, COLS), strides=(1, ROWS))
    else:
        a_desc = out_desc = TensorDesc(F32, (ROWS, COLS), strides=(COLS + 3, 1))
    desc = ElementWiseAddOperatorDesc(a_desc, b_desc, out_desc)
    a = buffer_for(a_desc, random_values(F32, (ROWS, COLS), RNG))
    b_vals = random_values(F32, (ROWS, COLS), RNG)
    if layout == "row-broadcast":
        b_vals = np.broadcast_to(b_vals[:1], (ROWS, COLS))
    elif layout == "column-broadcast":
        b_vals = np.broadcast_to(b_vals[:, :1], (ROWS, COLS))
    elif layout == "scalar-transposed":
        b_vals = np.broadcast_to(b_vals[:1, :1], (ROWS, COLS))
    b = buffer_for(b_desc, b_vals)
    path, got, want = _both(desc, [a, b], out_desc)
    assert path == "rows"
    assert np.array_equal(uint_view(got), uint_view(want))  # the padding keeps its sentinel on both
    assert np.array_equal(read_tensor(got, out_desc), read_tensor(a, a_desc) + b_vals)


def test_elementwise_three_dimensions() -> None:
    sizes = (4, 5, 6)
    a_desc = TensorDesc(F16, sizes, strides=(1, 4, 20))  # a transposed 3-D layout
    b_desc = TensorDesc(F16, sizes, strides=(0, 1, 0))  # broadcast along two axes
    out_desc = TensorDesc(F16, sizes)
    desc = ElementWiseAddOperatorDesc(a_desc, b_desc, out_desc)
    a = buffer_for(a_desc, random_values(F16, sizes, RNG))
    b = buffer_for(b_desc, np.broadcast_to(random_values(F16, (1, 5, 1), RNG), sizes))
    path, got, want = _both(desc, [a, b], out_desc)
    assert path == "elementwise"
    assert np.array_equal(uint_view(got), uint_view(want))


@pytest.mark.parametrize("strides", [None, (1, 3)])
def test_integer_division_by_zero_is_guarded(strides: tuple[int, int] | None) -> None:
    """Division by zero and INT_MIN / -1 do not trap on the host either (they would kill the process)."""
    t, out = TensorDesc(I32, (3, 3), strides=strides), TensorDesc(I32, (3, 3))  # transposed inputs: rows
    a = buffer_for(t, np.array([[7, -7, -(2**31)], [5, 0, 2**31 - 1], [-9, 9, 1]]))
    b = buffer_for(t, np.array([[0, 2, -1], [-3, 0, 7], [4, -4, 0]]))
    path, got, want = _both(ElementWiseDivideOperatorDesc(t, t, out), [a, b], out)
    assert path == ("flat" if strides is None else "rows")
    assert got.tolist() == want.tolist()


# The two-pass path at a twentieth of its default size (reduce_plan.DEFAULT_POLICY replaced, as its docstring
# allows): the same kernels, parts and remainder, in seconds instead of a minute under the sanitizers.
SMALL_TWO_PASS = reduce_plan.TwoPassPolicy(min_reduced=1024, min_total=1 << 12, min_part=256)


@pytest.fixture
def small_two_pass(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The small two-pass policy."""
    monkeypatch.setattr(reduce_plan, "DEFAULT_POLICY", SMALL_TWO_PASS)
    yield


@pytest.mark.parametrize(
    ("function", "shape", "axes", "path"),
    [
        (ReduceFunction.SUM, (16, 300), (1,), "rows reduction"),  # one contiguous span per output
        (ReduceFunction.SUM, (300, 16), (0,), "columns reduction"),  # an outer axis, kept axes after it
        (ReduceFunction.SUM, (16, 300, 5), (0, 2), "reduction"),  # reduced axes not adjacent: CuPy's kernel
        (ReduceFunction.MAX, (3, 40, 5), (0, 2), "reduction"),
        (ReduceFunction.SUM, (5003,), (0,), "split rows reduction"),  # one row in 19 parts of 264 (min_part 256)
        (ReduceFunction.SUM, (5003, 2), (0,), "split columns reduction"),  # a long outer axis in parts, one launch
        (ReduceFunction.SUM, (64, 2, 64), (0, 2), "two-pass reduction"),  # reduced axes not adjacent: two passes
    ],
)
def test_reduce(
    function: ReduceFunction, shape: tuple[int, ...], axes: tuple[int, ...], path: str, small_two_pass: None
) -> None:
    out_sizes = tuple(1 if i in axes else s for i, s in enumerate(shape))
    in_desc, out_desc = TensorDesc(F32, shape), TensorDesc(F32, out_sizes)
    x = random_values(F32, shape, RNG).ravel()
    got_path, got, want = _both(ReduceOperatorDesc(function, in_desc, out_desc, axes=axes), [x], out_desc)
    assert got_path == path
    scale = np.abs(x.reshape(shape)).sum(axis=axes).ravel() + 1
    assert np.all(np.abs(got - want) <= 1e-5 * scale), (got, want)


def test_rows_kernel_is_on_by_default() -> None:
    """GPUOPS_CUPY_ROWS_REDUCE defaults to 1: an inner-axis reduction runs issue 33's rows kernel; with it off,
    CuPy's ReductionKernel, with the same answer within the row's bound."""
    in_desc, out_desc = TensorDesc(F32, (16, 300)), TensorDesc(F32, (16, 1))
    desc = ReduceOperatorDesc(ReduceFunction.SUM, in_desc, out_desc, axes=(1,))
    x = random_values(F32, (16, 300), RNG).ravel()
    path, rows, want = _both(desc, [x], out_desc)
    assert path == "rows reduction"
    with config.override(cupy_rows_reduce=False):
        path, plain, _ = _both(desc, [x], out_desc)
    assert path == "reduction"
    scale = np.abs(x.reshape(16, 300)).sum(axis=1) + 1
    assert np.all(np.abs(rows - want) <= 1e-5 * scale) and np.all(np.abs(plain - want) <= 1e-5 * scale)


@pytest.mark.parametrize(
    ("shape", "path"),
    [((8, 300), "rows reduction"), ((1, 5003), "split rows reduction"), ((3, 5003), "split rows reduction")],
)
def test_argmax(shape: tuple[int, int], path: str, small_two_pass: None) -> None:
    in_desc, out_desc = TensorDesc(F32, shape), TensorDesc(DataType.UINT32, (shape[0], 1))
    x = RNG.permutation(shape[0] * shape[1]).astype(np.float32)  # distinct values: no ties
    got_path, got, want = _both(ArgmaxOperatorDesc(in_desc, out_desc, axes=(1,)), [x], out_desc)
    assert got_path == path
    assert got.tolist() == want.tolist() == x.reshape(shape).argmax(axis=1).tolist()


def test_emulator_arrays_bind_too() -> None:
    t = TensorDesc(F32, (10,))
    op = _compile("emulator", ElementWiseAddOperatorDesc(t, t, t))
    a, b = rt.asarray(np.arange(10, dtype=np.float32)), rt.full(10, 2, np.float32)
    out = rt.empty(10, np.float32)
    op.execute([a, b], [out])
    assert rt.asnumpy(out).tolist() == [v + 2 for v in range(10)]
    with pytest.raises(gpuops.BindingError, match="dtype"):
        op.execute([a, b], [rt.empty(10, np.float64)])


# ---------------------------------------------------------------------------------------------- the runtime

AXPY = r"""
extern "C" __global__ void emu_axpy(const float* x, float* y, float a, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""


def test_raw_kernel_packs_and_checks_arguments() -> None:
    k = rt.RawKernel(AXPY, "emu_axpy")
    x, y = rt.asarray(np.arange(5, dtype=np.float32)), rt.ones(5, np.float32)
    k((1,), (8,), (x, y, np.float32(2), np.uint32(5)))
    assert y.get().tolist() == [1, 3, 5, 7, 9]
    with pytest.raises(TypeError, match="argument 2 is 8 bytes, its parameter takes 4"):
        k((1,), (8,), (x, y, 2.0, np.uint32(5)))  # a Python float is a double, as in CuPy
    with pytest.raises(TypeError, match="takes 4 arguments, 3 given"):
        k((1,), (8,), (x, y, np.float32(2)))
    with pytest.raises(TypeError, match="Unsupported type <class 'numpy.ndarray'>"):
        k((1,), (8,), (x.get(), y, np.float32(2), np.uint32(5)))  # host memory is no kernel argument
    with pytest.raises(TypeError, match="expected tuple"):
        k([1], (8,), (x, y, np.float32(2), np.uint32(5)))
    before = eb.compile_count
    rt.RawKernel(AXPY, "emu_axpy")((1,), (8,), (x, y, np.float32(0), np.uint32(5)))
    assert eb.compile_count == before  # the same source never compiles twice


def test_elementwise_kernel_is_as_strict_as_cupy() -> None:
    k = rt.ElementwiseKernel("float32 x, T y, int8 s", "T z", "z = x + y * s", "emu_ew")
    x = rt.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = rt.asarray(np.array([1.0, 2.0, 3.0]))
    z = k(x, y, 2)
    assert z.dtype == np.float64 and z.get().tolist() == [[2, 5, 8], [5, 8, 11]]
    with pytest.raises(TypeError, match=r"Wrong number of arguments for 'emu_ew'. It must be either 3 or 4"):
        k(x, y)
    with pytest.raises(TypeError, match="Type is mismatched"):
        k(rt.asarray(np.zeros(3, np.float64)), y, 1)
    with pytest.raises(OverflowError):
        k(x, y, 300)  # does not fit int8
    with pytest.raises(TypeError, match="Unsupported type"):
        k(x.get(), y, 1)
    with pytest.raises(ValueError, match="Out shape is mismatched"):
        k(x, y, 1, rt.empty((3,), np.float64))
    with pytest.raises(ValueError, match="could not be broadcast"):
        k(x, rt.asarray(np.zeros(4)), 1)


def test_reduction_kernel_is_as_strict_as_cupy() -> None:
    k = rt.ReductionKernel("T x, int64 n", "float32 y", "x", "a + b", "y = a / n", "0", "emu_mean", reduce_type="float")
    x = rt.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert k(x, np.int64(4), axis=1).get().tolist() == [1.5, 5.5, 9.5]
    assert k(x, np.int64(3), axis=0, keepdims=True).shape == (1, 4)
    with pytest.raises(TypeError, match="Wrong number of arguments for emu_mean"):
        k(x)
    with pytest.raises(TypeError, match="Wrong arguments"):
        k(x, np.int64(4), axes=1)
    with pytest.raises(np.exceptions.AxisError):
        k(x, np.int64(4), axis=2)


def test_views_outside_their_allocation_are_refused() -> None:
    a = rt.empty((4, 6), np.float32)  # 96 bytes
    assert rt.ndarray((6, 4), np.float32, memptr=a.data, strides=(4, 24)).flags.f_contiguous
    with pytest.raises(ValueError, match=r"reaches bytes \[0, 100\) of an allocation of 96 bytes"):
        rt.ndarray((7, 4), np.float32, memptr=a.data, strides=(4, 24))
    with pytest.raises(ValueError, match="outside the buffer"):
        rt.ndarray((2,), np.float32, memptr=a.data + 92)
    with pytest.raises(ValueError, match="outside the buffer"):
        rt.ndarray((3,), np.float32, memptr=a.data + 4, strides=(-4,))
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(a)
