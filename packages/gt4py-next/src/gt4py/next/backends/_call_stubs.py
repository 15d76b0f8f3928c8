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

import dataclasses
import functools
import hashlib
import importlib.util
import logging
import marshal
import math
import struct
import time
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from gt4py import storage
from gt4py.infra import caching

from .. import ir
from ..embedded.exceptions import DomainError
from ..embedded.nd_array_field import NdArrayField
from ..errors import CallArgumentError
from ..ffront import type_specifications as ts
from . import _aliasing, _arguments as arguments, _extents, _index_checks
from ._variant_keys import static_token


Stub = Callable[[tuple[Any, ...], Any], bool]

#: The persistent cache of compiled stub code (see ``stub_code``).
NAMESPACE = "next/stubs"
_STUB_FILENAME = "<gt4py call stub>"
_logger = logging.getLogger(__name__)


@functools.lru_cache(maxsize=512)
def stub_code(source: str) -> types.CodeType:
    """The code object of a stub's source, from the build cache where it was compiled before.

    A stub is straight-line code, one check per argument, and compiling it costs ~3 ms (the
    icon4py driver makes ~90 before its first step); unmarshalling the stored code object
    ~0.1 ms. The entry is keyed by the source text and the interpreter's bytecode magic
    number (marshal's format follows the Python version) and validated as every cache entry
    is; an entry that does not load as code, or a cache that cannot be used, means compiling
    here. Stubs hold no values: every constant is a name bound when the code is executed.
    """
    key = caching.CacheKey(
        {
            "source": hashlib.sha256(source.encode()).hexdigest(),
            "bytecode": importlib.util.MAGIC_NUMBER.hex(),
        }
    )

    def build() -> bytes:
        return marshal.dumps(compile(source, _STUB_FILENAME, "exec"))

    try:
        code = marshal.loads(caching.FileCache(NAMESPACE).get_or_build(key, build))
    except (
        caching.WouldBuild,
        caching.CacheError,
        OSError,
        ValueError,
        EOFError,
        TypeError,
    ) as error:
        _logger.debug("call stub compiled without the cache: %s", error)
        return compile(source, _STUB_FILENAME, "exec")
    if not isinstance(code, types.CodeType) or code.co_filename != _STUB_FILENAME:
        return compile(source, _STUB_FILENAME, "exec")
    return code


