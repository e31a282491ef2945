"""``MLGraph`` (the compiled graphs a WebNN graph lowers to) and ``MLContext``."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from descriptors import TensorDesc

from ..device import CompiledOperator, Device
from ..frontends._common import default_device, return_like, to_backend
from ..graph_builder import GraphBuilder, Value
from ._operand import MLOperand, MLOperandDescriptor, Shape

Source = tuple[str, object]  # ("input", name) or ("node", operand id)


@dataclasses.dataclass(frozen=True)
class _Stage:
    """One compiled graph: its inputs (buffer source, packed sizes it is viewed as) and the nodes it stores."""

    compiled: CompiledOperator
    inputs: tuple[Source, ...]
    outputs: tuple[MLOperand, ...]


class MLGraph:
    """A built graph: ``compute({name: array})`` runs it and returns ``{name: array}``."""

    def __init__(self, context: MLContext, inputs: dict[str, MLOperand], outputs: dict[str, MLOperand]) -> None:
        self.context = context
        self.inputs = {n: MLOperandDescriptor(v.dataType, v.logical) for n, v in inputs.items()}
        self.outputs = {n: MLOperandDescriptor(v.dataType, v.logical) for n, v in outputs.items()}
        self._outputs = outputs
        self._stages = _lower(context.device, outputs)

    @property
    def kernel_count(self) -> int:
        """Kernels one ``compute`` launches (element-wise chains fuse into one)."""
        return sum(s.compiled.kernel_count for s in self._stages)

    def compute(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """Run with ``inputs`` (every graph input by name, arrays of the device with the descriptor's shape and
        dtype); returns ``{name: array}`` for every output."""
        w = "webnn.compute"
        if not isinstance(inputs, Mapping):
            raise TypeError(f"{w}: inputs must be a dict of name -> array, got {type(inputs).__name__}")
        missing, extra = set(self.inputs) - set(inputs), set(inputs) - set(self.inputs)
        if missing or extra:
            raise ValueError(
                f"{w}: inputs {sorted(inputs)} must name the graph's inputs {sorted(self.inputs)} "
                f"(missing {sorted(missing)}, unknown {sorted(extra)})"
            )
        device = self.context.device
        xp = device.backend_impl.xp
        buffers: dict[Source, Any] = {}
        template = None
        for name, desc in self.inputs.items():
            arr = to_backend(device, inputs[name], f"{w}: inputs[{name!r}]")
            template = inputs[name] if template is None else template
            if arr.dtype != desc.data_type.numpy_dtype:
                raise TypeError(f"{w}: inputs[{name!r}] has dtype {arr.dtype}; the input is {desc.dataType}")
            if tuple(arr.shape) != desc.shape:
                raise ValueError(f"{w}: inputs[{name!r}] has shape {list(arr.shape)}; the input is {list(desc.shape)}")
            buffers[("input", name)] = xp.ascontiguousarray(arr).reshape(-1)
        for stage in self._stages:
            args = [buffers[src] for src in stage.inputs]
            _, out_tensors = stage.compiled.bound_tensors()
            outs = [xp.zeros(_elements(t), dtype=t.data_type.numpy_dtype) for t in out_tensors]
            stage.compiled(*args, out=tuple(outs))
            for v, buf in zip(stage.outputs, outs, strict=True):
                buffers[("node", id(v))] = buf
        result: dict[str, Any] = {}
        seen: set[int] = set()
        for name, v in self._outputs.items():
            arr = buffers[("node", id(v))][: math.prod(v.logical)].reshape(v.logical)
            result[name] = return_like(template, arr.copy() if id(v) in seen else arr)
            seen.add(id(v))
        return result

    def __repr__(self) -> str:
        return f"MLGraph(inputs={sorted(self.inputs)}, outputs={sorted(self.outputs)}, {len(self._stages)} graph(s))"


def _elements(t: TensorDesc) -> int:
    need = cast(int, t.total_tensor_size_in_bytes)  # TensorDesc.__post_init__ always sets it
    return -(-need // t.data_type.itemsize)


def _lower(device: Device, outputs: Mapping[str, MLOperand]) -> list[_Stage]:
    """The compiled graphs computing ``outputs``, in order: nodes of one stage share a ``GraphBuilder``; a value a
    later stage reads (or an output) is stored, and read from its buffer there like an input."""
    nodes: dict[int, MLOperand] = {}
    stack = list(outputs.values())
    while stack:
        v = stack.pop()
        if v.kind == "op" and id(v) not in nodes:
            nodes[id(v)] = v
            stack.extend(u for u in v.inputs if u is not None)
    order = sorted(nodes.values(), key=lambda v: (v.stage, v.serial))
    wanted = {id(v) for v in outputs.values()}
    for v in order:  # values read across stages are stored
        for u, read in zip(v.inputs, v.reads, strict=True):
            if u is not None and u.kind == "op" and not (u.stage == v.stage and read == (u.phys, u.phys)):
                wanted.add(id(u))
    stages: list[_Stage] = []
    for s in sorted({v.stage for v in order}):
        gb = GraphBuilder()
        values: dict[int, Value] = {}
        leaves: dict[tuple[Source, Shape, Shape], Value] = {}
        sources: list[Source] = []
        members = [v for v in order if v.stage == s]
        for v in members:
            args: list[Value | None] = []
            for u, read in zip(v.inputs, v.reads, strict=True):
                if u is None or read is None:
                    args.append(None)
                    continue
                view, target = read
                if u.kind == "op" and u.stage == s and read == (u.phys, u.phys):
                    args.append(values[id(u)])
                    continue
                if u.kind == "constant":
                    # packed, broadcast by GraphBuilder; stored broadcast when nothing else has the sizes (expand)
                    if u.data is None:
                        raise TypeError(f"{u!r}: a constant operand without data")
                    data = u.data.reshape(view)
                    if view != target and all(w is u or w is None for w in v.inputs):
                        data, view = np.ascontiguousarray(np.broadcast_to(data, target)), target
                    key: tuple[Source, Shape, Shape] = (("constant", id(u)), view, view)
                    if key not in leaves:
                        leaves[key] = gb.constant(data, u.data_type)
                else:  # an input, or a value an earlier stage stored: its buffer read through zero strides
                    src: Source = ("input", u.name) if u.kind == "input" else ("node", id(u))
                    key = (src, view, target)
                    if key not in leaves:
                        tensor = (
                            TensorDesc(u.data_type, view)
                            if view == target
                            else TensorDesc.broadcast(u.data_type, view, to=target)
                        )
                        leaves[key] = gb.input(tensor)
                        sources.append(src)
                args.append(leaves[key])
            out = gb.op(v.row, *args, output_type=v.data_type, **v.fields)
            if out.sizes != v.phys:
                raise RuntimeError(f"{v!r}: GraphBuilder made sizes {out.sizes}, WebNN's are {v.phys}")
            values[id(v)] = out
        stored = tuple(v for v in members if id(v) in wanted)
        compiled = device.compile_graph(gb.build([values[id(v)] for v in stored]))
        stages.append(_Stage(compiled, tuple(sources), stored))
    return stages


class MLContext:
    """WebNN's ``MLContext`` over a ``gpuops.Device`` (``None``: the default device; a backend name)."""

    def __init__(self, device: Device | str | None = None) -> None:
        if device is None:
            device = default_device()
        elif isinstance(device, str):
            device = Device(device)
        elif not isinstance(device, Device):
            raise TypeError(
                f"webnn.MLContext: device must be a gpuops.Device, a backend name or None, got {type(device).__name__}"
            )
        self.device = device

    def compute(self, graph: MLGraph, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """``graph.compute(inputs)``."""
        return graph.compute(inputs)

    def dispatch(self, graph: MLGraph, inputs: Mapping[str, Any], outputs: Mapping[str, Any]) -> None:
        """Run ``graph`` and write each result into ``outputs[name]`` (arrays of the device, of the output's
        shape and dtype; every output named)."""
        w = "webnn.dispatch"
        if not isinstance(outputs, Mapping) or set(outputs) != set(graph.outputs):
            raise ValueError(f"{w}: outputs must name the graph's outputs {sorted(graph.outputs)}")
        targets = {}
        for name, desc in graph.outputs.items():
            arr = to_backend(self.device, outputs[name], f"{w}: outputs[{name!r}]")
            if arr.dtype != desc.data_type.numpy_dtype or tuple(arr.shape) != desc.shape:
                raise ValueError(
                    f"{w}: outputs[{name!r}] is {arr.dtype} {list(arr.shape)}; the output is "
                    f"{desc.dataType} {list(desc.shape)}"
                )
            targets[name] = arr
        for name, value in graph.compute(inputs).items():
            targets[name][...] = value

    def __repr__(self) -> str:
        return f"MLContext({self.device!r})"


def createContext(device: Device | str | None = None) -> MLContext:
    """WebNN's ``ml.createContext``: an ``MLContext`` on ``device`` (default: ``Device("auto")``)."""
    return MLContext(device)
