"""Errors of symbol tables and symbol resolution."""

from __future__ import annotations

from typing import Any


class SymbolError(NameError):
    """Base of symbol table errors; names the symbol and the scope."""

    def __init__(self, message: str, *, symbol: str, scope: Any) -> None:
        super().__init__(message)
        self.symbol = symbol
        self.scope = scope


class DuplicateSymbolError(SymbolError):
    """Two declarations of the same name in one scope."""


class UnresolvedSymbolError(SymbolError):
    """A reference to a name that no enclosing scope declares."""
