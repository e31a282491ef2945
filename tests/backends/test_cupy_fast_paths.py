"""The CuPy backend's own flat and rows kernels (``gpuops.layout.launch_plan``, ``gpuops.codegen.fast``).

On the CPU: ``CupyFastKernel`` assembles its launch (pointer arguments, scalars, 32-bit size
arguments, grid and block) in the order the generated source declares, checked against a
recording stand-in for ``cupy.RawKernel``. On a GPU (or the CUDA emulator): every layout the planner routes to a
fast kernel (packed, size-1 dimensions, scalar, row and column broadcast, transposed, a
strided output, misaligned buffers, in place) gives exactly the NumPy backend's bits, and
the same bits as CuPy's ``ElementwiseKernel`` with the fast paths turned off.
"""

from __future__ import annotations

import re
import zlib
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from conftest import GPU
from helpers import buffer_elements, buffer_for, random_values, read_tensor, uint_view

import gpuops
from descriptors import (
    ROWS,
    DataType,
    ElementWiseAdd1OperatorDesc,
    ElementWiseAddOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    ScaleBias,
    TensorDesc,
    desc_class,
)
from gpuops.backends.array_module import array_module
from gpuops.codegen import elementwise_kernel_spec
from gpuops.layout.launch_plan import launch_config, plan_tensors, size_args

F32, F16, I8 = DataType.FLOAT32, DataType.FLOAT16, DataType.INT8
_ROW = {r.name: r for r in ROWS}


def _cupy_fast() -> Any:
    try:
        from gpuops.backends import cupy_fast
    except Exception as exc:  # pragma: no cover - cupy missing
        pytest.skip(f"cupy not importable: {exc}")
    return cupy_fast


class _Recorder:
    """Stands in for ``cupy.RawKernel``: records one launch."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, Any, tuple[Any, ...]]] = []

    def __call__(self, grid: Any, block: Any, args: tuple[Any, ...]) -> None:
        self.calls.append((grid, block, args))


def _fake_array(ptr: int) -> Any:
    return SimpleNamespace(data=SimpleNamespace(ptr=ptr))


def _declared_params(source: str, name: str) -> list[tuple[str, str]]:
    """(C type, name) of each parameter, parsed from the kernel's signature."""
    sig = re.search(rf"void {name}\((.*?)\)\s*\{{", source, re.S)
    assert sig, name
    out = []
    for p in sig.group(1).split(","):
        words = p.replace("*", " * ").split()
        out.append((" ".join(words[:-1]), words[-1]))
    return out


def _numpy_type_of(ctype: str) -> type | None:
    table = {"const unsigned int": np.uint32, "const float": np.float32, "const int": np.int32}
    return table.get(ctype)


@pytest.mark.parametrize(
    ("inputs", "output", "kind"),
    [
        ([TensorDesc(F32, (4, 8)), TensorDesc(F32, (4, 8))], TensorDesc(F32, (4, 8)), "flat"),
        ([TensorDesc(F16, (3, 5)), TensorDesc(F16, (3, 5), (0, 1))], TensorDesc(F16, (3, 5)), "rows"),
        ([TensorDesc(F32, (3, 5), (1, 3)), TensorDesc(F32, (3, 5), (1, 0))], TensorDesc(F32, (3, 5)), "rows"),
    ],
    ids=["flat-f32", "row-broadcast-f16", "transposed-column-broadcast"],
)
def test_launch_arguments_follow_the_source(inputs: list[TensorDesc], output: TensorDesc, kind: str) -> None:
    """Pointers, ScaleBias scalars and sizes reach the kernel in the declared order and types."""
    cupy_fast = _cupy_fast()
    row = _ROW["ELEMENT_WISE_POW"]  # a binary row with ScaleBias: two scalar arguments
    roles = ("input_tensor", "exponent_tensor", "output_tensor")
    dtypes = dict(zip(roles, (t.data_type for t in (*inputs, output)), strict=True))
    spec = elementwise_kernel_spec(row, dtypes, has_scale_bias=True)
    plan = plan_tensors(inputs, output)
    assert plan is not None and plan.kind == kind
    kernel = cupy_fast.CupyFastKernel(spec, kind)
    kernel.kernel = rec = _Recorder()
    prepared = kernel.prepare({"gpuops_scale": np.float32(-0.0), "gpuops_bias": np.float32(np.nan)})
    ptrs = [0x10000, 0x20000, 0x30000]  # 16-byte aligned: the flat kernel may use packs
    kernel.run([_fake_array(p) for p in ptrs[:2]], _fake_array(ptrs[2]), prepared, plan)
    (grid, block, args), *more = rec.calls
    assert not more
    params = _declared_params(kernel.source.source, kernel.source.name)
    assert len(args) == len(params)
    assert [a.data.ptr for a in args[:2]] == ptrs[:2] and args[4].data.ptr == ptrs[2]
    # The scalars keep their bits (-0.0 and NaN) and their declared 32-bit float type.
    assert [ctype for ctype, _ in params[2:4]] == ["const float", "const float"]
    assert all(type(v) is np.float32 for v in args[2:4])
    assert np.signbit(args[2]) and np.isnan(args[3])
    sizes = args[5:]
    assert all(type(v) is np.uint32 for v in sizes), [type(v) for v in sizes]
    assert all(ctype == "const unsigned int" for ctype, _ in params[5:])
    assert tuple(int(v) for v in sizes) == size_args(plan, kind == "flat")
    assert (grid, block) == launch_config(plan, kind == "flat")
    if kind == "flat":
        assert int(sizes[1]) == plan.n // plan.pack > 0  # aligned: packs used
        kernel.run([_fake_array(ptrs[0] + 4), _fake_array(ptrs[1])], _fake_array(ptrs[2]), prepared, plan)
        assert int(rec.calls[-1][2][5 + 1]) == 0  # a misaligned input: scalar only


