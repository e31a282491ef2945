"""gpuops benchmarks: ``python -m benchmarks --backend numpy|cupy|auto [--quick] [--out DIR]``.

Not part of the installed distribution; run from the repository root. Results (JSON rows
and a PNG plot) go to ``DIR/bench-<backend>.json`` and ``DIR/bench-<backend>.png``.
"""
