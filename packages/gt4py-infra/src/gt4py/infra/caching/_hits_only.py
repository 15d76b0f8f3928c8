"""Lookups that never build: ``with hits_only(): ...`` makes any cache miss raise
:class:`WouldBuild` before it takes a lock or starts a build.

A caller that would send a build to a worker process first runs it here under ``hits_only``:
on a warm cache every step is a hit and the result costs lookups only (no worker start, no
task transfer); the first miss stops it, and the caller sends the whole build to the worker.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator


_active: contextvars.ContextVar[bool] = contextvars.ContextVar("gt4py_hits_only", default=False)


class WouldBuild(Exception):  # a signal, not an error: it never reaches a user
    """Raised under :func:`hits_only` where a cache would build; names the namespace."""

    def __init__(self, namespace: str) -> None:
        super().__init__(f"cache miss in {namespace!r} under hits_only()")
        self.namespace = namespace


@contextlib.contextmanager
def hits_only() -> Iterator[None]:
    """Within the block (this thread or task), a cache miss raises :class:`WouldBuild`."""
    token = _active.set(True)
    try:
        yield
    finally:
        _active.reset(token)


def refuse_to_build(namespace: str) -> None:
    """Called by a cache before it builds an entry of ``namespace``."""
    if _active.get():
        raise WouldBuild(namespace)


__all__ = ["WouldBuild", "hits_only", "refuse_to_build"]
