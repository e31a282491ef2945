"""OpenVINO's binary arithmetic operations (opset 1 names) over gpuops' DirectML descriptors.

Each call is one DirectML operator: the inputs are read through zero strides where they
broadcast (``TensorDesc.broadcast``; no broadcast copy is ever made), the output is a new
array of the inputs' kind (see ``_common``), of the broadcast shape.

==================================  ================================================================
OpenVINO op                         DirectML operator
==================================  ================================================================
Add                                 ``ELEMENT_WISE_ADD``
Subtract                            ``ELEMENT_WISE_SUBTRACT``
Multiply                            ``ELEMENT_WISE_MULTIPLY``
Divide, floats                      ``ELEMENT_WISE_DIVIDE`` (true division, whatever ``pythondiv``)
Divide, integers, pythondiv=true    ``ELEMENT_WISE_FLOOR_DIVIDE`` (gpuops extension; Python's ``//``)
Divide, integers, pythondiv=false   ``ELEMENT_WISE_DIVIDE`` (truncates toward zero, as C)
Maximum / Minimum                   ``ELEMENT_WISE_MAX`` / ``ELEMENT_WISE_MIN``
Power                               ``ELEMENT_WISE_POW`` (``a`` the input, ``b`` the exponent)
FloorMod                            ``ELEMENT_WISE_MODULUS_FLOOR`` (sign of the divisor, Python ``%``)
Mod                                 ``ELEMENT_WISE_MODULUS_TRUNCATE`` (sign of the dividend, ``fmod``)
SquaredDifference                   ``ELEMENT_WISE_DIFFERENCE_SQUARE`` (``(a - b) * (a - b)``)
Convert                             ``CAST``
SoftMax-8 / LogSoftmax-5            ``ACTIVATION_SOFTMAX1`` / ``ACTIVATION_LOG_SOFTMAX1`` (one axis)
MVN-6                               ``MEAN_VARIANCE_NORMALIZATION1`` (``eps_mode="inside_sqrt"``)
CumSum-3                            ``CUMULATIVE_SUMMATION`` (``reverse``: AxisDirection DECREASING)
==================================  ================================================================

Broadcast rules (``auto_broadcast``, case-insensitive: ``"none"``, ``"numpy"``, ``"pdpd"``),
as OpenVINO's "Broadcast Rules For Elementwise Operations":

* ``none``: the shapes must be equal; the output has that shape.
* ``numpy``: NumPy's rules (ranks right-aligned, a dimension of 1 stretches); two rank-0
  inputs give a rank-0 output.
* ``pdpd`` (PaddlePaddle): ``b`` is broadcast onto ``a`` and the output has ``a``'s shape.
  ``rank(b) <= rank(a)``; ``axis`` is the dimension of ``a`` where ``b`` starts, ``-1`` (the
  default) meaning ``rank(a) - rank(b)`` (right-aligned); no other negative axis is allowed.
  The trailing dimensions of size 1 of ``b`` are ignored (``(3, 1)`` counts as ``(3,)``); the rest
  must lie inside ``a`` from ``axis`` on and be, dimension by dimension, equal to ``a``'s or 1
  (a 1 stretches: the spec's example ``a (2, 3, 4, 5)``, ``b (1, 3)``, ``axis=0`` is valid). ``axis``
  is only taken with ``pdpd``.

Types: both inputs of one type, any numeric type gpuops has (float16/32/64, bfloat16 and the
8- to 64-bit integers; bool is not numeric), further narrowed by the DirectML operator's own table
at the device's feature level (POW has no 64-bit integers; DIFFERENCE_SQUARE takes float16/32/64,
bfloat16, int32 and uint32 only): anything else is a ``TypeError`` naming the operator.

Where OpenVINO and gpuops differ (gpuops gives a defined result where OpenVINO leaves it undefined):

* Integer division and modulus by zero: undefined in OpenVINO; gpuops gives 0 (``x / 0``,
  ``x // 0``, ``x % 0``), with no trap. Float division by zero is IEEE (``inf``, NaN).
* ``INT_MIN / -1`` wraps to ``INT_MIN`` (``INT_MIN % -1`` is 0); integer Add, Subtract, Multiply,
  Power and SquaredDifference wrap modulo 2**bits.
* ``pythondiv`` only matters for signed integers (for unsigned ones floor and truncation agree);
  floats divide truly with either value, as the spec says. ``ELEMENT_WISE_FLOOR_DIVIDE`` is a
  gpuops extension: on ``Device(extensions=False)`` integer Divide needs ``pythondiv=False``.
* Mod takes the sign of the dividend (``-7 mod 3 == -1``), FloorMod that of the divisor
  (``-7 floormod 3 == 2``); on floats, FloorMod is Python's ``%`` (``x % 0.0`` is NaN).
* Power on integers is exact and wraps; a negative integer exponent gives the truncated reciprocal
  (``2 ** -1 == 0``, ``1 ** -5 == 1``, ``(-1) ** -3 == -1``).
* Maximum and Minimum propagate NaN.
* float16 and bfloat16 are computed in float32 and rounded once.
* Tensors have at most 8 dimensions (DirectML); an empty broadcast result is returned without
  running anything.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from descriptors import DataType, OperatorDesc, desc_class
from descriptors.ops.composite import check_axes

from ..device import Device
from ._common import arrays as _common_arrays
from ._common import cast, composite, data_type, default_device, return_like, run, tensor

__all__ = [
    "add",
    "broadcast_shape",
    "convert",
    "cum_sum",
    "divide",
    "floor_mod",
    "log_softmax",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "mvn",
    "power",
    "softmax",
    "squared_difference",
    "subtract",
]

_MODES = ("none", "numpy", "pdpd")


def _mode(auto_broadcast: object, where: str) -> str:
    if not isinstance(auto_broadcast, str):
        raise TypeError(
            f"{where}: auto_broadcast must be a string, one of {', '.join(map(repr, _MODES))} "
            f"(got {type(auto_broadcast).__name__})"
        )
    mode = auto_broadcast.lower()
    if mode not in _MODES:
        raise ValueError(f"{where}: unknown auto_broadcast {auto_broadcast!r}; expected one of {', '.join(_MODES)}")
    return mode


def _check_axis(axis: object, mode: str, where: str) -> int:
    if isinstance(axis, (bool, np.bool_)):
        raise TypeError(f"{where}: axis must be an integer (got {type(axis).__name__})")
    try:
        axis = operator.index(axis)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{where}: axis must be an integer (got {type(axis).__name__})") from None
    if mode != "pdpd" and axis != -1:
        raise ValueError(f"{where}: axis={axis} applies to auto_broadcast='pdpd' only (got {mode!r})")
    return axis


def _pdpd(a_shape: tuple[int, ...], b_shape: tuple[int, ...], axis: int, where: str) -> tuple[int, ...]:
    """``b``'s shape laid out in ``a``'s rank (1s around it), for a zero-stride read as ``a``'s shape."""
    ra, rb = len(a_shape), len(b_shape)
    if rb > ra:
        raise ValueError(f"{where}: pdpd broadcast needs rank(b) <= rank(a) (a {a_shape}, b {b_shape})")
    if axis < -1:
        raise ValueError(f"{where}: pdpd axis must be -1 (the default) or >= 0 (got {axis})")
    start = ra - rb if axis == -1 else axis
    core = list(b_shape)
    while core and core[-1] == 1:  # trailing 1s of b are ignored: (3, 1) counts as (3,)
        core.pop()
    if start + len(core) > ra:
        raise ValueError(
            f"{where}: pdpd broadcast of b {b_shape} (as {tuple(core)}) at axis {start} runs past a {a_shape}"
        )
    for i, n in enumerate(core):
        if n not in (1, a_shape[start + i]):
            raise ValueError(
                f"{where}: pdpd broadcast: b {b_shape} is not a subsequence of a {a_shape} at axis {start} "
                f"(b dimension {i} is {n}, a dimension {start + i} is {a_shape[start + i]})"
            )
    return (1,) * start + tuple(core) + (1,) * (ra - start - len(core))


