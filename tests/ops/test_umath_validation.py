"""Float32 accuracy against NumPy's correctly rounded validation tables, on each backend.

NumPy ships ``numpy/_core/tests/data/umath-validation-set-<fn>.csv`` (columns ``dtype,input,
output,ulperrortol``; input and output as hexadecimal float bits, the output correctly
rounded): subnormals, huge arguments, values near overflow and the special values. Each
float32 row goes through the gpuops operator on the backend under test, and the largest
error in ulps (distance in representable float32 values; a NaN where the table has a
number, or a number where it has NaN, is an infinite error) must not exceed the accuracy
``reference_unary.TOLERANCE`` states for the operator. On CuPy and the CUDA emulator the table is read under
their float32 subnormal rule (``flushed_errors``): subnormal inputs and results are zeros there.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np
import pytest
from helpers import buffer_for, flush_subnormals, flushes_subnormals, read_tensor, to_backend, to_host
from reference_unary import TOLERANCE

from descriptors import DataType, TensorDesc, desc_class

# gpuops operator -> NumPy's table name.
TABLES = {
    "ELEMENT_WISE_EXP": "exp",
    "ELEMENT_WISE_LOG": "log",
    "ELEMENT_WISE_TANH": "tanh",
    "ELEMENT_WISE_SIN": "sin",
    "ELEMENT_WISE_COS": "cos",
    "ELEMENT_WISE_TAN": "tan",
    "ELEMENT_WISE_ACOS": "arccos",
    "ELEMENT_WISE_ASIN": "arcsin",
    "ELEMENT_WISE_ATAN": "arctan",
    "ELEMENT_WISE_SINH": "sinh",
    "ELEMENT_WISE_COSH": "cosh",
    "ELEMENT_WISE_ACOSH": "arccosh",
    "ELEMENT_WISE_ASINH": "arcsinh",
    "ELEMENT_WISE_ATANH": "arctanh",
}
DATA_DIR = os.path.join(os.path.dirname(np.__file__), "_core", "tests", "data")


@functools.cache
def float32_rows(table: str) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, correctly rounded outputs) of the table's np.float32 rows."""
    path = os.path.join(DATA_DIR, f"umath-validation-set-{table}.csv")
    if not os.path.exists(path):
        pytest.skip(f"NumPy's validation table {path} is not installed")
    ins, outs = [], []
    with open(path) as fh:
        for line in fh:
            parts = line.strip().split(",")
            if len(parts) == 4 and parts[0] == "np.float32":
                ins.append(int(parts[1], 16))
                outs.append(int(parts[2], 16))
    assert ins, f"no float32 rows in {path}"
    return np.array(ins, np.uint32).view(np.float32), np.array(outs, np.uint32).view(np.float32)


def _ordered(v: np.ndarray) -> np.ndarray:
    """float32 values as integers in the order of the reals (-0.0 and +0.0 both 0)."""
    i = v.view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF), i)


