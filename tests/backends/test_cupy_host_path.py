"""The CuPy backend's per-call host path (issue 33): ``cupy_fast.FastRun`` works its launches out once per plan
and picks the packed or the scalar one per call from the operands' addresses (``launch_plan.is_aligned``'s rule:
each non-broadcast operand's address a multiple of ``pack * itemsize``); the convenience call's fast path
(``cupy_fast.fast_call``) binds arrays shaped like the tensors and hands everything else to ``gpuops.arrays.call``.
Checked with a recording stand-in for ``RawKernel`` and on the CUDA emulator."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import gpuops
from descriptors import DataType, ElementWiseAddOperatorDesc, TensorDesc
from gpuops.backends import cupy_fast
from gpuops.layout.launch_plan import launch_config
from gpuops.lowering import lower

F32 = DataType.FLOAT32


class _Recorder:
    """Stands in for ``cupy.RawKernel``: records each launch."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, Any, tuple[Any, ...]]] = []

    def __call__(self, grid: Any, block: Any, args: tuple[Any, ...]) -> None:
        self.calls.append((grid, block, args))


def _at(ptr: int) -> Any:
    return SimpleNamespace(data=SimpleNamespace(ptr=ptr))


def _run(b: TensorDesc) -> tuple[Any, _Recorder]:
    t = TensorDesc(F32, (1000,))
    lowering = lower(ElementWiseAddOperatorDesc(t, b, t))
    plan = lowering.layout
    assert plan is not None and plan.kind == "flat" and plan.pack * 4 == 16  # float32 packs of 16 bytes
    from gpuops.emulator import runtime

    kernel = cupy_fast.CupyFastKernel(lowering.elementwise_spec, "flat", xp=runtime)  # compiled at first launch
    kernel.kernel = rec = _Recorder()
    return cupy_fast.FastRun(kernel, lowering, "flat", plan), rec


def test_each_call_takes_the_launch_its_addresses_allow() -> None:
    """Every combination of 16-byte aligned and element-aligned operands, in an order that switches back and
    forth: packs (nvec = n / 4) only when all three addresses are multiples of 16, the scalar launch otherwise."""
    t = TensorDesc(F32, (1000,))
    run, rec = _run(t)
    base = 0x10000
    for offsets in [*itertools.product((0, 4, 8), repeat=3), (0, 0, 0), (4, 0, 0), (0, 0, 0)]:
        a, b, o = (_at(base * (k + 1) + off) for k, off in enumerate(offsets))
        run([a, b], [o], False)
        grid, block, args = rec.calls[-1]
        aligned = all(off % 16 == 0 for off in offsets)
        assert [x.data.ptr for x in (args[0], args[1], args[2])] == [a.data.ptr, b.data.ptr, o.data.ptr]
        n, nvec, mask = (int(v) for v in args[3:])
        assert (n, nvec, mask) == (1000, 250 if aligned else 0, 0), offsets
        assert (grid, block) == launch_config(run.layout, aligned)


def test_a_broadcast_input_does_not_decide_the_packs() -> None:
    run, rec = _run(TensorDesc(F32, (1000,), (0,)))  # b: one element read everywhere
    assert run.layout.broadcast == (False, True)
    for b_off, o_off, packed in [(4, 0, True), (0, 4, False), (8, 0, True)]:
        run([_at(0x10000), _at(0x20000 + b_off)], [_at(0x30000 + o_off)], False)
        n, nvec, mask = (int(v) for v in rec.calls[-1][2][3:])
        assert (n, nvec, mask) == (1000, 250 if packed else 0, 0b10)


@pytest.fixture(scope="module")
def emulator() -> gpuops.Device:
    from gpuops.emulator import runtime

    reason = runtime.unavailable_reason()
    if reason is not None:  # pragma: no cover - CI has a C++ compiler
        pytest.skip(reason)
    return gpuops.Device("emulator")


def test_misaligned_and_aligned_buffers_alternate_on_the_emulator(emulator: gpuops.Device) -> None:
    """The real kernel, buffers starting 16-byte aligned and 4 bytes past: float64 sums rounded to float32."""
    t = TensorDesc(F32, (1000,))
    op = emulator.compile_operator(emulator.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
    assert op.launch_path == "flat"
    xp = emulator.backend_impl.xp
    rng = np.random.default_rng(5)
    host = [rng.standard_normal(1001).astype(np.float32) for _ in range(2)]
    big = [xp.asarray(h) for h in host]
    out = xp.zeros(1001, dtype=np.float32)
    for start in (0, 1, 0, 1):
        a, b, o = big[0][start : start + 1000], big[1][start : start + 1000], out[start : start + 1000]
        o[...] = np.float32(np.nan)
        op.execute([a, b], [o])
        want = (host[0][start : start + 1000].astype(np.float64) + host[1][start : start + 1000]).astype(np.float32)
        np.testing.assert_array_equal(xp.asnumpy(o), want)


def test_the_convenience_call_fast_path(emulator: gpuops.Device) -> None:
    """Arrays shaped like the tensors: a new output of the tensor's sizes each call, the float64 sums rounded;
    what the fast path leaves (``out=``, another dtype, a non-contiguous array) goes the general way, errors
    included."""
    t = TensorDesc(F32, (4, 250))
    op = emulator.compile_operator(emulator.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
    xp = emulator.backend_impl.xp
    rng = np.random.default_rng(6)
    ha, hb = (rng.standard_normal((4, 250)).astype(np.float32) for _ in range(2))
    a, b = xp.asarray(ha), xp.asarray(hb)
    want = (ha.astype(np.float64) + hb).astype(np.float32)
    assert op._fast_call is not None and op._fast_call((a, b), None) is not None  # taken
    r1, r2 = op(a, b), op(a, b)
    assert r1.shape == (4, 250) and r1.dtype == np.float32 and r1.data.ptr != r2.data.ptr
    np.testing.assert_array_equal(xp.asnumpy(r1), want)
    np.testing.assert_array_equal(xp.asnumpy(r2), want)
    # A transposed (non-contiguous) array of the tensor's sizes: laid out as the general path does.
    at = xp.asarray(np.ascontiguousarray(ha.T)).T
    np.testing.assert_array_equal(xp.asnumpy(op(at, b)), want)
    o = xp.zeros((4, 250), dtype=np.float32)
    assert op._fast_call((a, b), o) is None and op(a, b, out=o) is o
    np.testing.assert_array_equal(xp.asnumpy(o), want)
    with pytest.raises(TypeError, match=r"input 1 has dtype float64; the tensor is FLOAT32"):
        op(a, xp.asarray(hb.astype(np.float64)))
    with pytest.raises(TypeError, match="host array"):
        op(a, hb)
