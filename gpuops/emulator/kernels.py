"""Compiled kernels of the emulator: a process-wide cache over :func:`gpuops.emulator.build.build`, the
checked launch, and ``RawKernel``.

Each distinct (translation unit, kernel name) is compiled once per process (and once per machine, through
the build's disk cache); :func:`prebuild` compiles many in one batch, in parallel, ahead of their first
launch. :func:`recording` finds out which kernels a piece of code needs without compiling them (its launches
of them do nothing), so that a test session can build every kernel in one batch first.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..errors import count
from . import faults
from .build import DeviceFault, HostKernel, KernelSource, build
from .packing import raw_argument

__all__ = [
    "RawKernel",
    "cupy_headers",
    "first_launch_builds",
    "get_kernel",
    "is_recording",
    "launch",
    "prebuild",
    "recording",
]

_cache: dict[tuple[str, str], HostKernel] = {}
_lock = threading.Lock()
_recorded: dict[tuple[str, str], KernelSource] | None = None
_first_launch = 0


class Unbuilt:
    """A kernel met while :func:`recording`: not compiled, and launching it does nothing."""

    def __init__(self, source: KernelSource) -> None:
        self.name = source.name
        self.source = source


@contextlib.contextmanager
def recording() -> Iterator[dict[tuple[str, str], KernelSource]]:
    """Within this block, a kernel not compiled yet is recorded (in the dict yielded) instead of compiled, and
    its launches do nothing: outputs keep whatever they held. For dry runs only; not thread-safe."""
    global _recorded
    if _recorded is not None:
        raise RuntimeError("emulator: recording() blocks do not nest")
    _recorded = {}
    try:
        yield _recorded
    finally:
        _recorded = None


def is_recording() -> bool:
    """Whether a :func:`recording` dry run is under way (its launches do nothing)."""
    return _recorded is not None


def cupy_headers() -> str:
    """The ``#include`` lines CuPy's ``compile_with_cache`` puts before ElementwiseKernel/ReductionKernel code."""
    try:
        from cupy._core.core import _cupy_header_list as names
    except ImportError:  # pragma: no cover - older layouts
        names = ["cupy/complex.cuh", "cupy/carray.cuh", "cupy/atomics.cuh", "cupy/math_constants.h"]
    return "".join(f"#include <{h}>\n" for h in names)


def prebuild(sources: Iterable[KernelSource]) -> list[HostKernel]:
    """Compile every source not compiled yet in one batch; return the kernels in order."""
    wanted = list(sources)
    missing = list({(s.code, s.name): s for s in wanted if (s.code, s.name) not in _cache}.values())
    if missing:
        built = build(missing)
        with _lock:
            for s, k in zip(missing, built, strict=True):
                _cache.setdefault((s.code, s.name), k)
    return [_cache[(s.code, s.name)] for s in wanted]


def get_kernel(code: str, name: str) -> HostKernel:
    """The compiled kernel ``name`` of translation unit ``code`` (built on first use)."""
    hit = _cache.get((code, name))
    if hit is not None:
        return hit
    if _recorded is not None:
        source = _recorded.setdefault((code, name), KernelSource(code, name))
        return Unbuilt(source)  # type: ignore[return-value]  # launch() knows it
    global _first_launch
    _first_launch += 1
    return prebuild([KernelSource(code, name)])[0]


def first_launch_builds() -> int:
    """How many kernels this process compiled alone at their first launch (not in a :func:`prebuild` batch):
    what a test session's batch build missed."""
    return _first_launch


def _dims(what: str, v: Any) -> tuple[int, int, int]:
    if not isinstance(v, tuple):  # CuPy's Function.__call__ declares ``tuple grid, tuple block``
        raise TypeError(f"Argument '{what}' has incorrect type (expected tuple, got {type(v).__name__})")
    t = (v + (1, 1))[:3]
    return tuple(max(1, int(x)) for x in t)  # type: ignore[return-value]


def launch(
    kernel: HostKernel,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: Sequence[tuple[bytes, bytes | None]],
    shared_mem: int = 0,
) -> None:
    """Launch with each argument checked against the compiled parameter list (count and byte size).

    CuPy passes whatever it is given and the GPU reads the parameters it declares, so a wrong count or
    width there reads garbage; here it is a ``TypeError`` naming the parameter. A fault in the kernel (a misaligned
    access) raises ``faults.CUDARuntimeError`` and poisons the device, whose later launches raise too.
    """
    if isinstance(kernel, Unbuilt):
        return
    faults.check()
    sizes = kernel.param_sizes
    if len(args) != len(sizes):
        raise TypeError(f"kernel {kernel.name} takes {count(len(sizes), 'argument')}, {len(args)} given")
    raw = []
    for i, ((full, ptr), size) in enumerate(zip(args, sizes, strict=True)):
        if len(full) == size:
            raw.append(full)
        elif ptr is not None and len(ptr) == size:
            raw.append(ptr)
        else:
            raise TypeError(
                f"kernel {kernel.name}: argument {i} is {count(len(full), 'byte')}, its parameter takes "
                f"{count(size, 'byte')} "
                "(pass a NumPy scalar of the parameter's type)"
            )
    try:
        kernel.launch(grid, block, raw, shared_mem)
    except DeviceFault as fault:
        raise faults.poison(fault) from None


class RawKernel:
    """``cupy.RawKernel(code, name, options=())``: compiled on first use, called ``(grid, block, args)``."""

    def __init__(self, code: str, name: str, options: tuple[str, ...] = (), backend: str = "nvrtc", **kw: Any):
        if not isinstance(code, str) or not isinstance(name, str):
            raise TypeError("RawKernel: code and name must be str")
        self.code = code
        self.name = name
        self.options = tuple(options)
        self.backend = backend
        self._kernel: HostKernel | None = None

    @property
    def kernel(self) -> HostKernel:
        if self._kernel is None:
            kernel = get_kernel(self.code, self.name)
            if isinstance(kernel, Unbuilt):
                return kernel
            self._kernel = kernel
        return self._kernel

    def compile(self, log_stream: Any = None) -> None:
        self.kernel  # noqa: B018 - compiles

    def __call__(
        self,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        args: Sequence[Any],
        *,
        shared_mem: int = 0,
        stream: Any = None,
    ) -> None:
        g, b = _dims("grid", grid), _dims("block", block)
        launch(self.kernel, g, b, [raw_argument(a) for a in args], shared_mem)
