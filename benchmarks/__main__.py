"""``python -m benchmarks``: see :mod:`benchmarks.bench_elementwise`."""

from __future__ import annotations

import sys

from .bench_elementwise import main

if __name__ == "__main__":
    sys.exit(main())