def test_a_plan_of_another_kind_is_refused() -> None:
    cupy_fast = _cupy_fast()
    t = TensorDesc(F32, (4, 8))
    spec = elementwise_kernel_spec(_ROW["ELEMENT_WISE_ADD"], {"a_tensor": F32, "b_tensor": F32, "output_tensor": F32})
    kernel = cupy_fast.CupyFastKernel(spec, "rows")
    kernel.kernel = _Recorder()
    plan = plan_tensors([t, t], t)
    assert plan is not None and plan.kind == "flat"
    with pytest.raises(ValueError, match="does not fit"):
        kernel.run([_fake_array(0), _fake_array(0)], _fake_array(0), (), plan)


def test_launch_path_on_numpy() -> None:
    dev = gpuops.Device("numpy")
    t = TensorDesc(F32, (4,))
    op = dev.compile_operator(dev.create_operator(ElementWiseAddOperatorDesc(t, t, t)))
    assert op.launch_path == "numpy"


# --- on a GPU ------------------------------------------------------------------------------------


def _t(sizes: tuple[int, ...], strides: tuple[int, ...] | None = None, dt: DataType = F32) -> TensorDesc:
    return TensorDesc(dt, sizes, strides)


# (name, a, b, output, path the planner must choose)
_LAYOUTS = [
    ("packed", _t((37, 129)), _t((37, 129)), _t((37, 129)), "flat"),
    ("size-1 dims", _t((1, 4099, 1)), _t((1, 4099, 1)), _t((1, 4099, 1)), "flat"),
    ("scalar b", _t((3, 1000)), _t((3, 1000), (0, 0)), _t((3, 1000)), "flat"),
    ("row broadcast", _t((300, 77)), _t((300, 77), (0, 1)), _t((300, 77)), "rows"),
    ("column broadcast", _t((77, 300)), _t((77, 300), (1, 0)), _t((77, 300)), "rows"),
    ("transposed", _t((90, 70), (1, 90)), _t((90, 70)), _t((90, 70)), "rows"),
    ("padded output", _t((50, 33)), _t((50, 33)), _t((50, 33), (40, 1)), "rows"),
    ("3-D general", _t((6, 7, 8), (1, 6, 42)), _t((6, 7, 8), (0, 8, 1)), _t((6, 7, 8)), "elementwise"),
    ("f16 packed", _t((1001,), dt=F16), _t((1001,), dt=F16), _t((1001,), dt=F16), "flat"),
    ("f16 row broadcast", _t((64, 48), dt=F16), _t((64, 48), (0, 1), F16), _t((64, 48), dt=F16), "rows"),
]


