"""oneDNN's eltwise primitive over the gpuops core.

"The seed" below is oneDNN's developer guide page "Eltwise":
https://oneapi-src.github.io/oneDNN/dev_guide_eltwise.html

``eltwise_forward(algorithm, src, alpha, beta)`` and ``eltwise_backward(algorithm, diff_dst,
data, alpha, beta)`` only translate: each algorithm is one op-table row (forward) and one
``ELTWISE_*_GRAD`` row (backward), built as a descriptor and run on the device
(``_common.run``). ``algorithm`` is oneDNN's name (``"eltwise_relu"``) or an
:class:`Algorithm` member (``Algorithm.eltwise_relu``).

================================  ==============================================  ===================================
oneDNN algorithm                  forward row (alpha = a, beta = b)               backward row (alpha, beta as given)
================================  ==============================================  ===================================
eltwise_abs                       ELEMENT_WISE_ABS                                ELTWISE_ABS_GRAD
eltwise_bounded_relu              ACTIVATION_BOUNDED_RELU(alpha=a)                ELTWISE_BOUNDED_RELU_GRAD
eltwise_clip                      ELEMENT_WISE_CLIP(min=a, max=b)                 ELTWISE_CLIP_GRAD
eltwise_clip_v2                   ACTIVATION_CLIP_V2(alpha=a, beta=b)             ELTWISE_CLIP_V2_GRAD
eltwise_clip_v2_use_dst_for_bwd   as eltwise_clip_v2                              ELTWISE_CLIP_V2_USE_DST_FOR_BWD_GRAD
eltwise_elu                       ACTIVATION_ELU(alpha=a)                         ELTWISE_ELU_GRAD
eltwise_elu_use_dst_for_bwd       as eltwise_elu (a >= 0)                         ELTWISE_ELU_USE_DST_FOR_BWD_GRAD
eltwise_exp                       ELEMENT_WISE_EXP                                ELTWISE_EXP_GRAD
eltwise_exp_use_dst_for_bwd       as eltwise_exp                                  ELTWISE_EXP_USE_DST_FOR_BWD_GRAD
eltwise_gelu_erf                  ACTIVATION_GELU                                 ELTWISE_GELU_ERF_GRAD
eltwise_gelu_tanh                 ACTIVATION_GELU_TANH                            ELTWISE_GELU_TANH_GRAD
eltwise_hardswish                 ACTIVATION_HARD_SWISH(alpha=1/6, beta=1/2)      ELTWISE_HARDSWISH_GRAD
eltwise_linear                    ACTIVATION_LINEAR(alpha=a, beta=b)              ELTWISE_LINEAR_GRAD
eltwise_log                       ELEMENT_WISE_LOG                                ELTWISE_LOG_GRAD
eltwise_logistic                  ACTIVATION_SIGMOID                              ELTWISE_LOGISTIC_GRAD
eltwise_logistic_use_dst_for_bwd  as eltwise_logistic                             ELTWISE_LOGISTIC_USE_DST_FOR_BWD_GRAD
eltwise_logsigmoid                ACTIVATION_LOG_SIGMOID                          ELTWISE_LOGSIGMOID_GRAD
eltwise_mish                      ACTIVATION_MISH                                 ELTWISE_MISH_GRAD
eltwise_pow                       ACTIVATION_POW(alpha=a, beta=b)                 ELTWISE_POW_GRAD
eltwise_relu                      ACTIVATION_RELU if a == 0, else                 ELTWISE_RELU_GRAD
                                  ACTIVATION_LEAKY_RELU(alpha=a)
eltwise_relu_use_dst_for_bwd      as eltwise_relu (a >= 0)                        ELTWISE_RELU_USE_DST_FOR_BWD_GRAD
eltwise_round                     ELEMENT_WISE_ROUND(HALVES_TO_NEAREST_EVEN)      none (the seed's exception)
eltwise_soft_relu                 ACTIVATION_SOFTPLUS(steepness=1)                ELTWISE_SOFT_RELU_GRAD
eltwise_sqrt                      ELEMENT_WISE_SQRT                               ELTWISE_SQRT_GRAD
eltwise_sqrt_use_dst_for_bwd      as eltwise_sqrt                                 ELTWISE_SQRT_USE_DST_FOR_BWD_GRAD
eltwise_square                    ACTIVATION_SQUARE                               ELTWISE_SQUARE_GRAD
eltwise_swish                     ACTIVATION_SWISH(sigmoid_input_scale=a)         ELTWISE_SWISH_GRAD
eltwise_tanh                      ACTIVATION_TANH                                 ELTWISE_TANH_GRAD
eltwise_tanh_use_dst_for_bwd      as eltwise_tanh                                 ELTWISE_TANH_USE_DST_FOR_BWD_GRAD
================================  ==============================================  ===================================

Rules:

- alpha and beta are ignored where the algorithm does not use them (the seed, "General
  Notes"); hardswish takes none (the seed's formula is ``s * (s + 3) / 6``, run as HARD_SWISH
  with alpha 1/6, which a DirectML FLOAT holds as float32(1/6): up to s^2 * 5e-9 away from the
  exact formula, a few ulps where s nears -3). relu with ``alpha == 0`` is plain RELU; with
  ``alpha != 0`` LEAKY_RELU (they differ only in the sign of a zero result). The forward of a
  ``*_use_dst_for_bwd`` algorithm is the plain one's. Where the seed's formulas say nothing
  (NaN, the sign of zero, clip with beta < alpha) the rows' semantics hold (README "Semantics").
- ``alpha >= 0`` (the seed's note (2)) for ``eltwise_elu_use_dst_for_bwd`` and
  ``eltwise_relu_use_dst_for_bwd``, forward and backward, and for ``eltwise_bounded_relu``
  (its formula's ``alpha >= 0``): else a ``ValueError`` naming the algorithm, ``alpha`` and the
  value. ``eltwise_round`` has no backward: ``eltwise_backward`` raises ``ValueError``.
- Data types (the seed, "Data Type Support"). Forward: f32, bf16 and f16 run the row in their
  own type (the core computes f16/bf16 in float32 and rounds once); s32, s8 and u8 go through
  an f32 intermediate: src is converted to float32 by CAST (exact for s8/u8, s32 rounded to
  nearest even), the float32 row runs, the result is rounded to an integer by
  ELEMENT_WISE_ROUND (halves to even, as oneDNN's round-to-nearest conversion) and converted
  back by CAST (saturated to the type's range, NaN written as 0): three operators on the
  device, no host-side conversion. Backward: f32 and bf16 only, with diff_dst and data of one type (the
  seed gives f16 and the integer types no backward). Any other dtype (float64, int16, ...)
  is a ``TypeError`` naming the algorithm, the argument and the allowed types.
- dst has src's shape and dtype, diff_src diff_dst's, and data must have diff_dst's shape
  (``ValueError``; a dtype mismatch is a ``TypeError``). dst / diff_src ``None``: a new array of the
  input's kind is returned (``_common.return_like``); an array: the result is written into it
  and that very object is returned.
- In place (the seed: "src can be used as input and output"): ``dst is src`` (forward) or
  ``diff_src is diff_dst`` (backward) writes into that array. A C-contiguous array is bound as
  both input and output of the row (DirectML in-place execution: one buffer, identical tensor
  descriptors) when the row runs in place; otherwise (GELU and TANH rows, which do not run in
  place, a non-contiguous array, the integer path, or an output that overlaps an input in any
  other way) the result is computed into a temporary and copied into the array.
- Empty arrays run nothing (DirectML tensors have no zero sizes); 0-d arrays run as shape (1,).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from descriptors import DataType, OperatorDesc, RoundingMode, desc_class, row_of
from descriptors.float_range import float_problem
from descriptors.schema import ElementwiseRow

from ..device import Device
from ._common import Arrays, default_device, empty, is_emulator_array, return_like, run, tensor
from ._common import arrays as _common_arrays

__all__ = [
    "Algorithm",
    "backward_desc",
    "eltwise_backward",
    "eltwise_forward",
    "forward_desc",
]


class Algorithm(str, enum.Enum):
    """oneDNN's eltwise algorithm kinds (``dnnl::algorithm``), valued by their names."""

    eltwise_abs = "eltwise_abs"
    eltwise_bounded_relu = "eltwise_bounded_relu"
    eltwise_clip = "eltwise_clip"
    eltwise_clip_v2 = "eltwise_clip_v2"
    eltwise_clip_v2_use_dst_for_bwd = "eltwise_clip_v2_use_dst_for_bwd"
    eltwise_elu = "eltwise_elu"
    eltwise_elu_use_dst_for_bwd = "eltwise_elu_use_dst_for_bwd"
    eltwise_exp = "eltwise_exp"
    eltwise_exp_use_dst_for_bwd = "eltwise_exp_use_dst_for_bwd"
    eltwise_gelu_erf = "eltwise_gelu_erf"
    eltwise_gelu_tanh = "eltwise_gelu_tanh"
    eltwise_hardswish = "eltwise_hardswish"
    eltwise_linear = "eltwise_linear"
    eltwise_log = "eltwise_log"
    eltwise_logistic = "eltwise_logistic"
    eltwise_logistic_use_dst_for_bwd = "eltwise_logistic_use_dst_for_bwd"
    eltwise_logsigmoid = "eltwise_logsigmoid"
    eltwise_mish = "eltwise_mish"
    eltwise_pow = "eltwise_pow"
    eltwise_relu = "eltwise_relu"
    eltwise_relu_use_dst_for_bwd = "eltwise_relu_use_dst_for_bwd"
    eltwise_round = "eltwise_round"
    eltwise_soft_relu = "eltwise_soft_relu"
    eltwise_sqrt = "eltwise_sqrt"
    eltwise_sqrt_use_dst_for_bwd = "eltwise_sqrt_use_dst_for_bwd"
    eltwise_square = "eltwise_square"
    eltwise_swish = "eltwise_swish"
    eltwise_tanh = "eltwise_tanh"
    eltwise_tanh_use_dst_for_bwd = "eltwise_tanh_use_dst_for_bwd"

    def __str__(self) -> str:
        return self.value

    @property
    def base(self) -> str:
        """The algorithm without ``eltwise_`` and ``_use_dst_for_bwd``: ``"relu"``."""
        return self.value.removeprefix("eltwise_").removesuffix(_USE_DST)

    @property
    def use_dst_for_bwd(self) -> bool:
        """True for the ``*_use_dst_for_bwd`` kinds (backward reads dst, not src)."""
        return self.value.endswith(_USE_DST)


