"""The line on the ``gt4py.compile`` log when a native build *starts*.

The compile log (``gt4py.infra.pipeline``) writes one line when a compile ends, at WARNING
when it took longer than ``compile_log_threshold_s``. A C++ build can take minutes, so the real
builds (a cache miss that runs the compiler; never a hit) also say when they start::

    compiling lap(a: Field[[I, J, K], float64]) for gtfn_cpu … started (C++ build of native module 'lap_...', a cache miss)

Same logger, same level policy: WARNING when the build is expected to take longer than the
threshold (unknown, as for this process's first build, counts as slow: C++ builds take
seconds), else INFO.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from typing import Final

from gt4py.infra import pipeline


_RECENT: Final = 8
_durations: dict[str, collections.deque[float]] = {}
_lock = threading.Lock()


def start_level(kind: str) -> int:
    """The level of a start line for a build of ``kind``: the end line's policy, by expectation."""
    from gt4py.infra import config

    with _lock:
        recent = _durations.get(kind)
        expected = max(recent) if recent else None
    slow = expected is None or expected > config.COMPILE_LOG_THRESHOLD_S.get()
    return logging.WARNING if slow else logging.INFO


@contextlib.contextmanager
def logged_start(kind: str, message: str) -> Iterator[None]:
    """Log ``message`` as a build of ``kind`` starts; time the build for the next estimate."""
    level = start_level(kind)
    if pipeline.logger.isEnabledFor(level):
        pipeline.logger.log(level, "%s", message)
    started = time.perf_counter()
    yield
    seconds = time.perf_counter() - started
    with _lock:
        _durations.setdefault(kind, collections.deque(maxlen=_RECENT)).append(seconds)


__all__: list[str] = []
