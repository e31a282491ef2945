"""Compile CUDA translation units as host C++ and launch their kernels on an emulated grid.

Every translation unit (exactly the text NVRTC would get) is compiled by the host C++ compiler with
``cuda_host.h`` force-included and ``include/`` (host versions of ``cuda_fp16.h``/``cuda_bf16.h``) ahead of
CuPy's headers. Each distinct unit becomes its own shared object, with hidden visibility and only gpuops'
exported wrappers visible (``gpuops_<hash>_<i>_launch``, ``..._sizes``, ...): two units may then define the
same ``extern "C"`` kernel or the same inline helper differently without one replacing the other. A batch of
units is merged into a few translation units (``merge``: each unit in a namespace of its own, its kernels renamed
and its macros undefined after it, its ``#include`` lines hoisted to the top), so that the compiler's fixed cost,
mostly parsing CuPy's headers, is paid once per merged unit instead of once per kernel; the merged units
compile in parallel (as many compiler processes as there are CPUs), and a merged unit the compiler rejects
is compiled again unit by unit. Objects are cached on disk under ``<cache_dir>/emulator``, keyed by a
hash of the unit, the kernel names, gpuops' headers, the compiler's identity and the flags (a merged object
is published under each of its units' keys); a finished object is published by an atomic rename, and a
per-key file lock keeps two processes from compiling the same unit at once.

A kernel that crashes (a SIGFPE from an unguarded integer division, a SIGSEGV from a wild index, an
AddressSanitizer report) takes the process down with it, as a GPU fault would the CUDA context: run
suspicious launches in a subprocess (the tests do). A sanitized build (``sanitize=True``) only loads into a
process started with the sanitizer runtime preloaded: see ``sanitizer_environment()``.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .. import config, private_folder
from ..errors import count
from .merge import LAUNCH_HEADER_NAME, MERGE_MAX, _hoisted, _merged_text, _unit_text

__all__ = [
    "CompileError",
    "CompilerUnavailable",
    "DeviceFault",
    "HostKernel",
    "KernelSource",
    "build",
    "compiler",
    "sanitizer_environment",
]

log = logging.getLogger("gpuops")

HERE = Path(__file__).resolve().parent
HOST_HEADER = HERE / "cuda_host.h"
LAUNCH_HEADER = HERE / LAUNCH_HEADER_NAME
FAULT_HEADER = HERE / "gpuops_fault.h"
INCLUDE_DIR = HERE / "include"

BASE_FLAGS = (
    "-std=c++17", "-fno-fast-math", "-ffp-contract=off", "-fPIC", "-shared", "-fvisibility=hidden",
    "-fno-strict-aliasing", "-w",
)  # fmt: skip
# -fwrapv: signed overflow wraps, as the GPU's integer units do (a sanitized build reports it instead).
# -fsanitize=alignment, recoverable: a load or store not aligned to its type faults, as on the GPU
# (cudaErrorMisalignedAddress), through gpuops_fault.h's handler (the UBSan runtime is linked, never called).
# -O0 for plain builds: the same bits as -O1 (IEEE arithmetic on SSE2, no contraction, no fast-math at either level),
# half the compiler time (a merged batch of 640 kernels: 48 -> 25 ms of compiler time per kernel), and the gpu tests
# on the emulator ran no slower (1405 kernels of the reduce/graph/TensorRT/device files: 38.6 -> 23.4 s to build,
# their tests 67.6 -> 46.4 s with the kernels cached, 2-core VM).
PLAIN_FLAGS = ("-O0", "-fwrapv", "-fsanitize=alignment", "-fsanitize-recover=alignment")
# Sanitized builds at -O0 too, with line tables only (-g1: a report still names the kernel's file and line): every
# access is instrumented as written (no load the optimizer removed goes unchecked), and half the compiler time of
# -O1 -g (the sanitizer sample's binary/reduce/device part, cold: 43.8 -> 22.6 s of compiler CPU, 2-core VM).
SANITIZE_FLAGS = (
    "-O0",
    "-fsanitize=address,undefined,float-cast-overflow",  # float-cast-overflow: x86 and the GPU disagree there
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-g1",
)


class CompilerUnavailable(RuntimeError):
    """No usable host C++ compiler: the message says which were tried and why each failed."""


class DeviceFault(RuntimeError):
    """A fault inside a kernel, as CUDA reports it (``code``: ``cudaErrorMisalignedAddress``, ...). The launcher
    (``gpuops.emulator.kernels``) turns it into the device's sticky error (``gpuops.emulator.faults``)."""

    def __init__(self, code: str, message: str, detail: str) -> None:
        super().__init__(f"{code}: {message} ({detail})")
        self.code, self.message, self.detail = code, message, detail


