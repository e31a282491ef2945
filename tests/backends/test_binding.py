"""DirectML-style binding: every BindingError, raised before anything is written; in place; the kernel cache.

Rules (API.md, CompiledOperator.execute; docs/reference/directml.md section 8): one buffer
per tensor in the operator's order; each a C-contiguous array of the backend with the
tensor's dtype and at least total_tensor_size_in_bytes bytes, whose address is a multiple of
guaranteed_base_offset_alignment; an output may be the very same buffer as an input only
when the operator runs in place and the descriptors are identical; any other overlap is
rejected; every binding problem raises BindingError before anything is written.
"""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest
from helpers import buffer_for, read_tensor, run_fresh_python, to_backend, to_host

import gpuops
from descriptors import (
    DataType,
    ElementWiseAddOperatorDesc,
    ElementWiseLogicalEqualsOperatorDesc,
    ElementWiseLogicalXorOperatorDesc,
    TensorDesc,
)

F32 = DataType.FLOAT32
T23 = TensorDesc(F32, (2, 3))
SENTINEL = -12345.0


def compiled(device: gpuops.Device, desc: object) -> gpuops.CompiledOperator:
    return device.compile_operator(device.create_operator(desc))


def address(buf: object) -> int:
    if isinstance(buf, np.ndarray):
        return int(buf.__array_interface__["data"][0])
    return int(buf.data.ptr)  # type: ignore[attr-defined]


@pytest.fixture
def add_op(device: gpuops.Device) -> gpuops.CompiledOperator:
    return compiled(device, ElementWiseAddOperatorDesc(T23, T23, T23))


def operands(xp: object) -> tuple:
    a = to_backend(xp, np.arange(6, dtype=np.float32))
    b = to_backend(xp, np.arange(6, dtype=np.float32) * 10)
    out = to_backend(xp, np.full(6, SENTINEL, np.float32))
    return a, b, out


def assert_untouched(buf: object, want: np.ndarray) -> None:
    np.testing.assert_array_equal(to_host(buf), want)


def expect_binding_error(
    op: gpuops.CompiledOperator, inputs: list, outputs: list, watch: object, want: np.ndarray, *parts: str
) -> None:
    with pytest.raises(gpuops.BindingError) as info:
        op.execute(inputs, outputs)
    assert isinstance(info.value, ValueError)
    msg = str(info.value)
    for part in parts:
        assert part in msg, f"{part!r} missing from: {msg}"
    assert_untouched(watch, want)


SENTINELS = np.full(6, SENTINEL, np.float32)


# --- the errors ------------------------------------------------------------------------------


def test_wrong_input_count(add_op: gpuops.CompiledOperator, xp: object) -> None:
    a, b, out = operands(xp)
    expect_binding_error(add_op, [a], [out], out, SENTINELS, "ELEMENT_WISE_ADD", "1 input")
    expect_binding_error(add_op, [a, b, a], [out], out, SENTINELS, "3 input")


def test_wrong_output_count(add_op: gpuops.CompiledOperator, xp: object) -> None:
    a, b, out = operands(xp)
    other = to_backend(xp, np.full(6, SENTINEL, np.float32))
    expect_binding_error(add_op, [a, b], [out, other], out, SENTINELS, "2 output")
    assert_untouched(other, SENTINELS)
    with pytest.raises(gpuops.BindingError):
        add_op.execute([a, b], [])


def test_none_for_required_tensor(add_op: gpuops.CompiledOperator, xp: object) -> None:
    a, b, out = operands(xp)
    expect_binding_error(add_op, [None, b], [out], out, SENTINELS, "a_tensor", "None")
    expect_binding_error(add_op, [a, None], [out], out, SENTINELS, "b_tensor")
    with pytest.raises(gpuops.BindingError, match="output_tensor"):
        add_op.execute([a, b], [None])


