"""Scopes and symbol tables: which names a scope declares, and whether every use resolves.

A node class mixing in :class:`SymbolTableTrait` opens a scope. Every node below it (but not
below a nested scope) that holds a :class:`SymbolName` value (in a field, or in a list in a
field) declares that name in it; a nested scope node's own names are declared in the outer
scope (a function's name belongs to the module, its parameters, as child nodes, to the
function).

Both operations are single iterative walks (no recursion), touching each node once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from gt4py.eve.datamodels import root_validator
from gt4py.eve.datamodels._type_check import class_name
from gt4py.eve.nodes._registry import NODE_VALUES, SEQUENCE_TYPES

from ._errors import DuplicateSymbolError, UnresolvedSymbolError
from ._symbols import SymbolName, SymbolRef


_SYMTABLE_CACHE_KEY = "__eve_symtable__"


class SymbolTableTrait:
    """Mixin for node classes that open a scope (``class Lambda(Node, SymbolTableTrait)``).

    Deliberately without ``__slots__``: scope nodes get a ``__dict__`` to cache their table.
    """

    @property
    def symtable(self) -> Mapping[str, Any]:
        """Names declared in this scope -> the node declaring each (cached on frozen nodes)."""
        cached = self.__dict__.get(_SYMTABLE_CACHE_KEY)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        table = collect_symbols(self)
        _cache_symtable(self, table)
        return table


class ValidatedSymbolTableTrait(SymbolTableTrait):
    """A scope that, on construction, checks every symbol reference below it resolves.

    Meant for root nodes (a program, a module): inner scopes are checked with their enclosing
    scopes. Names in ``__eve_implicit_symbols__`` (builtins) always resolve.
    """

    __eve_implicit_symbols__: ClassVar[frozenset[str]] = frozenset()

    @root_validator
    def _eve_check_symbol_references(self) -> None:
        validate_symbol_refs(self, implicit_symbols=type(self).__eve_implicit_symbols__)


def _cache_symtable(node: Any, table: dict[str, Any]) -> None:
    options = getattr(type(node), "__eve_options__", None)
    if options is not None and options.frozen:
        # Not an attrs field: invisible to ==, repr and replace(). Mutable scopes may change,
        # so theirs is recomputed on every access.
        node.__dict__[_SYMTABLE_CACHE_KEY] = table


class _Scope:
    """One scope met during a walk: its declarations and the references made inside it."""

    __slots__ = ("node", "parent", "references", "table")

    def __init__(
        self, parent: _Scope | None, node: Any, table: dict[str, Any] | None = None
    ) -> None:
        self.parent = parent
        self.node = node
        self.table: dict[str, Any] = {} if table is None else table
        self.references: list[tuple[str, Any]] = []

    def declare(self, name: str, holder: Any) -> None:
        previous = self.table.get(name)
        if previous is not None and previous is not holder:
            raise DuplicateSymbolError(
                f"symbol '{name}' is declared twice in scope {self.describe()}: "
                f"by {class_name(type(previous))} and by {class_name(type(holder))}",
                symbol=name,
                scope=self.node,
            )
        self.table[name] = holder

    def resolves(self, name: str) -> bool:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.table:
                return True
            scope = scope.parent
        return False

    def describe(self) -> str:
        return describe_scope(self.node) if self.node is not None else "(no enclosing scope)"

    def describe_chain(self) -> str:
        names = []
        scope: _Scope | None = self
        while scope is not None and scope.node is not None:
            names.append(describe_scope(scope.node))
            scope = scope.parent
        if not names:
            return "(no enclosing scope)"
        return names[0] + (
            f" (enclosing scopes: {' > '.join(names[1:])})" if len(names) > 1 else ""
        )


def _walk_scopes(root: Any, *, outer: _Scope, stop_at_nested_scopes: bool) -> list[_Scope]:
    """Walk the tree under ``root`` (a scope), filling in declarations and references.

    Returns every scope met, ``root``'s first. With ``stop_at_nested_scopes``, nested scope
    nodes declare their own names but are not entered (collecting one table).
    """
    root_scope = _Scope(outer, root)
    scopes = [root_scope]
    # Entries: (node, the scope its own names go to, the scope its children are in).
    stack: list[tuple[Any, _Scope, _Scope]] = [(root, outer, root_scope)]
    while stack:
        node, declaring_scope, inner_scope = stack.pop()
        pending = _children(node)
        while pending:
            value = pending.pop()
            cls = value.__class__
            if cls in NODE_VALUES:
                if isinstance(value, SymbolTableTrait):
                    if stop_at_nested_scopes:
                        _declare_own_names(value, inner_scope)
                        continue
                    child_scope = _Scope(inner_scope, value)
                    scopes.append(child_scope)
                    stack.append((value, inner_scope, child_scope))
                else:
                    stack.append((value, inner_scope, inner_scope))
            elif cls in SEQUENCE_TYPES:
                pending.extend(value)
            elif cls is dict:
                pending.extend(value.values())
            elif isinstance(value, SymbolName):
                declaring_scope.declare(value, node)
            elif isinstance(value, SymbolRef):
                inner_scope.references.append((value, node))
    return scopes


def _children(value: Any) -> list[Any]:
    values_of = NODE_VALUES.get(value.__class__)
    if values_of is not None:
        return list(values_of(value))
    if value.__class__ in SEQUENCE_TYPES:
        return list(value)  # a container as the root of a walk
    if value.__class__ is dict:
        return list(value.values())
    return []


def _declare_own_names(node: Any, scope: _Scope) -> None:
    for value in NODE_VALUES[node.__class__](node):
        if isinstance(value, SymbolName):
            scope.declare(value, node)
        elif value.__class__ in SEQUENCE_TYPES:
            for item in value:
                if isinstance(item, SymbolName):
                    scope.declare(item, node)


def collect_symbols(scope: Any) -> dict[str, Any]:
    """Names declared directly in ``scope`` (not inside nested scopes) -> declaring node."""
    # The scope's own names belong to the enclosing scope: declare them into a throwaway one.
    (scope_info,) = _walk_scopes(scope, outer=_Scope(None, None), stop_at_nested_scopes=True)
    return scope_info.table


def validate_symbol_refs(root: Any, *, implicit_symbols: Iterable[str] = ()) -> None:
    """Check that every :class:`SymbolRef` under ``root`` resolves in an enclosing scope.

    ``root`` counts as a scope even without :class:`SymbolTableTrait`. Raises
    :class:`UnresolvedSymbolError` naming the symbol, the node using it and the innermost
    scope it was looked up in (with the chain of enclosing scopes), or
    :class:`DuplicateSymbolError`. Symbol tables of frozen scopes are cached on the way.
    """
    outermost = _Scope(None, None, dict.fromkeys(implicit_symbols))
    scopes = _walk_scopes(root, outer=outermost, stop_at_nested_scopes=False)
    for scope in scopes:
        for name, holder in scope.references:
            if not scope.resolves(name):
                raise UnresolvedSymbolError(
                    f"symbol '{name}' used by {class_name(type(holder))} is not defined in scope "
                    f"{scope.describe_chain()}",
                    symbol=str(name),
                    scope=scope.node,
                )
    for scope in scopes:
        if (
            isinstance(scope.node, SymbolTableTrait)
            and _SYMTABLE_CACHE_KEY not in scope.node.__dict__
        ):
            _cache_symtable(scope.node, scope.table)


def describe_scope(node: Any) -> str:
    """``Lambda`` or ``FunctionDef 'foo'``: the class and the node's own declared name."""
    values_of = NODE_VALUES.get(node.__class__)
    own = next(
        (value for value in values_of(node) if isinstance(value, SymbolName))
        if values_of
        else iter(()),
        None,
    )
    return class_name(type(node)) + (f" '{own}'" if own is not None else "")