class CompileError(RuntimeError):
    """The host compiler rejected a translation unit: the message names its kernels and holds the compiler log."""


@dataclass(frozen=True)
class KernelSource:
    """A full CUDA translation unit, exactly as NVRTC would get it, and the ``extern "C"`` kernel to expose."""

    code: str
    name: str


_compiler_lock = threading.Lock()
_compiler: tuple[str, str] | None = None  # (command, identity: its --version text)


def _probe(cmd: str) -> tuple[str | None, str]:
    exe = shutil.which(cmd)
    if exe is None:
        return None, "not found on PATH"
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"does not run ({exc})"
    if out.returncode != 0:
        return None, f"'{cmd} --version' exited with {out.returncode}"
    return exe, out.stdout.strip()


def _compiler_identity() -> tuple[str, str]:
    global _compiler
    with _compiler_lock:
        if _compiler is not None:
            return _compiler
        env = os.environ.get("CXX", "").strip()
        candidates = [env] if env else ["g++", "clang++"]
        failures = []
        for cmd in candidates:
            exe, info = _probe(cmd)
            if exe is not None:
                _compiler = (exe, info)
                return _compiler
            failures.append(f"{cmd}: {info}")
        where = "CXX is set, so only it was tried" if env else "tried g++ and clang++ (set CXX to choose one)"
        raise CompilerUnavailable(f"no usable C++ compiler for the CUDA emulator ({where}): " + "; ".join(failures))


def compiler() -> str:
    """The C++ compiler command (``CXX`` where set, else ``g++`` or ``clang++``), or ``CompilerUnavailable``."""
    return _compiler_identity()[0]


def _include_dirs() -> list[str]:
    from ..nvrtc import NvrtcUnavailable, cupy_include_dirs

    try:
        dirs = cupy_include_dirs()
    except NvrtcUnavailable as exc:
        raise CompilerUnavailable(f"the CUDA emulator needs CuPy's headers: {exc}") from None
    # CuPy's headers only, never the CUDA toolkit's (CCCL would take the CUDA toolkit path with them);
    # include/ stands in for cuda_fp16.h and cuda_bf16.h.
    return [str(INCLUDE_DIR), *dirs]


def _sanitize_default() -> bool:
    return bool(getattr(config.settings(), "emulator_sanitize", False))


def sanitizer_environment() -> dict[str, str]:
    """Environment entries a subprocess needs to load sanitized builds (the ASan runtime preloaded)."""
    exe = compiler()
    out = subprocess.run([exe, "-print-file-name=libasan.so"], capture_output=True, text=True, timeout=30)
    lib = out.stdout.strip()
    if out.returncode != 0 or not os.path.isabs(lib) or not os.path.exists(lib):
        raise CompilerUnavailable(f"{exe} has no AddressSanitizer runtime (libasan.so not found)")
    ubsan = subprocess.run([exe, "-print-file-name=libubsan.so"], capture_output=True, text=True, timeout=30)
    libs = [lib]
    if os.path.isabs(ubsan.stdout.strip()) and os.path.exists(ubsan.stdout.strip()):
        libs.append(ubsan.stdout.strip())
    return {"LD_PRELOAD": " ".join(libs), "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:verify_asan_link_order=0"}


# ---------------------------------------------------------------------------------------------- cache folder

