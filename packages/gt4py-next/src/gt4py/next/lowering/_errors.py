"""The error lowering (and the passes preparing a program for a compiled backend) raise."""

from __future__ import annotations


class LoweringError(NotImplementedError):
    """A construct the compiled backends cannot lower (yet); the message says which."""


__all__ = ["LoweringError"]
