"""Fields backed by an array of any array-API namespace (numpy now; cupy and jax alike).

:class:`EmbeddedField` gives every embedded field its operators; :class:`NdArrayField` holds
one array, :class:`NdArrayConnectivityField` a neighbour table. The operations themselves
live in the private ``_elementwise``, ``_shifts``, ``_reductions`` and ``_concat_where``
modules, which work on any embedded field; as they build fields of the classes here, the
classes reach them through the functions those modules register (:func:`register_operations`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .. import common
from .._dimensions import Dimension, NamedIndex
from .._domain import INFINITY, Domain, DomainLike, domain as as_domain
from .._field import Connectivity, Field, scalar_dtype
from . import _array_ns, _ops
from ._alignment import is_unbounded, shape_of
from ._selection import selection
from .context import flush_pending_results
from .exceptions import DomainError


# -- the operations, registered by the modules that implement them --------------------------------
# ``_elementwise``, ``_shifts`` and ``_builtins`` build fields of the classes below, so this module
# does not import them: each registers its functions here when imported. The package
# ``gt4py.next.embedded`` imports them all, so that they are registered before any of its
# modules can be used.


class _Operations:
    """What the field classes delegate to, set by :func:`register_operations`."""

    __slots__ = (
        "apply",
        "binary",
        "builtins",
        "premap",
        "scalar_for_assignment",
        "value_for_assignment",
    )

    binary: Callable[[_ops.Op, Any, Any], Any]  # _elementwise.binary
    apply: Callable[[_ops.Op, Any], Any]  # _elementwise.apply
    value_for_assignment: Callable[[Any, Domain, Any], Any]  # _elementwise
    scalar_for_assignment: Callable[[Any, Any], Any]  # _elementwise
    premap: Callable[[Any, Any], Any]  # _shifts.premap
    builtins: Mapping[str, Callable[..., Any]]  # _builtins.IMPLEMENTATIONS


_operations = _Operations()


def register_operations(**operations: Any) -> None:
    """Set the implementations the field classes call (names as in :class:`_Operations`)."""
    for name, implementation in operations.items():
        setattr(_operations, name, implementation)


class EmbeddedField(Field):
    """Operators shared by all embedded fields (ndarray-backed and piecewise)."""

    __slots__ = ()

    _is_piecewise: ClassVar[bool] = False
    if TYPE_CHECKING:
        array_ns: Any
        _domain: Domain
    __hash__ = None  # type: ignore[assignment]  # `==` is elementwise

    # -- arithmetic -----------------------------------------------------------------------------

    def __add__(self, other: Any) -> Any:
        return _operations.binary(_ops.ADD, self, other)

    def __radd__(self, other: Any) -> Any:
        return _operations.binary(_ops.ADD, other, self)

    def __sub__(self, other: Any) -> Any:
        return _operations.binary(_ops.SUBTRACT, self, other)

    def __rsub__(self, other: Any) -> Any:
        return _operations.binary(_ops.SUBTRACT, other, self)

    def __mul__(self, other: Any) -> Any:
        return _operations.binary(_ops.MULTIPLY, self, other)

    def __rmul__(self, other: Any) -> Any:
        return _operations.binary(_ops.MULTIPLY, other, self)

    def __truediv__(self, other: Any) -> Any:
        return _operations.binary(_ops.DIVIDE, self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _operations.binary(_ops.DIVIDE, other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _operations.binary(_ops.FLOOR_DIVIDE, self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _operations.binary(_ops.FLOOR_DIVIDE, other, self)

    def __mod__(self, other: Any) -> Any:
        return _operations.binary(_ops.MOD, self, other)

    def __rmod__(self, other: Any) -> Any:
        return _operations.binary(_ops.MOD, other, self)

    def __pow__(self, other: Any) -> Any:
        return _operations.binary(_ops.POWER, self, other)

    def __rpow__(self, other: Any) -> Any:
        return _operations.binary(_ops.POWER, other, self)

    def __neg__(self) -> Any:
        return _operations.apply(_ops.NEGATIVE, (self,))

    def __pos__(self) -> Any:
        return _operations.apply(_ops.POSITIVE, (self,))

    def __abs__(self) -> Any:
        return _operations.apply(_ops.ABS, (self,))

    # -- comparison -----------------------------------------------------------------------------

    def __eq__(self, other: Any) -> Any:
        return _operations.binary(_ops.EQUAL, self, other)

    def __ne__(self, other: Any) -> Any:
        return _operations.binary(_ops.NOT_EQUAL, self, other)

    def __lt__(self, other: Any) -> Any:
        return _operations.binary(_ops.LESS, self, other)

    def __le__(self, other: Any) -> Any:
        return _operations.binary(_ops.LESS_EQUAL, self, other)

    def __gt__(self, other: Any) -> Any:
        return _operations.binary(_ops.GREATER, self, other)

    def __ge__(self, other: Any) -> Any:
        return _operations.binary(_ops.GREATER_EQUAL, self, other)

    # -- logical (bool fields) ------------------------------------------------------------------

    def __and__(self, other: Any) -> Any:
        return _operations.binary(_ops.LOGICAL_AND, self, other)

    def __rand__(self, other: Any) -> Any:
        return _operations.binary(_ops.LOGICAL_AND, other, self)

    def __or__(self, other: Any) -> Any:
        return _operations.binary(_ops.LOGICAL_OR, self, other)

    def __ror__(self, other: Any) -> Any:
        return _operations.binary(_ops.LOGICAL_OR, other, self)

    def __xor__(self, other: Any) -> Any:
        return _operations.binary(_ops.LOGICAL_XOR, self, other)

    def __rxor__(self, other: Any) -> Any:
        return _operations.binary(_ops.LOGICAL_XOR, other, self)

    def __invert__(self) -> Any:
        return _operations.apply(_ops.LOGICAL_NOT, (self,))

    # -- numpy interoperation -------------------------------------------------------------------

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.sin(field)`` and ``np.float64(2) * field`` give fields, like the builtins."""
        op = _ops.UFUNC_OPS.get(getattr(ufunc, "__name__", ""))
        if method != "__call__" or kwargs or op is None:
            return NotImplemented
        return _operations.apply(op, inputs)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        array = self.asnumpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def __iter__(self) -> Iterator[Any]:
        raise TypeError("a Field is not iterable; use field.asnumpy() to loop over values")

    # -- shifts and builtins --------------------------------------------------------------------

    def premap(self, *connectivities: Any) -> Any:
        return _operations.premap(self, connectivities)

    def __call__(self, *connectivities: Any) -> Any:
        return _operations.premap(self, connectivities)

    def __getitem__(self, index: Any) -> Any:
        return self.restrict(index)

    @classmethod
    def __gt_builtin_func__(cls, name: str) -> Any:
        return _operations.builtins.get(name)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.domain.shape

    @property
    def ndim(self) -> int:
        return len(self.domain.dims)

    def as_scalar(self) -> Any:
        """The value of a 0-dimensional field."""
        if self.domain.dims:
            raise ValueError(
                f"as_scalar() needs a 0-dimensional field, this one is over {self.domain}"
            )
        return self.asnumpy()[()]


