"""Compile generated kernels with NVRTC on a machine without a GPU (or driver).

``cupy.cuda.nvrtc`` answers without a driver; ``cupy.cuda.compiler`` does not (it asks the
runtime for its version first), so this module calls NVRTC directly
(docs/reference/nvrtc.md). Headers: CuPy's ``_core/include`` and the CUDA runtime's
``include`` from the ``nvidia-cuda-runtime`` wheel.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from descriptors.optable import HELPERS

from .codegen import _HEADERS, KernelSpec
from .codegen.reduce import ReductionSpec

__all__ = ["NvrtcUnavailable", "compile_specs", "cupy_include_dirs", "include_dirs", "nvrtc_version"]

ARCH = "compute_90"


class NvrtcUnavailable(RuntimeError):
    """NVRTC or the headers it needs are not installed."""


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def cupy_include_dirs() -> list[str]:
    """CuPy's own headers: ``_core/include`` and its bundled CCCL (no CUDA toolkit headers)."""
    cupy_dir = _package_dir("cupy")
    if cupy_dir is None:
        raise NvrtcUnavailable("cupy is not installed (pip install -e .[nvrtc])")
    inc = cupy_dir / "_core" / "include"
    return [str(inc)] + [str(inc / "cupy" / "_cccl" / d) for d in ("libcudacxx", "thrust", "cub")]


def include_dirs() -> list[str]:
    """CuPy's headers and the CUDA runtime headers (cuda_fp16.h, cuda_bf16.h)."""
    dirs = cupy_include_dirs()
    candidates = []
    nvidia = _package_dir("nvidia")
    if nvidia is not None:
        candidates += [nvidia / "cuda_runtime" / "include", nvidia / "cu13" / "include"]
    for env in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(env):
            candidates.append(Path(os.environ[env]) / "include")
    candidates.append(Path("/usr/local/cuda/include"))
    for c in candidates:
        if (c / "cuda_fp16.h").exists():
            dirs.append(str(c))
            return dirs
    raise NvrtcUnavailable("CUDA runtime headers (cuda_fp16.h) not found; install nvidia-cuda-runtime-cu12")


def _nvrtc():  # type: ignore[no-untyped-def]
    try:
        from cupy.cuda import nvrtc
    except Exception as exc:  # ImportError, or a missing libnvrtc
        raise NvrtcUnavailable(f"cupy.cuda.nvrtc is not importable: {exc}") from exc
    try:
        nvrtc.getVersion()
    except Exception as exc:
        raise NvrtcUnavailable(f"libnvrtc is not loadable: {exc}") from exc
    return nvrtc


def nvrtc_version() -> tuple[int, int]:
    return tuple(_nvrtc().getVersion())


_NVRTC_ERROR_INVALID_OPTION = 5  # nvrtcResult: an option this NVRTC does not know


def compile_source(
    source: str,
    name: str = "gpuops.cu",
    arch: str = ARCH,
    *,
    debug: bool = False,
    syntax_only: bool = False,
    options: Sequence[str] = (),
) -> str:
    """Compile one translation unit to PTX; raise RuntimeError with the NVRTC log on failure.

    ``debug=True`` adds ``--device-debug``, which skips NVVM's optimizer: much faster to
    compile, and still every front-end (C++) error, which is what the test-suite checks look for.
    ``syntax_only=True`` runs the C++ front end alone (``-fdevice-syntax-only``: parsing,
    overloads, template instances; no PTX, returns ``""``), ten times faster again; an NVRTC
    without that option gets the debug build instead. ``options``: extra NVRTC options (a fused graph kernel's
    ``--fmad=false``, as the CuPy backend passes them).
    """
    nvrtc = _nvrtc()
    extra = list(options)
    options = [f"-arch={arch}", "--std=c++17", *extra] + [f"-I{d}" for d in include_dirs()]
    if debug:
        options.append("--device-debug")
    if syntax_only:
        options.append("-fdevice-syntax-only")
    prog = nvrtc.createProgram(source, name, [], [])
    try:
        try:
            nvrtc.compileProgram(prog, options)
        except nvrtc.NVRTCError as exc:
            if syntax_only and getattr(exc, "status", None) == _NVRTC_ERROR_INVALID_OPTION:
                compile_source(source, name, arch, debug=True, options=extra)
                return ""
            log = nvrtc.getProgramLog(prog)
            raise RuntimeError(f"NVRTC failed on {name}: {exc}\n{log}") from None
        if syntax_only:
            return ""
        ptx = nvrtc.getPTX(prog)
        return ptx.decode() if isinstance(ptx, bytes) else str(ptx)
    finally:
        nvrtc.destroyProgram(prog)


def batch_source(specs: Sequence[KernelSpec], layouts: Iterable[tuple[int, bool, bool]] = ((1, True, True),)) -> str:
    """One translation unit holding every spec (all must share one preamble) in each layout."""
    preambles = {s.preamble for s in specs}
    if len(preambles) != 1:
        raise ValueError("batch_source: kernels with different preambles cannot share a program")
    headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
    parts = [headers, specs[0].preamble]
    for ndim, contiguous, idx32 in layouts:
        for s in specs:
            fn = s.kernel_function(ndim, contiguous, idx32)
            fn = fn.replace(f"void {s.name}(", f"void {s.name}_{ndim}d{int(contiguous)}{int(idx32)}(", 1)
            parts.append(fn)
    return "\n".join(parts)


Layout = tuple[int, int, bool]  # (input ndim, output ndim, 32-bit indexing)


def batch_reduction_source(groups: Sequence[tuple[Sequence[ReductionSpec], Sequence[Layout]]]) -> str:
    """One translation unit holding reduction kernels, each in its own namespace.

    ``groups`` pairs kernels with the layouts to build them in. CuPy builds each
    ``ReductionKernel`` as its own module, whose ``REDUCE``/``POST_MAP`` macros and
    ``_type_reduce``/``IndexT`` typedefs are global; here each kernel is wrapped in a
    namespace and the macros are undefined after it, so hundreds share one program.
    """
    headers = "".join(f"#include <{h}>\n" for h in _HEADERS)
    helpers = tuple(dict.fromkeys(h for specs, _ in groups for s in specs for h in s.helpers))
    parts = [headers, HELPERS.source(helpers)]
    k = 0
    for specs, layouts in groups:
        for in_ndim, out_ndim, idx32 in layouts:
            for s in specs:
                fn = s.kernel_function(in_ndim, out_ndim, idx32, with_preamble=False)
                fn = fn.replace(f"void {s.name}(", f"void {s.name}_{in_ndim}{out_ndim}{int(idx32)}(", 1)
                parts.append(f"namespace gpuops_k{k} {{\n{fn}\n}}\n#undef REDUCE\n#undef POST_MAP\n#undef _REDUCE\n")
                k += 1
    return "\n".join(parts)


def compile_specs(specs: Sequence[KernelSpec], name: str = "gpuops_batch.cu") -> str:
    """Compile kernels sharing a preamble in one NVRTC program: contiguous 1-D and strided 3-D."""
    return compile_source(batch_source(specs, ((1, True, True), (3, False, False))), name)