_warned: set[tuple[str, str]] = set()
_warned_lock = threading.Lock()
_private_tmp: Path | None = None


def _warn_once(folder: Path, why: str) -> None:
    with _warned_lock:
        if (str(folder), why) in _warned:
            return
        _warned.add((str(folder), why))
    log.warning(
        "gpuops: not caching emulator kernels in %s: %s; building them in a private temporary folder", folder, why
    )


def _temp_folder() -> Path:
    global _private_tmp
    with _warned_lock:
        if _private_tmp is None or not _private_tmp.is_dir():  # (someone may have cleaned /tmp)
            _private_tmp = Path(tempfile.mkdtemp(prefix="gpuops-emulator-"))  # mode 0700
            atexit.register(shutil.rmtree, _private_tmp, True)  # loaded objects stay mapped until exit
        return _private_tmp


def cache_folder() -> Path:
    """``<cache_dir>/emulator`` where it is private (``private_folder``: the cache folder and it real directories
    of this user, mode 0700 or stricter), else a private temporary folder (after one warning)."""
    root = config.settings().cache_dir
    if root is None:
        return _temp_folder()
    folder = root / "emulator"
    try:
        refused = private_folder.first_refusal([(root, 0o077), (folder, 0o077)])
    except OSError as exc:
        _warn_once(root, f"it cannot be used ({exc})")
        return _temp_folder()
    if refused is not None:
        _warn_once(*refused)
        return _temp_folder()
    return folder


# ---------------------------------------------------------------------------------------------- sources
# (the units' text, alone or merged: ``merge``)


def _header_digest(include_dirs: Sequence[str]) -> str:
    """gpuops' headers by content; CuPy's by name, size and modification time (an upgrade in place changes them)."""
    h = hashlib.sha256()
    for p in sorted([HOST_HEADER, LAUNCH_HEADER, FAULT_HEADER, *INCLUDE_DIR.iterdir()]):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    for d in include_dirs:
        for p in sorted(Path(d, "cupy").glob("*")) if Path(d, "cupy").is_dir() else ():
            st = p.stat()
            h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()


# ---------------------------------------------------------------------------------------------- kernels


class HostKernel:
    """One kernel of a compiled unit: ``launch(grid, block, args)`` runs every block and thread."""

    def __init__(self, lib: ctypes.CDLL, prefix: str, name: str, path: Path) -> None:
        self.name = name
        self.path = path
        self._lib = lib
        n = getattr(lib, f"{prefix}_nparams")
        n.restype = ctypes.c_size_t
        count = n()
        for attr in ("sizes", "aligns"):
            fn = getattr(lib, f"{prefix}_{attr}")
            fn.restype = ctypes.POINTER(ctypes.c_size_t)
            arr = fn()
            setattr(self, f"param_{attr}", tuple(int(arr[i]) for i in range(count)))
        self._launch = getattr(lib, f"{prefix}_launch")
        self._launch.restype = None
        self._launch.argtypes = [ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_uint), ctypes.c_void_p]
        self._take_fault = lib.gpuops_take_fault  # one per unit (gpuops_fault.h)
        self._take_fault.restype = ctypes.c_ulonglong
        self._take_fault.argtypes = [
            ctypes.POINTER(ctypes.c_ulonglong),
            ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(ctypes.c_uint),
        ]

    param_sizes: tuple[int, ...]
    param_aligns: tuple[int, ...]

    def __repr__(self) -> str:
        return f"HostKernel({self.name!r}, param_sizes={self.param_sizes})"

    def launch(
        self, grid: tuple[int, int, int], block: tuple[int, int, int], args: Sequence[bytes], shared_mem: int = 0
    ) -> None:
        """Run the grid on this thread. ``args[i]`` holds the raw bytes of parameter ``i``. Dynamic shared
        memory (``shared_mem``) is not emulated: a kernel declaring ``extern __shared__`` does not compile."""
        dims = []
        for what, v in (("grid", grid), ("block", block)):
            t = tuple(v)
            if len(t) != 3 or any(isinstance(x, bool) or not isinstance(x, int) or x < 1 or x >= 2**32 for x in t):
                raise ValueError(f"kernel {self.name}: {what} must be three positive integers (got {v!r})")
            dims.append((ctypes.c_uint * 3)(*t))
        if block[0] * block[1] * block[2] > 1024:
            raise ValueError(f"kernel {self.name}: block {tuple(block)} has more than 1024 threads")
        if shared_mem:
            raise ValueError(f"kernel {self.name}: dynamic shared memory is not emulated (shared_mem={shared_mem})")
        if len(args) != len(self.param_sizes):
            raise ValueError(
                f"kernel {self.name} takes {count(len(self.param_sizes), 'parameter')}, "
                f"got {count(len(args), 'argument')}"
            )
        buffers = []
        for i, (a, size) in enumerate(zip(args, self.param_sizes, strict=True)):
            raw = bytes(a)
            if len(raw) != size:
                raise ValueError(f"kernel {self.name}: parameter {i} takes {count(size, 'byte')}, got {len(raw)}")
            buffers.append(ctypes.create_string_buffer(raw, max(size, 1)))  # malloc: 16-byte aligned
        ptrs = (ctypes.c_void_p * max(len(buffers), 1))(*[ctypes.addressof(b) for b in buffers])
        self._launch(dims[0], dims[1], ptrs)
        address, type_name, line = ctypes.c_ulonglong(), ctypes.c_char_p(), ctypes.c_uint()
        alignment = self._take_fault(ctypes.byref(address), ctypes.byref(type_name), ctypes.byref(line))
        if alignment:
            kind = (type_name.value or b"?").decode(errors="replace")
            raise DeviceFault(
                "cudaErrorMisalignedAddress",
                "misaligned address",
                f"kernel {self.name} accessed a {kind} (alignment {alignment}) at {address.value:#x}, "
                f"{address.value % alignment} bytes past an aligned address (line {line.value} of its unit)",
            )


