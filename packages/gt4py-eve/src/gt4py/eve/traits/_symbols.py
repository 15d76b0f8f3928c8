"""Symbol names (declarations) and symbol references (uses) as constrained strings."""

from __future__ import annotations

from gt4py.eve.datamodels import ConstrainedStr


class SymbolName(ConstrainedStr):
    """A name declared by the node holding it, visible in the enclosing scope.

    Must look like an identifier (letters, digits, ``_`` and ``$``; not starting with a digit).
    Fields annotated ``SymbolName`` accept plain strings.
    """

    __slots__ = ()
    pattern = r"[A-Za-z_$][A-Za-z0-9_$]*"


class SymbolRef(ConstrainedStr):
    """A use of a name that must resolve to a ``SymbolName`` in an enclosing scope."""

    __slots__ = ()
    pattern = r"[A-Za-z_$][A-Za-z0-9_$]*"
