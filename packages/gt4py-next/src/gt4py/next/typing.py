"""Types for annotating code that uses gt4py.next (``import gt4py.next.typing as gtx_typing``)."""

from collections.abc import Callable
from typing import Any, TypeAlias

from gt4py.infra import definitions as _definitions

from ._backend import (
    Backend as Backend,
    CompiledBackend as CompiledBackend,
    EmbeddedBackend as EmbeddedBackend,
)
from ._field import Field as Field, FieldAnnotation as FieldAnnotation
from ._relocated import Gone, module_getattr
from .common import OffsetProvider as OffsetProvider
from .ffront.decorator import (
    FieldOperator as FieldOperator,
    Program as Program,
    ScanOperator as ScanOperator,
)


Scalar: TypeAlias = _definitions.Scalar
"""A scalar argument: a Python or numpy number or bool."""

Allocator: TypeAlias = Any
"""An ``allocator=``: an array namespace, a ``__gt_allocate__`` object, a backend or program."""

DSLDefinition: TypeAlias = Callable[..., Any]
"""The Python function a decorator (``field_operator``, ``program``, ...) is given."""

GTEntryPoint: TypeAlias = Program | FieldOperator
"""A decorated program, field operator or scan operator (what can be called or compiled)."""

__getattr__ = module_getattr(
    __name__,
    {
        "CompiledProgramsKey": Gone(
            "Program.compile(...) to build variants, and gt4py.next.metrics to inspect them",
            "released gt4py's key of its compiled-program pool is internal here",
        ),
    },
)

__all__ = [
    "Allocator",
    "Backend",
    "CompiledBackend",
    "DSLDefinition",
    "GTEntryPoint",
    "EmbeddedBackend",
    "Field",
    "FieldAnnotation",
    "FieldOperator",
    "OffsetProvider",
    "Program",
    "Scalar",
    "ScanOperator",
]
