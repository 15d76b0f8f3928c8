"""Building a stencil: identity key -> infra's build cache -> generated module -> StencilObject.

The key has one part per concern ("source", "external.NAME" for each external or global the
definition uses, "dtypes", "backend", "options", "gt4py_version", "toolchain"), so a cache
miss diagnostic names what changed. Everything is a strict fingerprint (infra).
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import pprint
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

import numpy as np

from gt4py.infra import config, fingerprinting
from gt4py.infra.caching import BuildDirCache, CacheKey

from . import _backends, gtscript
from ._errors import GTScriptDefinitionError
from ._source import closure_namespace, source_info
from ._stencil_object import StencilObject
from ._version import __version__


CACHE_NAMESPACE = "cartesian/stencils"
MODULE_FILE = "stencil_module.py"
_cache = BuildDirCache(CACHE_NAMESPACE)
_loaded: dict[str, ModuleType] = {}
_lock = threading.Lock()
_toolchain_fingerprint: str | None = None
# The modules whose code decides what a stencil compiles to.
_TOOLCHAIN_MODULES = (
    "_frontend.py", "_ir.py", "_types.py", "_analysis.py", "_codegen_common.py",
    "_numpy_codegen.py", "_debug_codegen.py", "_runtime.py", "_stencil_builder.py",
    "_cpp_codegen.py", "_cpp_backend.py", "gtscript.py",
)  # fmt: skip


def _toolchain() -> str:
    global _toolchain_fingerprint
    if _toolchain_fingerprint is None:
        here = pathlib.Path(__file__).parent
        _toolchain_fingerprint = fingerprinting.strict(
            tuple((name, (here / name).read_bytes()) for name in _TOOLCHAIN_MODULES)
        )
    return _toolchain_fingerprint


def _function_identity(func: Callable[..., Any], seen: set[int]) -> Any:
    """A GTScript function counts by its source and the globals it uses (recursively)."""
    if id(func) in seen:
        return ("recursive", func.__qualname__)
    seen.add(id(func))
    info = source_info(func)
    return (info.source, _used_globals(info.tree, closure_namespace(func), {}, seen))


def _value_identity(value: Any, seen: set[int]) -> Any:
    if gtscript.is_gtscript_function(value):
        return ("gtscript.function", _function_identity(value, seen))
    return value


def _used_globals(
    tree: ast.AST, namespace: Mapping[str, Any], externals: Mapping[str, Any], seen: set[int]
) -> dict[str, Any]:
    """Values of the module-level names a definition reads that can change what it computes."""
    markers = {id(v) for v in gtscript._builtin_markers().values()}
    used: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in externals and node.id in namespace:
            value = namespace[node.id]
            if id(value) in markers or isinstance(value, ModuleType | type):
                continue
            if gtscript.is_gtscript_function(value) or isinstance(
                value, int | float | bool | complex
            ):
                used[node.id] = _value_identity(value, seen)
        elif isinstance(node, ast.Attribute):
            # module.name (helpers.f, consts.ALPHA): what the module holds now
            path: list[str] = []
            base: ast.expr = node
            while isinstance(base, ast.Attribute):
                path.append(base.attr)
                base = base.value
            if not (
                isinstance(base, ast.Name) and base.id not in externals and base.id in namespace
            ):
                continue
            value = namespace[base.id]
            for attr in reversed(path):
                if not isinstance(value, ModuleType):
                    break
                value = getattr(value, attr, None)
            else:
                if gtscript.is_gtscript_function(value) or isinstance(
                    value, int | float | bool | complex
                ):
                    dotted = ".".join([base.id, *reversed(path)])
                    used[dotted] = _value_identity(value, seen)
    return used


def _signature_identity(
    func: Callable[..., Any],
    tree: ast.FunctionDef,
    namespace: Mapping[str, Any],
    dtypes: Mapping[str, Any],
    annotation_locals: Mapping[str, Any] | None,
) -> list[tuple[str, ...]]:
    """Each parameter's resolved type, resolved as the frontend does but without the IR.

    The key must not need the frontend (and eve): on a cache hit nothing else does. A
    parameter whose type does not resolve keys by its error text; the build that such a key
    misses into runs the frontend, which reports the problem properly.
    """
    annotations = func.__annotations__
    identity: list[tuple[str, ...]] = []
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
            if isinstance(annotation, gtscript.FieldDescriptor):
                identity.append(
                    (
                        arg.arg,
                        "field",
                        _dtype_name(annotation.dtype, dtypes),
                        repr(annotation.axes),
                        repr(annotation.data_dims),
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
    return np.dtype(spec).name


def stencil_key(
    func: Callable[..., Any],
    *,
    backend: str,
    externals: Mapping[str, Any],
    dtypes: Mapping[str, Any],
    name: str,
    options: Mapping[str, Any],
    annotation_locals: Mapping[str, Any] | None = None,
) -> CacheKey:
    info = source_info(func)
    seen: set[int] = set()
    # The resolved parameter types: the source names them, but an alias such as
    # ``F = Field[np.float64]`` can change without the source changing.
    signature = _signature_identity(
        func, info.tree, closure_namespace(func), dtypes, annotation_locals
    )
    parts = {
        "source": fingerprinting.strict(info.source),
        "signature": fingerprinting.strict(signature),
        "name": fingerprinting.strict(name),
        "dtypes": fingerprinting.strict({k: str(v) for k, v in dtypes.items()}),
        "backend": fingerprinting.strict(backend),
        "options": fingerprinting.strict(dict(options)),
        "gt4py_version": fingerprinting.strict(__version__),
        "toolchain": _toolchain(),
    }
    for ext_name, value in externals.items():
        parts[f"external.{ext_name}"] = fingerprinting.strict(_value_identity(value, seen))
    for glob_name, identity in _used_globals(
        info.tree, closure_namespace(func), externals, seen
    ).items():
        parts[f"global.{glob_name}"] = fingerprinting.strict(identity)
    return CacheKey(parts)


def _generate(
    func: Callable[..., Any],
    *,
    backend: _backends.Backend,
    externals: Mapping[str, Any],
    dtypes: Mapping[str, Any],
    name: str,
    annotation_locals: Mapping[str, Any] | None,
) -> str:
    """Frontend -> analysis -> backend code: the generated module's source."""
    from ._analysis import analyse
    from ._frontend import DefinitionParser

    definition = DefinitionParser(
        func, externals=externals, dtypes=dtypes, name=name, annotation_locals=annotation_locals
    ).parse()
    analysed = analyse(definition)
    code = backend.generate(analysed)
    code += "\n\nMETADATA = " + pprint.pformat(_metadata(analysed, backend.name), width=100) + "\n"
    _dump_stages(name, backend.name, definition, analysed, code)
    return code


