"""Bound buffers of any shape, and ndarray subclasses (issue 13, items 1 and 9).

The rule (README, Binding rules; gpuops/binding.py): a DirectML binding is a range of memory
(``DML_BUFFER_BINDING``), so a C-contiguous buffer of any shape is read through its flat 1-D
view, on every backend path; a buffer must be the backend's array type itself (``numpy.memmap``
too); other subclasses are refused with a ``BindingError`` before anything is written.
References are float64 NumPy on the logical tensors.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from helpers import run_fresh_python

import gpuops
from descriptors import (
    ActivationReluOperatorDesc,
    DataType,
    ElementWiseAdd1OperatorDesc,
    ElementWiseAddOperatorDesc,
    ElementWiseExpOperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)

F16, F32 = DataType.FLOAT16, DataType.FLOAT32


def compiled(desc: object) -> gpuops.CompiledOperator:
    dev = gpuops.Device("numpy")
    return dev.compile_operator(dev.create_operator(desc))


def rng_values(n: int, dtype: type, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-4, 4, n).astype(dtype)


def test_rows_loop_with_2d_output_buffer_in_a_fresh_process() -> None:
    """The heap corruption: a float16 row-broadcast ADD1 (the numba rows loop) with its output
    bound as a (rows, cols) array. Run in a process of its own so a crash fails this test only."""
    script = textwrap.dedent(
        """
        import numpy as np, gpuops
        from descriptors import DataType, ElementWiseAdd1OperatorDesc, TensorDesc
        F16 = DataType.FLOAT16
        rows, cols = 64, 256
        a = TensorDesc(F16, (rows, cols))
        b = TensorDesc.broadcast(F16, (cols,), to=(rows, cols))
        dev = gpuops.Device("numpy")
        op = dev.compile_operator(dev.create_operator(ElementWiseAdd1OperatorDesc(a, b, a)))
        rng = np.random.default_rng(1)
        A = rng.uniform(-4, 4, rows * cols).astype(np.float16)
        B = rng.uniform(-4, 4, cols).astype(np.float16)
        out = np.full((rows, cols), 7, np.float16)
        op.execute([A, B], [out])
        want = (A.reshape(rows, cols).astype(np.float64) + B.astype(np.float64)).astype(np.float16)
        print(op.launch_path, bool(np.array_equal(out, want)))
        """
    )
    out = run_fresh_python(script).split()
    assert out[-1] == "True", out


@pytest.mark.parametrize("n", [6, 5000])  # 6: NumPy's ufunc path; 5000: the compiled loop where numba is there
@pytest.mark.parametrize("dtype", [F32, F16])
def test_nd_buffers_read_flat(n: int, dtype: DataType) -> None:
    """Inputs and output bound as N-D, 0-stride-free C-contiguous arrays give the flat answer."""
    t = TensorDesc(dtype, (n,))
    op = compiled(ElementWiseAddOperatorDesc(t, t, t))
    npd = dtype.numpy_dtype
    a, b = rng_values(n, npd, 1), rng_values(n, npd, 2)
    shape = (2, 3) if n == 6 else (50, 10, 10)
    out = np.full(shape, 9, npd)
    op.execute([a.reshape(shape), b.reshape(shape)], [out])
    want = (a.astype(np.float64) + b.astype(np.float64)).astype(npd)
    np.testing.assert_array_equal(out.reshape(-1), want)


def test_nd_buffer_with_padding_and_strided_tensor() -> None:
    """A transposed (strided) tensor over a 2-D buffer, the output a 3-D buffer larger than needed:
    bytes past the tensor stay as they were."""
    a_t = TensorDesc(F32, (3, 4), (1, 3))  # the buffer holds the transpose
    o_t = TensorDesc(F32, (3, 4))
    op = compiled(ElementWiseExpOperatorDesc(a_t, o_t))
    a = rng_values(12, np.float32, 3)
    out = np.full((2, 2, 4), -1.0, np.float32)  # 16 elements, the tensor uses 12
    op.execute([a.reshape(4, 3)], [out])
    logical = a.reshape(4, 3).T.astype(np.float64)
    np.testing.assert_allclose(out.reshape(-1)[:12].reshape(3, 4), np.exp(logical), rtol=4e-7)
    assert (out.reshape(-1)[12:] == -1.0).all()


def test_nd_buffer_in_place() -> None:
    """In place with the very same 2-D array as input and output."""
    t = TensorDesc(F32, (4, 5))
    op = compiled(ElementWiseAddOperatorDesc(t, t, t))
    a = rng_values(20, np.float32, 4).reshape(4, 5)
    b = rng_values(20, np.float32, 5)
    want = (a.astype(np.float64) + b.reshape(4, 5)).astype(np.float32)
    op.execute([a, b], [a])
    np.testing.assert_array_equal(a, want)


def test_nd_partial_overlap_still_rejected() -> None:
    """Flattening does not hide an overlap: two 2-D views of one buffer, shifted by a row."""
    t = TensorDesc(F32, (2, 3))
    op = compiled(ElementWiseAddOperatorDesc(t, t, t))
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    before = base.copy()
    with pytest.raises(gpuops.BindingError, match="partially overlaps"):
        op.execute([base[:2], np.zeros(6, np.float32)], [base[1:3]])
    np.testing.assert_array_equal(base, before)


def test_zero_d_buffer_for_a_one_element_tensor() -> None:
    t = TensorDesc(F32, (1,))
    op = compiled(ElementWiseAdd1OperatorDesc(t, t, t, fused_activation=ActivationReluOperatorDesc()))
    out = np.array(5.0, np.float32)
    op.execute([np.array(-3.0, np.float32), np.array(1.0, np.float32)], [out])
    assert out.shape == () and float(out) == 0.0


def test_reduction_reads_an_nd_buffer_flat() -> None:
    x_t = TensorDesc(F32, (3, 8))
    op = compiled(ReduceOperatorDesc(ReduceFunction.SUM, x_t, TensorDesc(F32, (3, 1)), axes=(1,)))
    x = rng_values(24, np.float32, 6)
    out = np.zeros((1, 3), np.float32)
    op.execute([x.reshape(2, 12)], [out])
    np.testing.assert_allclose(out.reshape(-1), x.astype(np.float64).reshape(3, 8).sum(axis=1), rtol=1e-6)


def test_memmap_binds_as_plain_memory(tmp_path: object) -> None:
    t = TensorDesc(F32, (2, 3))
    op = compiled(ElementWiseAddOperatorDesc(t, t, t))
    path = str(tmp_path) + "/buf.bin"  # type: ignore[operator]
    a = np.memmap(path, dtype=np.float32, mode="w+", shape=(2, 3))
    a[:] = rng_values(6, np.float32, 7).reshape(2, 3)
    out = np.memmap(path + ".out", dtype=np.float32, mode="w+", shape=(6,))
    b = rng_values(6, np.float32, 8)
    op.execute([a, b], [out])
    want = (np.asarray(a).reshape(-1).astype(np.float64) + b).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(out), want)


class _Tagged(np.ndarray):
    """A subclass whose meaning binding cannot know."""


@pytest.mark.parametrize(
    "make",
    [
        lambda x: np.asmatrix(x.reshape(2, 3)),
        lambda x: np.ma.masked_array(x, mask=[1, 0, 0, 0, 0, 0]),
        lambda x: x.view(_Tagged),
    ],
    ids=["matrix", "masked", "other-subclass"],
)
@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix itself warns
@pytest.mark.parametrize("slot", ["input", "output"])
def test_subclasses_are_refused_before_any_write(make: object, slot: str) -> None:
    t = TensorDesc(F32, (2, 3))
    op = compiled(ElementWiseAddOperatorDesc(t, t, t))
    a = rng_values(6, np.float32, 9)
    out = np.full(6, -7.0, np.float32)
    sub = make(np.full(6, -7.0, np.float32) if slot == "output" else a.copy())  # type: ignore[operator]
    watch = sub if slot == "output" else out
    before = np.array(watch, copy=True)
    inputs, outputs = ([a, a], [sub]) if slot == "output" else ([sub, a], [out])
    with pytest.raises(gpuops.BindingError, match=r"subclass.*np\.asarray"):
        op.execute(inputs, outputs)
    np.testing.assert_array_equal(np.asarray(watch), before)
    op.execute([np.asarray(x) for x in inputs], [np.asarray(o) for o in outputs])  # the remedy works