_USE_DST = "_use_dst_for_bwd"

# oneDNN algorithm (without prefix/suffix) -> (alpha, beta) -> (forward row, its parameters).
_Params = dict[str, Any]
_FORWARD: dict[str, Callable[[float, float], tuple[str, _Params]]] = {
    "abs": lambda a, b: ("ELEMENT_WISE_ABS", {}),
    "bounded_relu": lambda a, b: ("ACTIVATION_BOUNDED_RELU", {"alpha": a}),
    "clip": lambda a, b: ("ELEMENT_WISE_CLIP", {"min": a, "max": b}),
    "clip_v2": lambda a, b: ("ACTIVATION_CLIP_V2", {"alpha": a, "beta": b}),
    "elu": lambda a, b: ("ACTIVATION_ELU", {"alpha": a}),
    "exp": lambda a, b: ("ELEMENT_WISE_EXP", {}),
    "gelu_erf": lambda a, b: ("ACTIVATION_GELU", {}),
    "gelu_tanh": lambda a, b: ("ACTIVATION_GELU_TANH", {}),
    "hardswish": lambda a, b: ("ACTIVATION_HARD_SWISH", {"alpha": 1 / 6, "beta": 0.5}),
    "linear": lambda a, b: ("ACTIVATION_LINEAR", {"alpha": a, "beta": b}),
    "log": lambda a, b: ("ELEMENT_WISE_LOG", {}),
    "logistic": lambda a, b: ("ACTIVATION_SIGMOID", {}),
    "logsigmoid": lambda a, b: ("ACTIVATION_LOG_SIGMOID", {}),
    "mish": lambda a, b: ("ACTIVATION_MISH", {}),
    "pow": lambda a, b: ("ACTIVATION_POW", {"alpha": a, "beta": b}),
    "relu": lambda a, b: ("ACTIVATION_RELU", {}) if a == 0 else ("ACTIVATION_LEAKY_RELU", {"alpha": a}),
    "round": lambda a, b: ("ELEMENT_WISE_ROUND", {"rounding_mode": RoundingMode.HALVES_TO_NEAREST_EVEN}),
    "soft_relu": lambda a, b: ("ACTIVATION_SOFTPLUS", {"steepness": 1.0}),
    "sqrt": lambda a, b: ("ELEMENT_WISE_SQRT", {}),
    "square": lambda a, b: ("ACTIVATION_SQUARE", {}),
    "swish": lambda a, b: ("ACTIVATION_SWISH", {"sigmoid_input_scale": a}),
    "tanh": lambda a, b: ("ACTIVATION_TANH", {}),
}
if {a.base for a in Algorithm} != set(_FORWARD):
    raise RuntimeError(
        f"onednn: algorithms and forward rows differ: {sorted({a.base for a in Algorithm} ^ set(_FORWARD))}"
    )
