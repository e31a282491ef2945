"""The convenience call: ``compiled(*inputs, out=None)`` and ``gpuops.run(desc, *inputs)``.

:func:`call` (how arrays are laid out into DirectML's flat buffers and returned) lives in ``gpuops.arrays``, under
``CompiledOperator`` (whose ``__call__`` it is); :func:`run`, which makes the default device, here above
``gpuops.device``.
"""

from __future__ import annotations

import functools
from typing import Any

from descriptors import OperatorDesc
from descriptors.exact import Exact

from .arrays import call
from .arrays import same_values as same_values  # the convenience call's pieces live in gpuops.arrays
from .device import CompiledOperator, Device, default_device

__all__ = ["call", "run"]


@functools.lru_cache(maxsize=1024)
def _compiled_exact(device: Device, desc: Exact[OperatorDesc]) -> CompiledOperator:
    return device.compile_operator(device.create_operator(desc.value))


def _compiled(device: Device, desc: OperatorDesc) -> CompiledOperator:
    """The compiled operator of ``desc``, cached by its exact bits (``descriptors.exact``): ``-0.0`` is not
    ``+0.0`` and ``True`` is not ``1`` here, though ``==`` says they are."""
    return _compiled_exact(device, Exact(desc))


def run(desc: OperatorDesc, *inputs: object, device: Device | None = None, out: object = None) -> Any:
    """Create, compile (cached per device and descriptor) and call ``desc`` in one line:
    ``gpuops.run(ElementWiseAddOperatorDesc(t, t, t), a, b)``. ``device``: the front-ends' default (``"auto"``)."""
    if device is None:
        device = default_device()
    return call(_compiled(device, desc), inputs, out)
