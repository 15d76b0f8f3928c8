"""Temporarily allow deeper Python recursion for deep trees."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def recursion_limit(limit: int) -> Iterator[None]:
    """Raise the interpreter's recursion limit to at least ``limit`` inside the block.

    Visitors recurse once per tree level (twice through a ``visit_*`` method that calls
    ``generic_visit``). Passing keyword arguments down a visit uses C stack on Python < 3.13,
    so very deep trees are safer visited without them.
    """
    if limit < 1:
        raise ValueError(f"recursion limit must be positive, got {limit}")
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)
