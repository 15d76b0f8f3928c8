"""Experimental features of gt4py.next: ``concat_where`` and ``as_offset``."""

from .ffront.experimental import as_offset, concat_where


__all__ = ["as_offset", "concat_where"]
