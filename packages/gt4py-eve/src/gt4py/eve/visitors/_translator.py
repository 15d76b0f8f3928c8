"""``NodeTranslator`` (new trees, unchanged subtrees shared) and ``NodeMutator`` (in place)."""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any

import attrs

from gt4py.eve.datamodels._type_check import class_name
from gt4py.eve.nodes._registry import NODE_FIELDS, NODE_INIT_FIELDS, NODE_VALUES

from ._dispatch import resolve_handler
from ._nothing import NOTHING
from ._visitor import NodeVisitor


def _keep_leaf(visitor: Any, node: Any, **kwargs: Any) -> Any:
    """What the built-in generic visits of translators do with a leaf: keep it."""
    return node


def _refuse_nothing(node: Any, names: Iterable[str], results: list[Any]) -> None:
    for name, result in zip(names, results, strict=True):
        if result is NOTHING:
            raise TypeError(
                f"a visit returned NOTHING for field '{name}' of {class_name(type(node))}; "
                "NOTHING only removes items from lists, tuples, sets and dicts"
            )


class NodeTranslator(NodeVisitor):
    """Builds a new tree from the results of ``visit_<ClassName>`` methods.

    ``generic_visit`` visits every child; if no child changed (each result *is* the old
    value) it returns the very same node, so untouched subtrees are shared between the old
    and the new tree; otherwise it builds a new node of the same class (validated as usual).
    A visit returning :data:`NOTHING` for a container item drops the item.
    """

    def generic_visit(self, node: Any, **kwargs: Any) -> Any:
        cls = node.__class__
        init_fields = NODE_INIT_FIELDS.get(cls)
        items: tuple[Any, ...] | list[Any]
        if init_fields is not None:
            items = init_fields[1](node)
        elif cls is list or cls is tuple:
            items = node
        elif cls is set or cls is frozenset:
            items = tuple(node)
        elif cls is dict:
            items = tuple(node.values())
        else:
            return node

        # The child loop is inlined (not shared with NodeMutator through a helper): one Python
        # frame per tree level instead of two, so twice the depth fits under the recursion limit.
        results: list[Any] | None = None
        index = 0
        if self._eve_visit_overridden:
            visit = self.visit
            for item in items:
                result = visit(item, **kwargs)
                if results is not None:
                    results.append(result)
                elif result is not item:
                    results = [*items[:index], result]
                index += 1
        else:
            table = self._eve_dispatch
            visitor_class = type(self)
            for item in items:
                handler = table.get(item.__class__) or resolve_handler(
                    visitor_class, item.__class__
                )
                if handler is _keep_leaf:
                    if results is not None:
                        results.append(item)
                else:
                    result = handler(self, item, **kwargs) if kwargs else handler(self, item)
                    if results is not None:
                        results.append(result)
                    elif result is not item:
                        results = [*items[:index], result]
                index += 1

        if results is None:
            return node
        if init_fields is not None:
            aliases = init_fields[0]
            for result in results:
                if result is NOTHING:
                    _refuse_nothing(node, aliases, results)
            return cls(**dict(zip(aliases, results, strict=True)))
        if cls is dict:
            return {
                key: value
                for key, value in zip(node.keys(), results, strict=True)
                if value is not NOTHING
            }
        return cls(item for item in results if item is not NOTHING)


class NodeMutator(NodeVisitor):
    """Changes a tree in place: results of ``visit_*`` methods are assigned back to fields.

    Nodes whose children change must be mutable (declared with ``frozen=False``); the
    assignments are validated. Containers are not modified in place but replaced in their
    node (so a list inside a frozen node is never changed behind its back); a visit returning
    :data:`NOTHING` for a container item removes it. ``visit`` returns the (possibly new)
    value, which matters when it is called on a container or replaces the root.
    """

    def generic_visit(self, node: Any, **kwargs: Any) -> Any:
        cls = node.__class__
        names = NODE_FIELDS.get(cls)
        if names is not None:
            old_values = NODE_VALUES[cls](node)
            results = self._visit_all(old_values, kwargs)
            if results is not None:
                _refuse_nothing(node, names, results)
                for name, old, new in zip(names, old_values, results, strict=True):
                    if new is not old:
                        _assign(node, name, new)
            return node
        if cls is list or cls is tuple or cls is set or cls is frozenset:
            results = self._visit_all(tuple(node), kwargs)
            if results is None:
                return node
            return cls(item for item in results if item is not NOTHING)
        if cls is dict:
            results = self._visit_all(tuple(node.values()), kwargs)
            if results is None:
                return node
            return {
                key: value
                for key, value in zip(node.keys(), results, strict=True)
                if value is not NOTHING
            }
        return node

    def _visit_all(self, items: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any] | None:
        """The visited items, or None when every result *is* its input (nothing changed)."""
        results = [self.visit(item, **kwargs) for item in items]
        if all(map(operator.is_, results, items)):
            return None
        return results


def _assign(node: Any, name: str, value: Any) -> None:
    try:
        setattr(node, name, value)
    except attrs.exceptions.FrozenInstanceError:
        raise TypeError(
            f"NodeMutator cannot change field '{name}' of {class_name(type(node))}: the class "
            "is frozen. Use NodeTranslator, or declare the class with frozen=False."
        ) from None


NodeTranslator.generic_visit.__eve_leaf_shortcut__ = _keep_leaf  # type: ignore[attr-defined]
NodeMutator.generic_visit.__eve_leaf_shortcut__ = _keep_leaf  # type: ignore[attr-defined]
