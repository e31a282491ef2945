"""The emulator kernels of the generated operator matrix, enumerated from the op table (issue 32).

The generated tests' ``test_matches_reference`` cases are the op table's rows x data-type mappings (at FL_6_4) x
parameter sets x the modules' layouts (``tests/ops/test_ops_generated.py``, ``test_nary_generated.py``,
``test_reduce_generated.py``: their ``CASES`` and ``LAYOUTS``). For each case this module builds the operator
descriptor and bound buffers of that layout and runs it once on ``Device("emulator")`` under
``gpuops.emulator.kernels.recording()``: the CuPy backend's own code path picks the launch path and CuPy's code
generator writes the kernel text, but nothing is compiled and the launches do nothing. No test body runs (no data
generation, no float64 reference, no pytest fixtures): about a fifth of what a dry run of those tests costs.

``conftest.pytest_runtestloop`` builds these kernels together with the ones a dry run of the other gpu tests finds,
in one batch (``emulator_prebuild``). A kernel missed here still runs: it is compiled when first launched, and the
terminal summary counts those (``gpuops.emulator.kernels.first_launch_builds``).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from descriptors import TensorDesc, desc_class
from descriptors.schema import FieldKind

__all__ = ["ENUMERATED", "case", "enumerated", "record_kernels"]

# (test module, test function) whose cases the enumeration covers: the dry run leaves their items out.
ENUMERATED = (
    ("test_ops_generated", "test_matches_reference"),
    ("test_nary_generated", "test_matches_reference"),
    ("test_reduce_generated", "test_matches_reference"),
    ("test_reduce_generated", "test_reduction_kernel_on_rows_layouts"),
)

Case = tuple[object, list[TensorDesc], list[TensorDesc], Callable[[], Any] | None]


def enumerated(module: str, function: str) -> bool:
    """Whether the items of ``module::function`` are cases :func:`case` builds."""
    return (module, function) in ENUMERATED


def _binary(p: Mapping[str, Any]) -> Case:
    import test_ops_generated as m

    name, combo = p["name"], p["combo"]
    sizes, st_a, st_b, st_o, _ = m.LAYOUTS[p["layout"]]
    ins, out = m.roles(name)
    descs = {
        ins[0]: TensorDesc(combo[ins[0]], sizes, st_a),
        ins[1]: TensorDesc(combo[ins[1]], sizes, st_b),
        out: TensorDesc(combo[out], sizes, st_o),
    }
    return m.make_desc(name, descs), [descs[ins[0]], descs[ins[1]]], [descs[out]], None


def _nary(p: Mapping[str, Any]) -> Case:
    import test_nary_generated as m

    name, combo = p["name"], p["combo"]
    row = m.ROW[name]
    sizes, st_first, st_other, st_out = m.LAYOUTS[p["layout"]]
    out = row.output_fields[0].name
    params = {**{f.name: combo[out] for f in row.fields if f.kind is FieldKind.DATA_TYPE}, **p["params"]}
    descs = {
        f.name: TensorDesc(combo[f.name], sizes, st_first if i == 0 else st_other)
        for i, f in enumerate(row.input_fields)
    }
    descs[out] = TensorDesc(combo[out], sizes, st_out)
    ins = [descs[f.name] for f in row.input_fields]
    return desc_class(name)(**descs, **params), ins, [descs[out]], None


def _reduce(p: Mapping[str, Any]) -> Case:
    import test_reduce_generated as m

    from descriptors import row_of
    from gpuops.layout import reduce_plan

    row_name, combo, layout_name = p["row_name"], p["combo"], p["layout"]
    layout = m.LAYOUTS[layout_name]
    in_desc = TensorDesc(combo["input_tensor"], layout.sizes, layout.in_strides)
    out_desc = TensorDesc(combo["output_tensor"], layout.out_sizes, layout.out_strides)
    row = row_of(row_name)
    enum_type = row.field(row.selector).enum_type
    desc = desc_class(row_name)(
        **{row.selector: enum_type[p["variant"]], "input_tensor": in_desc, "output_tensor": out_desc},
        axes=layout.axes,
    )
    # "large" and "large-rows" run as run_case runs them: split from 2**14 elements; the ReductionKernel's cases on
    # rows layouts with the rows kernel off.
    if layout_name.startswith("large"):
        return desc, [in_desc], [out_desc], functools.partial(_large_policy, reduce_plan, m.LARGE_POLICY)
    if p.get("rows_off"):
        from gpuops import config

        return desc, [in_desc], [out_desc], functools.partial(config.override, cupy_rows_reduce=False)
    return desc, [in_desc], [out_desc], None


@contextlib.contextmanager
def _large_policy(reduce_plan: Any, policy: Any) -> Iterator[None]:
    old = reduce_plan.DEFAULT_POLICY
    reduce_plan.DEFAULT_POLICY = policy
    try:
        yield
    finally:
        reduce_plan.DEFAULT_POLICY = old


_FAMILIES: dict[str, Callable[[Mapping[str, Any]], Case]] = {
    "test_ops_generated": _binary,
    "test_nary_generated": _nary,
    "test_reduce_generated": _reduce,
}


def case(module: str, params: Mapping[str, Any]) -> Case:
    """The operator of one generated case (``module``'s ``test_matches_reference`` with these parameters): its
    descriptor, the tensors of its input and output buffers, and a context it runs under (or None)."""
    return _FAMILIES[module](params)


def record_kernels(
    cases: Sequence[tuple[str, Mapping[str, Any]]],
) -> tuple[dict[tuple[str, str], Any], list[str]]:
    """Run each case (module, parameters) once on the emulator under ``recording()``; return the kernel sources
    seen and the errors (a case that cannot be built or run here is left to compile at its first launch; the test
    itself reports what is wrong with it)."""
    from helpers import buffer_for, to_backend

    import gpuops
    from gpuops import backends
    from gpuops.emulator.kernels import recording

    dev = gpuops.Device("emulator")
    xp = backends.load("emulator").xp
    errors: list[str] = []
    with recording() as seen:
        for module, params in cases:
            try:
                desc, in_descs, out_descs, context = case(module, params)
                with context() if context is not None else contextlib.nullcontext():
                    op = dev.compile_operator(dev.create_operator(desc))
                    ins = [to_backend(xp, buffer_for(d, np.zeros(d.sizes))) for d in in_descs]
                    outs = [to_backend(xp, buffer_for(d, np.zeros(d.sizes))) for d in out_descs]
                    op.execute(ins, outs)
            except Exception as exc:  # noqa: BLE001 - reported in the summary, never hidden from the tests
                errors.append(f"{module} {params}: {exc.__class__.__name__}: {exc}")
        return dict(seen), errors