def is_field(value: object) -> bool:
    """Whether ``value`` is an embedded field (a plain bool: duck-typed values stay ``Any``)."""
    return isinstance(value, EmbeddedField)


class NdArrayField(EmbeddedField):
    """A field whose values are one array of namespace ``array_ns`` laid out like its domain.

    Along a finite range the array has one entry per index; along an unbounded range (a value
    broadcast to all indices) it has a single entry.
    """

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
            value = _operations.value_for_assignment(value, target, self.dtype)
        elif _array_ns.namespace_of(value) is not None and getattr(value, "ndim", 0) > 0:
            value = _array_ns.as_namespace_array(self.array_ns, value)
            if tuple(value.shape) != target.shape:
                raise DomainError(
                    f"cannot assign an array of shape {tuple(value.shape)} to {target} "
                    f"(shape {target.shape})"
                )
        else:
            value = _operations.scalar_for_assignment(value, self.dtype)
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


class NdArrayConnectivityField(NdArrayField, Connectivity):
    """A neighbour table: integer indices into ``codomain``, ``skip_value`` for missing ones.

    Derived data (gather indices, validity masks, single-neighbour tables) is computed once
    and cached; writing to the table clears the cache.
    """

    __slots__ = ("_cache", "_codomain", "_skip_value")

    _codomain: Dimension
    _skip_value: int | None
    _cache: dict[Any, Any]

    def __init__(
        self,
        domain: DomainLike,
        ndarray: Any,
        codomain: Dimension,
        *,
        skip_value: int | None = None,
        array_ns: Any = None,
    ) -> None:
        super().__init__(domain, ndarray, array_ns=array_ns)
        if not isinstance(codomain, Dimension):
            raise TypeError(f"a connectivity's codomain must be a Dimension, got {codomain!r}")
        if self.dtype.kind not in "iu":
            raise TypeError(f"a connectivity needs integer indices, got dtype {self.dtype}")
        if not self._domain.is_finite():
            raise DomainError(f"a connectivity must have a finite domain, got {self._domain}")
        # A table may map a dimension to itself through a local dimension (ICON's C2E2C:
        # Cell x C2E2CDim -> Cell): a neighbour table, not a Cartesian shift.
        self._codomain = codomain
        self._skip_value = None if skip_value is None else int(skip_value)
        self._cache = {}

    @classmethod
    def _make_connectivity(
        cls, domain: Domain, data: Any, xp: Any, codomain: Dimension, skip_value: int | None
    ) -> NdArrayConnectivityField:
        conn = object.__new__(cls)
        conn._domain = domain
        conn._data = data
        conn.array_ns = xp
        conn._codomain = codomain
        conn._skip_value = skip_value
        conn._cache = {}
        return conn

    @property
    def codomain(self) -> Dimension:  # type: ignore[override]
        return self._codomain

    @property
    def skip_value(self) -> int | None:
        return self._skip_value

    @property
    def has_skip_values(self) -> bool:
        return self.valid_mask() is not None

    def valid_mask(self) -> NdArrayField | None:
        """A bool field, true where the table holds a neighbour; ``None`` if all do."""
        if "valid" not in self._cache:
            mask = None
            if self._skip_value is not None:
                valid = self._data != self._skip_value
                if not bool(_array_ns.function(self.array_ns, "all")(valid)):
                    mask = NdArrayField._make(self._domain, valid, self.array_ns)
            self._cache["valid"] = mask
        return self._cache["valid"]  # type: ignore[no-any-return]

    def restrict(self, index: Any) -> Any:
        restricted = super().restrict(index)
        return NdArrayConnectivityField._make_connectivity(
            restricted._domain,
            restricted._data,
            self.array_ns,
            self._codomain,
            self._skip_value,
        )

    def neighbor(self, index: int) -> NdArrayConnectivityField:
        """The table of the ``index``-th neighbour only (``E2V[0]``), without the local dim."""
        key = ("neighbor", index)
        if key not in self._cache:
            local = self.neighbor_dim
            if local is None:
                raise DomainError(
                    f"the connectivity into {self._codomain} over {self._domain} has no local "
                    f"dimension, so it has no neighbour [{index}]"
                )
            count = self.max_neighbors
            if not 0 <= index < count:
                raise DomainError(
                    f"neighbour index {index} is out of range: the table has {count} neighbours "
                    f"per {self.source_dim} (valid: 0..{count - 1})"
                )
            self._cache[key] = self.restrict(NamedIndex(local, index))
        return self._cache[key]  # type: ignore[no-any-return]

    def __setitem__(self, index: Any, value: Any) -> None:
        self._cache.clear()
        super().__setitem__(index, value)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self._domain} -> {self._codomain}, dtype={self.dtype.name}, "
            f"skip_value={self._skip_value})"
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
