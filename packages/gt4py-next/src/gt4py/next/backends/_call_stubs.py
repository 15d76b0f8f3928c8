"""Call stubs: one generated Python function per variant and argument kinds, the hot call path.

A stub checks that a call's arguments are of the kinds the variant was looked up with (the
same classes, field dims and dtypes, static values and offset-provider tables) and, if so,
flattens them and calls the compiled entry point, all in one straight-line function: no
per-argument closures, no key tuples to build and hash. A call it does not match returns
``False`` and takes the pool's general path, which finds (or builds) the right variant and its
stub. Stubs are generated from the same frontend types and IR parameters as the converters in
``_arguments``, so both paths pass the same values.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import ir
from ..embedded.nd_array_field import NdArrayField
from ..ffront import type_specifications as ts
from . import _arguments as arguments


Stub = Callable[[tuple[Any, ...], Any], bool]


class _Unsupported(Exception):
    """An argument kind the generator does not handle: the general path serves that call."""


class _Emitter:
    def __init__(self) -> None:
        self.constants: dict[str, Any] = {}
        self.guards: list[str] = []
        self.flat: list[str] = []

    def constant(self, value: Any) -> str:
        name = f"_c{len(self.constants)}"
        self.constants[name] = value
        return name

    def argument(
        self, expr: str, value: Any, type_: Any, name: str, params: Mapping[str, Any]
    ) -> None:
        if isinstance(type_, ts.TupleType):
            if type(value) is not tuple:
                raise _Unsupported
            self.guards.append(f"type({expr}) is tuple and len({expr}) == {len(type_.types)}")
            for i, (item, item_type) in enumerate(zip(value, type_.types, strict=True)):
                self.argument(f"{expr}[{i}]", item, item_type, f"{name}__{i}", params)
            return
        if isinstance(type_, ts.NamedCollectionType):
            self.guards.append(f"type({expr}) is {self.constant(type(value))}")
            for i, (member, member_type) in enumerate(zip(type_.names, type_.types, strict=True)):
                if not member.isidentifier():
                    raise _Unsupported
                self.argument(
                    f"{expr}.{member}", getattr(value, member), member_type, f"{name}__{i}", params
                )
            return
        param = params[name]
        if isinstance(param, ir.FieldParam):
            if not isinstance(value, NdArrayField):
                raise _Unsupported
            dims = self.constant(value._domain.dims)
            dtype = self.constant(value._data.dtype)
            self.guards.append(
                f"type({expr}) is {self.constant(type(value))} and {expr}._domain.dims == {dims} "
                f"and {expr}._data.dtype == {dtype}"
            )
            self.flat.append(f"{expr}._data")
            self.flat.extend(f"{expr}._domain.ranges[{i}].start" for i in range(len(param.dims)))
            return
        # A scalar: keyed by its Python type, passed as the Python number of its declared kind.
        self.guards.append(f"type({expr}) is {self.constant(type(value))}")
        to_python = arguments.python_scalar_type(param)
        self.flat.append(f"{self.constant(to_python)}({expr})")


def make_stub(
    *,
    entry: Callable[..., Any],
    tables: Sequence[Any],
    names: Sequence[str],
    types_: Sequence[Any],
    params: Mapping[str, Any],
    static: Mapping[str, Any],
    args: tuple[Any, ...],
    offset_provider: Any,
    metrics: Any = None,
) -> Stub | None:
    """The stub of one variant for arguments of the kinds of ``args``; None if unsupported."""
    emitter = _Emitter()
    try:
        for i, (name, type_, value) in enumerate(zip(names, types_, args, strict=True)):
            expr = f"args[{i}]"
            if name in static:
                # Static: a constant of the code; the key holds its type and value.
                emitter.guards.append(
                    f"type({expr}) is {emitter.constant(type(value))} and "
                    f"{expr} == {emitter.constant(value)}"
                )
            else:
                emitter.argument(expr, value, type_, name, params)
    except _Unsupported:
        return None
    if offset_provider:
        emitter.guards.append(f"provider is not None and len(provider) == {len(offset_provider)}")
        for key, table in offset_provider.items():
            if not isinstance(key, str):
                return None
            emitter.guards.append(f"provider.get({key!r}) is {emitter.constant(table)}")
    else:
        emitter.guards.append("not provider")
    call = f"{emitter.constant(entry)}({', '.join([*emitter.flat, *(emitter.constant(t) for t in tables)])})"
    lines = [
        "def stub(args, provider):",
        f"    if len(args) != {len(args)}:",
        "        return False",
        *(f"    if not ({guard}):\n        return False" for guard in emitter.guards),
    ]
    if metrics is None:
        lines.append(f"    {call}")
    else:
        clock, record = emitter.constant(time.perf_counter), emitter.constant(metrics.record_call)
        lines += [f"    started = {clock}()", f"    {call}", f"    {record}({clock}() - started)"]
    lines.append("    return True")
    namespace: dict[str, Any] = dict(emitter.constants)
    exec(compile("\n".join(lines), "<gt4py call stub>", "exec"), namespace)
    stub: Stub = namespace["stub"]
    stub.source = "\n".join(lines)  # type: ignore[attr-defined]  # for debugging
    return stub


def never(args: tuple[Any, ...], provider: Any) -> bool:
    """The stub that matches nothing (before the first call)."""
    return False