def _metadata(analysed: Any, backend: str) -> dict[str, Any]:
    from ._analysis import ZERO
    from ._ir import FieldDecl

    params = []
    for p in analysed.ir.params:
        entry: dict[str, Any] = {
            "name": p.name,
            "dtype": p.dtype,
            "access": analysed.access[p.name],
        }
        if isinstance(p, FieldDecl):
            ext = analysed.field_extents.get(p.name, ZERO)
            k_accesses = sorted(analysed.k_accesses[p.name])
            k_low = min(
                [0] + [s_off + dk for s_lvl, s_off, _, _, dk in k_accesses if s_lvl == "start"]
            )
            halo = {"I": (ext.i_lo, ext.i_hi), "J": (ext.j_lo, ext.j_hi), "K": (min(0, k_low), 0)}
            entry.update(
                kind="field",
                axes=p.axes,
                data_dims=list(p.data_dims),
                halo=[halo[a] for a in p.axes],
                k_accesses=[list(a) for a in k_accesses],
            )
        else:
            entry["kind"] = "scalar"
        params.append(entry)
    return {"name": analysed.ir.name, "backend": backend, "params": params}


def _dump_stages(name: str, backend: str, definition: Any, analysed: Any, code: str) -> None:
    directory = config.get("dump_stages")
    if directory is None:
        return
    target = pathlib.Path(directory) / f"cartesian_{name}_{backend}"
    target.mkdir(parents=True, exist_ok=True)
    (target / "0_definition_ir.txt").write_text(pprint.pformat(definition, width=100) + "\n")
    (target / "1_analysis.txt").write_text(analysed.describe() + "\n")
    (target / "2_generated.py").write_text(code)


def _load(path: pathlib.Path, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_stencil(
    func: Callable[..., Any],
    *,
    backend: str,
    externals: Mapping[str, Any] | None,
    name: str | None,
    rebuild: bool,
    dtypes: Mapping[str, Any] | None,
    options: Mapping[str, Any],
    annotation_locals: Mapping[str, Any] | None = None,
) -> StencilObject:
    if not callable(func) or not hasattr(func, "__code__"):
        raise TypeError(f"a stencil definition must be a Python function, got {func!r}")
    backend_obj = _backends.get_backend(backend)
    unknown = set(options) - set(backend_obj.options)
    if unknown:
        raise GTScriptDefinitionError(
            f"backend {backend!r} does not accept option(s) {sorted(unknown)}"
        )
    externals = dict(externals or {})
    dtypes = dict(dtypes or {})
    name = name or func.__name__
    key = stencil_key(
        func,
        backend=backend,
        externals=externals,
        dtypes=dtypes,
        name=name,
        options=options,
        annotation_locals=annotation_locals,
    )

    def build(directory: pathlib.Path) -> None:
        code = _generate(
            func,
            backend=backend_obj,
            externals=externals,
            dtypes=dtypes,
            name=name,
            annotation_locals=annotation_locals,
        )
        (directory / MODULE_FILE).write_text(code)

    if rebuild:
        # Regenerate no matter what the cache holds, into a private directory of this process.
        directory = pathlib.Path(tempfile.mkdtemp(prefix=f"gt4py_cartesian_{name}_"))
        build(directory)
        module = _load(directory / MODULE_FILE, f"gt4py_cartesian_stencil_rebuilt_{id(directory)}")
        path = directory / MODULE_FILE
    else:
        with _lock:
            loaded = _loaded.get(key.digest)
        entry = _cache.get_or_build(key, build)
        path = entry / MODULE_FILE
        if loaded is None:
            module = _load(path, f"gt4py_cartesian_stencil_{key.digest}")
            with _lock:
                _loaded[key.digest] = module
        else:
            module = loaded
    stencil = StencilObject(module, module.METADATA, source_path=str(path))
    stencil.__doc__ = func.__doc__
    sys.modules.setdefault(module.__name__, module)
    return stencil


class LazyStencil:
    """A stencil built on first use (call or ``.implementation``)."""

    def __init__(self, func: Callable[..., Any], **build_args: Any) -> None:
        self.definition = func
        self._build_args = build_args
        self._implementation: StencilObject | None = None
        self.backend = build_args["backend"]

    @property
    def implementation(self) -> StencilObject:
        if self._implementation is None:
            self._implementation = build_stencil(self.definition, **self._build_args)
        return self._implementation

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.implementation(*args, **kwargs)

    def run(self, *args: Any, **kwargs: Any) -> None:
        self.implementation.run(*args, **kwargs)