# The backward row of each algorithm is its forward row's link (``grad=`` in the op table).

# Algorithms whose alpha must be >= 0, and why (the seed).
_ALPHA_NONNEG = {
    Algorithm.eltwise_elu_use_dst_for_bwd: "the seed's note (2): supported only for alpha >= 0",
    Algorithm.eltwise_relu_use_dst_for_bwd: "the seed's note (2): supported only for alpha >= 0",
    Algorithm.eltwise_bounded_relu: "the seed's formula requires alpha >= 0",
}

# Data types: name as oneDNN writes it, DataType, and whether it runs through float32.
_ONEDNN_NAME = {
    DataType.FLOAT32: "f32",
    DataType.BFLOAT16: "bf16",
    DataType.FLOAT16: "f16",
    DataType.INT32: "s32",
    DataType.INT8: "s8",
    DataType.UINT8: "u8",
}
_FORWARD_TYPES = (DataType.FLOAT32, DataType.BFLOAT16, DataType.FLOAT16, DataType.INT32, DataType.INT8, DataType.UINT8)
_BACKWARD_TYPES = (DataType.FLOAT32, DataType.BFLOAT16)
_VIA_F32 = (DataType.INT32, DataType.INT8, DataType.UINT8)


def _algorithm(algorithm: Algorithm | str, where: str) -> Algorithm:
    if isinstance(algorithm, Algorithm):
        return algorithm
    if isinstance(algorithm, str):
        try:
            return Algorithm(algorithm)
        except ValueError:
            known = ", ".join(a.value for a in Algorithm)
            raise ValueError(f"{where}: unknown oneDNN eltwise algorithm {algorithm!r} (known: {known})") from None
    raise TypeError(
        f"{where}: algorithm must be a oneDNN algorithm name (str) or onednn.Algorithm, got {type(algorithm).__name__}"
    )


