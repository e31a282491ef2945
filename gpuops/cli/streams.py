"""Unix stream behaviour for the command line: a closed pipe or Ctrl-C ends it quietly.

``gpuops caps | head -1``: when the reader goes away, the rest of the output is dropped and the
command exits with status 141 (128 + SIGPIPE), the status a shell reports for a tool that
SIGPIPE ended, with nothing on stderr. Ctrl-C exits with 130 (128 + SIGINT), no traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "quiet_streams"]

EXIT_BROKEN_PIPE = 128 + 13  # SIGPIPE
EXIT_INTERRUPTED = 128 + 2  # SIGINT


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's final flush cannot raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (a captured stream): nothing left to flush
        pass


def quiet_streams(command: Callable[[], int]) -> int:
    """Run ``command`` and flush stdout; a broken pipe gives 141 and Ctrl-C 130, silently."""
    try:
        status = command()
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
