"""``python -m gpuops``: capability tables, environment report and a worked demo.

    python -m gpuops caps [OP ...] [--level 5_1|0x5100] [--json] [--wide] [--no-extensions]
    python -m gpuops info [--json]
    python -m gpuops demo [--backend auto|numpy|cupy|emulator]
    python -m gpuops --version

Operators by short name (``add``, ``sub``, ``relu``; see ``gpuops.cli.names``) or DirectML name.
Exit codes: 0 success, 1 a demo check failed, 2 bad usage (unknown operator, feature
level or backend), 130 interrupted, 141 the reader closed the pipe (``caps | head -1``; quiet,
as a tool that SIGPIPE ends).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from descriptors import (
    DataType,
    ElementWiseDivideOperatorDesc,
    ElementWiseFloorDivideOperatorDesc,
    ElementWiseMultiplyOperatorDesc,
    OperatorDesc,
    ReduceFunction,
    ReduceOperatorDesc,
    TensorDesc,
)

from . import __version__
from .cli.caps import add_caps_parser, format_support
from .cli.names import UsageError, resolve_operator
from .cli.streams import quiet_streams

__all__ = ["format_support", "main", "resolve_operator"]

# --------------------------------------------------------------------------- info


def _version(module: str) -> str | None:
    try:
        mod = __import__(module)
    except Exception:
        return None
    return str(getattr(mod, "__version__", "unknown"))


def cuda_report() -> dict[str, Any]:
    """Whether CUDA is usable through CuPy, and why not; the device when it is."""
    out: dict[str, Any] = {"cupy": None, "usable": False, "reason": None, "device": None}
    try:
        import cupy
    except Exception as exc:
        out["reason"] = f"cupy is not importable ({type(exc).__name__}: {exc}); pip install -e .[cuda12] or .[cuda13]"
        return out
    out["cupy"] = cupy.__version__
    try:
        rt = cupy.cuda.runtime
        count = rt.getDeviceCount()
    except Exception as exc:
        out["reason"] = f"CUDA runtime error: {type(exc).__name__}: {exc}"
        return out
    if count < 1:
        out["reason"] = "no CUDA device found (cudaGetDeviceCount() == 0)"
        return out
    try:
        usable = bool(cupy.is_available())
    except Exception as exc:
        out["reason"] = f"cupy.is_available() failed: {exc}"
        return out
    if not usable:
        out["reason"] = "cupy.is_available() is False"
        return out
    out["usable"] = True
    try:
        props = rt.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"]
        out["device"] = {
            "name": name.decode() if isinstance(name, bytes) else str(name),
            "compute_capability": f"{props['major']}.{props['minor']}",
            "total_memory_gib": round(props["totalGlobalMem"] / 2**30, 1),
            "multiprocessors": props["multiProcessorCount"],
        }
        out["runtime_version"] = rt.runtimeGetVersion()
        out["driver_version"] = rt.driverGetVersion()
    except Exception as exc:
        out["device"] = {"error": f"{type(exc).__name__}: {exc}"}
    return out


def info_report() -> dict[str, Any]:
    import gpuops

    report: dict[str, Any] = {
        "gpuops": gpuops.__version__,
        "python": f"{platform.python_version()} ({platform.python_implementation()}, {platform.platform()})",
        "numpy": np.__version__,
        "ml_dtypes": _version("ml_dtypes"),
        "numba": _version("numba"),
    }
    from gpuops.backends import numba_loops

    report["numba_tier"] = numba_loops.available()
    current = gpuops.config.settings()
    report["settings"] = {
        var.name: (str(v) if isinstance(v := getattr(current, var.field), os.PathLike) else v)
        for var in gpuops.config.VARIABLES
    }
    cuda = cuda_report()
    report["cupy"] = cuda.pop("cupy")
    report["cuda"] = cuda
    try:
        dev = gpuops.Device("auto")
        report["backend"] = {"auto": dev.backend, "feature_level": dev.feature_level.label}
    except Exception as exc:
        report["backend"] = {"error": f"{type(exc).__name__}: {exc}"}
    try:
        from gpuops.nvrtc import nvrtc_version

        major, minor = nvrtc_version()
        report["nvrtc"] = f"{major}.{minor}"
    except Exception as exc:
        report["nvrtc"] = None
        report["nvrtc_unavailable"] = f"{type(exc).__name__}: {exc}"
    report["emulator"] = emulator_report()
    return report


def emulator_report() -> dict[str, Any]:
    """Whether ``Device("emulator")`` is usable (a C++ compiler and CuPy's generators), and why not."""
    try:
        from gpuops.emulator.build import compiler
        from gpuops.emulator.runtime import unavailable_reason

        reason = unavailable_reason()
        return {"usable": reason is None, "reason": reason, "compiler": None if reason else compiler()}
    except Exception as exc:
        return {"usable": False, "reason": f"{type(exc).__name__}: {exc}", "compiler": None}


def cmd_info(args: argparse.Namespace) -> int:
    report = info_report()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    cuda = report["cuda"]
    lines = [
        ("gpuops", report["gpuops"]),
        ("python", report["python"]),
        ("numpy", report["numpy"]),
        ("ml_dtypes", report["ml_dtypes"] or "not installed"),
        (
            "numba",
            (report["numba"] or "not installed")
            + ("; NumPy backend's compiled tier on" if report["numba_tier"] else "; compiled tier off"),
        ),
        ("cupy", report["cupy"] or "not installed"),
        ("CUDA usable", "yes" if cuda["usable"] else f"no: {cuda['reason']}"),
    ]
    dev = cuda.get("device")
    if dev:
        if "error" in dev:
            lines.append(("device", f"query failed: {dev['error']}"))
        else:
            lines.append(
                (
                    "device",
                    f"{dev['name']} (compute capability {dev['compute_capability']}, "
                    f"{dev['total_memory_gib']} GiB, {dev['multiprocessors']} SMs)",
                )
            )
            lines.append(("CUDA runtime/driver", f"{cuda.get('runtime_version')} / {cuda.get('driver_version')}"))
    backend = report["backend"]
    if "error" in backend:
        lines.append(("backend (auto)", f"error: {backend['error']}"))
    else:
        lines.append(("backend (auto)", f"{backend['auto']} at feature level {backend['feature_level']}"))
    nvrtc = report["nvrtc"] or f"unavailable ({report.get('nvrtc_unavailable')})"
    lines.append(("NVRTC", nvrtc))
    emu = report["emulator"]
    lines.append(("emulator", f"usable ({emu['compiler']})" if emu["usable"] else f"not usable: {emu['reason']}"))
    settings = report["settings"].items()
    shown = (f"{k}={'auto' if v is None else int(v) if isinstance(v, bool) else v}" for k, v in settings)
    lines.append(("settings", ", ".join(shown) + " (read at import)"))
    width = max(len(k) for k, _ in lines)
    for key, value in lines:
        print(f"{key:<{width}}  {value}")
    return 0


# --------------------------------------------------------------------------- demo


def describe_desc(desc: OperatorDesc) -> str:
    """Class, operator type and every tensor's type, sizes, element strides and byte size."""
    lines = [f"{type(desc).__name__} ({desc.operator_type.name})"]
    roles = [f.name for f in desc.row.tensor_fields]
    width = max(len(r) for r in roles)
    for role in roles:
        t: TensorDesc | None = getattr(desc, role)
        if t is None:
            lines.append(f"  {role:<{width}}  (absent)")
            continue
        strides = "packed" if t.strides is None else str(t.strides)
        lines.append(
            f"  {role:<{width}}  {t.data_type.name:<8} sizes={t.sizes} strides={strides} "
            f"total_tensor_size_in_bytes={t.total_tensor_size_in_bytes}"
        )
    return "\n".join(lines)


def _show(name: str, arr: np.ndarray, limit: int = 64) -> str:
    """Small arrays in full (flattened beyond 2-D); a big one as its shape and a few values."""
    if arr.size <= limit:
        flat = arr.ndim > 2
        body = np.array2string(arr.ravel() if flat else arr, max_line_width=96, separator=", ")
        body = body.replace("\n", "\n    ")
        return f"  {name} {arr.shape} {arr.dtype}{' (flattened)' if flat else ''}:\n    {body}"
    values = arr.ravel()
    head = ", ".join(f"{v:g}" for v in values[:8].tolist())
    return (
        f"  {name} {arr.shape} {arr.dtype}, {arr.size} values: [{head}, ..., {values[-1].item():g}]"
        f" (min {values.min().item():g}, max {values.max().item():g})"
    )


class _Demo:
    def __init__(self, backend: str) -> None:
        import gpuops

        self.device = gpuops.Device(backend)
        impl = self.device.backend_impl  # NumPy, CuPy, or the CUDA emulator's stand-in for CuPy
        self.to_device: Callable[[np.ndarray], Any] = lambda a: impl.to_device(np.ascontiguousarray(a).ravel().copy())
        self.empty: Callable[[int, np.dtype], Any] = lambda n, dt: impl.xp.empty(n, dt)
        self.to_host: Callable[[Any], np.ndarray] = impl.to_host
        self.put: Callable[[np.ndarray], Any] = impl.to_device  # front-ends take the backend's own arrays
        self.failures = 0

    def run(
        self,
        title: str,
        desc: OperatorDesc,
        inputs: dict[str, np.ndarray],
        expected: np.ndarray,
        *,
        exact: bool,
        rtol: float = 0.0,
        note: str = "",
    ) -> None:
        dev = self.device
        print(f"=== {title}")
        print(describe_desc(desc))
        print("inputs (flat buffers, read through the descriptors' sizes and strides):")
        for name, arr in inputs.items():
            print(_show(name, arr))
        compiled = dev.compile_operator(dev.create_operator(desc))
        out_t = desc.output_tensors[0]
        out_np = out_t.data_type.numpy_dtype
        need = cast(int, out_t.total_tensor_size_in_bytes)  # TensorDesc.__post_init__ always sets it
        out_buf = self.empty(-(-need // out_np.itemsize), out_np)
        compiled.execute([self.to_device(a) for a in inputs.values()], [out_buf])
        got = self.to_host(out_buf)[: out_t.element_count].reshape(out_t.sizes)
        print("output:")
        print(_show("output", got))
        if exact:
            diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
            err = float(diff.max()) if diff.size else 0.0
            ok = got.shape == expected.shape and bool(np.array_equal(got, expected))
            what = f"max abs error {err:g} (exact match required)"
        else:
            ref = expected.astype(np.float64)
            rel = np.abs(got.astype(np.float64) - ref) / np.maximum(np.abs(ref), np.finfo(np.float64).tiny)
            err = float(rel.max()) if rel.size else 0.0
            ok = got.shape == expected.shape and err <= rtol
            what = f"max relative error {err:.3g} vs float64 NumPy (tolerance {rtol:.3g})"
        self.failures += not ok
        print(f"check: {'PASS' if ok else 'FAIL'}: {what}")
        if note:
            print(note)
        print(f"backend: {dev.backend} (feature level {dev.feature_level.label}); kernel {compiled.kernel_name}")
        print("kernel source (compiled.kernel_source):")
        print("    " + compiled.kernel_source.rstrip().replace("\n", "\n    "))
        print()


def _frontend_demo(demo: _Demo) -> int:
    """One call per front-end (gpuops.frontends), each checked; returns the number of checks."""
    from .frontends import onednn, openvino, tensorrt

    dev = demo.device
    a = np.array([[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]], np.float32)
    b = np.array([[4.0, 5.0, 6.0]], np.float32)
    ai = np.array([[7, -7, 9], [-9, 6, -6]], np.int32)
    bi = np.array([2, 2, -4], np.int32)
    src = np.array([-2.0, -0.5, 0.0, 1.5], np.float32)
    calls = [
        (
            "tensorrt.elementwise(input1 (2, 3), input2 (1, 3), ElementWiseOperation.PROD)",
            lambda: tensorrt.elementwise(demo.put(a), demo.put(b), tensorrt.ElementWiseOperation.PROD, device=dev),
            a.astype(np.float64) * b,
        ),
        (
            "onednn.eltwise_forward('eltwise_relu', src, alpha=0.1)",
            lambda: onednn.eltwise_forward("eltwise_relu", demo.put(src), alpha=0.1, device=dev),
            np.where(src > 0, src, np.float32(0.1) * src.astype(np.float64)),
        ),
        (
            "openvino.divide(a int32 (2, 3), b int32 (3,), pythondiv=True)",
            lambda: openvino.divide(demo.put(ai), demo.put(bi), pythondiv=True, device=dev),
            np.floor_divide(ai, bi),
        ),
    ]
    print("=== Front-ends: one call each, in the seeds' own vocabularies (gpuops.frontends)")
    for title, call, want in calls:
        got = demo.to_host(call())
        ok = got.shape == want.shape and bool(np.allclose(got, want, rtol=float(np.finfo(np.float32).eps), atol=0))
        demo.failures += not ok
        print(f"{title}\n{_show('result', got)}\ncheck: {'PASS' if ok else 'FAIL'} (vs float64 NumPy)")
    print()
    return len(calls)


def cmd_demo(args: argparse.Namespace) -> int:
    import gpuops

    try:
        demo = _Demo(args.backend)
    except gpuops.UnsupportedError as exc:
        raise UsageError(str(exc)) from None
    f32, i32 = DataType.FLOAT32, DataType.INT32

    # (a) TensorRT ElementWise PROD with broadcast: (2, 3) * (1, 3), seed's expected values.
    shape = (2, 3)
    desc: OperatorDesc = ElementWiseMultiplyOperatorDesc(
        a_tensor=TensorDesc(f32, shape),
        b_tensor=TensorDesc.broadcast(f32, (1, 3), to=shape),
        output_tensor=TensorDesc(f32, shape),
    )
    in1 = np.array([[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]], np.float32)
    in2 = np.array([[4.0, 5.0, 6.0]], np.float32)
    expected = np.array([[-12.0, -10.0, -6.0], [0.0, 5.0, 12.0]], np.float32)
    demo.run(
        "TensorRT ElementWise PROD, input1 (2, 3) * input2 (1, 3) broadcast (b_tensor stride 0 on axis 0)",
        desc,
        {"a (input1)": in1, "b (input2)": in2},
        expected,
        exact=True,
    )

    # (b) OpenVINO Divide, auto_broadcast=numpy: (8, 1, 6, 1) / (7, 1, 5) -> (8, 7, 6, 5).
    a_shape, b_shape, out_shape = (8, 1, 6, 1), (7, 1, 5), (8, 7, 6, 5)
    if np.broadcast_shapes(a_shape, b_shape) != out_shape:
        raise RuntimeError(f"demo: {a_shape} and {b_shape} broadcast to {np.broadcast_shapes(a_shape, b_shape)}")
    a = ((np.arange(48, dtype=np.float32) - 20.0) * 0.75).reshape(a_shape)
    b = (np.arange(35, dtype=np.float32) - 17.5).reshape(b_shape)  # half-integers: no zeros
    desc = ElementWiseDivideOperatorDesc(
        a_tensor=TensorDesc.broadcast(f32, a_shape, to=out_shape),
        b_tensor=TensorDesc.broadcast(f32, b_shape, to=out_shape),
        output_tensor=TensorDesc(f32, out_shape),
    )
    demo.run(
        "OpenVINO Divide (auto_broadcast=numpy, pythondiv=false), float32 (8, 1, 6, 1) / (7, 1, 5) -> (8, 7, 6, 5)",
        desc,
        {"a": a, "b": b},
        a.astype(np.float64) / b.astype(np.float64),
        exact=False,
        rtol=float(np.finfo(np.float32).eps),
    )

    # (c) The same shapes, int32, pythondiv=true: floor division (ELEMENT_WISE_FLOOR_DIVIDE).
    ai = (np.arange(48, dtype=np.int32) - 24).reshape(a_shape)
    bi: np.ndarray = np.arange(35, dtype=np.int32) - 17
    bi = np.where(bi >= 0, bi + 1, bi).astype(np.int32).reshape(b_shape)  # -17..-1, 1..18: no zeros
    desc = ElementWiseFloorDivideOperatorDesc(
        a_tensor=TensorDesc.broadcast(i32, a_shape, to=out_shape),
        b_tensor=TensorDesc.broadcast(i32, b_shape, to=out_shape),
        output_tensor=TensorDesc(i32, out_shape),
    )
    floor = np.floor_divide(ai, bi)
    trunc = np.trunc(ai / bi.astype(np.float64)).astype(np.int32)  # ELEMENT_WISE_DIVIDE's integer rule
    demo.run(
        "OpenVINO Divide (auto_broadcast=numpy, pythondiv=true), int32 (8, 1, 6, 1) // (7, 1, 5) -> (8, 7, 6, 5)",
        desc,
        {"a": ai, "b": bi},
        floor,
        exact=True,
        note=f"note: {int((floor != trunc).sum())} of {floor.size} results differ from truncation toward zero "
        "(pythondiv=false, ELEMENT_WISE_DIVIDE), e.g. -1 // 2 == -1 where -1 / 2 == 0",
    )

    # (d) TensorRT Reduce PROD, axes bitmask 6 (dims 1 and 2), keep_dims=False: DirectML's
    # REDUCE MULTIPLY keeps the rank; keep_dims=False reads the same buffer as (1, 3).
    x = np.array([[[[-3.0, -2.0, -1.0], [0.0, 1.0, 2.0]], [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]]], np.float32)
    axes = tuple(i for i in range(x.ndim) if 6 >> i & 1)
    desc = ReduceOperatorDesc(
        ReduceFunction.MULTIPLY, TensorDesc(f32, x.shape), TensorDesc(f32, (1, 1, 1, 3)), axes=axes
    )
    demo.run(
        f"TensorRT Reduce PROD, axes=6 (bitmask -> axes {axes}), keep_dims=False, float32 (1, 2, 2, 3) -> (1, 3)",
        desc,
        {"input": x},
        np.array([[0.0, -56.0, -80.0]], np.float32).reshape(1, 1, 1, 3),
        exact=True,
        note="note: keep_dims=False is the same kernel; its (1, 3) output is this buffer read without the unit axes",
    )

    total = 4 + _frontend_demo(demo)
    if demo.failures:
        print(f"demo: {demo.failures} of {total} checks FAILED on the {demo.device.backend} backend")
        return 1
    print(f"demo: all {total} checks PASS on the {demo.device.backend} backend")
    return 0


# --------------------------------------------------------------------------- entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpuops",
        description="gpuops: DirectML's operator-descriptor model on CuPy (CUDA) or NumPy.",
    )
    parser.add_argument("--version", action="version", version=f"gpuops {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{caps,info,demo}")
    sub.required = True
    add_caps_parser(sub)

    info = sub.add_parser("info", help="versions, CUDA availability, device and the auto-selected backend")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(func=cmd_info)

    demo = sub.add_parser("demo", help="run the seeds' examples (descriptors and front-ends) and check them")
    demo.add_argument("--backend", choices=("auto", "numpy", "cupy", "emulator"), default="auto", help="default: auto")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, or argparse's own usage errors (exit code 2)
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        return quiet_streams(lambda: int(args.func(args)))
    except UsageError as exc:
        print(f"gpuops {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
