"""From call arguments to a variant key, and from arguments to the flat argument list of a
compiled program (arrays, first indices, scalars, tables), precomputed per variant.

The key of a call is cheap to compute: per field its dims and dtype, per scalar its Python
type. Conversion is a list of small closures decided when the variant is built.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ir
from .._dimensions import Dimension
from .._offsets import FieldOffset
from .._scalar_types import SCALAR_TYPES  # noqa: F401  (keeps scalar dtype registry loaded)
from ..embedded._shifts import check_provider_entry
from ..embedded.exceptions import OffsetProviderError
from ..embedded.nd_array_field import NdArrayField
from ..errors import CallArgumentError
from ..ffront import type_specifications as ts
from ._table_layout import TableLayout


def argument_key(value: Any) -> Any:
    """What about an argument decides the compiled variant (not its values)."""
    if isinstance(value, NdArrayField):
        # the class too: a call stub is made per argument kind and checks the exact class
        return (type(value), value._domain.dims, value._data.dtype)
    if isinstance(value, tuple):
        return tuple(argument_key(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        members = tuple(argument_key(getattr(value, f.name)) for f in dataclasses.fields(value))
        return (type(value), members)
    return type(value)


def type_of_argument(value: Any, declared: Any) -> Any:
    """The frontend type of an actual argument (fields by their dims, literals as declared)."""
    if isinstance(value, NdArrayField):
        return ts.FieldType(tuple(value._domain.dims), np.dtype(value._data.dtype))
    if isinstance(declared, ts.NamedCollectionType):  # dataclass / NamedTuple: by member name
        return ts.NamedCollectionType(
            declared.python_type,
            declared.names,
            tuple(
                type_of_argument(getattr(value, n), t)
                for n, t in zip(declared.names, declared.types, strict=True)
            ),
        )
    if isinstance(value, tuple):
        parts = declared.types if isinstance(declared, ts.TupleType) else [None] * len(value)
        return ts.TupleType(
            tuple(type_of_argument(v, d) for v, d in zip(value, parts, strict=True))
        )
    if isinstance(value, np.generic):
        return ts.ScalarType(np.dtype(value.dtype))
    if declared is not None and ts.element_dtype(declared) is not None:
        return ts.ScalarType(ts.element_dtype(declared))  # type: ignore[arg-type]
    if isinstance(value, bool):
        return ts.ScalarType(np.dtype(np.bool_))
    if isinstance(value, int):
        return ts.ScalarType(np.dtype(np.int64))
    if isinstance(value, float):
        return ts.ScalarType(np.dtype(np.float64))
    raise CallArgumentError(f"cannot pass {value!r} to a compiled program")


Converter = Callable[[Any, list[Any]], None]


def field_converter(param: ir.FieldParam, name: str) -> Converter:
    dims = tuple(param.dims)

    def convert(value: Any, out: list[Any]) -> None:
        if not isinstance(value, NdArrayField):
            raise CallArgumentError(
                f"argument '{name}' must be a field over ({', '.join(dims)}), got {value!r}"
            )
        domain = value._domain
        actual = tuple(d.value for d in domain.dims)
        if sorted(actual) != sorted(dims):
            raise CallArgumentError(
                f"argument '{name}' has dimensions ({', '.join(actual)}), "
                f"the compiled program expects ({', '.join(dims)})"
            )
        # fields align by dimension name: another order is passed as a transposed view
        order = [actual.index(d) for d in dims]
        out.append(value._data if actual == dims else value._data.transpose(order))
        ranges = domain.ranges
        for i in order:
            out.append(ranges[i].start)

    return convert


_PY_SCALARS: dict[str, Callable[[Any], Any]] = {"b": bool, "i": int, "u": int, "f": float}


def python_scalar_type(param: ir.ScalarParam) -> Callable[[Any], Any]:
    """The Python type a scalar of ``param``'s dtype is passed to the entry point as."""
    return _PY_SCALARS[np.dtype(param.dtype).kind]


def scalar_converter(param: ir.ScalarParam) -> Converter:
    to_python = python_scalar_type(param)

    def convert(value: Any, out: list[Any]) -> None:
        out.append(to_python(value))

    return convert


def tuple_converter(parts: list[Converter]) -> Converter:
    def convert(value: Any, out: list[Any]) -> None:
        for part, item in zip(parts, value, strict=True):
            part(item, out)

    return convert