def test_list_instead_of_array(add_op: gpuops.CompiledOperator, xp: object) -> None:
    a, b, out = operands(xp)
    expect_binding_error(add_op, [[0.0] * 6, b], [out], out, SENTINELS, "a_tensor", "list")
    with pytest.raises(gpuops.BindingError, match="output_tensor"):
        add_op.execute([a, b], [[0.0] * 6])


def test_inputs_not_a_sequence(add_op: gpuops.CompiledOperator, xp: object) -> None:
    a, b, out = operands(xp)
    expect_binding_error(add_op, a, [out], out, SENTINELS)  # a bare array, not a list of buffers


@pytest.mark.cuda  # Device("emulator") binds NumPy arrays by design: its memory is host memory
def test_numpy_array_on_cupy_backend() -> None:
    import cupy

    op = compiled(gpuops.Device("cupy"), ElementWiseAddOperatorDesc(T23, T23, T23))
    a = np.arange(6, dtype=np.float32)
    out = cupy.full(6, SENTINEL, cupy.float32)
    expect_binding_error(op, [a, cupy.asarray(a)], [out], out, SENTINELS, "a_tensor", "numpy")
    with pytest.raises(gpuops.BindingError):
        op.execute([cupy.asarray(a), cupy.asarray(a)], [np.zeros(6, np.float32)])


def test_non_contiguous_buffer(add_op: gpuops.CompiledOperator, xp: object) -> None:
    a, b, out = operands(xp)
    strided = to_backend(xp, np.arange(12, dtype=np.float32))[::2]
    expect_binding_error(add_op, [strided, b], [out], out, SENTINELS, "a_tensor", "contiguous")
    big_out = to_backend(xp, np.full(12, SENTINEL, np.float32))
    expect_binding_error(add_op, [a, b], [big_out[::2]], big_out, np.full(12, SENTINEL, np.float32), "contiguous")


def test_two_dimensional_buffer(add_op: gpuops.CompiledOperator, xp: object) -> None:
    """A C-contiguous 2-D array of the right dtype and size is a valid buffer (flat bytes are what count)."""
    a, b, out = operands(xp)
    add_op.execute([a.reshape(2, 3), b], [out])
    np.testing.assert_array_equal(to_host(out), np.arange(6, dtype=np.float32) * 11)


def test_larger_multidimensional_buffers(device: gpuops.Device, xp: object) -> None:
    """A (3, 4) buffer holds a (2, 3) tensor in its first 6 elements, for packed and strided views."""
    padded = TensorDesc(DataType.FLOAT32, (2, 3), (4, 1))
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    for desc, want in (
        (ElementWiseAddOperatorDesc(T23, T23, T23), (host.ravel()[:6] * 2).reshape(2, 3)),
        (ElementWiseAddOperatorDesc(padded, padded, T23), (host[:2, :3] * 2)),
    ):
        op = compiled(device, desc)
        out = to_backend(xp, np.full((3, 4), SENTINEL, np.float32))
        buf = to_backend(xp, host)
        op.execute([buf, buf], [out])
        got = to_host(out).ravel()
        np.testing.assert_array_equal(got[:6].reshape(2, 3), want)
        assert (got[6:] == SENTINEL).all()


def test_wrong_dtype(add_op: gpuops.CompiledOperator, xp: object) -> None:
    a, b, out = operands(xp)
    a64 = to_backend(xp, np.arange(6, dtype=np.float64))
    expect_binding_error(add_op, [a64, b], [out], out, SENTINELS, "a_tensor", "float64", "FLOAT32")
    i32 = to_backend(xp, np.zeros(6, np.int32))  # same itemsize, other type
    expect_binding_error(add_op, [a, i32], [out], out, SENTINELS, "b_tensor", "int32")
    out16 = to_backend(xp, np.zeros(12, np.float16))
    with pytest.raises(gpuops.BindingError, match="output_tensor"):
        add_op.execute([a, b], [out16])
    assert_untouched(out16, np.zeros(12, np.float16))


