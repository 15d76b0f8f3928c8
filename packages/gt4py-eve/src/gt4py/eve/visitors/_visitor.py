"""``NodeVisitor``: walk a tree calling ``visit_<ClassName>`` methods (like ``ast.NodeVisitor``)."""

from __future__ import annotations

from typing import Any, ClassVar

from gt4py.eve.nodes._registry import NODE_VALUES, SEQUENCE_TYPES

from ._dispatch import Handler, resolve_handler


class NodeVisitor:
    """Calls ``visit_<ClassName>(node, **kwargs)`` for each value, along the value's MRO.

    Without a matching method, ``generic_visit`` visits the children: the field values of a
    node, the items of lists/tuples/sets and the values of dicts. Keyword arguments given to
    ``visit`` flow down to every child visit. Handlers are cached per (visitor class, value
    class), so define ``visit_*`` methods in the class body, not on the fly.
    """

    _eve_dispatch: ClassVar[dict[type, Handler]] = {}
    _eve_visit_overridden: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._eve_dispatch = {}
        # A subclass may wrap visit() (pre/post hooks); then traversals must go through it.
        cls._eve_visit_overridden = cls.visit is not NodeVisitor.visit

    def visit(self, node: Any, **kwargs: Any) -> Any:
        try:
            handler = self._eve_dispatch[node.__class__]
        except KeyError:
            handler = resolve_handler(type(self), node.__class__)
        # Calls without ** stay inside the interpreter loop on 3.11+, so deep trees do not
        # exhaust the C stack when no keyword arguments are passed.
        if kwargs:
            return handler(self, node, **kwargs)
        return handler(self, node)

    def generic_visit(self, node: Any, **kwargs: Any) -> None:
        cls = node.__class__
        values_of = NODE_VALUES.get(cls)
        if values_of is not None:
            children: Any = values_of(node)
        elif cls in SEQUENCE_TYPES:
            children = node
        elif cls is dict:
            children = node.values()
        else:
            return
        if self._eve_visit_overridden:
            visit = self.visit
            for child in children:
                visit(child, **kwargs)
            return
        table = self._eve_dispatch
        visitor_class = type(self)
        for child in children:
            handler = table.get(child.__class__) or resolve_handler(visitor_class, child.__class__)
            if handler is _ignore_leaf:
                continue
            if kwargs:
                handler(self, child, **kwargs)
            else:
                handler(self, child)


def _ignore_leaf(visitor: Any, node: Any, **kwargs: Any) -> None:
    """What NodeVisitor.generic_visit does with a leaf: nothing."""


NodeVisitor.generic_visit.__eve_leaf_shortcut__ = _ignore_leaf  # type: ignore[attr-defined]
