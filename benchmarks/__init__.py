"""gpuops benchmarks: ``python -m benchmarks --backend numpy|cupy|auto [--quick] [--out DIR]``.

Not part of the installed distribution; run from the repository root. Results (JSON rows
and a PNG plot) go to ``DIR/bench-<backend>.json`` and ``DIR/bench-<backend>.png``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from anywhere: gpuops and descriptors live in the repo root
    sys.path.insert(0, str(ROOT))