def test_buffer_too_small(add_op: gpuops.CompiledOperator, xp: object) -> None:
    a, b, out = operands(xp)
    small = to_backend(xp, np.arange(5, dtype=np.float32))
    expect_binding_error(add_op, [small, b], [out], out, SENTINELS, "a_tensor", "20", "24")
    small_out = to_backend(xp, np.full(5, SENTINEL, np.float32))
    expect_binding_error(add_op, [a, b], [small_out], small_out, np.full(5, SENTINEL, np.float32), "output_tensor")


def test_buffer_size_rounds_up_to_four_bytes(device: gpuops.Device, xp: object) -> None:
    """FLOAT16 sizes (3,): 6 bytes rounded up to 8, so a 3-element buffer is too small, 4 are enough."""
    t = TensorDesc(DataType.FLOAT16, (3,))
    assert t.total_tensor_size_in_bytes == 8
    op = compiled(device, ElementWiseAddOperatorDesc(t, t, t))
    three = to_backend(xp, np.ones(3, np.float16))
    four = to_backend(xp, np.ones(4, np.float16))
    out = to_backend(xp, np.zeros(4, np.float16))
    expect_binding_error(op, [three, four], [out], out, np.zeros(4, np.float16), "a_tensor", "6", "8")
    op.execute([four, four], [out])
    np.testing.assert_array_equal(to_host(out)[:3], np.full(3, 2, np.float16))


def test_read_only_output() -> None:
    op = compiled(gpuops.Device("numpy"), ElementWiseAddOperatorDesc(T23, T23, T23))
    a, b, out = operands(np)
    out.flags.writeable = False
    expect_binding_error(op, [a, b], [out], out, SENTINELS, "output_tensor", "read-only")
    ro_in = np.arange(6, dtype=np.float32)
    ro_in.flags.writeable = False
    out2 = np.full(6, SENTINEL, np.float32)
    op.execute([ro_in, b], [out2])  # a read-only INPUT is fine
    np.testing.assert_array_equal(out2, np.arange(6, dtype=np.float32) * 11)


def _offset_view(xp: object, count: int, misalign: int) -> tuple[object, object]:
    """A C-contiguous float32 view of ``count`` elements whose address is 16*k + misalign."""
    big = to_backend(xp, np.zeros(count * 4 + 64, np.uint8))
    start = (-address(big)) % 16 + misalign
    view = big[start : start + count * 4].view(np.float32)
    assert view.flags.c_contiguous
    assert address(view) % 16 == misalign
    return big, view


@pytest.mark.parametrize("misalign", [1, 4, 8])
def test_alignment_violation(device: gpuops.Device, xp: object, misalign: int) -> None:
    aligned_a = TensorDesc(F32, (2, 3), guaranteed_base_offset_alignment=16)
    op = compiled(device, ElementWiseAddOperatorDesc(aligned_a, T23, T23))
    _, a, out = operands(xp)
    big, view = _offset_view(xp, 6, misalign)
    view[...] = to_backend(xp, np.arange(6, dtype=np.float32))
    expect_binding_error(op, [view, a], [out], out, SENTINELS, "a_tensor", "16")


def test_alignment_honoured(device: gpuops.Device, xp: object) -> None:
    aligned = TensorDesc(F32, (2, 3), guaranteed_base_offset_alignment=16)
    op = compiled(device, ElementWiseAddOperatorDesc(aligned, T23, aligned))
    _, a_view = _offset_view(xp, 6, 0)
    _, out_view = _offset_view(xp, 6, 0)
    a_view[...] = to_backend(xp, np.arange(6, dtype=np.float32))
    b = to_backend(xp, np.ones(6, np.float32))
    op.execute([a_view, b], [out_view])
    np.testing.assert_array_equal(to_host(out_view), np.arange(6, dtype=np.float32) + 1)
    # An unaligned OUTPUT is rejected as well.
    _, bad_out = _offset_view(xp, 6, 4)
    bad_out[...] = to_backend(xp, SENTINELS)
    expect_binding_error(op, [a_view, b], [bad_out], bad_out, SENTINELS, "output_tensor")


