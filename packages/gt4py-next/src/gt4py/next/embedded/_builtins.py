"""The embedded implementation of each builtin, by builtin name.

``gt4py.next`` builtins (``where``, ``neighbor_sum``, ``sin``, ...) dispatch on their field
arguments: ``type(field).__gt_builtin_func__(name)`` returns the function registered here.
The pointwise builtins and reductions are those of the builtin vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .. import _builtin_vocabulary as vocabulary
from .._dimensions import Dimension
from .._offsets import DynamicOffset
from . import _concat_where, _elementwise, _ops, _reductions, _where, nd_array_field


def _unary(op: _ops.Op) -> Callable[[Any], Any]:
    def builtin(value: Any) -> Any:
        return _elementwise.apply(op, (value,))

    builtin.__name__ = op.name
    return builtin


def _binary(op: _ops.Op) -> Callable[[Any, Any], Any]:
    def builtin(left: Any, right: Any) -> Any:
        return _elementwise.apply(op, (left, right))

    builtin.__name__ = op.name
    return builtin


def _reduction(name: str) -> Callable[..., Any]:
    def builtin(field: Any, axis: Dimension) -> Any:
        return _reductions.reduce(name, field, axis)

    builtin.__name__ = name
    return builtin


def _from_vocabulary(name: str, row: vocabulary.Builtin) -> Callable[..., Any]:
    if row.kind is vocabulary.Kind.SELECT:
        return _where.where
    if row.kind is vocabulary.Kind.REDUCTION:
        return _reduction(name)
    op = _ops.OPS[row.ir_name]
    return _unary(op) if row.arity == 1 else _binary(op)


IMPLEMENTATIONS: Final[dict[str, Callable[..., Any]]] = {
    **{name: _from_vocabulary(name, row) for name, row in vocabulary.DSL_BUILTINS.items()},
    "astype": _elementwise.astype,
    "broadcast": _elementwise.broadcast,
    "concat_where": _concat_where.concat_where,
    "as_offset": DynamicOffset,
}


nd_array_field.register_operations(builtins=IMPLEMENTATIONS)  # `__gt_builtin_func__`
