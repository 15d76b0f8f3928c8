"""``@field_operator``, ``@scan_operator`` and ``@program``: checked definitions bound to a backend.

Decorating parses and type-checks the definition (errors are :class:`gt4py.next.errors.DSLError`
with the user's file:line:col); the frontend modules are imported on the first decoration, so
``import gt4py.next`` stays cheap. Calls dispatch on the backend: embedded backends run the
Python definition on fields, compiled backends build (or reuse) a compiled variant.

This module is the public face: the classes live in ``_field_operator`` and ``_program``, the
decorators in ``_decorators``, what they share in ``_entries``.
"""

from __future__ import annotations

from .._backend import (
    DEFAULT_BACKEND as DEFAULT_BACKEND,
    Backend as Backend,
    ExecutionMode as ExecutionMode,
    execution_mode as execution_mode,
    resolve_backend as resolve_backend,
)
from .._dimensions import Dimension as Dimension, GridType as GridType
from ._compilation_options import (
    DEFAULT_OPTIONS as DEFAULT_OPTIONS,
    CompilationOptions as CompilationOptions,
    CompilationOptionsArgs as CompilationOptionsArgs,
)
from ._decorators import field_operator, program, scan_operator
from ._entries import (
    COMPILED_POOLS_ATTRIBUTE as COMPILED_POOLS_ATTRIBUTE,
    enable_jit_override as enable_jit_override,
)
from ._field_operator import FieldOperator, ScanOperator
from ._program import Program


__all__ = ["FieldOperator", "Program", "ScanOperator", "field_operator", "program", "scan_operator"]
