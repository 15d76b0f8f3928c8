"""The itir_python pipeline: generate numpy code, publish it in the cache, import it."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import Any

from ... import ir
from .. import _backend
from . import _codegen


VERSION = "itir-python-1"


class PythonPipeline:
    def __call__(
        self, program: ir.Program, table_dtypes: Mapping[str, str]
    ) -> tuple[Any, dict[str, Any]]:
        from gt4py.infra import caching, config, fingerprinting as fp

        key = caching.CacheKey({"program": fp.strict(program), "generator": VERSION})
        source = caching.FileCache("next/itir_python").get_or_build(
            key, lambda: _codegen.generate(program).encode()
        )
        name = f"itir_{key.digest[:24]}"
        path = config.cache_root() / "next" / "itir_python_modules" / f"{name}.py"
        if not path.is_file() or path.read_bytes() != source:
            path.parent.mkdir(parents=True, exist_ok=True)
            caching.atomic_write_bytes(path, source)
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.run, {"python": source.decode(), "module_path": str(path)}


def make_itir_python_backend(
    *, name: str = "itir_python", cse: bool = True
) -> _backend.StepBackend:
    from ...passes import default_pipeline

    def optimize(program: ir.Program) -> ir.Program:
        return default_pipeline(program, cse=cse)

    return _backend.StepBackend(name, config=None, optimize=optimize, compiler=PythonPipeline())
