"""The itir_python pipeline: generate numpy code, publish it in the cache, import it."""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import pathlib
from collections.abc import Mapping
from typing import Any

from ... import ir
from .. import _backend
from . import _codegen


@dataclasses.dataclass(frozen=True)
class PythonArtifact:
    """The generated module's source and the cache file it was published to."""

    source: str
    module_path: str


class PythonPipeline:
    """generate numpy code and publish it (``make_artifact``, picklable) -> import it."""

    def make_artifact(self, program: ir.Program, table_dtypes: Mapping[str, str]) -> PythonArtifact:
        from gt4py.infra import caching, config, fingerprinting as fp

        debug = bool(config.get("debug"))  # GT4PY_DEBUG: every read checked per point
        key = caching.CacheKey(
            {
                "program": fp.strict(program),
                "generator": caching.source_digest("gt4py.next"),
                "debug": str(debug),
            }
        )
        source = caching.FileCache("next/itir_python").get_or_build(
            key, lambda: _codegen.generate(program, check_every_read=debug).encode()
        )
        name = f"itir_{key.digest[:24]}"
        path = config.cache_root() / "next" / "itir_python_modules" / f"{name}.py"
        if not path.is_file() or path.read_bytes() != source:
            path.parent.mkdir(parents=True, exist_ok=True)
            caching.atomic_write_bytes(path, source)
        return PythonArtifact(source.decode(), str(path))

    def load_artifact(self, artifact: PythonArtifact) -> tuple[Any, dict[str, Any]]:
        path = pathlib.Path(artifact.module_path)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import the generated module {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.run, {"python": artifact.source, "module_path": artifact.module_path}

    def __call__(
        self, program: ir.Program, table_dtypes: Mapping[str, str]
    ) -> tuple[Any, dict[str, Any]]:
        return self.load_artifact(self.make_artifact(program, table_dtypes))


def make_itir_python_backend(
    *, name: str = "itir_python", cse: bool = True
) -> _backend.StepBackend:
    from ...passes import default_pipeline

    optimize = functools.partial(default_pipeline, cse=cse)
    return _backend.StepBackend(name, config=None, optimize=optimize, compiler=PythonPipeline())
