"""Pausing Python's cyclic garbage collector while the passes build trees.

The passes allocate hundreds of thousands of IR nodes and keep most of them, which makes the
collector rescan the growing heap again and again (about a third of the passes' time on
ICON's graupel) although trees hold no reference cycles to collect. Reference counting still
frees everything dropped; cycles made meanwhile elsewhere wait until the outermost pause
ends. Nested and concurrent pauses are counted, and a collector the user disabled stays so.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator


_lock = threading.Lock()
_depth = 0
_resume = False  # whether the outermost pause found the collector enabled


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()


__all__ = ["collector_paused"]