class _Emitter:
    def __init__(self) -> None:
        self.constants: dict[str, Any] = {}
        self.guards: list[str] = []
        self.flat: list[str] = []
        # per IR parameter: how the stub reaches it (fields: the expression and its dims)
        self.fields: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.scalars: dict[str, str] = {}
        # field arrays, loaded into locals once the guards passed: ``d0 = args[0]._data``
        self.loads: list[str] = []
        self.data: dict[str, str] = {}  # field parameter -> its local

    def constant(self, value: Any) -> str:
        name = f"_c{len(self.constants)}"
        self.constants[name] = value
        return name

    def argument(
        self, expr: str, value: Any, type_: Any, name: str, params: Mapping[str, Any]
    ) -> None:
        if isinstance(type_, ts.TupleType):
            self.guards.append(
                f"type({expr}) is {self.constant(type(value))} and len({expr}) == {len(value)}"
            )
            for i, (item, item_type) in enumerate(zip(value, type_.types, strict=True)):
                self.argument(f"{expr}[{i}]", item, item_type, f"{name}__{i}", params)
            return
        if isinstance(type_, ts.NamedCollectionType):
            self.guards.append(f"type({expr}) is {self.constant(type(value))}")
            for i, (member, member_type) in enumerate(zip(type_.names, type_.types, strict=True)):
                access = (
                    f"{expr}.{member}"
                    if member.isidentifier()
                    else f"getattr({expr}, {self.constant(member)})"
                )
                self.argument(access, getattr(value, member), member_type, f"{name}__{i}", params)
            return
        param = params[name]
        if isinstance(param, ir.FieldParam):
            if not isinstance(value, NdArrayField):  # the call's type check comes first
                raise CallArgumentError(f"argument {name!r} must be a field, got {value!r}")
            actual = tuple(d.value for d in value._domain.dims)
            if sorted(actual) != sorted(param.dims):
                raise CallArgumentError(
                    f"argument {name!r} has dims {actual}, expected {param.dims}"
                )
            dims = self.constant(value._domain.dims)
            dtype = self.constant(value._data.dtype)
            self.guards.append(
                f"type({expr}) is {self.constant(type(value))} and {expr}._domain.dims == {dims} "
                f"and {expr}._data.dtype == {dtype}"
            )
            # fields align by dimension name: another order is passed as a transposed view
            order = [actual.index(d) for d in param.dims]
            data = self.data[name] = f"d{len(self.data)}"
            self.loads.append(f"{data} = {expr}._data")
            if order != sorted(order):
                data = f"{data}.transpose({tuple(order)})"
            self.flat.append(data)
            self.flat.extend(f"{expr}._domain.ranges[{i}].start" for i in order)
            self.fields[name] = (expr, actual)
            return
        # A scalar: keyed by its Python type, passed as the Python number of its declared kind.
        self.guards.append(f"type({expr}) is {self.constant(type(value))}")
        scalar_dtype = np.dtype(param.dtype)
        if type(value) is int and scalar_dtype.kind in "iu":  # must fit (else: TypeError)
            info = np.iinfo(scalar_dtype)
            self.guards.append(f"{info.min} <= {expr} <= {info.max}")
        to_python = arguments.python_scalar_type(param)
        self.flat.append(f"{self.constant(to_python)}({expr})")
        self.scalars[name] = expr


def _same_static(emitter: _Emitter, expr: str, value: Any) -> str:
    """A guard that ``expr`` (of ``value``'s type) is ``value`` bit for bit: ``==`` is that
    for everything but floats' zeros (``-0.0 == 0.0``) and NaNs (never equal)."""
    if not isinstance(value, float | np.floating):
        return f"{expr} == {emitter.constant(value)}"
    if math.isnan(value):
        bits = emitter.constant(static_token(value)[1])
        packed = (
            f"{expr}.tobytes()"
            if isinstance(value, np.floating) and not isinstance(value, float)
            else f"{emitter.constant(_DOUBLE.pack)}({expr})"
        )
        return f"{expr} != {expr} and {packed} == {bits}"
    if value == 0:
        sign = math.copysign(1.0, value)
        return f"{expr} == 0 and {emitter.constant(math.copysign)}(1.0, {expr}) == {sign}"
    return f"{expr} == {emitter.constant(value)}"