def _param(value: object, name: str, alg: Algorithm, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}({alg}): {name} must be a real number, got {value!r}")
    problem = float_problem(value)  # oneDNN's alpha and beta are C floats
    if problem is not None:
        raise ValueError(f"{where}({alg}): {name} {problem}")
    return float(value)


def _check_alpha(alg: Algorithm, alpha: float, where: str) -> None:
    why = _ALPHA_NONNEG.get(alg)
    if why is not None and not alpha >= 0:
        raise ValueError(f"{where}({alg}): alpha must be >= 0 ({why}), got alpha={alpha!r}")


def _dtype_name(dtype: Any) -> str:
    try:
        dt = DataType.from_numpy(dtype)
    except TypeError:
        return str(dtype)
    return f"{dtype} ({_ONEDNN_NAME[dt]})" if dt in _ONEDNN_NAME else str(dtype)


def _data_type(arr: Any, what: str, alg: Algorithm, allowed: tuple[DataType, ...], where: str) -> DataType:
    found = next((d for d in allowed if d.numpy_dtype == arr.dtype), None)
    if found is None:
        names = ", ".join(f"{_ONEDNN_NAME[d]} ({d.numpy_dtype})" for d in allowed)
        raise TypeError(
            f"{where}({alg}): {what} has dtype {arr.dtype}, which oneDNN eltwise "
            f"{'backward' if allowed is _BACKWARD_TYPES else 'forward'} does not take; allowed: {names}"
        )
    return found


