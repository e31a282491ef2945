"""Hypothesis examples on the CUDA emulator with their kernels built in one batch first (issue 34).

A kernel the emulator compiles on its own costs ~0.2-0.4 s of host compiler time, ~25 ms merged into a batch
(``gpuops.emulator.kernels.prebuild``). The session's dry run (``emulator_prebuild``) leaves hypothesis tests out,
so a ``@given`` test compiles every kernel its examples meet one by one. ``run_prebuilt`` runs such a test in
three steps instead:

1. draw: hypothesis draws the examples (``phases=[Phase.generate]``; derandomized settings draw the same ones every
   run), and each is dry-run as it is drawn (``recording``: kernels are recorded, not compiled, and their launches
   do nothing; the outcome is ignored);
2. ``prebuild`` compiles the recorded kernels in one batch;
3. the test runs on exactly the drawn examples, in the order drawn, as hypothesis' explicit examples
   (``Phase.explicit``): a failure is reported as hypothesis reports one, with the example and its ``note``s, but
   it is not shrunk.

A kernel the dry run did not meet (a path that depends on what a launch computed) is compiled when first launched,
as before: what passes does not change, only when the kernels are compiled.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

__all__ = ["run_prebuilt"]

# What a dry run ignores: its launches did nothing, so every result is wrong (pytest's outcomes are BaseExceptions).
_DRY_RUN_OUTCOMES = (Exception, pytest.skip.Exception, pytest.fail.Exception, pytest.xfail.Exception)


def run_prebuilt(test: Callable[[Any], None], strategy: st.SearchStrategy[Any], base: settings, n: int) -> None:
    """Draw ``n`` examples of ``strategy`` under ``base`` (hypothesis settings), dry-run ``test`` on each, build
    the kernels they need in one batch, then run ``test`` on each example."""
    from gpuops.emulator.kernels import prebuild, recording

    drawn: list[Any] = []

    def draw(value: Any) -> None:
        drawn.append(value)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # pytest's filterwarnings would make a RuntimeWarning an error
                test(value)
        except _DRY_RUN_OUTCOMES:
            pass

    with recording() as seen:
        settings(base, max_examples=n, phases=[Phase.generate])(given(strategy)(draw))()
    prebuild(list(seen.values()))

    run: Any = given(strategy)(test)
    for value in reversed(drawn):  # decorators apply bottom-up: this keeps the drawn order
        run = example(value)(run)
    settings(base, phases=[Phase.explicit])(run)()
