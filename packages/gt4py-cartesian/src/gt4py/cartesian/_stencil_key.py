"""A stencil's cache key: everything that decides the code it compiles to, as named parts.

Parts: ``source`` (the dedented definition), ``signature`` (resolved parameter types),
``name``, ``dtypes``, ``backend``, ``options``, ``gt4py_version``, ``generator`` (the
digest of gt4py.cartesian's own sources: any change to the code generators is a new key),
``native_target`` (for the C++/CUDA backends: portable, or host-tuned for this CPU),
one ``external.NAME`` per external, and one ``global.PATH`` per compile-time value the
definition reads from outside: ``ALPHA``, ``consts.ALPHA``, ``consts.Physics.ALPHA``,
``helpers.f``. A GTScript function counts by its source and, recursively, by the values it
reads the same way, so editing a helper module (or a module one of its helpers reads) is a
miss in a new process, and the cache diagnostics name the part that changed.

Values are found as the frontend finds them (``_frontend_constants``): a name or a chain of
attributes, resolved in the defining scope through modules, classes or any other object; the
value counts when the frontend could use it (numbers, numpy scalars, booleans, None, axis
indices, GTScript functions). Over-inclusion is harmless (a spurious miss at worst), missing
one is a stale stencil. Computing a key needs no frontend, IR or eve: on a cache hit nothing
else does.
"""

from __future__ import annotations

import ast
import dataclasses
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from gt4py.infra import config, fingerprinting
from gt4py.infra.caching import CacheKey, source_digest

from . import _backends, _cpp_backend, _dsl_names as dsl
from ._literal_precision import literal_precision
from ._pipeline import SO
from ._source import SourceInfo, closure_namespace, source_info
from ._version import __version__


_MISSING = object()


def generator_identity() -> str:
    """The digest of every source file of gt4py.cartesian (computed once per process)."""
    return source_digest("gt4py.cartesian")


@dataclasses.dataclass(frozen=True)
class StencilIdentity:
    """A stencil's cache key, and its call as the compile log names it:
    ``lap(a: Field[IJK, float64], alpha: float64)``."""

    key: CacheKey
    call: str


def stencil_identity(
    func: Callable[..., Any],
    *,
    backend: str,
    externals: Mapping[str, Any],
    dtypes: Mapping[str, Any],
    name: str,
    options: Mapping[str, Any],
    annotation_locals: Mapping[str, Any] | None = None,
) -> StencilIdentity:
    info, chains = _keyed_source(func)
    namespace = closure_namespace(func)
    # The resolved parameter types: the source names them, but an alias such as
    # ``F = Field[np.float64]`` can change without the source changing.
    signature = _signature_identity(func, info.tree, namespace, dtypes, annotation_locals)
    parts = {
        "source": fingerprinting.strict(info.source),
        "signature": fingerprinting.strict(signature),
        "name": fingerprinting.strict(name),
        "dtypes": fingerprinting.strict({k: str(v) for k, v in dtypes.items()}),
        "backend": fingerprinting.strict(backend),
        "options": fingerprinting.strict(dict(options)),
        "gt4py_version": fingerprinting.strict(__version__),
        "generator": generator_identity(),
        # the C++ headers compiled stencils include (<gt4py/python_semantics.hpp>) ship with
        # gt4py.infra.native: a new version of them is a new key, too
        "native_headers": source_digest("gt4py.infra.native"),
        "native_target": _native_target(backend),
        # untyped literals' dtypes (GT4PY_LITERAL_*_PRECISION) and the extra flags of
        # released's build_settings change what is generated and built
        "literal_precision": fingerprinting.strict(
            (literal_precision("int"), literal_precision("float"))
        ),
        "extra_build_flags": fingerprinting.strict(_extra_build_flags(backend)),
    }
    if backend.startswith("dace:"):
        # DaCe's code generator and runtime headers make the built code (ADR 0041)
        from ._dace._build import dace_version

        parts["dace_version"] = fingerprinting.strict(dace_version())
    for ext_name, value in externals.items():
        parts[f"external.{ext_name}"] = fingerprinting.strict(_value_identity(value, ()))
    for path, identity in _read_values(chains, namespace, externals, ()).items():
        root = path.partition(".")[0]
        prefix = "external" if root in externals else "global"
        parts[f"{prefix}.{path}"] = fingerprinting.strict(identity)
    return StencilIdentity(CacheKey(parts), f"{name}({', '.join(map(_param_text, signature))})")