def forward_desc(
    algorithm: Algorithm | str, data_type: DataType, shape: tuple[int, ...], alpha: float = 0.0, beta: float = 0.0
) -> OperatorDesc:
    """The descriptor ``eltwise_forward`` runs for a packed tensor of ``shape`` and ``data_type``.

    For s32/s8/u8 that is the FLOAT32 descriptor of the f32 intermediate (see the module notes).
    """
    alg = _algorithm(algorithm, "forward_desc")
    _check_alpha(alg, float(alpha), "forward_desc")
    row, params = _FORWARD[alg.base](float(alpha), float(beta))
    t = tensor(DataType.FLOAT32 if data_type in _VIA_F32 else data_type, shape)
    return desc_class(row)(t, t, **params)


def backward_desc(
    algorithm: Algorithm | str, data_type: DataType, shape: tuple[int, ...], alpha: float = 0.0, beta: float = 0.0
) -> OperatorDesc:
    """The ``ELTWISE_*_GRAD`` descriptor ``eltwise_backward`` runs (packed tensors of ``shape``)."""
    alg = _algorithm(algorithm, "backward_desc")
    _no_round_backward(alg, "backward_desc")
    _check_alpha(alg, float(alpha), "backward_desc")
    t = tensor(data_type, shape)
    return desc_class(_backward_row(alg, float(alpha), float(beta)))(t, t, t, alpha=float(alpha), beta=float(beta))


def _backward_row(alg: Algorithm, alpha: float, beta: float) -> str:
    """The forward row's backward link (``grad=``, or ``grad_use_dst=`` for ``*_use_dst_for_bwd``)."""
    forward = row_of(_FORWARD[alg.base](alpha, beta)[0])
    if not isinstance(forward, ElementwiseRow):
        raise TypeError(f"onednn: {alg} maps to {forward.name}, which is not element-wise")
    return forward.grad_use_dst if alg.use_dst_for_bwd else forward.grad


def _no_round_backward(alg: Algorithm, where: str) -> None:
    if alg is Algorithm.eltwise_round:
        raise ValueError(
            f"{where}({alg}): oneDNN's eltwise_round has no backward propagation "
            "(the seed: 'The eltwise primitive with algorithm round does not support backward propagation')"
        )


def _device(device: Device | None, where: str) -> Device:
    if device is None:
        return default_device()
    if not isinstance(device, Device):
        raise TypeError(f"{where}: device must be a gpuops.Device or None, got {type(device).__name__}")
    return device


def _is_array(x: object) -> bool:
    return is_emulator_array(x) or any(
        hasattr(x, a) for a in ("__array_interface__", "__cuda_array_interface__", "__dlpack__")
    )


