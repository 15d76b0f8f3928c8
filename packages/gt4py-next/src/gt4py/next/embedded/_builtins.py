"""The embedded implementation of each builtin, by builtin name.

``gt4py.next`` builtins (``where``, ``neighbor_sum``, ``sin``, ...) dispatch on their field
arguments: ``type(field).__gt_builtin_func__(name)`` returns the function registered here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from .._dimensions import Dimension
from .._offsets import DynamicOffset
from . import _concat_where, _elementwise, _reductions


def _unary(op: _elementwise.Op) -> Callable[[Any], Any]:
    def builtin(value: Any) -> Any:
        return _elementwise.apply(op, (value,))

    builtin.__name__ = op.name
    return builtin


def _binary(op: _elementwise.Op) -> Callable[[Any, Any], Any]:
    def builtin(left: Any, right: Any) -> Any:
        return _elementwise.apply(op, (left, right))

    builtin.__name__ = op.name
    return builtin


def _reduction(name: str) -> Callable[..., Any]:
    def builtin(field: Any, axis: Dimension) -> Any:
        return _reductions.reduce(name, field, axis)

    builtin.__name__ = name
    return builtin


IMPLEMENTATIONS: Final[dict[str, Callable[..., Any]]] = {
    **{name: _unary(op) for name, op in _elementwise.MATH_OPS.items()},
    "minimum": _binary(_elementwise.MINIMUM),
    "maximum": _binary(_elementwise.MAXIMUM),
    "fmod": _binary(_elementwise.FMOD),
    "power": _binary(_elementwise.POWER),
    "where": _elementwise.where,
    "astype": _elementwise.astype,
    "broadcast": _elementwise.broadcast,
    "neighbor_sum": _reduction("neighbor_sum"),
    "max_over": _reduction("max_over"),
    "min_over": _reduction("min_over"),
    "concat_where": _concat_where.concat_where,
    "as_offset": DynamicOffset,
}
