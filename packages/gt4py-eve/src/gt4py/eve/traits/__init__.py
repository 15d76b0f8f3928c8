"""Node traits: symbol tables for scopes, and validation that symbol references resolve."""

from ._errors import (
    DuplicateSymbolError as DuplicateSymbolError,
    SymbolError as SymbolError,
    UnresolvedSymbolError as UnresolvedSymbolError,
)
from ._symbol_table import (
    SymbolTableTrait as SymbolTableTrait,
    ValidatedSymbolTableTrait as ValidatedSymbolTableTrait,
    collect_symbols as collect_symbols,
    validate_symbol_refs as validate_symbol_refs,
)
from ._symbols import SymbolName as SymbolName, SymbolRef as SymbolRef
from ._visitor_mixin import VisitorWithSymbolTableTrait as VisitorWithSymbolTableTrait


__all__ = [
    "DuplicateSymbolError",
    "SymbolError",
    "SymbolName",
    "SymbolRef",
    "SymbolTableTrait",
    "UnresolvedSymbolError",
    "ValidatedSymbolTableTrait",
    "VisitorWithSymbolTableTrait",
    "collect_symbols",
    "validate_symbol_refs",
]
