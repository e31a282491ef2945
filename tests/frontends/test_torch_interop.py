"""torch CPU tensors through gpuops on the NumPy backend (issue 17's user story): no copy in, torch out.

torch is not a dependency (its PyPI wheel brings CUDA libraries of several GB); these tests run where torch is
installed (``pip install torch --index-url https://download.pytorch.org/whl/cpu``) and are skipped, with that
reason, elsewhere. The DLPack path itself is tested without torch in ``test_convenience.py``.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import gpuops
from descriptors import DataType, ElementWiseAddOperatorDesc, TensorDesc

torch = pytest.importorskip("torch", reason="torch is not installed (an optional interop, not a dependency)")

CASES = [(DataType.FLOAT32, torch.float32, np.float32), (DataType.BFLOAT16, torch.bfloat16, ml_dtypes.bfloat16)]


def _add(dt: DataType) -> ElementWiseAddOperatorDesc:
    a = TensorDesc(dt, (2, 3))
    return ElementWiseAddOperatorDesc(a, TensorDesc.broadcast(dt, (3,), to=(2, 3)), a)


@pytest.mark.parametrize(("dt", "tdt", "ndt"), CASES, ids=["float32", "bfloat16"])
def test_torch_tensors_bind_without_a_copy(dt: DataType, tdt: object, ndt: type) -> None:
    """execute writes into the caller's torch tensor (same memory: its data_ptr sees the result); the
    convenience call returns a torch tensor over gpuops' output, and ``out=`` fills the caller's own."""
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(_add(dt)))
    a = torch.arange(6, dtype=torch.float32).to(tdt)
    b = torch.tensor([0.5, -1.0, 2.0]).to(tdt)
    want = (np.arange(6, dtype=np.float64).reshape(2, 3) + np.float64([0.5, -1.0, 2.0])).astype(ndt)
    out = torch.zeros(6, dtype=tdt)
    ptr = out.data_ptr()
    b4 = torch.cat([b, torch.zeros(1, dtype=tdt)])  # execute binds buffers: DirectML rounds B's bytes up to 4
    op.execute([a, b4], [out])
    assert out.data_ptr() == ptr
    assert np.array_equal(out.view(torch.int16 if tdt is torch.bfloat16 else torch.int32).numpy(),
                          want.reshape(-1).view(np.int16 if tdt is torch.bfloat16 else np.int32))  # fmt: skip
    got = op(a.reshape(2, 3), b)
    assert isinstance(got, torch.Tensor) and got.dtype == tdt and tuple(got.shape) == (2, 3)
    assert torch.equal(got, torch.from_numpy(want.astype(np.float32)).to(tdt))
    mine = torch.zeros((2, 3), dtype=tdt)
    back = op(a.reshape(2, 3), b, out=mine)
    assert back is mine and mine.data_ptr() == back.data_ptr() and torch.equal(mine, got)
    # In place, as DirectML allows for ADD: the output is input A's own memory.
    a2 = a.clone()
    op.execute([a2, b4], [a2])
    assert torch.equal(a2.reshape(2, 3), got)


def test_inputs_are_read_in_place() -> None:
    """The input's memory is what the kernel reads: changing the torch tensor changes the next result."""
    dev = gpuops.Device("numpy")
    op = dev.compile_operator(dev.create_operator(_add(DataType.FLOAT32)))
    a, b = torch.zeros((2, 3)), torch.zeros(3)
    op(a, b)
    a[1, 2] = 7.0
    assert op(a, b)[1, 2].item() == 7.0


def test_a_tensor_that_requires_grad_is_refused_by_name() -> None:
    a = torch.zeros((2, 3), requires_grad=True)
    with pytest.raises(TypeError, match=r"input 0 requires grad; gpuops computes no gradients: pass x.detach\(\)"):
        gpuops.run(_add(DataType.FLOAT32), a, torch.zeros(3), device=gpuops.Device("numpy"))


def test_front_ends_return_torch_for_torch() -> None:
    from gpuops.frontends import tensorrt

    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    y = tensorrt.elementwise(x, x, "kSUM", device=gpuops.Device("numpy"))
    assert isinstance(y, torch.Tensor) and torch.equal(y, x + x)
    h = x.to(torch.bfloat16)
    z = tensorrt.elementwise(h, h, "kPROD", device=gpuops.Device("numpy"))
    assert isinstance(z, torch.Tensor) and z.dtype == torch.bfloat16 and torch.equal(z, h * h)
