"""`NdArrayConnectivityField`, a neighbour table held in one array (public in
``gt4py.next.embedded.nd_array_field``).
"""

from __future__ import annotations

from typing import Any

from .._dimensions import Dimension, NamedIndex
from .._domain import Domain, DomainLike
from .._field import Connectivity
from . import _array_ns
from ._embedded_field import PUBLIC_MODULE
from ._ndarray_field import NdArrayField
from .exceptions import DomainError


class NdArrayConnectivityField(NdArrayField, Connectivity):
    """A neighbour table: integer indices into ``codomain``, ``skip_value`` for missing ones.

    Derived data (gather indices, validity masks, single-neighbour tables) is computed once
    and cached; writing to the table clears the cache.
    """

    __module__ = PUBLIC_MODULE
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
