"""The field model of gt4py.next: dimensions, ranges, domains, fields, connectivities, offsets."""

import functools
from collections.abc import Mapping
from typing import Any, TypeAlias, TypeGuard, TypeVar

from ._dimensions import (
    CartesianConnectivity,
    Dimension,
    DimensionKind,
    DimsAnnotation as Dims,
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
from ._relocated import Gone, Relocation, module_getattr


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


# Released gt4py.next.common's own public names that have no counterpart here (the typing and
# stdlib names it imported are not listed): each fails naming what to use instead.
_INDEX_SPEC = Gone(
    "a Domain, NamedRange or NamedIndex of gt4py.next.common, or ints and slices",
    "released gt4py's index-specification types are not part of this implementation",
)
_FINITE = Gone(
    "Domain / UnitRange and their is_finite()",
    "finite domains and ranges have no type of their own here",
)
_OFFSET_PROVIDER_TYPE = Gone(
    "gt4py.next.common.OffsetProvider (offset names to connectivities or dimensions)",
    "programs are compiled against the offset provider itself; there are no offset-provider types",
)
_OFFSET_PROVIDER_HELPER = Gone(
    "the offset_provider mapping itself (offset_provider[name], name in offset_provider)",
    "released gt4py's offset-provider helper is not part of this implementation",
)
_FIELD_PROTOCOL = Gone(
    "gt4py.next.common.Field / Connectivity",
    "released gt4py's field protocols are one abstract class here",
)
_VALUE_TYPES = Gone(
    "gt4py.next.typing.Scalar or gt4py.next.common.Field",
    "released gt4py's value-type aliases are not part of this implementation",
)
_TYPE_VARIABLE = Gone(
    "a typing.TypeVar of your own (bound=gtx.Dimension); DimsT is here",
    "released gt4py's internal type variable is not part of this implementation",
)
_STAGGERED = Gone(
    "separate Dimensions joined by an explicit FieldOffset or connectivity",
    "staggered dimensions (half-integer Cartesian shifts such as I + 0.5) are not supported",
)

_RELEASED: dict[str, Relocation] = {
    **dict.fromkeys(
        (
            "AbsoluteIndexElement",
            "AbsoluteIndexSequence",
            "AnyIndexElement",
            "AnyIndexSequence",
            "AnyIndexSpec",
            "IntIndex",
            "NamedSlice",
            "RelativeIndexElement",
            "RelativeIndexSequence",
            "as_any_index_sequence",
            "is_absolute_index_sequence",
            "is_any_index_element",
            "is_int_index",
            "is_named_slice",
            "is_relative_index_sequence",
        ),
        _INDEX_SPEC,
    ),
    **dict.fromkeys(
        ("FiniteDomain", "FiniteNamedRange", "FiniteUnitRange", "is_finite_named_range"), _FINITE
    ),
    **dict.fromkeys(
        (
            "ConnectivityType",
            "NeighborConnectivityType",
            "OffsetProviderType",
            "OffsetProviderTypeElem",
            "get_offset_type",
            "is_offset_provider_type",
            "offset_provider_to_type",
        ),
        _OFFSET_PROVIDER_TYPE,
    ),
    **dict.fromkeys(
        (
            "OffsetProviderElem",
            "get_offset",
            "has_offset",
            "hash_offset_provider_items_by_id",
            "is_offset_provider",
        ),
        _OFFSET_PROVIDER_HELPER,
    ),
    **dict.fromkeys(
        (
            "BufferInfo",
            "FieldBuiltinFuncRegistry",
            "GTFieldInterface",
            "GatherConnectivity",
            "MutableField",
        ),
        _FIELD_PROTOCOL,
    ),
    **dict.fromkeys(
        ("NUMERIC_VALUE_TYPES", "NumericValue", "PRIMITIVE_VALUE_TYPES", "PrimitiveValue"),
        _VALUE_TYPES,
    ),
    **dict.fromkeys(("DimT", "DimT_co", "DomainDimT", "NumericValueT", "ShapeTs"), _TYPE_VARIABLE),
    **dict.fromkeys(("as_non_staggered", "flip_staggered", "is_staggered"), _STAGGERED),
    "Tag": Gone("str", "offset names are plain strings here"),
    "check_dims": Gone(
        "gt4py.next.common.promote_dims, or Domain(...), which checks its dimensions",
        "released gt4py's dimension check is not part of this implementation",
    ),
    "order_dimensions": Gone(
        "gt4py.next.common.promote_dims",
        "released gt4py's dimension order helper is not part of this implementation",
    ),
    "connectivity_for_cartesian_shift": Gone(
        "gt4py.next.common.CartesianConnectivity(dim, offset), or dim + offset",
        "there are no half-integer (staggered) shifts here",
    ),
}

__getattr__ = module_getattr(__name__, _RELEASED)


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