def _target(arrays: Arrays, out: object, like: Any, name: str, like_name: str, alg: Algorithm, where: str) -> Any:
    """The caller's output array as a backend array (``like`` itself when ``out`` is the input), checked."""
    if not _is_array(out):
        raise TypeError(f"{where}({alg}): {name} must be an array to write into (or None), got {type(out).__name__}")
    arr: Any = like if out is like else arrays.asarray(out, name)
    if tuple(arr.shape) != tuple(like.shape):
        raise ValueError(
            f"{where}({alg}): {name} has shape {tuple(arr.shape)}, {like_name} {tuple(like.shape)}; "
            "oneDNN requires the same shape"
        )
    if arr.dtype != like.dtype:
        raise TypeError(
            f"{where}({alg}): {name} has dtype {_dtype_name(arr.dtype)}, {like_name} {_dtype_name(like.dtype)}; "
            "oneDNN requires the same data type"
        )
    flags = getattr(arr, "flags", None)
    if flags is not None and not getattr(flags, "writeable", True):
        raise ValueError(f"{where}({alg}): {name} is read-only")
    return arr


def _execute(arrays: Arrays, desc: OperatorDesc, inputs: list[Any], target: Any) -> None:
    """Run ``desc`` into ``target``: bound directly where DirectML allows it, else via a temporary.

    Directly: ``target`` is C-contiguous and overlaps no input, or is the very input array
    (same buffer, identical descriptors) of a row that runs in place.
    """
    xp = arrays.xp
    direct = bool(target.flags.c_contiguous)
    for a in inputs:
        if direct and xp.may_share_memory(target, a):
            direct = a is target and desc.row.in_place
    if direct:
        run(arrays.device, desc, inputs, target)
        return
    tmp = empty(xp, target.shape, desc.output_tensors[0].data_type)
    run(arrays.device, desc, inputs, tmp)
    target[...] = tmp.reshape(target.shape)


def _cast(arrays: Arrays, x: Any, dt: DataType) -> Any:
    """``x`` converted to ``dt`` by DirectML's CAST (README "Semantics": floats round to nearest even; to an
    integer a float truncates and saturates, NaN -> 0)."""
    out = empty(arrays.xp, x.shape, dt)
    desc = desc_class("CAST")(tensor(DataType.from_numpy(x.dtype), x.shape), tensor(dt, x.shape))
    run(arrays.device, desc, [x], out)
    return out.reshape(x.shape)


def _to_int(arrays: Arrays, r32: Any, dt: DataType) -> Any:
    """A float32 result as ``dt``: rounded (ELEMENT_WISE_ROUND, halves to even), then CAST (an integral value:
    saturated to the type, NaN -> 0)."""
    t = tensor(DataType.FLOAT32, r32.shape)
    rnd = desc_class("ELEMENT_WISE_ROUND")(t, t, rounding_mode=RoundingMode.HALVES_TO_NEAREST_EVEN)
    run(arrays.device, rnd, [r32], r32)  # in place: ROUND runs in place, identical descriptors
    return _cast(arrays, r32, dt)