def test_partial_overlap_output_input(add_op: gpuops.CompiledOperator, xp: object) -> None:
    big = to_backend(xp, np.arange(10, dtype=np.float32))
    before = to_host(big).copy()
    a, b, _ = operands(xp)
    expect_binding_error(add_op, [big[0:6], b], [big[2:8]], big, before, "overlap")
    expect_binding_error(add_op, [a, big[4:10]], [big[0:6]], big, before, "overlap")
    # Same start, different lengths: also a partial overlap.
    expect_binding_error(add_op, [big[0:6], b], [big[0:7]], big, before)
    # In place on A is fine, but B partially overlapping that same output is not.
    expect_binding_error(add_op, [big[0:6], big[3:9]], [big[0:6]], big, before, "b_tensor")


def test_disjoint_views_of_one_allocation_are_fine(add_op: gpuops.CompiledOperator, xp: object) -> None:
    big = to_backend(xp, np.arange(12, dtype=np.float32))
    add_op.execute([big[0:6], big[0:6]], [big[6:12]])  # two inputs may overlap each other
    np.testing.assert_array_equal(to_host(big)[6:], np.arange(6, dtype=np.float32) * 2)


@pytest.mark.parametrize(
    "desc_cls",
    [ElementWiseLogicalEqualsOperatorDesc, ElementWiseLogicalXorOperatorDesc],
    ids=["LOGICAL_EQUALS", "LOGICAL_XOR"],
)
def test_output_sharing_input_without_in_place(device: gpuops.Device, xp: object, desc_cls: type) -> None:
    t = TensorDesc(DataType.UINT8, (2, 4))
    op = compiled(device, desc_cls(t, t, t))
    assert not device.operator_support(desc_cls.operator_type).in_place
    host = np.array([0, 1, 2, 3, 0, 1, 2, 3], np.uint8)
    a = to_backend(xp, host.copy())
    b = to_backend(xp, np.array([0, 1, 0, 3, 1, 1, 0, 0], np.uint8))
    expect_binding_error(op, [a, b], [a], a, host, "in place")
    expect_binding_error(op, [b, a], [a], a, host, "in place")


def test_output_sharing_input_with_other_descriptor(device: gpuops.Device, xp: object) -> None:
    transposed = TensorDesc(F32, (3, 2), (1, 3))  # reads the 2x3 buffer column by column
    packed = TensorDesc(F32, (3, 2))
    op = compiled(device, ElementWiseAddOperatorDesc(transposed, packed, packed))
    host = np.arange(6, dtype=np.float32)
    a = to_backend(xp, host.copy())
    b = to_backend(xp, np.ones(6, np.float32))
    expect_binding_error(op, [a, b], [a], a, host, "identical")
    # Same layout spelled differently (explicit packed strides vs None) is still a different descriptor.
    explicit = TensorDesc(F32, (2, 3), (3, 1))
    op2 = compiled(device, ElementWiseAddOperatorDesc(explicit, T23, T23))
    expect_binding_error(op2, [a, b], [a], a, host)


def test_error_reports_before_writing_anything(device: gpuops.Device, xp: object) -> None:
    """A bad LAST binding must not let earlier, valid ones start writing."""
    op = compiled(device, ElementWiseAddOperatorDesc(T23, T23, T23))
    a, b, out = operands(xp)
    expect_binding_error(op, [a, to_backend(xp, np.zeros(6, np.float64))], [out], out, SENTINELS)


# --- what works --------------------------------------------------------------------------------


