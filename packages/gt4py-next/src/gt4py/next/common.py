"""The field model of gt4py.next: dimensions, ranges, domains, fields, connectivities, offsets."""

from collections.abc import Mapping
from typing import TypeAlias

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


__all__ = [
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
    "named_range",
    "promote_dims",
    "scalar_dtype",
    "unit_range",
]