def eltwise_forward(
    algorithm: Algorithm | str,
    src: Any,
    alpha: float = 0.0,
    beta: float = 0.0,
    dst: Any = None,
    *,
    device: Device | None = None,
) -> Any:
    """oneDNN ``eltwise_forward``: ``dst = f(src)`` of ``algorithm`` with its alpha and beta.

    ``src``: f32, bf16, f16 (computed in their type), s32, s8 or u8 (through f32: converted in,
    computed by the float32 row, rounded half to even, saturated, NaN -> 0). ``dst``: None (a
    new array of src's kind is returned), ``src`` itself (in place), or an array of src's shape
    and dtype to write into (returned). See the module docstring for the row of each algorithm.
    """
    where = "eltwise_forward"
    alg = _algorithm(algorithm, where)
    a, b = _param(alpha, "alpha", alg, where), _param(beta, "beta", alg, where)
    _check_alpha(alg, a, where)
    if dst is not None and dst is src and not _is_array(src):
        raise TypeError(f"{where}({alg}): in place (dst is src) needs an array, got {type(src).__name__}")
    dev = _device(device, where)
    arrays = _common_arrays(dev)
    x = arrays.asarray(src, "src")
    dt = _data_type(x, "src", alg, _FORWARD_TYPES, where)
    target = None if dst is None else _target(arrays, x if dst is src else dst, x, "dst", "src", alg, where)
    out = empty(arrays.xp, x.shape, dt).reshape(x.shape) if target is None else target
    if math.prod(x.shape) != 0:
        desc = forward_desc(alg, dt, x.shape, a, b)
        if dt in _VIA_F32:
            r32 = empty(arrays.xp, x.shape, DataType.FLOAT32)
            run(dev, desc, [_cast(arrays, x, DataType.FLOAT32)], r32)
            out[...] = _to_int(arrays, r32, dt).reshape(x.shape)
        else:
            _execute(arrays, desc, [x], out)
    return return_like(src, out) if dst is None else dst


def eltwise_backward(
    algorithm: Algorithm | str,
    diff_dst: Any,
    data: Any,
    alpha: float = 0.0,
    beta: float = 0.0,
    diff_src: Any = None,
    *,
    device: Device | None = None,
) -> Any:
    """oneDNN ``eltwise_backward``: ``diff_src`` from ``diff_dst`` and ``data``.

    ``data`` is src, or dst (the forward's result) for a ``*_use_dst_for_bwd`` algorithm. f32 or
    bf16, diff_dst and data of one dtype and one shape. ``diff_src``: None (a new array of
    diff_dst's kind), ``diff_dst`` itself (in place), or an array to write into (returned).
    ``eltwise_round`` has no backward (``ValueError``).
    """
    where = "eltwise_backward"
    alg = _algorithm(algorithm, where)
    _no_round_backward(alg, where)
    a, b = _param(alpha, "alpha", alg, where), _param(beta, "beta", alg, where)
    _check_alpha(alg, a, where)
    if diff_src is not None and diff_src is diff_dst and not _is_array(diff_dst):
        raise TypeError(
            f"{where}({alg}): in place (diff_src is diff_dst) needs an array, got {type(diff_dst).__name__}"
        )
    dev = _device(device, where)
    arrays = _common_arrays(dev)
    dy = arrays.asarray(diff_dst, "diff_dst")
    data_name = "data (dst)" if alg.use_dst_for_bwd else "data (src)"
    x = arrays.asarray(data, data_name)
    dt = _data_type(dy, "diff_dst", alg, _BACKWARD_TYPES, where)
    _data_type(x, data_name, alg, _BACKWARD_TYPES, where)
    if x.dtype != dy.dtype:
        raise TypeError(
            f"{where}({alg}): {data_name} has dtype {_dtype_name(x.dtype)}, diff_dst {_dtype_name(dy.dtype)}; "
            "gpuops needs one data type for both"
        )
    if tuple(x.shape) != tuple(dy.shape):
        raise ValueError(
            f"{where}({alg}): {data_name} has shape {tuple(x.shape)}, diff_dst {tuple(dy.shape)}; "
            "gpuops needs one shape for both"
        )
    target = (
        None
        if diff_src is None
        else _target(arrays, dy if diff_src is diff_dst else diff_src, dy, "diff_src", "diff_dst", alg, where)
    )
    out = empty(arrays.xp, dy.shape, dt).reshape(dy.shape) if target is None else target
    if math.prod(dy.shape) != 0:
        _execute(arrays, backward_desc(alg, dt, dy.shape, a, b), [x, dy], out)
    return return_like(diff_dst, out) if diff_src is None else diff_src