def test_in_place_identical_layouts(device: gpuops.Device, xp: object) -> None:
    rng = np.random.default_rng(7)
    a_host = rng.standard_normal(6).astype(np.float32)
    b_host = rng.standard_normal(6).astype(np.float32)
    op = compiled(device, ElementWiseAddOperatorDesc(T23, T23, T23))
    a = to_backend(xp, a_host.copy())
    op.execute([a, to_backend(xp, b_host)], [a])
    np.testing.assert_array_equal(to_host(a), a_host + b_host)  # one float32 rounding, exactly np.add
    b = to_backend(xp, b_host.copy())
    op.execute([to_backend(xp, a_host), b], [b])  # aliasing B works too
    np.testing.assert_array_equal(to_host(b), a_host + b_host)


def test_in_place_padded_layout(device: gpuops.Device, xp: object) -> None:
    padded = TensorDesc(F32, (2, 3), (5, 1))
    op = compiled(device, ElementWiseAddOperatorDesc(padded, T23, padded))
    a_vals = np.arange(6, dtype=np.float32).reshape(2, 3)
    a = to_backend(xp, buffer_for(padded, a_vals))
    b = to_backend(xp, np.full(6, 0.5, np.float32))
    op.execute([a, b], [a])
    np.testing.assert_array_equal(read_tensor(a, padded), a_vals + np.float32(0.5))


def test_strided_and_broadcast_views_read_correctly(device: gpuops.Device, xp: object) -> None:
    a_desc = TensorDesc(F32, (2, 3), (4, 1))  # padded rows: elements 0,1,2 and 4,5,6
    b_desc = TensorDesc(F32, (2, 3), (0, 1))  # one row, read twice
    out_desc = TensorDesc(F32, (2, 3), (1, 2))  # written column-major
    op = compiled(device, ElementWiseAddOperatorDesc(a_desc, b_desc, out_desc))
    a = to_backend(xp, np.array([1, 2, 3, 99, 4, 5, 6, 99], np.float32))
    b = to_backend(xp, np.array([10, 20, 30, 99], np.float32))
    assert a_desc.total_tensor_size_in_bytes == 28 and b_desc.total_tensor_size_in_bytes == 12
    out = to_backend(xp, np.zeros(6, np.float32))
    op.execute([a, b], [out])
    np.testing.assert_array_equal(to_host(out), np.array([11, 14, 22, 25, 33, 36], np.float32))


def test_scalar_broadcast_all_zero_strides(device: gpuops.Device, xp: object) -> None:
    s = TensorDesc(F32, (2, 3), (0, 0))
    assert s.total_tensor_size_in_bytes == 4
    op = compiled(device, ElementWiseAddOperatorDesc(T23, s, T23))
    out = to_backend(xp, np.zeros(6, np.float32))
    op.execute([to_backend(xp, np.arange(6, dtype=np.float32)), to_backend(xp, np.array([100], np.float32))], [out])
    np.testing.assert_array_equal(to_host(out), np.arange(6, dtype=np.float32) + 100)


def test_shared_kernel_keeps_each_descriptors_scale_bias(device: gpuops.Device, xp: object) -> None:
    """Two POW descriptors differing only in ScaleBias share a kernel but not their scalars."""
    from descriptors import ElementWisePowOperatorDesc, ScaleBias

    t = TensorDesc(F32, (4,))
    ops = [compiled(device, ElementWisePowOperatorDesc(t, t, t, ScaleBias(s, b))) for s, b in ((2.0, 0.0), (1.0, 3.0))]
    x = to_backend(xp, np.array([1, 2, 3, 4], np.float32))
    e = to_backend(xp, np.full(4, 2, np.float32))
    results = []
    for op in ops:
        out = to_backend(xp, np.zeros(4, np.float32))
        op.execute([x, e], [out])
        results.append(to_host(out))
    np.testing.assert_array_equal(results[0], np.array([4, 16, 36, 64], np.float32))  # (2x)^2
    np.testing.assert_array_equal(results[1], np.array([16, 25, 36, 49], np.float32))  # (x + 3)^2