def ulp_errors(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Per element: representable float32 values between got and want (inf for a NaN mismatch)."""
    err = np.abs(_ordered(got) - _ordered(want)).astype(np.float64)
    got_nan, want_nan = np.isnan(got), np.isnan(want)
    err[got_nan & want_nan] = 0.0
    err[got_nan != want_nan] = np.inf
    return err


def flushed_errors(table: str, x: np.ndarray, got: np.ndarray, want: np.ndarray, backend: object) -> np.ndarray:
    """``ulp_errors`` under the backend's subnormal rule (README, "Subnormals, per backend"). On CuPy and the
    emulator (``helpers.flushes_subnormals``) float32 math flushes its subnormal inputs and results to zeros of their
    sign: where the table's input is subnormal, the reference is the function at that zero (exact for every table
    here: NumPy's float64 ufunc of +-0.0, rounded); where the reference result is subnormal, the kernel's result
    before its flush is within the bound of it, and a zero (of either sign: the kernel's intermediate flushes decide
    it) is what the GPU gives for it. Everywhere else the table's correctly rounded value. NumPy keeps subnormals:
    the table as it is."""
    if not flushes_subnormals(backend):
        return ulp_errors(got, want)
    fx = flush_subnormals(x)
    hit = fx.view(np.uint32) != x.view(np.uint32)
    want = want.copy()
    with np.errstate(all="ignore"):
        want[hit] = getattr(np, table)(fx[hit].astype(np.float64)).astype(np.float32)
    err = ulp_errors(got, want)
    flushed = flush_subnormals(want).view(np.uint32) != want.view(np.uint32)
    err[flushed & (got == 0)] = 0.0
    return err


def run_float32(device: Any, xp: Any, name: str, x: np.ndarray) -> np.ndarray:
    desc = TensorDesc(DataType.FLOAT32, (x.size,))
    op = device.compile_operator(device.create_operator(desc_class(name)(desc, desc)))
    out = to_backend(xp, buffer_for(desc, np.zeros(x.size)))
    op.execute([to_backend(xp, buffer_for(desc, x))], [out])
    return read_tensor(to_host(out), desc)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_max_ulp_within_stated_accuracy(name: str, device: Any, xp: Any, record_property: Any) -> None:
    x, want = float32_rows(TABLES[name])
    got = run_float32(device, xp, name, x)
    err = flushed_errors(TABLES[name], x, got, want, device)
    worst = int(np.argmax(err))
    measured = float(err[worst])
    stated = TOLERANCE[name][0]
    record_property("max_ulp", measured)
    assert measured <= stated, (
        f"{name} on {device.backend}: measured max {measured:g} ulp over {x.size} rows of NumPy's "
        f"umath-validation-set-{TABLES[name]}.csv, stated {stated:g} ulp; worst at x={x[worst]!r} "
        f"({x[worst : worst + 1].view(np.uint32)[0]:#010x}): got {got[worst]!r}, want {want[worst]!r}"
    )


def test_ulp_measure() -> None:
    """The measure itself: neighbours are 1 apart across zero and the binade, NaN matches NaN only."""
    one = np.float32(1.0)
    v = np.array([one, np.nextafter(one, np.float32(2)), -0.0, 0.0, np.float32(1e-45), np.nan], np.float32)
    w = np.array([np.nextafter(one, np.float32(0)), one, 0.0, -0.0, np.float32(-1e-45), np.nan], np.float32)
    assert ulp_errors(v, w).tolist() == [1.0, 1.0, 0.0, 0.0, 2.0, 0.0]
    assert ulp_errors(np.array([np.nan], np.float32), np.array([1.0], np.float32))[0] == np.inf
    assert ulp_errors(np.array([np.inf], np.float32), np.array([np.finfo(np.float32).max], np.float32))[0] == 1.0


def test_accuracy_report(device: Any, xp: Any) -> None:
    """The measured table (issue 6): printed, and written to ``$GPUOPS_CONFORMANCE_OUT/umath-<backend>.md``.

    Each operator is also held to its stated bound here, so the report cannot show a violation.
    """
    lines = [
        f"| operator ({device.backend}) | NumPy table | float32 rows | measured max ulp | stated ulp |",
        "|---|---|---|---|---|",
    ]
    for name in sorted(TABLES):
        x, want = float32_rows(TABLES[name])
        measured = float(flushed_errors(TABLES[name], x, run_float32(device, xp, name, x), want, device).max())
        stated = TOLERANCE[name][0]
        assert measured <= stated, (name, measured, stated)
        lines.append(f"| `{name}` | {TABLES[name]} | {x.size} | {measured:g} | {stated:g} |")
    table = "\n".join(lines) + "\n"
    print("\n" + table)
    out_dir = os.environ.get("GPUOPS_CONFORMANCE_OUT")
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, f"umath-{device.backend}.md"), "w") as fh:
            fh.write(table)
