"""Types for annotating code that uses gt4py.next (``import gt4py.next.typing as gtx_typing``)."""

from collections.abc import Mapping
from typing import Any, TypeAlias

from ._backend import (
    Backend as Backend,
    CompiledBackend as CompiledBackend,
    EmbeddedBackend as EmbeddedBackend,
)
from ._dimensions import Dimension
from ._field import Connectivity, Field as Field, FieldAnnotation as FieldAnnotation
from .ffront.decorator import (
    FieldOperator as FieldOperator,
    Program as Program,
    ScanOperator as ScanOperator,
)


OffsetProvider: TypeAlias = Mapping[str, Connectivity | Dimension]
"""What ``offset_provider=`` takes: offset names to neighbour tables or dimensions."""

Allocator: TypeAlias = Any
"""An ``allocator=``: an array namespace, a ``__gt_allocate__`` object, a backend or program."""

__all__ = [
    "Allocator",
    "Backend",
    "CompiledBackend",
    "EmbeddedBackend",
    "Field",
    "FieldAnnotation",
    "FieldOperator",
    "OffsetProvider",
    "Program",
    "ScanOperator",
]