# ---------------------------------------------------------------------------------------------- building

compile_count = 0  # compiler runs in this process (tests count cache hits with it)
_count_lock = threading.Lock()
_loaded: dict[Path, ctypes.CDLL] = {}
_loaded_lock = threading.Lock()


class _FileLock:
    def __init__(self, path: Path) -> None:
        self.path = path

    def __enter__(self) -> None:
        import fcntl

        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        import fcntl

        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _compile_unit(exe: str, flags: list[str], text: str, folder: Path, key: str, names: Sequence[str]) -> Path:
    global compile_count
    target = folder / f"{key}.so"
    if target.exists():
        return target
    with _FileLock(folder / f"{key}.lock"):
        if target.exists():  # another process finished it while this one waited
            return target
        with tempfile.TemporaryDirectory(prefix=f"{key[:16]}-", dir=folder) as tmp:
            src = Path(tmp) / "unit.cpp"
            src.write_text(text)
            out = Path(tmp) / "unit.so"
            cmd = [exe, *flags, "-o", str(out), str(src)]
            with _count_lock:
                compile_count += 1
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0:
                shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                raise CompileError(f"{exe} rejected the unit of kernel(s) {shown}:\n{res.stderr[-20000:]}")
            os.chmod(out, 0o700)
            os.replace(out, target)
    with contextlib.suppress(OSError):  # waiters find the object published; a new lock file is harmless
        os.unlink(folder / f"{key}.lock")
    return target


def _compile_merged(
    exe: str, flags: list[str], folder: Path, group: Sequence[tuple[str, list[str], str, str, str]]
) -> list[Path]:
    """Compile the units of ``group`` as one merged unit, publish the object under each unit's key as well
    (a later process finds any one of them on its own), and return its path once per unit. A merged unit the
    compiler rejects is compiled again unit by unit, so that the error names the unit that has it."""
    members = [(code, names, prefix) for code, names, _key, prefix, _text in group]
    key = hashlib.sha256("\0".join(j[2] for j in group).encode()).hexdigest()[:40]
    try:
        text = _merged_text(members)
        merged = _compile_unit(exe, flags, text, folder, f"merged-{key}", [n for j in group for n in j[1]])
    except (CompileError, ValueError) as exc:
        log.debug("gpuops emulator: a merged unit of %d failed (%s); compiling them one by one", len(group), exc)
        return [_compile_unit(exe, flags, j[4], folder, j[2], j[1]) for j in group]
    for j in group:
        target = folder / f"{j[2]}.so"
        if not target.exists():
            with contextlib.suppress(OSError):  # a hard link where the file system has them; else not cached
                os.link(merged, target)
    return [merged] * len(group)


