"""The text of the CUDA emulator's translation units: one unit's exports, and several units merged into one.

A unit is compiled with gpuops' launch header (``gpuops_launch.h``) after it and one ``GPUOPS_EXPORT_KERNEL`` line
per kernel (:func:`_unit_text`). A batch of units is merged into one translation unit (:func:`_merged_text`):
each unit in a namespace of its own, its kernels renamed and its macros undefined after it, its ``#include``
lines hoisted to the top (:func:`_hoisted`: only where that keeps their meaning), so that the compiler's fixed
cost, mostly parsing CuPy's headers, is paid once per merged unit instead of once per kernel (``build``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["LAUNCH_HEADER_NAME", "MERGE_MAX"]

#: gpuops' launch header (``GPUOPS_EXPORT_KERNEL``), next to this module and on the compiler's include path.
LAUNCH_HEADER_NAME = "gpuops_launch.h"
# Sources that need cooperative fibers: a barrier (or anything built on one) in the text.
_BARRIER = re.compile(r"__syncthreads|__syncwarp")


def _enclosing_namespaces(code: str, name: str) -> str:
    """The ``ns::`` qualification of the definition of kernel ``name`` (``batch_reduction_source`` wraps
    each kernel in a namespace); raise ValueError when the source defines no such ``__global__`` function."""
    m = re.search(r"__global__\s+void\s+" + re.escape(name) + r"\s*\(", code)
    if m is None:
        raise ValueError(f"the source defines no __global__ void {name}(...)")
    stack: list[str | None] = []
    text = re.sub(r"//[^\n]*|/\*.*?\*/", lambda t: " " * len(t.group()), code[: m.start()], flags=re.S)
    pos = 0
    for brace in re.finditer(r"[{}]", text):
        if brace.group() == "{":
            ns = re.search(r"namespace\s+(\w+)\s*$", text[pos : brace.start()])
            stack.append(ns.group(1) if ns else None)
        elif stack:
            stack.pop()
        pos = brace.end()
    if any(s is None for s in stack):
        raise ValueError(f"kernel {name} is not defined at namespace scope")
    return "".join(f"{s}::" for s in stack)


#: At most this many units go into one merged translation unit of a batch build (~25 ms of compile time each,
#: against ~0.3 s of fixed cost per compiler run). 160 rather than 48 since kernels carry alignment checks: a batch
#: of 1383 kernels (the FLOAT16/INT32 gpu tests of test_ops_generated and test_reduce_generated) built in 32.3 s
#: against 39.2 s at 48 (2-core VM).
MERGE_MAX = 160
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"][^>\"\n]+[>\"][^\n]*$", re.M)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.M)
_CONDITIONAL = re.compile(r"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|undef|pragma)\b", re.M)


def _hoisted(code: str) -> tuple[list[str], str] | None:
    """A unit's ``#include`` lines and the rest of its text, when its includes can move to the top of a merged
    unit without changing their meaning (no macro, condition or pragma ahead of the last one); else None."""
    includes = list(_INCLUDE.finditer(code))
    if includes:
        head = code[: includes[-1].start()]
        if _DEFINE.search(head) or _CONDITIONAL.search(head):
            return None
    return [m.group().strip() for m in includes], _INCLUDE.sub("", code)


def _merged_text(members: Sequence[tuple[str, Sequence[str], str]]) -> str:
    """One translation unit holding several (code, kernel names, export prefix) units: each in namespace
    ``gpuops_unit<i>``, its kernels renamed by a macro (``extern "C"`` names would clash), and every macro it
    defines undefined after it. Each unit exports the very symbols its own object would (``<prefix>_<j>_*``)."""
    includes: dict[str, None] = {}
    parts: list[str] = []
    for i, (code, names, prefix) in enumerate(members):
        hoisted = _hoisted(code)
        if hoisted is None:
            raise ValueError("unit cannot be merged")
        lines, body = hoisted
        includes.update(dict.fromkeys(lines))
        ns, fibers = f"gpuops_unit{i}", "true" if _BARRIER.search(code) else "false"
        parts += [f"#define {n} {n}__gpuops_unit{i}\n" for n in names]
        parts.append(f"namespace {ns} {{\n{body}\n}}  // namespace {ns}\n")
        parts += [f"#undef {m}\n" for m in dict.fromkeys([*_DEFINE.findall(body), *names])]
        for j, n in enumerate(names):
            qual = _enclosing_namespaces(body, n)
            parts.append(f"GPUOPS_EXPORT_KERNEL({prefix}_{j}, ::{ns}::{qual}{n}__gpuops_unit{i}, {fibers})\n")
    return "".join(f"{line}\n" for line in includes) + f'#include "{LAUNCH_HEADER_NAME}"\n' + "".join(parts)


def _unit_text(code: str, names: Sequence[str], prefix: str) -> str:
    fibers = "true" if _BARRIER.search(code) else "false"
    parts = [code, f'\n#include "{LAUNCH_HEADER_NAME}"\n']
    for i, name in enumerate(names):
        qual = _enclosing_namespaces(code, name)
        parts.append(f"GPUOPS_EXPORT_KERNEL({prefix}_{i}, ::{qual}{name}, {fibers})\n")
    return "".join(parts)
