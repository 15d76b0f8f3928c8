"""`NdArrayField`, a field holding one array of any array-API namespace (public in
``gt4py.next.embedded.nd_array_field``), and the view of an array as a field
(``common._field``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import common
from .._dimensions import Dimension
from .._domain import INFINITY, Domain, DomainLike, domain as as_domain
from .._field import scalar_dtype
from . import _array_ns
from ._alignment import is_unbounded, shape_of
from ._embedded_field import PUBLIC_MODULE, EmbeddedField, is_field
from ._field_operations import registered
from ._selection import selection
from .context import flush_pending_results
from .exceptions import DomainError


class NdArrayField(EmbeddedField):
    """A field whose values are one array of namespace ``array_ns`` laid out like its domain.

    Along a finite range the array has one entry per index; along an unbounded range (a value
    broadcast to all indices) it has a single entry.
    """

    __module__ = PUBLIC_MODULE
    __slots__ = ("_data", "_domain", "array_ns")

    _domain: Domain
    _data: Any
    array_ns: Any

    def __init__(self, domain: DomainLike, ndarray: Any, *, array_ns: Any = None) -> None:
        dom = as_domain(domain)
        xp = array_ns if array_ns is not None else _array_ns.namespace_of(ndarray)
        if xp is None:
            raise TypeError(
                f"NdArrayField needs an array (numpy, cupy, jax, ...), got {type(ndarray).__name__}; "
                "use gtx.as_field(domain, data) to convert other data"
            )
        scalar_dtype(ndarray.dtype)
        expected = shape_of(dom.ranges)
        if tuple(ndarray.shape) != expected:
            raise DomainError(
                f"data of shape {tuple(ndarray.shape)} does not fit {dom} (shape {expected})"
            )
        self._domain = dom
        self._data = ndarray
        self.array_ns = xp

    @classmethod
    def _make(cls, domain: Domain, data: Any, xp: Any) -> NdArrayField:
        """Fast path: ``data`` already satisfies the layout invariant for ``domain``."""
        field = object.__new__(cls)
        field._domain = domain
        field._data = data
        field.array_ns = xp
        return field

    @classmethod
    def from_array(
        cls, data: Any, /, *, domain: DomainLike, dtype: Any = None, array_ns: Any = None
    ) -> NdArrayField:
        """A field over ``domain`` viewing ``data`` (converted to ``array_ns`` if given)."""
        xp = array_ns or _array_ns.namespace_of(data) or np
        array = _array_ns.as_namespace_array(xp, data)
        if dtype is not None:
            array = _array_ns.astype(xp, array, scalar_dtype(dtype))
        return cls(domain, array, array_ns=xp)

    # -- the Field interface --------------------------------------------------------------------

    @property
    def domain(self) -> Domain:
        return self._domain

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._data.dtype  # type: ignore[no-any-return]

    @property
    def ndarray(self) -> Any:
        if not self._domain.is_finite():
            raise DomainError(
                f"a field over the unbounded {self._domain} has no array; restrict it first "
                "(field[domain])"
            )
        return self._data

    def asnumpy(self) -> np.ndarray[Any, Any]:
        return _array_ns.to_numpy(self.array_ns, self.ndarray)

    @property
    def __gt_origin__(self) -> tuple[int, ...]:
        return tuple(-int(r.start) for r in self._domain.ranges)

    @property
    def __gt_dims__(self) -> tuple[Dimension, ...]:
        return self._domain.dims

    def restrict(self, index: Any) -> NdArrayField:
        cut, domain, unbounded_to_finite = selection(self._domain, index)
        data = self._data[cut]
        if unbounded_to_finite:
            data = _array_ns.function(self.array_ns, "broadcast_to")(data, shape_of(domain.ranges))
        return NdArrayField._make(domain, data, self.array_ns)

    def __setitem__(self, index: Any, value: Any) -> None:
        flush_pending_results()  # pending lazy results must not see this write
        if (
            type(index) is Domain
            and isinstance(value, NdArrayField)
            and index.dims == self._domain.dims == value._domain.dims
            and value.dtype == self.dtype
            and value.array_ns is self.array_ns
            and _assign_same_dims(self, index, value)
        ):
            return
        cut, target, _ = selection(self._domain, index)
        if any(is_unbounded(r) for r in target.ranges):
            raise DomainError(f"cannot assign to the unbounded {target}")
        if is_field(value):
            value = registered.value_for_assignment(value, target, self.dtype)
        elif _array_ns.namespace_of(value) is not None and getattr(value, "ndim", 0) > 0:
            value = _array_ns.as_namespace_array(self.array_ns, value)
            if tuple(value.shape) != target.shape:
                raise DomainError(
                    f"cannot assign an array of shape {tuple(value.shape)} to {target} "
                    f"(shape {target.shape})"
                )
        else:
            value = registered.scalar_for_assignment(value, self.dtype)
        self._write(cut, value)

    def _write(self, cut: tuple[Any, ...], value: Any) -> None:
        try:
            self._data[cut] = value
        except ValueError:
            flags = getattr(self._data, "flags", None)
            if flags is not None and not getattr(flags, "writeable", True):
                raise TypeError(
                    f"cannot write into the field over {self._domain}: its array is read-only "
                    "(flags.writeable is False); pass a writable field"
                ) from None
            raise
        except TypeError:
            update = getattr(self._data, "at", None)
            if update is None:
                raise
            self._data = update[cut].set(value)  # immutable arrays (jax): the field gets a new one

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self._domain}, dtype={self.dtype.name}, "
            f"array_ns={_array_ns.namespace_name(self.array_ns)})"
        )


def _assign_same_dims(target: NdArrayField, domain: Domain, value: NdArrayField) -> bool:
    """``target[domain] = value`` for the common case of one dim order; False if not simple."""
    target_cut = []
    value_cut = []
    for rng, own, given in zip(
        domain.ranges, target._domain.ranges, value._domain.ranges, strict=True
    ):
        start = rng.start
        stop = rng.stop
        if not (
            own.start <= start and stop <= own.stop and given.start <= start and stop <= given.stop
        ):
            return False  # out of bounds or unbounded: the general path explains
        if start == stop or given.start == -INFINITY or given.stop == INFINITY:
            return False
        target_cut.append(slice(int(start - own.start), int(stop - own.start)))
        value_cut.append(slice(int(start - given.start), int(stop - given.start)))
    target._write(tuple(target_cut), value._data[tuple(value_cut)])
    return True


@common._field.register(object)
def _field_view(definition: Any, /, *, domain: DomainLike, dtype: Any = None) -> NdArrayField:
    """``common._field``: an array viewed as a field (converted only if ``dtype`` differs)."""
    xp = _array_ns.namespace_of(definition)
    if xp is None:
        raise TypeError(
            f"cannot make a field view of a {type(definition).__name__}; pass an array "
            "(numpy, cupy, jax) or use gtx.as_field(domain, data) to copy other data"
        )
    if dtype is not None and np.dtype(dtype) != definition.dtype:
        definition = xp.asarray(definition, dtype=scalar_dtype(dtype))
    return NdArrayField(domain, definition, array_ns=xp)