_DOUBLE = struct.Struct("<d")


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
    extents: ExtentContract | None = None,
) -> Stub:
    """The stub of one variant for arguments of the kinds of ``args`` (type-checked first).

    With ``extents``, the stub checks the arguments' extents before calling the entry point
    and raises ``DomainError`` naming the argument (nothing has run then)."""
    emitter = _Emitter()
    for i, (name, type_, value) in enumerate(zip(names, types_, args, strict=True)):
        expr = f"args[{i}]"
        if name in static:
            # Static: a constant of the code; the key holds its type and value, bit for bit.
            emitter.guards.append(
                f"type({expr}) is {emitter.constant(type(value))} and "
                f"{_same_static(emitter, expr, value)}"
            )
        else:
            emitter.argument(expr, value, type_, name, params)
    if offset_provider:
        emitter.guards.append(f"provider is not None and len(provider) == {len(offset_provider)}")
        for key, table in offset_provider.items():
            emitter.guards.append(
                f"provider.get({emitter.constant(key)}) is {emitter.constant(table)}"
            )
    else:
        emitter.guards.append("not provider")
    call = f"{emitter.constant(entry)}({', '.join([*emitter.flat, *(emitter.constant(t) for t in tables)])})"
    lines = [
        "def stub(args, provider):",
        f"    if len(args) != {len(args)}:",
        "        return False",
        *(f"    if not ({guard}):\n        return False" for guard in emitter.guards),
    ]
    lines.extend(f"    {line}" for line in emitter.loads)
    if extents is not None:
        check = _extents.CheckCode(
            extents.needs,
            extents.domains,
            emitter.fields,
            emitter.scalars,
            extents.tables,
            extents.index,
        )
        emitter.constants.update(check.constants)
        emitter.constants["fail"] = _failure(check, extents.callee)
        emitter.constants["outside"] = _outside(extents, emitter.fields)
        lines.extend(f"    {line}" for line in check.lines())
        if extents.alias is not None:
            lines.extend(f"    {line}" for line in _alias_lines(emitter, extents))
    # nanobind rejects a read-only array for a written field before running anything, and
    # itir_python's `run` checks first: then the stub says which argument it was
    readonly = emitter.constant(_readonly(extents, emitter.fields))
    if metrics is None:
        lines += [
            "    try:",
            f"        status = {call}",
            "    except TypeError:",
            f"        {readonly}(args)",
            "        raise",
        ]
    else:
        clock, record = emitter.constant(time.perf_counter), emitter.constant(metrics.record_call)
        lines += [
            f"    started = {clock}()",
            "    try:",
            f"        status = {call}",
            "    except TypeError:",
            f"        {readonly}(args)",
            "        raise",
            f"    {record}({clock}() - started)",
        ]
    if extents is not None:
        lines.append("    if status:\n        outside(status, args)")
    lines.append("    return True")
    namespace: dict[str, Any] = dict(emitter.constants)
    exec(stub_code("\n".join(lines)), namespace)
    stub: Stub = namespace["stub"]
    stub.source = "\n".join(lines)  # type: ignore[attr-defined]  # for debugging
    return stub


# More (written, read) pairs than this: one set of the owners' ids instead of pairwise `is`.
_PAIRWISE_LIMIT = 12


def _alias_lines(emitter: _Emitter, extents: ExtentContract) -> list[str]:
    """Stub lines that find fields sharing memory: the objects owning the memory of every
    written field and every other field it could alias are compared (a numpy array owning
    its memory, or the one a view's ``base`` is, inline; else ``storage.memory_owner``);
    only on a match, or for memory of a foreign owner, are address ranges compared
    (``AliasPlan.resolve``)."""
    plan = extents.alias
    assert plan is not None
    seen = [f for f in plan.fields if f in emitter.data]
    if len(seen) != len(plan.fields) or not plan.pairs:
        return []  # (every field parameter is an argument the stub sees)
    roots = {f: f"r{i}" for i, f in enumerate(seen)}
    nd, owner = emitter.constant(np.ndarray), emitter.constant(storage.memory_owner)
    foreign = emitter.constant(storage.FOREIGN_MEMORY)
    lines = []
    for n, field in enumerate(seen):
        d, b = emitter.data[field], f"b{n}"
        lines += [
            f"{b} = {d}.base if {d}.__class__ is {nd} else {foreign}",
            f"{roots[field]} = {d} if {b} is None else {b} if {b}.__class__ is {nd} "
            f"and {b}.base is None else {owner}({d})",
        ]
    if len(plan.pairs) <= _PAIRWISE_LIMIT:
        test = " or ".join(
            [
                *(
                    f"{roots[plan.fields[i]]} is {roots[plan.fields[j]]}"
                    for i, j in plan.pairs
                    if i < j or (j, i) not in plan.pairs
                ),
                *(f"{roots[f]} is {foreign}" for f in seen),
            ]
        )
    else:
        ids = ", ".join(f"id({roots[f]})" for f in seen)
        lines.append(f"owners = {{{ids}}}")
        test = f"len(owners) < {len(seen)} or id({foreign}) in owners"
    datas = ", ".join(emitter.data[f] for f in seen)
    fields = ", ".join(emitter.fields[f][0] for f in seen)
    alias = emitter.constant(extents.resolve_alias)
    lines += [
        f"if {test}:",
        f"    ds = {alias}(args, provider, ({fields},), [{datas}])",
        "    if ds is None:",
        "        return True",
        f"    {datas}{',' if len(seen) == 1 else ''} = ds",
    ]
    return lines


