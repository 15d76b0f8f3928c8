"""The types the frontend deduces: scalars, fields, tuples, dimensions, offsets, callables.

Types are small immutable values compared structurally. Field dimensions are kept in the
order the frontend computes them; :func:`same_field_dims` compares them as sets, because
embedded fields align by dimension name, not position.

This module is the public face: the classes live in ``_type_specs``, the assignability
rules in ``_assignability``.
"""

from __future__ import annotations

from ._assignability import is_assignable as is_assignable, same_field_dims as same_field_dims
from ._type_specs import (
    CallableType as CallableType,
    CartesianShiftType as CartesianShiftType,
    DimensionType as DimensionType,
    DimsTupleType as DimsTupleType,
    DomainType as DomainType,
    DTypeType as DTypeType,
    DynamicShiftType as DynamicShiftType,
    FieldType as FieldType,
    IntConstantType as IntConstantType,
    LocalIndexType as LocalIndexType,
    ModuleType as ModuleType,
    NamedCollectionType as NamedCollectionType,
    OffsetType as OffsetType,
    ScalarType as ScalarType,
    TupleType as TupleType,
    TypeSpec as TypeSpec,
    element_dtype as element_dtype,
)
