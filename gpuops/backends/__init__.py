"""Execution backends: NumPy (always) and CuPy (imported lazily, only when selected)."""
