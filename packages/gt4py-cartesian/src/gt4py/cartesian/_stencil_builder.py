"""Building a stencil: key (``_stencil_key``) -> infra's build cache -> generated module ->
StencilObject."""

from __future__ import annotations

import dataclasses
import pathlib
import pprint
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from gt4py.infra import config
from gt4py.infra.caching import BuildDirCache, import_generated_module

from . import _backends
from ._errors import GTScriptDefinitionError
from ._stencil_key import stencil_key
from ._stencil_object import StencilObject


CACHE_NAMESPACE = "cartesian/stencils"
MODULE_FILE = "stencil_module.py"
_cache = BuildDirCache(CACHE_NAMESPACE)
_loaded: dict[str, ModuleType] = {}
_lock = threading.Lock()


def _generate(
    func: Callable[..., Any],
    *,
    backend: _backends.Backend,
    externals: Mapping[str, Any],
    dtypes: Mapping[str, Any],
    name: str,
    annotation_locals: Mapping[str, Any] | None,
) -> _backends.GeneratedStencil:
    """Frontend -> analysis -> backend code: the generated module and the files it loads."""
    from ._analysis import analyse
    from ._frontend import DefinitionParser

    definition = DefinitionParser(
        func, externals=externals, dtypes=dtypes, name=name, annotation_locals=annotation_locals
    ).parse()
    analysed = analyse(definition)
    generated = backend.generate(analysed)
    code = generated.code
    code += "\n\nMETADATA = " + pprint.pformat(_metadata(analysed, backend.name), width=100) + "\n"
    _dump_stages(name, backend.name, definition, analysed, code)
    return dataclasses.replace(generated, code=code)


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
        generated = _generate(
            func,
            backend=backend_obj,
            externals=externals,
            dtypes=dtypes,
            name=name,
            annotation_locals=annotation_locals,
        )
        (directory / MODULE_FILE).write_text(generated.code)
        for file_name, source in generated.files.items():
            shutil.copyfile(source, directory / file_name)

    if rebuild:
        # Regenerate no matter what the cache holds, into a private directory of this process.
        directory = pathlib.Path(tempfile.mkdtemp(prefix=f"gt4py_cartesian_{name}_"))
        build(directory)
        module = import_generated_module(
            directory / MODULE_FILE, f"gt4py_cartesian_stencil_rebuilt_{id(directory)}"
        )
        path = directory / MODULE_FILE
    else:
        with _lock:
            loaded = _loaded.get(key.digest)
        entry = _cache.get_or_build(key, build)
        path = entry / MODULE_FILE
        if loaded is None:
            module = import_generated_module(path, f"gt4py_cartesian_stencil_{key.digest}")
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