def build(sources: Sequence[KernelSource], *, sanitize: bool | None = None) -> list[HostKernel]:
    """Compile the kernels (one shared object per distinct translation unit, in parallel, cached on disk) and
    return one ``HostKernel`` per source, in order. ``sanitize=None`` follows ``GPUOPS_EMULATOR_SANITIZE``."""
    if sanitize is None:
        sanitize = _sanitize_default()
    if sanitize and "libasan" not in os.environ.get("LD_PRELOAD", ""):
        raise RuntimeError(
            "sanitized emulator kernels load only into a process started with the sanitizer runtime preloaded "
            "(run it with the environment gpuops.emulator.build.sanitizer_environment() returns)"
        )
    exe, identity = _compiler_identity()
    flags = [*BASE_FLAGS, *(SANITIZE_FLAGS if sanitize else PLAIN_FLAGS), "-include", str(HOST_HEADER)]
    flags += ["-include", str(FAULT_HEADER)]
    includes = _include_dirs()
    flags += [f"-I{d}" for d in [str(HERE), *includes]]
    units: dict[str, list[str]] = {}
    for s in sources:
        names = units.setdefault(s.code, [])
        if s.name not in names:
            names.append(s.name)
    salt = hashlib.sha256("\0".join([_header_digest(includes), identity, exe, " ".join(flags)]).encode()).hexdigest()
    folder = cache_folder()
    jobs = []
    for code, names in units.items():
        key = hashlib.sha256((salt + "\0" + "\0".join(names) + "\0" + code).encode()).hexdigest()[:40]
        prefix = f"gpuops_{key[:24]}"
        jobs.append((code, names, key, prefix, _unit_text(code, names, prefix)))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2
    # Units not on disk yet, and mergeable, are merged into groups: at least one per CPU, at most MERGE_MAX units.
    todo = [j for j in jobs if not (folder / f"{j[2]}.so").exists()]
    merge = [j for j in todo if len(todo) > 1 and _hoisted(j[0]) is not None]
    alone = [j for j in todo if j not in merge]
    n_groups = max(min(cpus, len(merge)), -(-len(merge) // MERGE_MAX)) if merge else 0
    groups = [merge[g::n_groups] for g in range(n_groups)]
    tasks = [[j] for j in alone] + [g for g in groups if g]

    def run(group: list[tuple[str, list[str], str, str, str]]) -> list[Path]:
        if len(group) == 1:
            j = group[0]
            return [_compile_unit(exe, flags, j[4], folder, j[2], j[1])]
        return _compile_merged(exe, flags, folder, group)

    built: dict[str, Path] = {}
    if tasks:
        with ThreadPoolExecutor(max(1, min(len(tasks), cpus))) as pool:
            for group, paths_of in zip(tasks, pool.map(run, tasks), strict=True):
                built.update({j[2]: p for j, p in zip(group, paths_of, strict=True)})
    paths = [built.get(j[2], folder / f"{j[2]}.so") for j in jobs]
    kernels: dict[tuple[str, str], HostKernel] = {}
    for (code, names, _key, prefix, _text), path in zip(jobs, paths, strict=True):
        with _loaded_lock:
            lib = _loaded.get(path)
            if lib is None:
                lib = _loaded[path] = ctypes.CDLL(str(path))
        for i, name in enumerate(names):
            kernels[(code, name)] = HostKernel(lib, f"{prefix}_{i}", name, path)
    return [kernels[(s.code, s.name)] for s in sources]
