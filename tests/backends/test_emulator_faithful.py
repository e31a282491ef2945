"""The CUDA emulator fails where the GPU fails (issue 30): each class of the first real GPU run's failures
(../shared/gpu-runs/2026-11-27-h200) is reproduced here without a GPU.

- CuPy's surface: the emulator's arrays, flags, memory pointers and module have no attribute CuPy lacks, so code
  that reads one (the ``flags.writeable`` that crashed every CuPy ``execute``) fails in CI too; and binding runs
  through the CuPy backend's own rules (emulator arrays in, host NumPy arrays refused as CuPy refuses them).
- Alignment: a kernel access not aligned to its width faults (``cudaErrorMisalignedAddress``), the fault is sticky
  (the device refuses every later launch, allocation and copy, naming the first fault) and binding keeps
  misaligned buffers from ever reaching a kernel.
- float32 flush-to-zero is tests/backends/test_emulator_ftz.py (against bits measured on an H200).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import gpuops
from descriptors import DataType, ElementWiseAddOperatorDesc, TensorDesc
from gpuops import BindingError
from gpuops.emulator import build as eb

try:
    eb.compiler()
except eb.CompilerUnavailable as exc:  # g++ is present here and in CI
    pytest.skip(f"no C++ compiler for the CUDA emulator: {exc}", allow_module_level=True)

cupy = pytest.importorskip("cupy", reason="CuPy (installed without a GPU by the nvrtc extra) is the reference")

from gpuops.emulator import faults, memory  # noqa: E402 - after the skips
from gpuops.emulator import runtime as rt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# Emulator-only names, each private to gpuops/emulator/ (checked below) or a documented extra of the module.
EMULATOR_ONLY = {
    "ndarray": {"_from_numpy_view", "_op", "_scalar", "_view", "_arr"},
    "MemoryPointer": {"_offset"},
    "module": {"KernelSource", "MemoryPointer", "from_numpy", "prebuild", "unavailable_reason", "CompilerUnavailable",
               "compiler"},
}  # fmt: skip


def _surface(cls: type) -> set[str]:
    """A class's attributes, without what every Python object has (``__slotnames__`` is copyreg's cache, set on a
    class with ``__slots__`` once an instance is pickled or copied: Dask's tests do)."""
    plumbing = ("__dict__", "__weakref__", "__slots__", "__slotnames__")
    return {n for n in dir(cls) if n not in dir(object) and n not in plumbing}


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (memory.ndarray, cupy.ndarray),
        (memory.Flags, cupy._core.flags.Flags),
        (memory.MemoryPointer, cupy.cuda.MemoryPointer),
    ],
    ids=["ndarray", "Flags", "MemoryPointer"],
)
def test_the_emulators_classes_have_nothing_cupys_lack(ours: type, theirs: type) -> None:
    extra = _surface(ours) - _surface(theirs) - EMULATOR_ONLY.get(ours.__name__, set()) - {"__module__"}
    assert not extra, f"the emulator's {ours.__name__} has {sorted(extra)}, which CuPy's {theirs.__name__} lacks"


def test_the_emulators_flags_are_cupys() -> None:
    """The very attribute that crashed every CuPy execute: CuPy's flags have no ``writeable``."""
    a = rt.empty(4, np.float32)
    assert not hasattr(a.flags, "writeable") and not hasattr(cupy._core.flags.Flags, "writeable")
    assert (a.flags.c_contiguous, a.flags.f_contiguous, a.flags.owndata) == (True, True, True)


def test_the_emulators_module_has_nothing_cupys_lacks() -> None:
    public = {n for n in rt.__all__} | {n for n in dir(rt) if not n.startswith("_") and callable(getattr(rt, n))}
    extra = public - set(dir(cupy)) - EMULATOR_ONLY["module"]
    extra = {n for n in extra if not isinstance(getattr(rt, n), type) or not issubclass(getattr(rt, n), np.generic)}
    assert not extra, f"gpuops.emulator.runtime has {sorted(extra)}, which the cupy module lacks"


def test_emulator_only_names_stay_inside_the_emulator() -> None:
    """Code that runs on CuPy (gpuops outside gpuops/emulator/, the benchmarks) never uses what only the
    emulator has."""
    private = EMULATOR_ONLY["ndarray"] | {"_offset"}
    pattern = re.compile(r"(?<!cupy\._core)\.(" + "|".join(sorted(private)) + r")\b")  # not CuPy's own modules
    xp_names = re.compile(r"\b(?:xp|cupy)\.(" + "|".join(sorted(EMULATOR_ONLY["module"])) + r")\b")
    found = []
    for path in [*ROOT.joinpath("gpuops").rglob("*.py"), *ROOT.joinpath("benchmarks").rglob("*.py")]:
        if "emulator" in path.relative_to(ROOT).parts:
            continue
        for k, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line) or xp_names.search(line):
                found.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
    assert not found, "emulator-only names used by code that runs on CuPy:\n" + "\n".join(found)


# ---------------------------------------------------------------------------------------------- binding

