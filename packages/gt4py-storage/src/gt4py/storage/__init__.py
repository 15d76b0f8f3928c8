"""gt4py.storage."""

from ._version import __version__ as __version__


__all__ = ["__version__"]