# --- the kernel cache: each test in a fresh interpreter, so "new" means new -------------------

_CACHE_SCRIPT = textwrap.dedent(
    """
    import sys, threading
    import gpuops
    from descriptors import DataType, TensorDesc, ElementWiseSubtractOperatorDesc as Sub
    backend = sys.argv[1]
    dev = gpuops.Device(backend)

    def compile_(shape, dt=DataType.INT16):
        t = TensorDesc(dt, shape)
        return dev.compile_operator(dev.create_operator(Sub(t, t, t)))

    counts = [gpuops.build_count()]
    compile_((2, 3)); counts.append(gpuops.build_count())
    compile_((2, 3)); counts.append(gpuops.build_count())      # same descriptor again
    compile_((7,)); counts.append(gpuops.build_count())        # other descriptor, same dtypes
    compile_((2, 3), DataType.INT8); counts.append(gpuops.build_count())  # other dtypes: a new kernel

    barrier = threading.Barrier(8)
    errors = []
    def worker():
        try:
            barrier.wait()
            compile_((4, 4), DataType.UINT16)
        except Exception as exc:
            errors.append(exc)
    before = gpuops.build_count()
    threads = [threading.Thread(target=worker) for _ in range(8)]
    for th in threads: th.start()
    for th in threads: th.join()
    counts.append(gpuops.build_count() - before)
    print(counts, len(errors))
    """
)


def test_kernel_cache_build_counts(backend: str) -> None:
    stdout = run_fresh_python(_CACHE_SCRIPT, backend)
    counts_text, errors = stdout.rsplit(" ", 1)
    counts = ast.literal_eval(counts_text)
    start = counts[0]
    assert counts[1] == start + 1, counts  # first compile builds one kernel
    assert counts[2] == start + 1, counts  # the same descriptor again builds nothing
    assert counts[3] == start + 1, counts  # a different descriptor with the same dtypes shares it
    assert counts[4] == start + 2, counts  # different dtypes: a second kernel
    assert counts[5] == 1, counts  # 8 threads compiling one new descriptor: exactly one build
    assert errors == "0"


def test_in_place_through_another_array_object(device: gpuops.Device, xp: object) -> None:
    """An output that is a different array object over an input's memory is still seen as in place."""
    rng = np.random.default_rng(11)
    a_host = rng.standard_normal(6).astype(np.float32)
    b_host = rng.standard_normal(6).astype(np.float32)
    op = compiled(device, ElementWiseAddOperatorDesc(T23, T23, T23))
    a = to_backend(xp, a_host.copy())
    op.execute([a, to_backend(xp, b_host)], [a[:]])  # a view: same memory, another object
    np.testing.assert_array_equal(to_host(a), a_host + b_host)
    # Overlap found through a view even when the input itself owns its memory.
    big = to_backend(xp, np.zeros(12, np.float32))
    before = to_host(big).copy()
    expect_binding_error(op, [big, to_backend(xp, b_host)], [big[3:9]], big, before, "overlap")


def test_floating_point_state_is_the_callers(device: gpuops.Device, xp: object) -> None:
    """DirectML raises no floating-point exceptions: an overflow gives inf, silently, whatever
    ``np.errstate`` the caller runs under, and the caller's state is unchanged afterwards."""
    op = compiled(device, ElementWiseAddOperatorDesc(T23, T23, T23))
    big = to_backend(xp, np.full(6, np.finfo(np.float32).max, np.float32))
    out = to_backend(xp, np.zeros(6, np.float32))
    with np.errstate(all="raise"):
        op.execute([big, big], [out])
        assert np.geterr() == {"divide": "raise", "over": "raise", "under": "raise", "invalid": "raise"}
        with pytest.raises(FloatingPointError):
            np.add(np.float32(3e38), np.float32(3e38))
    assert np.isposinf(to_host(out)).all()
