"""The field model of gt4py.next: dimensions, ranges, domains, fields, connectivities, offsets."""

import functools
from collections.abc import Mapping
from typing import Any, TypeAlias, TypeGuard, TypeVar

from ._dimensions import (
    CartesianConnectivity,
    Dimension,
    DimensionKind,
    Dims,
    GridType,
    NamedIndex,
    promote_dims,
)
from ._domain import (
    Domain,
    DomainLike,
    DomainUnion,
    Infinity,
    NamedRange,
    RangeLike,
    UnitRange,
    domain,
    named_range,
    unit_range,
)
from ._field import (
    Connectivity,
    Field,
    FieldAnnotation,
    is_field,
    scalar_dtype,
)
from ._offsets import (
    DynamicOffset,
    FieldOffset,
    IndexedFieldOffset,
)


OffsetProvider: TypeAlias = Mapping[str, Connectivity | Dimension]
"""What ``offset_provider=`` takes: offset names to neighbour tables or dimensions."""


#: Released gt4py's name for a connectivity with a local dimension (used in annotations).
NeighborTable = Connectivity

#: A type variable over the dimensions of a field (``Dims[...]``), as released gt4py names it.
DimsT = TypeVar("DimsT", bound=Dims, covariant=True)  # noqa: PLC0105  (released name)


@functools.singledispatch
def _field(definition: Any, /, *, domain: DomainLike, dtype: Any = None) -> Field:
    """A field over ``domain`` that views the array ``definition`` (no copy).

    Released gt4py's internal ``common._field``, which icon4py calls to reshape a field's
    array in place. The embedded field (``NdArrayField``) registers the implementation.
    """
    raise NotImplementedError("gt4py.next.embedded registers the field view of arrays")


def is_neighbor_table(value: object) -> TypeGuard[Connectivity]:
    """Whether ``value`` is a neighbour table: a connectivity over (horizontal, local) dims."""
    if not isinstance(value, Connectivity):
        return False
    dims = value.domain.dims
    return (
        len(dims) == 2
        and dims[0].kind is DimensionKind.HORIZONTAL
        and dims[1].kind is DimensionKind.LOCAL
    )


__all__ = [
    "DimsT",
    "NeighborTable",
    "OffsetProvider",
    "CartesianConnectivity",
    "Connectivity",
    "Dimension",
    "DimensionKind",
    "Dims",
    "Domain",
    "DomainLike",
    "DomainUnion",
    "DynamicOffset",
    "Field",
    "FieldAnnotation",
    "FieldOffset",
    "GridType",
    "IndexedFieldOffset",
    "Infinity",
    "NamedIndex",
    "NamedRange",
    "RangeLike",
    "UnitRange",
    "domain",
    "is_field",
    "is_neighbor_table",
    "named_range",
    "promote_dims",
    "scalar_dtype",
    "unit_range",
]