def converter_for(name: str, type_: Any, params: dict[str, Any]) -> Converter:
    """The converter of the argument ``name`` of frontend type ``type_``."""
    if isinstance(type_, ts.TupleType):
        return tuple_converter(
            [converter_for(f"{name}__{i}", t, params) for i, t in enumerate(type_.types)]
        )
    if isinstance(type_, ts.NamedCollectionType):
        parts = [converter_for(f"{name}__{i}", t, params) for i, t in enumerate(type_.types)]
        members = type_.names

        def convert_members(value: Any, out: list[Any]) -> None:
            for part, member in zip(parts, members, strict=True):
                part(getattr(value, member), out)

        return convert_members
    param = params[name]
    if isinstance(param, ir.FieldParam):
        return field_converter(param, name)
    return scalar_converter(param)


def offsets_used(definition: Any) -> dict[str, FieldOffset]:
    """The FieldOffsets a program or operator refers to, through the globals and closures of
    its function and of the operators it calls (as names or module attributes)."""
    found: dict[str, FieldOffset] = {}
    seen: set[int] = set()

    def visit_function(function: Any) -> None:
        code = getattr(function, "__code__", None)
        if code is None or id(function) in seen:
            return
        seen.add(id(function))
        scope: dict[str, Any] = dict(getattr(function, "__globals__", {}))
        for name, cell in zip(code.co_freevars, function.__closure__ or (), strict=False):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # an empty cell
                continue
        names = _code_names(code)
        for name in names:
            if name in scope:
                visit_value(scope[name], names)

    def visit_value(value: Any, names: set[str]) -> None:
        if isinstance(value, FieldOffset):
            found.setdefault(value.value, value)
        elif isinstance(value, types.ModuleType):
            for name in names:  # `module.Koff`: attribute names are among the code's names
                member = getattr(value, name, None)
                if isinstance(member, FieldOffset):
                    found.setdefault(member.value, member)
                elif member is not None and _is_dsl_callable(member):
                    visit_function(member.definition)
        elif _is_dsl_callable(value):
            visit_function(value.definition)

    visit_function(getattr(definition, "definition", None))
    return found


def _is_dsl_callable(value: Any) -> bool:
    return callable(getattr(value, "definition", None)) and (
        hasattr(value, "__gt_signature__") or hasattr(value, "definition_stage")
    )


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names) | set(code.co_freevars)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _code_names(constant)
    return names


def check_offset_provider(callee: str, definition: Any, offset_provider: Any) -> None:
    """Every entry for an offset the program uses must serve it (the embedded rules): a
    Cartesian offset along its dimension, a connectivity over its target into its source."""
    used = offsets_used(definition)
    for name, offset in used.items():
        entry = None if not offset_provider else offset_provider.get(name)
        try:
            check_provider_entry(offset, entry)
        except OffsetProviderError as error:
            raise OffsetProviderError(f"{callee}: {error}") from None


def table_arguments(
    program: ir.Program, offset_provider: Any
) -> tuple[list[Any], dict[str, TableLayout]]:
    """The flat table arguments (array, skip value) and the tables' layouts (dtype, column
    count and whether there are skip values, all part of the variant)."""
    values: list[Any] = []
    layouts: dict[str, TableLayout] = {}
    for decl in program.offsets:
        if offset_provider is None or decl.name not in offset_provider:
            raise ValueError(
                f"the offset provider has no entry '{decl.name}' (a neighbour table from "
                f"{decl.domain_dim} to {decl.codomain}); pass offset_provider={{'{decl.name}': "
                "gtx.as_connectivity(...)}"
            )
        table = offset_provider[decl.name]
        if isinstance(table, Dimension):
            raise ValueError(
                f"offset '{decl.name}' needs a neighbour table, got the dimension {table}"
            )
        data = getattr(table, "_data", None)
        if data is None:
            data = np.asarray(table)
        skip = getattr(table, "skip_value", None)
        values.append(data)
        values.append(np.iinfo(np.int64).min if skip is None else int(skip))
        dtype = np.dtype(data.dtype).name
        if decl.local is not None and np.ndim(data) == 2:
            layouts[decl.name] = TableLayout(dtype, int(data.shape[1]), skip is not None)
        else:
            layouts[decl.name] = TableLayout(dtype)
    return values, layouts
