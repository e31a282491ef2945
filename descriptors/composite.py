"""The parts a composite operator (``schema.CompositeRow``) is computed from: other rows' descriptors, wired.

A composite operator (softmax, log-softmax, hardmax, mean-variance normalization) is a short list of
:class:`Part`: each an operator descriptor of another row and, per input tensor of that descriptor, where the
value comes from: ``("input", k)``, input tensor ``k`` of the composite (its ``input_tensors`` order), or
``("part", m)``, the output of part ``m``. The last part writes the composite's output tensor.

A part's input tensor states the sizes it reads at. A value read at larger sizes than it has (a reduced maximum
read at the input's sizes, a per-channel ScaleTensor) is broadcast: its size-1 dimensions get stride 0
(``TensorDesc.read_as``). Pure data: ``gpuops.graph_plan.plan_composite`` plans it like a graph (element-wise
parts fused into the reductions they feed or follow), and every backend runs that plan.

The parts' descriptor classes come from :data:`DESC_CLASS_BY_NAME`, which ``descriptors.descs`` fills when it makes
the classes: the composite rows are part of the op table the classes are made from, so ``ops/composite.py``
cannot import ``descs`` without an import circle. No descriptor exists before ``descs`` has run, so the mapping is
complete whenever a composite descriptor is decomposed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .enums import DataType
from .tensor import TensorDesc

__all__ = ["DESC_CLASS_BY_NAME", "Part", "compute_type", "packed"]

Read = tuple[str, int]

#: The descriptor class of each op-table row, by row name (``"REDUCE"``): filled by ``descriptors.descs``.
DESC_CLASS_BY_NAME: dict[str, type[Any]] = {}


@dataclasses.dataclass(frozen=True)
class Part:
    """One operator of a composite: ``desc`` and, per input tensor, where its value comes from (None for an
    absent optional input)."""

    desc: Any  # an OperatorDesc (descs imports this module's users, so not named here)
    reads: tuple[Read | None, ...]

    def __post_init__(self) -> None:
        inputs = self.desc.input_tensors
        name = self.desc.row.name
        if len(inputs) != len(self.reads):
            raise ValueError(f"{name}: {len(self.reads)} reads for {len(inputs)} inputs")
        for t, r in zip(inputs, self.reads, strict=True):
            if (t is None) != (r is None):
                raise ValueError(f"{name}: a present input needs a read, an absent one none (read {r!r})")
            if r is not None and r[0] not in ("input", "part"):
                raise ValueError(f"{name}: a read is ('input', k) or ('part', k) (got {r!r})")


def compute_type(data_type: DataType) -> DataType:
    """The type a composite computes in: float32 for FLOAT16, BFLOAT16 and FLOAT32 (every sum and division of
    the 16-bit types in float32, rounded once at the end), FLOAT64 for FLOAT64."""
    return DataType.FLOAT64 if data_type is DataType.FLOAT64 else DataType.FLOAT32


def packed(data_type: DataType, sizes: tuple[int, ...]) -> TensorDesc:
    """A packed intermediate value."""
    return TensorDesc(data_type, sizes)
