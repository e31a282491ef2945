"""What the CUDA emulator ran: executions per (DirectML operator, launch path).

``Device("emulator")`` records each ``CompiledOperator.execute`` here (not the no-op launches of a
:func:`gpuops.emulator.kernels.recording` dry run), so a test session can state which (op-table row,
launch path) pairs really ran, as the CUDA emulator issue asks of CI. The REDUCE row is counted per
``ReduceFunction`` (``"REDUCE SUM"``), since each function is a kernel of its own.
"""

from __future__ import annotations

import threading
from collections import Counter

__all__ = ["launches", "record", "reset"]

_counts: Counter[tuple[str, str]] = Counter()
_lock = threading.Lock()


def record(operator: str, launch_path: str) -> None:
    """Count one execution of ``operator`` on ``launch_path``."""
    with _lock:
        _counts[(operator, launch_path)] += 1


def launches() -> dict[tuple[str, str], int]:
    """Executions so far, per (operator, launch path)."""
    with _lock:
        return dict(_counts)


def reset() -> None:
    """Forget every recorded execution."""
    with _lock:
        _counts.clear()