def _run(device: gpuops.Device, desc: Any, hosts: list[np.ndarray], outputs_desc: TensorDesc, offset: int = 0) -> Any:
    xp = np if device.backend == "numpy" else array_module(device.backend)
    op = device.compile_operator(device.create_operator(desc))
    bufs = []
    for h in hosts:
        if device.backend != "numpy" and offset:  # the same data starting `offset` elements into an allocation
            big = xp.zeros(h.size + offset, h.dtype)
            big[offset:] = xp.asarray(h)
            bufs.append(big[offset:])
        else:
            bufs.append(xp.asarray(h))
    out_host = np.full(
        -(-outputs_desc.total_tensor_size_in_bytes // outputs_desc.data_type.itemsize), 7, hosts[0].dtype
    )
    out = xp.asarray(out_host)
    op.execute(bufs, [out])
    return op, np.asarray(out.get() if hasattr(out, "get") else out)


def _descs(a: TensorDesc, b: TensorDesc, out: TensorDesc, which: str) -> Any:
    if which == "add":
        return ElementWiseAddOperatorDesc(a, b, out)
    if which == "add1-relu":
        return ElementWiseAdd1OperatorDesc(a, b, out, fused_activation=desc_class("ACTIVATION_RELU")())
    return ElementWiseMultiplyOperatorDesc(a, b, out)


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["add", "add1-relu", "multiply"])
@pytest.mark.parametrize("layout", _LAYOUTS, ids=[x[0] for x in _LAYOUTS])
def test_fast_paths_match_numpy_and_elementwise(layout: tuple, which: str) -> None:
    name, a, b, out, path = layout
    rng = np.random.default_rng(zlib.crc32(f"{name} {which}".encode()))
    # Random buffers: positions a stride-0 dimension shares read one element, as on the device.
    hosts = [random_values(t.data_type, (buffer_elements(t),), rng) for t in (a, b)]
    desc = _descs(a, b, out, which)
    _, want = _run(gpuops.Device("numpy"), desc, hosts, out)
    op, got = _run(gpuops.Device(GPU), desc, hosts, out)
    # Buffers 4 bytes off a 16-byte boundary: the flat kernel drops to scalar accesses.
    _, got_off = _run(gpuops.Device(GPU), desc, hosts, out, offset=1)
    with gpuops.config.override(cupy_fast=False):
        op_general, got_general = _run(gpuops.Device(GPU), desc, hosts, out)
    # Checked after every run, so that the emulator's dry run meets every kernel (it stops at a failed check).
    assert op.launch_path == path, name
    np.testing.assert_array_equal(uint_view(got), uint_view(want), err_msg=f"{name} {which} on {path}")
    np.testing.assert_array_equal(uint_view(got_off), uint_view(want), err_msg=f"{name} {which} misaligned")
    assert op_general.launch_path == "elementwise"
    np.testing.assert_array_equal(
        uint_view(got_general), uint_view(got), err_msg=f"{name} {which} vs ElementwiseKernel"
    )


@pytest.mark.gpu
@pytest.mark.parametrize("kind", ["flat", "rows"])
def test_fast_paths_in_place(kind: str) -> None:
    """The output bound to A's buffer (identical descriptors): each element read before it is written."""
    xp = array_module(GPU)

    sizes = (257, 65)
    a_desc = TensorDesc(F32, sizes)
    b_desc = a_desc if kind == "flat" else TensorDesc(F32, sizes, (0, 1))
    rng = np.random.default_rng(5)
    a_host = rng.standard_normal(sizes).astype(np.float32)
    b_host = buffer_for(b_desc, np.broadcast_to(rng.standard_normal((1, sizes[1])).astype(np.float32), sizes))
    dev = gpuops.Device(GPU)
    op = dev.compile_operator(dev.create_operator(ElementWiseAddOperatorDesc(a_desc, b_desc, a_desc)))
    assert op.launch_path == kind
    a = xp.asarray(a_host.ravel())
    op.execute([a, xp.asarray(b_host)], [a])
    want = a_host + read_tensor(b_host, b_desc)  # one float32 rounding: np.add's
    np.testing.assert_array_equal(a.get().reshape(sizes), want)


@pytest.mark.gpu
def test_scale_bias_flat_in_place() -> None:
    """IDENTITY with ScaleBias in place: x * scale + bias, two float32 roundings (gpuops_scale_bias)."""
    xp = array_module(GPU)

    t = TensorDesc(F32, (4099,))
    x_host = np.random.default_rng(9).standard_normal(4099).astype(np.float32)
    desc = desc_class("ELEMENT_WISE_IDENTITY")(t, t, scale_bias=ScaleBias(np.float32(0.5), np.float32(-2)))
    dev = gpuops.Device(GPU)
    op = dev.compile_operator(dev.create_operator(desc))
    assert op.launch_path == "flat"
    x = xp.asarray(x_host)
    op.execute([x], [x])
    np.testing.assert_array_equal(x.get(), x_host * np.float32(0.5) + np.float32(-2))


@pytest.mark.gpu
def test_int8_output_flat() -> None:
    """Mixed item sizes: the pack is set by the widest operand; the narrow one moves pack * 1 bytes."""
    dev = gpuops.Device(GPU)
    t = TensorDesc(I8, (1000,))
    desc = ElementWiseAddOperatorDesc(t, t, t)
    rng = np.random.default_rng(3)
    hosts = [random_values(I8, (1000,), rng) for _ in range(2)]
    _, want = _run(gpuops.Device("numpy"), desc, hosts, t)
    op, got = _run(dev, desc, hosts, t)
    assert op.launch_path == "flat"
    np.testing.assert_array_equal(got, want)
