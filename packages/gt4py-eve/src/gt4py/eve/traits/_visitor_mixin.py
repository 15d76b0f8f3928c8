"""A visitor mixin that passes the symbols in scope down the traversal."""

from __future__ import annotations

import collections
from typing import Any

from ._symbol_table import SymbolTableTrait


class VisitorWithSymbolTableTrait:
    """Mix into a visitor: each visit gets ``symtable=``, the names visible at that node.

    ``symtable`` is a ``ChainMap`` (innermost scope first) mapping names to declaring nodes;
    entering a node with :class:`SymbolTableTrait` adds its scope for the node's children.
    """

    def visit(self, node: Any, **kwargs: Any) -> Any:
        if isinstance(node, SymbolTableTrait):
            outer = kwargs.get("symtable")
            inner = node.symtable
            kwargs["symtable"] = (
                outer.new_child(dict(inner))
                if isinstance(outer, collections.ChainMap)
                else collections.ChainMap(dict(inner))
            )
        return super().visit(node, **kwargs)  # type: ignore[misc]