def _extra_build_flags(backend: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The compile and link flags of ``gt4py.cartesian.config.build_settings`` that a native
    build of ``backend`` adds (none for Python backends)."""
    if SO not in _backends.get_backend(backend).STAGES:
        return (), ()
    return _cpp_backend.extra_build_flags(backend)


def _native_target(backend: str) -> str:
    """What the entry's native code runs on. The entry holds its own extension, so a hit
    never asks the native build cache: a host-tuned build (``-march=native``, the
    ``native_host_tuned`` setting) must be keyed by this CPU here, as infra keys its builds,
    and a gt:gpu build by the GPU architecture it was compiled for."""
    if SO not in _backends.get_backend(backend).STAGES:
        return "none"  # numpy, debug: Python only
    if backend in _backends.DEVICE_BACKENDS:
        # device code runs on the architecture it was built for (or JIT-compiles its PTX)
        return f"cuda {_cpp_backend.cuda_arch() or 'nvcc default architecture'}"
    if not config.NATIVE_HOST_TUNED.get():
        return "portable"
    from gt4py.infra import native

    return "host-tuned for " + native.host_cpu_identity()


def _param_text(param: tuple[Any, ...]) -> str:
    name, kind, *rest = param
    if kind == "field":
        dtype, axes, data_dims = rest
        return f"{name}: Field[{axes}, {dtype}{''.join(f', {d}' for d in data_dims)}]"
    if kind == "scalar":
        return f"{name}: {rest[0]}"
    return str(name)  # unannotated or unresolved: the frontend reports it


def _is_key_value(value: Any) -> bool:
    """Whether the frontend may use ``value`` as a compile-time value or inline it."""
    return (
        value is None
        or isinstance(value, bool | numbers.Number | np.generic | dsl.AxisIndex)
        or dsl.is_gtscript_function(value)
    )


def _value_identity(value: Any, active: tuple[int, ...]) -> Any:
    """A GTScript function counts by its source and the values it reads (recursively)."""
    if not dsl.is_gtscript_function(value):
        return value
    if id(value) in active:  # a recursive helper: its content is already being keyed
        return ("recursive", value.__qualname__)
    info, chains = _keyed_source(value)
    reads = _read_values(chains, closure_namespace(value), {}, (*active, id(value)))
    return ("gtscript.function", info.source, reads)


#: A name and the attributes read off it: ``consts.Physics.ALPHA`` is ("consts", ("Physics",
#: "ALPHA")).
NameChain = tuple[str, tuple[str, ...]]

#: id(code object) -> (the code object, its parsed source, the name chains its body reads).
#: Reading and parsing a source is most of a key's cost, and a model decorates the same
#: definitions and helpers hundreds of times (NDSL: one stencil per origin and domain). A code
#: object never changes, so its source is read once per process; the VALUES its names resolve
#: to are looked up again for every key (a module constant may be reassigned).
_SOURCES: dict[int, tuple[Any, SourceInfo, tuple[NameChain, ...]]] = {}


def _keyed_source(func: Callable[..., Any]) -> tuple[SourceInfo, tuple[NameChain, ...]]:
    code = getattr(func, "__code__", None)
    entry = _SOURCES.get(id(code))
    if entry is None or entry[0] is not code:
        info = source_info(func)
        entry = (code, info, _name_chains(info.tree))
        if code is not None:
            _SOURCES[id(code)] = entry  # holds the code object: its id is never reused
    return entry[1], entry[2]


def _name_chains(tree: ast.AST) -> tuple[NameChain, ...]:
    """Each name, with the attributes read off it, the definition ``tree`` mentions (in the
    order of ``ast.walk``, without repeats)."""
    chains: dict[NameChain, None] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Name | ast.Attribute):
            continue
        path: list[str] = []  # the attributes, innermost first
        base: ast.expr = node
        while isinstance(base, ast.Attribute):
            path.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name):
            chains[(base.id, tuple(reversed(path)))] = None
    return tuple(chains)


def _read_values(
    chains: Iterable[NameChain],
    namespace: Mapping[str, Any],
    externals: Mapping[str, Any],
    active: tuple[int, ...],
) -> dict[str, Any]:
    """Dotted path -> identity of each outside value the definition reads (its name chains).

    Names bound to externals count only through attributes (``EXT.ALPHA`` of a module passed
    as an external): the external itself is its own key part.
    """
    markers = {id(v) for v in dsl._builtin_markers().values()}
    reads: dict[str, Any] = {}
    for name, attributes in chains:
        if name in externals:
            if not attributes:
                continue
            value = externals[name]
        elif name in namespace:
            value = namespace[name]
        else:
            continue
        value = _resolve(value, attributes)
        if value is _MISSING or id(value) in markers or not _is_key_value(value):
            continue
        reads[".".join((name, *attributes))] = _value_identity(value, active)
    return reads


def _resolve(value: Any, attributes: Iterable[str]) -> Any:
    for attr in attributes:
        try:
            value = getattr(value, attr)
        except Exception:  # the frontend reports it, if the definition really reads it
            return _MISSING
    return value


def _signature_identity(
    func: Callable[..., Any],
    tree: ast.FunctionDef,
    namespace: Mapping[str, Any],
    dtypes: Mapping[str, Any],
    annotation_locals: Mapping[str, Any] | None,
) -> list[tuple[Any, ...]]:
    """Each parameter's resolved type, resolved as the frontend does but without the IR.

    A parameter whose type does not resolve keys by its error text; the build that such a key
    misses into runs the frontend, which reports the problem properly.
    """
    annotations = func.__annotations__
    identity: list[tuple[Any, ...]] = []
    for arg in [*tree.args.args, *tree.args.kwonlyargs]:
        if arg.arg not in annotations:
            identity.append((arg.arg, "unannotated"))
            continue
        annotation = annotations[arg.arg]
        try:
            if isinstance(annotation, str):
                annotation = (
                    dtypes[annotation]
                    if annotation in dtypes
                    else eval(annotation, dict(namespace), annotation_locals)
                )
            if isinstance(annotation, dsl.FieldDescriptor):
                identity.append(
                    (
                        arg.arg,
                        "field",
                        _dtype_name(annotation.dtype, dtypes),
                        str(annotation.axes),
                        tuple(annotation.data_dims),
                    )
                )
            else:
                identity.append((arg.arg, "scalar", _dtype_name(annotation, dtypes)))
        except Exception as error:
            identity.append((arg.arg, "unresolved", f"{type(error).__name__}: {error}"))
    return identity


def _dtype_name(spec: Any, dtypes: Mapping[str, Any]) -> str:
    if isinstance(spec, str) and spec in dtypes:
        spec = dtypes[spec]
    name: str = np.dtype(spec).name
    return name
