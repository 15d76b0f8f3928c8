"""Iterative tree walks (no recursion, so depth is bounded by memory only) and ``Walk``,
a small chainable iterator for filtered walks::

    names = node.walk_values().if_isinstance(SymbolRef).to_set()
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from ._registry import NODE_VALUES, SEQUENCE_TYPES


TraversalOrder: TypeAlias = Literal["pre", "post", "bfs"]

_T = TypeVar("_T")
_U = TypeVar("_U")


def _expand(value: Any, leaves: bool) -> tuple[bool, Any]:
    """(emit, children) for a value: a node is emitted, a container (list, tuple, set, dict
    values) only looked through, a leaf emitted if ``leaves``; children is None for leaves."""
    cls = value.__class__
    values_of = NODE_VALUES.get(cls)
    if values_of is not None:
        return True, list(values_of(value))
    if cls in SEQUENCE_TYPES:
        return False, list(value)
    if cls is dict:
        return False, list(value.values())
    return leaves, None


def _nodes_first(root: Any, leaves: bool, breadth_first: bool) -> Iterator[Any]:
    """Pre-order (a stack) or breadth-first (a queue): each value before its children."""
    pending = collections.deque([root])
    take = pending.popleft if breadth_first else pending.pop
    while pending:
        value = take()
        emit, children = _expand(value, leaves)
        if emit:
            yield value
        if children:
            if not breadth_first:
                children.reverse()  # popped from the end: the first child comes out first
            pending.extend(children)


def _post_order(root: Any, leaves: bool) -> Iterator[Any]:
    # Entries are (value, children-already-pushed).
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        value, expanded = stack.pop()
        if expanded:
            yield value
            continue
        emit, children = _expand(value, leaves)
        if not children:  # a leaf, or nothing under it: no children to come first
            if emit:
                yield value
            continue
        if emit:
            stack.append((value, True))
        stack.extend((child, False) for child in reversed(children))


_ORDERS: dict[str, Callable[[Any, bool], Iterator[Any]]] = {
    "pre": lambda root, leaves: _nodes_first(root, leaves, breadth_first=False),
    "post": _post_order,
    "bfs": lambda root, leaves: _nodes_first(root, leaves, breadth_first=True),
}


def _traversal(root: Any, order: str, leaves: bool) -> Iterator[Any]:
    try:
        walker = _ORDERS[order]
    except KeyError:
        raise ValueError(f"unknown traversal order {order!r}; use 'pre', 'post' or 'bfs'") from None
    return walker(root, leaves)


def iter_tree(root: Any, order: TraversalOrder = "pre") -> Iterator[Any]:
    """Every node in the tree under ``root`` (``root`` included), in the given order.

    Containers (lists, tuples, sets, dict values) are looked through; leaf values are skipped.
    """
    return _traversal(root, order, leaves=False)


def walk_values(root: Any, order: TraversalOrder = "pre") -> Walk[Any]:
    """Every node *and* leaf value under ``root`` (containers are looked through), chainable."""
    return Walk(_traversal(root, order, leaves=True))


class Walk(Generic[_T]):
    """An iterator with chainable filters; each method returns a new ``Walk``."""

    __slots__ = ("_iterator",)

    def __init__(self, iterable: Iterable[_T]) -> None:
        self._iterator = iter(iterable)

    def __iter__(self) -> Iterator[_T]:
        return self._iterator

    def __next__(self) -> _T:
        return next(self._iterator)

    def filter(self, predicate: Callable[[_T], bool]) -> Walk[_T]:
        return Walk(filter(predicate, self._iterator))

    def map(self, function: Callable[[_T], _U]) -> Walk[_U]:
        return Walk(map(function, self._iterator))

    def if_isinstance(self, *classes: type) -> Walk[Any]:
        return Walk(value for value in self._iterator if isinstance(value, classes))

    def if_not_isinstance(self, *classes: type) -> Walk[_T]:
        return Walk(value for value in self._iterator if not isinstance(value, classes))

    def getattr(self, name: str, *default: Any) -> Walk[Any]:
        """The attribute ``name`` of each value (``default`` for values without it, if given)."""
        if len(default) > 1:
            raise TypeError("getattr() takes at most one default")
        return Walk(getattr(value, name, *default) for value in self._iterator)

    def unique(self, key: Callable[[_T], Any] | None = None) -> Walk[_T]:
        """Drop repeats (by ``key(value)`` if given, else by value; values must be hashable)."""

        def first_occurrences() -> Iterator[_T]:
            seen: set[Any] = set()
            for value in self._iterator:
                marker = value if key is None else key(value)
                if marker not in seen:
                    seen.add(marker)
                    yield value

        return Walk(first_occurrences())

    def first(self, *default: Any) -> Any:
        """The first value; ``default`` if empty and given, else ``LookupError``."""
        for value in self._iterator:
            return value
        if default:
            return default[0]
        raise LookupError("the walk yielded no values")

    def to_list(self) -> list[_T]:
        return list(self._iterator)

    def to_set(self) -> set[_T]:
        return set(self._iterator)
