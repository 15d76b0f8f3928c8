"""Deferred pointwise results that reuse dead temporaries in place (inside lazy contexts).

In ``-4 * a + a(I + 1) + a(I - 1) + ...`` every ``+`` makes a new large array. numpy's own
expressions avoid that by computing into a dead temporary in place, which field expressions
cannot do eagerly: whether a field object is still referenced elsewhere is unknowable while the
interpreter is in the middle of an expression. Inside ``embedded_context(lazy=True)`` -- how
embedded execution runs an operator body, whose fields are immutable values -- binary
operators record what to compute and the work happens on first use of the data. By then the
record is the only holder of an intermediate result, and that is checkable exactly: a pending
operand referenced by nothing but its consumer, whose memory nothing else views, is
overwritten in place.

Pending results are computed on first use of their data, before any write into a field while
the context is active, and when the context exits. Arrays obtained through ``.ndarray`` must not
be mutated while results computed from them are pending.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any, Final

import numpy as np

from .._domain import Domain
from . import _scratch
from .context import pending_results
from .nd_array_field import NdArrayField


_DATA: Final = NdArrayField.__dict__["_data"]  # the slot behind the `_data` property below
_MAX_DEPTH: Final = 64  # longer chains are computed right away (bounded recursion)
_MIN_SIZE: Final = 1 << 15  # elements; smaller results are computed right away

#: The operand slot of a scalar (a literal) in an operand pair.
SCALAR: Final = object()


class LazyNdArrayField(NdArrayField):
    """An :class:`NdArrayField` whose array is computed on first use."""

    __slots__ = ("__weakref__", "_depth", "_dtype", "_size", "_thunk")

    _dtype: np.dtype[Any]
    _thunk: tuple[Any, ...] | None
    _depth: int
    _size: int  # elements of the largest operand: decides whether deferring pays off

    def _get_data(self) -> Any:
        if self._thunk is not None:
            _DATA.__set__(self, _evaluate(self))
            self._thunk = None
        return _DATA.__get__(self)

    def _set_data(self, value: Any) -> None:
        _DATA.__set__(self, value)
        self._thunk = None
        self._dtype = value.dtype

    _data = property(_get_data, _set_data)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._dtype

    @property
    def is_pending(self) -> bool:
        return self._thunk is not None

    def compute(self) -> None:
        """Compute the array now if it is still pending (``context`` calls this on flushes)."""
        if self._thunk is not None:
            self._get_data()


def deferred(
    domain: Domain,
    dtype: np.dtype[Any],
    xp: Any,
    function: Any,
    operands: tuple[tuple[Any, Any], ...],
    *,
    in_place: bool,
) -> NdArrayField | None:
    """A pending result of ``function`` on ``operands``, or ``None`` outside lazy contexts.

    ``operands`` are ``(field, cut)`` pairs (``cut``: ``None`` or a tuple of slices into the
    field's array) or ``(scalar, SCALAR)``; ``in_place``: the result has the operands' dtype.
    """
    registry = pending_results()
    if registry is None or xp is not np:
        return None
    depth = 1
    size = 0
    for operand, cut in operands:
        if cut is SCALAR:
            continue
        if operand.__class__ is LazyNdArrayField and operand._thunk is not None:
            depth = max(depth, operand._depth + 1)
            size = max(size, operand._size)
        else:
            size = max(size, operand._data.size)
    if depth > _MAX_DEPTH or size < _MIN_SIZE:
        return None  # small arrays: allocation is cheap, deferring would cost more
    field = object.__new__(LazyNdArrayField)
    field._domain = domain
    field.array_ns = xp
    field._dtype = dtype
    field._thunk = (function, operands, in_place)
    field._depth = depth
    field._size = size
    if len(registry) >= _PRUNE_AT:
        registry[:] = [ref for ref in registry if ref() is not None]
    registry.append(weakref.ref(field))
    return field


_PRUNE_AT: Final = 4096


def _evaluate(field: LazyNdArrayField) -> Any:
    function, operands, in_place = field._thunk  # type: ignore[misc]
    shape = tuple(
        1 if r.start == -np.inf or r.stop == np.inf else len(r) for r in field._domain.ranges
    )
    args = []
    target = None
    for pair in operands:
        if pair[1] is SCALAR:
            args.append(pair[0])
            continue
        reusable = in_place and target is None and _operand_refs(pair) == _FREE_OPERAND
        operand = pair[0]
        cut = pair[1]
        if reusable:
            operand._data  # noqa: B018  # compute it first: the check looks at its array
            reusable = _memory_is_free(operand)
        data = operand._data
        view = data if cut is None else data[cut]
        if reusable and view.shape == shape and view.dtype == field._dtype and view.flags.writeable:
            target = view
        args.append(view)
    if target is not None:
        return function(*args, out=target)
    return _scratch.call(function, args)


# -- exact ownership checks ------------------------------------------------------------------------
# Each helper reads one reference count; the free counts are measured with the same helpers on
# objects nothing else refers to, so interpreter details (borrowed references...) cancel out.


def _operand_refs(pair: tuple[Any, Any]) -> int:
    operand = pair[0]
    return sys.getrefcount(operand)


def _data_refs(field: Any) -> int:
    data = _DATA.__get__(field)
    return sys.getrefcount(data)


def _base_refs(array: Any) -> int:
    base = array.base
    return sys.getrefcount(base)


def _memory_is_free(field: Any) -> bool:
    """Whether nothing but ``field`` refers to its array and the memory under it."""
    if _data_refs(field) != _FREE_DATA:
        return False
    data = _DATA.__get__(field)
    if data.base is None:
        return True
    if type(data.base) is not np.ndarray:
        return False
    refs = _base_refs(data)  # (`base` is never bound here: that would add a reference)
    return refs == _FREE_BASE or (refs == _FREE_BASE + 1 and _scratch.is_pool_buffer(data.base))


def _measure_free_counts() -> tuple[int, int, int]:
    holder = NdArrayField._make(Domain._make((), ()), np.empty(()), np)
    return (
        _operand_refs((object(), None)),
        _data_refs(holder),
        _base_refs(np.empty(4)[1:]),
    )


_FREE_OPERAND, _FREE_DATA, _FREE_BASE = _measure_free_counts()