def _layout(
    a_shape: tuple[int, ...], b_shape: tuple[int, ...], mode: str, axis: int, where: str
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """(output shape, a's shape as read, b's shape as read): the read shapes broadcast to the output."""
    if mode == "none":
        if a_shape != b_shape:
            raise ValueError(f"{where}: auto_broadcast='none' needs equal shapes (a {a_shape}, b {b_shape})")
        return a_shape, a_shape, b_shape
    if mode == "numpy":
        ra, rb = len(a_shape), len(b_shape)
        rank = max(ra, rb)
        pa, pb = (1,) * (rank - ra) + a_shape, (1,) * (rank - rb) + b_shape
        out = []
        for i, (x, y) in enumerate(zip(pa, pb, strict=True)):
            if x != y and 1 not in (x, y):
                raise ValueError(
                    f"{where}: shapes a {a_shape} and b {b_shape} do not broadcast (numpy rules): "
                    f"dimension {i - rank} is {x} in a and {y} in b"
                )
            out.append(y if x == 1 else x)
        return tuple(out), a_shape, b_shape
    return a_shape, a_shape, _pdpd(a_shape, b_shape, axis, where)


def broadcast_shape(
    a_shape: Sequence[int], b_shape: Sequence[int], auto_broadcast: str = "numpy", *, axis: int = -1
) -> tuple[int, ...]:
    """The output shape of an OpenVINO binary operation, or the ``ValueError`` its shapes deserve."""
    where = "openvino.broadcast_shape"
    mode = _mode(auto_broadcast, where)
    axis = _check_axis(axis, mode, where)
    return _layout(_dims(a_shape, f"{where}: a_shape"), _dims(b_shape, f"{where}: b_shape"), mode, axis, where)[0]


def _dims(shape: Sequence[int], what: str) -> tuple[int, ...]:
    """A shape's dimensions as ints: integers only (Python or NumPy; not bool, float or str, which ``int()``
    would turn into a dimension), none negative."""
    if isinstance(shape, str | bytes) or not isinstance(shape, Sequence | np.ndarray):
        raise TypeError(f"{what} must be a sequence of integers (got {shape!r})")
    dims = list(shape)
    bad = [d for d in dims if not isinstance(d, int | np.integer) or isinstance(d, bool | np.bool_)]
    if bad:
        raise TypeError(f"{what} must be a sequence of integers; {bad[0]!r} ({type(bad[0]).__name__}) is not one")
    if any(d < 0 for d in dims):
        raise ValueError(f"{what} has a negative dimension: {tuple(int(d) for d in dims)}")
    return tuple(int(d) for d in dims)


def _supported(device: Device, op: str, dt: DataType, where: str) -> None:
    """A TypeError when the operator's table at this device has no ``dt`` (the core's own table)."""
    sup = device.operator_support(op)
    if not sup.supported:  # the operator itself is missing: create_operator says why
        return
    first = sup.tensors[0]
    allowed = (*first.data_types, *first.extension_data_types)
    if dt not in allowed:
        raise TypeError(
            f"{where}: {dt.name} is not supported by {op} on {device!r}"
            f"{'' if device.extensions else ' with extensions off'} (supported: {', '.join(t.name for t in allowed)})"
        )


def _binary(
    name: str,
    op: str | None,
    a: object,
    b: object,
    auto_broadcast: str,
    axis: int,
    device: Device | None,
    *,
    pythondiv: bool = False,
) -> Any:
    """Translate one OpenVINO binary call into its DirectML descriptor and run it."""
    where = f"openvino.{name}"
    dev = default_device() if device is None else device
    if not isinstance(dev, Device):
        raise TypeError(f"{where}: device must be a gpuops.Device (got {type(dev).__name__})")
    mode = _mode(auto_broadcast, where)
    axis = _check_axis(axis, mode, where)
    arrays = _common_arrays(dev)
    xa = arrays.asarray(a, f"{where}: a")
    xb = arrays.asarray(b, f"{where}: b")
    if xa.dtype != xb.dtype:
        raise TypeError(f"{where}: a and b must have the same type (OpenVINO's T); got {xa.dtype} and {xb.dtype}")
    dt = data_type(xa, f"{where}: a")
    if dt is DataType.BOOL:
        raise TypeError(f"{where}: bool is not a numeric type (OpenVINO's T is any numeric type)")
    if op is None:  # Divide: pythondiv floors integers only; floats divide truly either way
        op = "ELEMENT_WISE_FLOOR_DIVIDE" if pythondiv and dt.is_integer else "ELEMENT_WISE_DIVIDE"
    _supported(dev, op, dt, where)
    out_shape, a_read, b_read = _layout(tuple(xa.shape), tuple(xb.shape), mode, axis, where)
    out = arrays.xp.empty(out_shape, dtype=dt.numpy_dtype)
    if math.prod(out_shape) == 0:  # DirectML sizes are >= 1: nothing to run
        return return_like(a, out)
    desc: OperatorDesc = desc_class(op)(
        tensor(dt, a_read, to=out_shape), tensor(dt, b_read, to=out_shape), tensor(dt, out_shape)
    )
    run(dev, desc, [xa, xb], out)
    return return_like(a, out)


def divide(
    a: object,
    b: object,
    pythondiv: bool = True,
    auto_broadcast: str = "numpy",
    *,
    axis: int = -1,
    device: Device | None = None,
) -> Any:
    """OpenVINO ``Divide-1``: ``a / b``.

    ``pythondiv=True`` (the default) floors integer quotients (``ELEMENT_WISE_FLOOR_DIVIDE``),
    ``False`` truncates them (``ELEMENT_WISE_DIVIDE``); floats divide truly either way. Integer
    division by zero gives 0 (undefined in OpenVINO).
    """
    if not isinstance(pythondiv, (bool, np.bool_)):
        raise TypeError(f"openvino.divide: pythondiv must be a bool (got {type(pythondiv).__name__})")
    return _binary("divide", None, a, b, auto_broadcast, axis, device, pythondiv=bool(pythondiv))


def add(a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None) -> Any:
    """OpenVINO ``Add-1``: ``a + b`` (``ELEMENT_WISE_ADD``; integers wrap)."""
    return _binary("add", "ELEMENT_WISE_ADD", a, b, auto_broadcast, axis, device)


def subtract(
    a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None
) -> Any:
    """OpenVINO ``Subtract-1``: ``a - b`` (``ELEMENT_WISE_SUBTRACT``; integers wrap)."""
    return _binary("subtract", "ELEMENT_WISE_SUBTRACT", a, b, auto_broadcast, axis, device)


def multiply(
    a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None
) -> Any:
    """OpenVINO ``Multiply-1``: ``a * b`` (``ELEMENT_WISE_MULTIPLY``; integers wrap)."""
    return _binary("multiply", "ELEMENT_WISE_MULTIPLY", a, b, auto_broadcast, axis, device)


def maximum(
    a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None
) -> Any:
    """OpenVINO ``Maximum-1``: ``max(a, b)`` (``ELEMENT_WISE_MAX``; NaN propagates)."""
    return _binary("maximum", "ELEMENT_WISE_MAX", a, b, auto_broadcast, axis, device)


def minimum(
    a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None
) -> Any:
    """OpenVINO ``Minimum-1``: ``min(a, b)`` (``ELEMENT_WISE_MIN``; NaN propagates)."""
    return _binary("minimum", "ELEMENT_WISE_MIN", a, b, auto_broadcast, axis, device)


def power(a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None) -> Any:
    """OpenVINO ``Power-1``: ``a ** b`` (``ELEMENT_WISE_POW``, ``a`` the input, ``b`` the exponent).

    Integers are exact and wrap; a negative integer exponent gives the truncated reciprocal.
    DirectML's POW has no 64-bit integer types (``TypeError``).
    """
    return _binary("power", "ELEMENT_WISE_POW", a, b, auto_broadcast, axis, device)


def floor_mod(
    a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None
) -> Any:
    """OpenVINO ``FloorMod-1``: ``a - b * floor(a / b)``, the sign of ``b`` (``ELEMENT_WISE_MODULUS_FLOOR``).

    Integer ``x % 0`` gives 0 (undefined in OpenVINO); float ``x % 0.0`` is NaN.
    """
    return _binary("floor_mod", "ELEMENT_WISE_MODULUS_FLOOR", a, b, auto_broadcast, axis, device)


def mod(a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None) -> Any:
    """OpenVINO ``Mod-1``: ``a - b * trunc(a / b)``, the sign of ``a`` (``ELEMENT_WISE_MODULUS_TRUNCATE``).

    Integer ``x % 0`` gives 0 (undefined in OpenVINO); float ``x % 0.0`` is NaN.
    """
    return _binary("mod", "ELEMENT_WISE_MODULUS_TRUNCATE", a, b, auto_broadcast, axis, device)


def squared_difference(
    a: object, b: object, auto_broadcast: str = "numpy", *, axis: int = -1, device: Device | None = None
) -> Any:
    """OpenVINO ``SquaredDifference-1``: ``(a - b) ** 2``, one ``ELEMENT_WISE_DIFFERENCE_SQUARE``.

    DirectML has the operator itself (FL 3_1), so no fused activation is needed (and
    ``ACTIVATION_SQUARE`` is not fusable: SUBTRACT with it fused does not validate). Its table
    takes float16/32, int32 and uint32 (float64 and bfloat16 as gpuops extensions); other integer
    types are a ``TypeError``. Integers wrap.
    """
    return _binary("squared_difference", "ELEMENT_WISE_DIFFERENCE_SQUARE", a, b, auto_broadcast, axis, device)


#: OpenVINO's element type names (Convert-1's ``destination_type``) and the gpuops type of each.
ELEMENT_TYPES: dict[str, DataType] = {
    "f64": DataType.FLOAT64,
    "f32": DataType.FLOAT32,
    "f16": DataType.FLOAT16,
    "bf16": DataType.BFLOAT16,
    "i64": DataType.INT64,
    "i32": DataType.INT32,
    "i16": DataType.INT16,
    "i8": DataType.INT8,
    "u64": DataType.UINT64,
    "u32": DataType.UINT32,
    "u16": DataType.UINT16,
    "u8": DataType.UINT8,
    "boolean": DataType.BOOL,
}


def convert(data: object, destination_type: object, *, device: Device | None = None) -> Any:
    """OpenVINO's Convert-1: every element of ``data`` as ``destination_type`` (``"f16"``, ``"i32"``,
    ``"boolean"``, ... or anything ``DataType.parse`` reads), by DirectML's ``CAST``. Where OpenVINO leaves a
    conversion undefined (a float out of an integer type's range) gpuops' rule holds (README "Semantics":
    truncation toward zero, saturation, NaN -> 0); to ``boolean`` nonzero is true. Returns an array of
    ``data``'s kind."""
    where = "openvino.convert"
    dev = default_device() if device is None else device
    if not isinstance(dev, Device):
        raise TypeError(f"{where}: device must be a gpuops.Device (got {type(dev).__name__})")
    target = ELEMENT_TYPES.get(destination_type) if isinstance(destination_type, str) else None
    if target is None:
        try:
            target = DataType.parse(destination_type)
        except (TypeError, ValueError, KeyError):
            allowed = ", ".join(ELEMENT_TYPES)
            raise TypeError(
                f"{where}: destination_type {destination_type!r} is not an element type; allowed: {allowed}"
            ) from None
    return cast(dev, data, target, where)


def _device_of(device: Device | None, where: str) -> Device:
    dev = default_device() if device is None else device
    if not isinstance(dev, Device):
        raise TypeError(f"{where}: device must be a gpuops.Device (got {type(dev).__name__})")
    return dev


def _axis_in(axis: object, rank: int, where: str, name: str = "axis") -> int:
    """An OpenVINO axis (negative counts from the end) in ``[-rank, rank - 1]``, as a non-negative one."""
    if isinstance(axis, (bool, np.bool_)) or not hasattr(axis, "__index__"):
        raise TypeError(f"{where}: {name} must be an integer (got {axis!r})")
    a = operator.index(axis)
    if not -rank <= a < rank:
        raise ValueError(f"{where}: {name}={a} is outside [{-rank}, {rank - 1}] for an input of rank {rank}")
    return a % rank


def _rank(data: object, device: Device, where: str) -> int:
    return int(_common_arrays(device).asarray(data, f"{where}: data").ndim)


def softmax(data: object, axis: int = 1, *, device: Device | None = None) -> Any:
    """OpenVINO's SoftMax-8: exp(x) / sum exp(x) along ``axis`` (negative from the end; default 1), by DirectML's
    ``ACTIVATION_SOFTMAX1`` (maximum subtracted first; float16/bfloat16 summed in float32). Types: f32, f16,
    bf16, f64. Returns an array of ``data``'s kind."""
    where = "openvino.softmax"
    dev = _device_of(device, where)
    rank = _rank(data, dev, where)
    axes = (_axis_in(axis, rank, where),) if rank else (0,)
    return composite(dev, "ACTIVATION_SOFTMAX1", data, where, axes=axes)


def log_softmax(data: object, axis: int = 1, *, device: Device | None = None) -> Any:
    """OpenVINO's LogSoftmax-5: x - max - log(sum exp(x - max)) along ``axis`` (negative from the end; default
    1), by DirectML's ``ACTIVATION_LOG_SOFTMAX1``. Returns an array of ``data``'s kind."""
    where = "openvino.log_softmax"
    dev = _device_of(device, where)
    rank = _rank(data, dev, where)
    axes = (_axis_in(axis, rank, where),) if rank else (0,)
    return composite(dev, "ACTIVATION_LOG_SOFTMAX1", data, where, axes=axes)


def cum_sum(
    arg: object,
    axis: object = 0,
    exclusive: bool = False,
    reverse: bool = False,
    *,
    device: Device | None = None,
) -> Any:
    """OpenVINO's CumSum-3: running sums of ``arg`` along ``axis`` (the spec's second input, a scalar, negative from
    the end; default 0), by DirectML's ``CUMULATIVE_SUMMATION``. ``exclusive``: the j-th output leaves out the j-th
    element (the first is 0); ``reverse``: sums from the end (AxisDirection DECREASING). Float16 and bfloat16 sum
    in float32, each output rounded once; integers wrap modulo 2**bits (OpenVINO leaves overflow undefined).
    Types: the table's at the device's level (f32, f16, u32, u16; i64, u64 from FL 5_0; f64, bf16 and the other
    integers as gpuops extensions). Returns an array of ``arg``'s kind."""
    where = "openvino.cum_sum"
    dev = _device_of(device, where)
    for name, flag in (("exclusive", exclusive), ("reverse", reverse)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{where}: {name} must be a bool (got {flag!r})")
    given = np.asarray(axis)
    if given.size != 1 or given.dtype.kind not in "iu":
        raise TypeError(f"{where}: axis must be one integer, a scalar (got {axis!r})")
    rank = _rank(arg, dev, where)
    chosen = _axis_in(int(given.reshape(-1)[0]), rank, where) if rank else 0
    direction = 1 if reverse else 0
    return composite(
        dev, "CUMULATIVE_SUMMATION", arg, where,
        axis=chosen, axis_direction=direction, has_exclusive_sum=bool(exclusive),
    )  # fmt: skip


def mvn(
    data: object,
    axes: Sequence[int],
    normalize_variance: bool,
    eps: float,
    eps_mode: str,
    *,
    device: Device | None = None,
) -> Any:
    """OpenVINO's MVN-6: (x - mean) / sqrt(variance + eps) over ``axes`` (the spec's second input, negative from
    the end; integers, as an integer array or a sequence: a bool, float or string axis is a TypeError), or x - mean
    without ``normalize_variance``, by DirectML's ``MEAN_VARIANCE_NORMALIZATION1``
    (population variance, two passes). ``eps_mode`` must be ``"inside_sqrt"``: DirectML adds epsilon to the
    variance only, so ``"outside_sqrt"`` (sqrt(variance) + eps) is refused. Returns an array of ``data``'s kind."""
    where = "openvino.mvn"
    dev = _device_of(device, where)
    if not isinstance(eps_mode, str) or eps_mode.lower() not in ("inside_sqrt", "outside_sqrt"):
        raise ValueError(f"{where}: eps_mode must be 'inside_sqrt' or 'outside_sqrt' (got {eps_mode!r})")
    if eps_mode.lower() == "outside_sqrt":
        raise ValueError(
            f"{where}: eps_mode='outside_sqrt' (sqrt(variance) + eps) has no DirectML descriptor: "
            "MEAN_VARIANCE_NORMALIZATION1 adds epsilon inside the square root; use 'inside_sqrt'"
        )
    if not isinstance(normalize_variance, (bool, np.bool_)):
        raise TypeError(f"{where}: normalize_variance must be a bool (got {normalize_variance!r})")
    rank = _rank(data, dev, where)
    # OpenVINO's axes input: an integer tensor, a sequence of integers, or one integer; each taken as it is, never
    # converted with int() (a bool, float or string is not an axis: the descriptor's own rule and words)
    listed: list[Any] = (
        axes.reshape(-1).tolist() if isinstance(axes, np.ndarray) else list(axes) if isinstance(axes, (list, tuple))
        else [axes]
    )  # fmt: skip
    if any(isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) for a in listed):
        raise TypeError(f"{where}: axes {check_axes(tuple(listed), max(rank, 1))}")
    chosen = tuple(_axis_in(a, rank, where, "axes") for a in listed)
    if len(set(chosen)) != len(chosen):
        raise ValueError(f"{where}: axes {[int(a) for a in listed]} names an axis twice")
    return composite(
        dev, "MEAN_VARIANCE_NORMALIZATION1", data, where, None, None,
        axes=chosen, normalize_variance=bool(normalize_variance), epsilon=float(eps),
    )  # fmt: skip