def _readonly(
    extents: ExtentContract | None, fields: Mapping[str, tuple[str, tuple[str, ...]]]
) -> Callable[[Any], None]:
    """What a stub calls when the entry point rejects its arguments (``TypeError``): raise a
    clear error if a field the program writes is read-only, else return (the stub re-raises)."""
    callee = "program" if extents is None else extents.callee
    written = sorted(extents.alias.written) if extents is not None and extents.alias else []

    def readonly(args: Any) -> None:
        for name in written:
            if name not in fields:
                continue
            data = eval(f"{fields[name][0]}._data", {"args": args})
            flags = getattr(data, "flags", None)
            if flags is not None and not getattr(flags, "writeable", True):
                raise CallArgumentError(
                    f"{callee}: argument '{_aliasing.shown_name(name)}' must be writable (the program writes it), "
                    "got a read-only array (flags.writeable is False)"
                ) from None

    return readonly


@dataclasses.dataclass(frozen=True)
class ExtentContract:
    """What a variant needs of its arguments' extents (``_extents``), for its stubs."""

    callee: str
    needs: list[_extents.Need]
    domains: list[tuple[int, list[tuple[str, str]]]]
    tables: dict[str, _extents.TableFacts]
    codes: dict[int, str]  # status code of a per-point read outside a field -> the field
    index: list[_index_checks.IndexCheck] = dataclasses.field(default_factory=list)
    # fields sharing memory (``_aliasing``): the plan, and what a stub calls on a match
    alias: _aliasing.AliasPlan | None = None
    resolve_alias: Callable[..., Any] | None = None


def _failure(check: _extents.CheckCode, callee: str) -> Callable[[Any, Any], None]:
    """What a stub calls when its extent check fails: the code that finds which argument
    falls short is compiled then, not with the stub (most stubs never fail)."""

    def fail(args: Any, provider: Any) -> None:
        namespace = dict(check.constants)
        exec(compile(check.explain_source(), "<gt4py extent check>", "exec"), namespace)
        found = namespace["explain"](args, provider)
        if found is None:  # pragma: no cover  (the stub's check and explain agree)
            raise DomainError(f"{callee}: an argument does not cover what the program needs")
        kind, index, needed = found
        raise DomainError(check.failure(callee, kind, index, needed, args))

    return fail


def _outside(
    extents: ExtentContract, fields: Mapping[str, tuple[str, tuple[str, ...]]]
) -> Callable[[int, Any], None]:
    """What a stub calls when the entry point reports a per-point read outside a field."""

    def outside(status: int, args: Any) -> None:
        name = extents.codes.get(status, "?")
        have = ""
        if name in fields:
            expr, _ = fields[name]
            domain = eval(f"{expr}._domain", {"args": args})
            have = " " + ", ".join(
                f"{d.value}=[{r.start}, {r.stop})"
                for d, r in zip(domain.dims, domain.ranges, strict=True)
            )
        raise DomainError(
            f"{extents.callee}: argument '{_extents.argument_name(name)}' is read outside its "
            f"domain{have} at a point where the value is used (a read under a condition, "
            "through a neighbour table or shifted by as_offset); fields written before the "
            "read may have been changed"
        )

    return outside


def never(args: tuple[Any, ...], provider: Any) -> bool:
    """The stub that matches nothing (before the first call)."""
    return False
