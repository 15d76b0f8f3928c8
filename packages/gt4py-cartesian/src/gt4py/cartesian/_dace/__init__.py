"""The ``dace:*`` GTScript backends (the ``dace`` extra, ADR 0041).

- :mod:`._sdfg`: the analysed stencil -> a ``dace.SDFG`` (``sdfg_of``), built with DaCe's
  Python API;
- :mod:`._build`: the backends' steps (``sdfg``, ``cpp``, ``so``), the cache entry and the
  availability check.

Importing this package imports no DaCe: the steps import it when a stencil is built, and a
built stencil's module loads its extension without it.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    """``sdfg_of`` (imports DaCe on first use)."""
    if name == "sdfg_of":
        from ._sdfg import sdfg_of

        return sdfg_of
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
