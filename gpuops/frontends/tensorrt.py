"""TensorRT's ElementWise and Reduce layers, in TensorRT's vocabulary, over gpuops descriptors.

``elementwise(input1, input2, op)`` is ``network.add_elementwise(input1, input2, op)`` and
``reduce(input, op, axes, keep_dims)`` is ``network.add_reduce(input, op, axes, keep_dims)``,
run at once on arrays (no network, no engine). Each call is translated into exactly one
DirectML descriptor and run on a :class:`gpuops.Device` (``device=``, else
:func:`._common.default_device`); the result is an array of the inputs' kind. Sources ("the
seed" below): TensorRT's operator reference, ElementWise
(https://docs.nvidia.com/deeplearning/tensorrt/operators/docs/ElementWise.html) and Reduce
(https://docs.nvidia.com/deeplearning/tensorrt/operators/docs/Reduce.html).

=======================  =================================================  ======
TensorRT                 DirectML descriptor                                output
=======================  =================================================  ======
ElementWise SUM          ``ELEMENT_WISE_ADD``                               T1
ElementWise PROD         ``ELEMENT_WISE_MULTIPLY``                          T1
ElementWise MAX          ``ELEMENT_WISE_MAX``                               T1
ElementWise MIN          ``ELEMENT_WISE_MIN``                               T1
ElementWise SUB          ``ELEMENT_WISE_SUBTRACT``                          T1
ElementWise DIV          ``ELEMENT_WISE_DIVIDE``                            T1
ElementWise POWER        ``ELEMENT_WISE_POW``                               T1
ElementWise FLOOR_DIV    ``ELEMENT_WISE_FLOOR_DIVIDE`` (gpuops extension)   T1
ElementWise AND          ``ELEMENT_WISE_LOGICAL_AND``                       bool
ElementWise OR           ``ELEMENT_WISE_LOGICAL_OR``                        bool
ElementWise XOR          ``ELEMENT_WISE_LOGICAL_XOR``                       bool
ElementWise EQUAL        ``ELEMENT_WISE_LOGICAL_EQUALS``                    bool
ElementWise GREATER      ``ELEMENT_WISE_LOGICAL_GREATER_THAN``              bool
ElementWise LESS         ``ELEMENT_WISE_LOGICAL_LESS_THAN``                 bool
SoftMax                  ``ACTIVATION_SOFTMAX1`` (one axis)                 T
Reduce SUM               ``REDUCE``, ``ReduceFunction.SUM``                 T
Reduce PROD              ``REDUCE``, ``ReduceFunction.MULTIPLY``            T
Reduce MAX               ``REDUCE``, ``ReduceFunction.MAX``                 T
Reduce MIN               ``REDUCE``, ``ReduceFunction.MIN``                 T
Reduce AVG               ``REDUCE``, ``ReduceFunction.AVERAGE``             T
Cast                     ``CAST``                                           to_type
=======================  =================================================  ======

Rules (TensorRT's, checked here before any descriptor is built; ``TypeError`` for types,
``ValueError`` for shapes and attributes, each naming the function, the operation, the
argument, what was given and what is allowed):

- ElementWise: both inputs have the same data type (T1) and the same rank; in each dimension
  the lengths are equal or one of them is 1, which is broadcast (a stride-0 ``TensorDesc``,
  no copy). The output has the common rank and, per dimension, the length that is not 1.
  T1 per operation, from the seed's table: SUM, PROD, MAX, MIN, SUB, DIV, FLOOR_DIV take
  int8, int32, int64, float16, float32, bfloat16; POWER int8, float16, float32, bfloat16;
  AND, OR, XOR bool (bool out); EQUAL, GREATER, LESS int32, int64, float16, float32,
  bfloat16 (bool out).
- Reduce: ``axes`` is a bitmask (bit i set: dimension i is reduced; ``axes=6`` reduces dims
  1 and 2); it must be nonzero with no bit at or beyond the input's rank. The input has rank
  >= 1 and type int8, int32, int64, float16, float32 or bfloat16 (T). ``keep_dims=True``
  keeps the reduced dimensions with length 1; ``keep_dims=False`` removes them. Both run the
  same ``REDUCE`` descriptor (DirectML keeps the rank); ``keep_dims=False`` returns that
  output buffer reshaped, without another kernel.

Semantics are gpuops' (README "Semantics"), where TensorRT's page says nothing more:

- DIV on integers truncates toward zero (DirectML's ``ELEMENT_WISE_DIVIDE``, C): ``-7 / 2``
  is ``-3``. FLOOR_DIV floors (Python's ``//``): ``-7 // 2`` is ``-4``; the seed writes it
  ``floor(a / b)``, which is the same thing for integers and, for floats, is computed as
  NumPy's ``floor_divide``. Integer division by zero gives 0.
- POWER on int8 is exact and wraps; a negative exponent gives the truncated reciprocal.
- Reduce AVG on integers truncates toward zero (``[-7, 0]`` gives ``-3``); integer SUM and
  PROD wrap to the type; float16 and bfloat16 compute and accumulate in float32.
- Comparisons and logical operations write ``bool`` (gpuops' ``BOOL`` extension type).

What differs from TensorRT: inputs are arrays whose dtype is the tensor's type (no network
declares ``dtype=trt.float32``; a float64 array is rejected, not cast). A dimension of length
0 is rejected (DirectML tensors have lengths >= 1; TensorRT accepts empty tensors). bool,
bfloat16, FLOOR_DIV and the 8-bit integer reductions are gpuops extensions, so they need a
device with ``extensions=True`` (the default); on ``Device(extensions=False)`` they raise the
core's ``DescriptorError``. Extra: ``ElementWiseOperation.POW`` is an alias of ``POWER``
(TensorRT's Python name) and ``op`` may also be given by name (``"PROD"``).
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeVar

import numpy as np

from descriptors import DataType, OperatorDesc, ReduceFunction, desc_class
from descriptors.float_range import show_number

from ..device import Device
from . import _common

__all__ = [
    "ElementWiseOperation",
    "ReduceOperation",
    "axes_from_bitmask",
    "cast",
    "elementwise",
    "reduce",
    "softmax",
]


class ElementWiseOperation(enum.Enum):
    """``trt.ElementWiseOperation`` (values as TensorRT's ``ElementWiseOperation`` enum)."""

    SUM = 0
    PROD = 1
    MAX = 2
    MIN = 3
    SUB = 4
    DIV = 5
    POWER = 6
    POW = 6  # alias of POWER: TensorRT's Python API spells it POW
    FLOOR_DIV = 7
    AND = 8
    OR = 9
    XOR = 10
    EQUAL = 11
    GREATER = 12
    LESS = 13


class ReduceOperation(enum.Enum):
    """``trt.ReduceOperation`` (values as TensorRT's ``ReduceOperation`` enum)."""

    SUM = 0
    PROD = 1
    MAX = 2
    MIN = 3
    AVG = 4


_D = DataType
_ARITH = (_D.INT8, _D.INT32, _D.INT64, _D.FLOAT16, _D.FLOAT32, _D.BFLOAT16)
_POWER = (_D.INT8, _D.FLOAT16, _D.FLOAT32, _D.BFLOAT16)
_LOGICAL = (_D.BOOL,)
_COMPARE = (_D.INT32, _D.INT64, _D.FLOAT16, _D.FLOAT32, _D.BFLOAT16)
_REDUCE_TYPES = _ARITH


class _ElementWiseRow(NamedTuple):
    dml: str  # the DirectML operator
    types: tuple[DataType, ...]  # T1
    output: DataType | None  # T2; None: T1


_E = ElementWiseOperation
ELEMENTWISE_TABLE: dict[ElementWiseOperation, _ElementWiseRow] = {
    _E.SUM: _ElementWiseRow("ELEMENT_WISE_ADD", _ARITH, None),
    _E.PROD: _ElementWiseRow("ELEMENT_WISE_MULTIPLY", _ARITH, None),
    _E.MAX: _ElementWiseRow("ELEMENT_WISE_MAX", _ARITH, None),
    _E.MIN: _ElementWiseRow("ELEMENT_WISE_MIN", _ARITH, None),
    _E.SUB: _ElementWiseRow("ELEMENT_WISE_SUBTRACT", _ARITH, None),
    _E.DIV: _ElementWiseRow("ELEMENT_WISE_DIVIDE", _ARITH, None),
    _E.POWER: _ElementWiseRow("ELEMENT_WISE_POW", _POWER, None),
    _E.FLOOR_DIV: _ElementWiseRow("ELEMENT_WISE_FLOOR_DIVIDE", _ARITH, None),
    _E.AND: _ElementWiseRow("ELEMENT_WISE_LOGICAL_AND", _LOGICAL, _D.BOOL),
    _E.OR: _ElementWiseRow("ELEMENT_WISE_LOGICAL_OR", _LOGICAL, _D.BOOL),
    _E.XOR: _ElementWiseRow("ELEMENT_WISE_LOGICAL_XOR", _LOGICAL, _D.BOOL),
    _E.EQUAL: _ElementWiseRow("ELEMENT_WISE_LOGICAL_EQUALS", _COMPARE, _D.BOOL),
    _E.GREATER: _ElementWiseRow("ELEMENT_WISE_LOGICAL_GREATER_THAN", _COMPARE, _D.BOOL),
    _E.LESS: _ElementWiseRow("ELEMENT_WISE_LOGICAL_LESS_THAN", _COMPARE, _D.BOOL),
}
"""TensorRT ElementWise operation -> (DirectML operator, T1 from the seed's table, T2)."""

REDUCE_TABLE: dict[ReduceOperation, ReduceFunction] = {
    ReduceOperation.SUM: ReduceFunction.SUM,
    ReduceOperation.PROD: ReduceFunction.MULTIPLY,
    ReduceOperation.MAX: ReduceFunction.MAX,
    ReduceOperation.MIN: ReduceFunction.MIN,
    ReduceOperation.AVG: ReduceFunction.AVERAGE,
}
"""TensorRT Reduce operation -> the function of DirectML's ``REDUCE``."""

_OpEnum = TypeVar("_OpEnum", ElementWiseOperation, ReduceOperation)


def _names(types: Sequence[DataType]) -> str:
    return ", ".join(str(t.numpy_dtype) for t in types)


def _a(noun: str) -> str:
    """``noun`` with its indefinite article ("an ElementWiseOperation", "a ReduceOperation")."""
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def _operation(op: object, enum_type: type[_OpEnum], fn: str) -> _OpEnum:
    """``op`` as a member of ``enum_type`` (a member, or its name in any case, with or without TensorRT's C++
    ``k`` prefix: ``"kSUM"``, ``"sum"``), else a TypeError/ValueError."""
    if isinstance(op, enum_type):
        return op
    allowed = ", ".join(enum_type.__members__)
    if isinstance(op, str):
        members = enum_type.__members__
        name = op[1:] if op[:1] == "k" and op[1:].upper() in members else op
        member = members.get(name.upper())
        if member is None:
            raise ValueError(f"{fn}: op {op!r} is not {_a(enum_type.__name__)} member; allowed: {allowed}")
        return member
    raise TypeError(f"{fn}: op must be {_a(enum_type.__name__)} member or its name (got {op!r}); allowed: {allowed}")


def _device(device: object, fn: str) -> Device:
    if device is None:
        return _common.default_device()
    if not isinstance(device, Device):
        raise TypeError(f"{fn}: device must be a gpuops.Device or None (got {type(device).__name__})")
    return device


def _check_type(arr: Any, what: str, allowed: Sequence[DataType], context: str) -> DataType:
    """The DataType of ``arr`` when it is one of ``allowed``, else a TypeError saying so."""
    for t in allowed:
        if arr.dtype == t.numpy_dtype:
            return t
    raise TypeError(f"{context}: {what} has dtype {arr.dtype}; allowed: {_names(allowed)}")


def _check_sizes(shape: tuple[int, ...], what: str, context: str) -> None:
    if 0 in shape:
        raise ValueError(
            f"{context}: {what} has shape {shape}; every dimension must have length >= 1 "
            "(gpuops/DirectML tensors cannot be empty)"
        )


def axes_from_bitmask(axes: int, rank: int) -> tuple[int, ...]:
    """TensorRT's reduce ``axes`` bitmask as DirectML's sorted axis list: ``(6, 4) -> (1, 2)``.

    ``axes`` must be a positive integer with no bit at or beyond ``rank`` (so ``rank >= 1``).
    """
    return _axes(axes, rank, "axes_from_bitmask")


def _axes(axes: object, rank: int, context: str) -> tuple[int, ...]:
    if isinstance(axes, (bool, np.bool_)) or not hasattr(axes, "__index__"):
        raise TypeError(f"{context}: axes must be an integer bitmask (got {axes!r})")
    mask = operator.index(axes)
    if rank < 1:
        raise ValueError(f"{context}: the input has rank {rank}; Reduce needs rank >= 1")
    full = (1 << rank) - 1
    if mask < 0:
        raise ValueError(
            f"{context}: axes={show_number(mask)} is negative; it is a bitmask (allowed for rank {rank}: 1 to {full})"
        )
    if mask == 0:
        raise ValueError(
            f"{context}: axes={mask} reduces no dimension; set bit i to reduce dimension i "
            f"(allowed for rank {rank}: 1 to {full})"
        )
    if mask > full:
        if mask.bit_length() > 64:
            raise ValueError(f"{context}: axes is {show_number(mask)}; allowed for rank {rank}: 1 to {full}")
        beyond = [i for i in range(rank, mask.bit_length()) if mask >> i & 1]
        raise ValueError(
            f"{context}: axes={mask} (0b{mask:b}) sets bit(s) {beyond}, beyond the input's rank {rank} "
            f"(allowed: bits 0 to {rank - 1}, axes 1 to {full})"
        )
    return tuple(i for i in range(rank) if mask >> i & 1)


def elementwise(input1: Any, input2: Any, op: ElementWiseOperation | str, *, device: Device | None = None) -> Any:
    """TensorRT's ElementWise layer: ``op(input1, input2)`` with TensorRT's broadcasting.

    Both inputs have the same dtype and rank; each dimension is equal or 1 in one input (that
    input is broadcast). Types per operation are the seed's (see the module docstring); the
    output has the inputs' type, or bool for AND, OR, XOR, EQUAL, GREATER, LESS.

    DIV on integers truncates toward zero (DirectML ``ELEMENT_WISE_DIVIDE``); FLOOR_DIV floors
    (``ELEMENT_WISE_FLOOR_DIVIDE``, Python's ``//``; the seed writes it ``floor(a / b)``).
    Integer division by zero gives 0.

    Returns an array of ``input1``'s kind (NumPy in, NumPy out; CuPy in, CuPy out).
    """
    fn = "tensorrt.elementwise"
    operation = _operation(op, ElementWiseOperation, fn)
    ctx = f"{fn}({operation.name})"
    dev = _device(device, fn)
    arrays = _common.arrays(dev)
    a = arrays.asarray(input1, f"{ctx}: input1")
    b = arrays.asarray(input2, f"{ctx}: input2")
    row = ELEMENTWISE_TABLE[operation]
    if a.dtype != b.dtype:
        raise TypeError(
            f"{ctx}: input1 has dtype {a.dtype} and input2 dtype {b.dtype}; both inputs must have the same "
            f"type (T1), one of: {_names(row.types)}"
        )
    dt = _check_type(a, "input1 and input2", row.types, ctx)
    shape_a, shape_b = tuple(a.shape), tuple(b.shape)
    if len(shape_a) != len(shape_b):
        raise ValueError(
            f"{ctx}: input1 has rank {len(shape_a)} (shape {shape_a}) and input2 rank {len(shape_b)} "
            f"(shape {shape_b}); the inputs must have the same rank (reshape one, adding dimensions of length 1)"
        )
    out_shape = []
    for i, (m, n) in enumerate(zip(shape_a, shape_b, strict=True)):
        if m != n and m != 1 and n != 1:
            raise ValueError(
                f"{ctx}: dimension {i} has length {m} in input1 (shape {shape_a}) and {n} in input2 "
                f"(shape {shape_b}); lengths must be equal or one of them 1"
            )
        out_shape.append(n if m == 1 else m)
    shape = tuple(out_shape)
    _check_sizes(shape_a, "input1", ctx)
    _check_sizes(shape_b, "input2", ctx)
    out_dt = row.output or dt
    cls = desc_class(row.dml)
    desc: OperatorDesc = cls(
        _common.tensor(dt, shape_a, to=shape),
        _common.tensor(dt, shape_b, to=shape),
        _common.tensor(out_dt, shape),
    )
    out = _common.empty(arrays.xp, shape, out_dt)
    _common.run(dev, desc, [a, b], out)
    return _common.return_like(input1, out.reshape(shape))


def reduce(input: Any, op: ReduceOperation | str, axes: int, keep_dims: bool, *, device: Device | None = None) -> Any:
    """TensorRT's Reduce layer: ``op`` over the dimensions set in the ``axes`` bitmask.

    ``axes=6`` reduces dims 1 and 2; ``keep_dims=True`` keeps them with length 1,
    ``keep_dims=False`` removes them. One ``REDUCE`` descriptor (rank kept) runs either way;
    ``keep_dims=False`` is its output reshaped. Types: int8, int32, int64, float16, float32,
    bfloat16; the output has the input's type. AVG on integers truncates toward zero (gpuops'
    rule: ``[-7, 0]`` gives ``-3``); integer SUM and PROD wrap.

    Returns an array of ``input``'s kind.
    """
    fn = "tensorrt.reduce"
    operation = _operation(op, ReduceOperation, fn)
    ctx = f"{fn}({operation.name})"
    if not isinstance(keep_dims, (bool, np.bool_)):
        raise TypeError(f"{ctx}: keep_dims must be a bool (got {keep_dims!r})")
    dev = _device(device, fn)
    arrays = _common.arrays(dev)
    x = arrays.asarray(input, f"{ctx}: input")
    dt = _check_type(x, "input", _REDUCE_TYPES, ctx)
    shape = tuple(x.shape)
    if not shape:
        raise ValueError(f"{ctx}: input has rank 0 (a scalar); Reduce needs an input of rank >= 1")
    reduced = _axes(axes, len(shape), ctx)
    _check_sizes(shape, "input", ctx)
    kept = tuple(1 if i in reduced else s for i, s in enumerate(shape))
    cls = desc_class("REDUCE")
    desc: OperatorDesc = cls(REDUCE_TABLE[operation], _common.tensor(dt, shape), _common.tensor(dt, kept), axes=reduced)
    out = _common.empty(arrays.xp, kept, dt)
    _common.run(dev, desc, [x], out)
    if not keep_dims:
        out = out.reshape(tuple(s for i, s in enumerate(shape) if i not in reduced))
    return _common.return_like(input, out)


#: TensorRT's ``DataType`` names (``trt.DataType.HALF``, C++ ``DataType::kHALF``) and the gpuops type of each.
CAST_TYPES: dict[str, DataType] = {
    "FLOAT": DataType.FLOAT32,
    "HALF": DataType.FLOAT16,
    "BF16": DataType.BFLOAT16,
    "INT8": DataType.INT8,
    "INT32": DataType.INT32,
    "INT64": DataType.INT64,
    "UINT8": DataType.UINT8,
    "BOOL": DataType.BOOL,
}


def cast(input: Any, to_type: object, *, device: Device | None = None) -> Any:
    """TensorRT's Cast layer (``network.add_cast(input, to_type)``): every element of ``input`` as ``to_type``.

    ``to_type``: a TensorRT ``DataType`` name (``"HALF"``, ``"kHALF"``, any case) or anything
    ``DataType.parse`` reads (``np.float16``, ``"float16"``). DirectML's ``CAST`` runs it, with gpuops' rules
    where a value does not fit (README "Semantics": floats truncate and saturate into integers, NaN gives 0;
    integers wrap; floats round once to nearest even). Returns an array of ``input``'s kind.
    """
    fn = "tensorrt.cast"
    name = to_type.upper() if isinstance(to_type, str) else None
    if name is not None and name[:1] == "K" and name[1:] in CAST_TYPES:
        name = name[1:]
    if name in CAST_TYPES:
        target = CAST_TYPES[name]
    else:
        try:
            target = DataType.parse(to_type)
        except (TypeError, ValueError, KeyError):
            allowed = ", ".join(CAST_TYPES)
            raise TypeError(f"{fn}: to_type {to_type!r} is not a TensorRT DataType; allowed: {allowed}") from None
    return _common.cast(_device(device, fn), input, target, fn)


def softmax(input: Any, axes: int | None = None, *, device: Device | None = None) -> Any:
    """TensorRT's SoftMax layer (``network.add_softmax(input)``, ``layer.axes``): exp(x) / sum exp(x) along the
    one dimension set in the ``axes`` bitmask (exactly one bit, as ``ISoftMaxLayer::setAxes`` requires).
    ``axes=None`` is TensorRT's default: dimension ``rank - 3``, or 0 below rank 3 (NCHW: C).

    DirectML's ``ACTIVATION_SOFTMAX1`` runs it (the maximum subtracted first; float16 and bfloat16 summed in
    float32, rounded once). Types: float32, float16, bfloat16. Returns an array of ``input``'s kind.
    """
    fn = "tensorrt.softmax"
    dev = _device(device, fn)
    x = _common.arrays(dev).asarray(input, f"{fn}: input")
    _check_type(x, "input", (DataType.FLOAT32, DataType.FLOAT16, DataType.BFLOAT16), fn)
    rank = x.ndim
    if rank == 0:
        raise ValueError(f"{fn}: input has rank 0 (a scalar); SoftMax needs an input of rank >= 1")
    if axes is None:
        axis = max(0, rank - 3)
    else:
        chosen = _axes(axes, rank, fn)
        if len(chosen) != 1:
            raise ValueError(f"{fn}: axes={axes} sets {len(chosen)} bits ({list(chosen)}); SoftMax takes exactly one")
        (axis,) = chosen
    return _common.composite(dev, "ACTIVATION_SOFTMAX1", input, fn, axes=(axis,))