T = TensorDesc(DataType.FLOAT32, (2, 4))
ADD = ElementWiseAddOperatorDesc(a_tensor=T, b_tensor=T, output_tensor=T)


@pytest.fixture
def add() -> gpuops.CompiledOperator:
    dev = gpuops.Device("emulator")
    return dev.compile_operator(dev.create_operator(ADD))


def test_execute_binds_emulator_arrays_through_the_cupy_path(add: gpuops.CompiledOperator) -> None:
    a, b = rt.asarray(np.arange(8, dtype=np.float32)), rt.asarray(np.full(8, 0.5, np.float32))
    out = rt.empty(8, np.float32)
    add.execute([a, b], [out])  # BindingPlan.check's fast path, on CuPy-like flags
    assert rt.asnumpy(out).tolist() == [v + 0.5 for v in range(8)]


def test_host_arrays_are_refused_as_on_cupy(add: gpuops.CompiledOperator) -> None:
    a = np.zeros(8, np.float32)
    with pytest.raises(BindingError, match=r"a_tensor must be bound to a .*ndarray on the emulator backend"):
        add.execute([a, rt.asarray(a)], [rt.empty(8, np.float32)])


def test_a_misaligned_buffer_never_reaches_a_kernel(add: gpuops.CompiledOperator) -> None:
    raw = rt.zeros(64, np.uint8)
    misaligned = raw[2:34].view(np.float32)  # float32 elements at an address 2 bytes past a multiple of 4
    good = rt.asarray(np.ones(8, np.float32))
    out = rt.full(8, 7.0, np.float32)
    for ins, outs in (([misaligned, good], [out]), ([good, good], [raw[6:38].view(np.float32)])):
        with pytest.raises(BindingError, match=r"is 2 bytes past a multiple of 4, the size of its FLOAT32 elements"):
            add.execute(ins, outs)
    assert rt.asnumpy(out).tolist() == [7.0] * 8 and not rt.asnumpy(raw).any()  # nothing written
    assert faults.device_fault() is None


def test_element_aligned_views_run_with_or_without_vector_packs(add: gpuops.CompiledOperator) -> None:
    """A buffer 4 bytes past a 16-byte boundary is legal (element-aligned): the flat kernel then moves no
    float4 packs, and the answer is the same."""
    host = np.arange(16, dtype=np.float32)
    block = rt.asarray(host)
    for start in (0, 1, 2, 3):
        a = block[start : start + 8]
        out = rt.empty(9, np.float32)[1:]
        add.execute([a, a], [out])
        np.testing.assert_array_equal(rt.asnumpy(out), 2 * host[start : start + 8])
    assert faults.device_fault() is None


# ---------------------------------------------------------------------------------------------- faults

SCALE = r"""
extern "C" __global__ void scale(const float *x, float *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
extern "C" __global__ void scale4(const float4 *x, float4 *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float4 v = x[i]; y[i] = make_float4(2 * v.x, 2 * v.y, 2 * v.z, 2 * v.w); }
}
"""


@pytest.fixture
def healthy_device():  # type: ignore[no-untyped-def]
    assert faults.device_fault() is None, "the emulated device was poisoned before this test"
    yield
    faults.reset()


@pytest.mark.parametrize(
    ("kernel", "offset", "width"), [("scale", 1, 4), ("scale", 2, 4), ("scale4", 4, 16), ("scale4", 8, 16)]
)
def test_a_misaligned_access_faults_and_the_fault_is_sticky(
    healthy_device: None, kernel: str, offset: int, width: int
) -> None:
    k = rt.RawKernel(SCALE, kernel)
    raw = rt.zeros(256, np.uint8)
    x = raw[offset : offset + 64].view(np.float32)  # a pointer the raw kernel reads as it is (CuPy checks nothing)
    y = rt.empty(16, np.float32)
    good = rt.zeros(16, np.float32)
    n = np.uint32(16 if width == 4 else 4)
    with pytest.raises(faults.CUDARuntimeError, match=rf"^cudaErrorMisalignedAddress: misaligned address .*alignment "
                       rf"{width}\) at 0x[0-9a-f]+, {offset % width} bytes past"):  # fmt: skip
        k((1,), (16,), (x, y, n))
    first = faults.device_fault()
    assert first is not None and "cudaErrorMisalignedAddress" in first
    # Sticky: every later launch, allocation and copy fails with the first fault, as a CUDA context does.
    for call in (lambda: k((1,), (16,), (good, y, n)), lambda: rt.empty(4, np.float32), lambda: good.get()):
        with pytest.raises(faults.CUDARuntimeError, match="faulted earlier and refuses all work"):
            call()
    assert faults.device_fault() == first  # the first fault stays the one reported
    assert faults.reset() == first
    k((1,), (16,), (good, y, n))  # a "new process" works again


def test_aligned_vector_access_does_not_fault(healthy_device: None) -> None:
    k = rt.RawKernel(SCALE, "scale4")
    x = rt.asarray(np.arange(16, dtype=np.float32))
    y = rt.empty(16, np.float32)
    k((1,), (4,), (x, y, np.uint32(4)))
    assert rt.asnumpy(y).tolist() == [2.0 * v for v in range(16)]
