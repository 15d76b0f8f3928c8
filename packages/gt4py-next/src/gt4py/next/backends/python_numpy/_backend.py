"""The itir_python pipeline: ``frontend → ir → ir_optimized → py``.

The ``py`` step generates the numpy module and publishes it in a ``next/itir_python`` cache
entry (picklable, so it may run in a runner worker); the load imports it from the entry with
``gt4py.infra.caching.import_generated_module`` (source only, no bytecode beside the entry).
"""

from __future__ import annotations

import dataclasses
import pathlib
from collections.abc import Callable
from typing import Any

from ... import ir
from .. import _pipeline, _step_backend
from . import _codegen


@dataclasses.dataclass(frozen=True)
class PythonPipeline(_pipeline.ArtifactPipeline):
    """generate numpy code and publish it in the cache (``py``) -> import it."""

    fuses_statements = False  # every statement computes its whole value, then writes
    cached_steps = True  # the generated module is published in the ``next/itir_python`` cache

    @property
    def steps(self) -> tuple[tuple[Any, _pipeline.Step], ...]:
        return ((_pipeline.PY, self.generate),)

    def generate(self, program: ir.Program, metadata: dict[str, Any]) -> str:
        from gt4py.infra import caching, config

        debug = bool(config.DEBUG.get())  # GT4PY_DEBUG: every read checked per point
        key = caching.CacheKey(
            {
                "program": ir.program_fingerprint(program),
                "generator": caching.source_digest("gt4py.next"),
                "debug": str(debug),
            }
        )
        name = f"itir_{key.digest[:24]}"

        def write(directory: pathlib.Path) -> None:
            source = _codegen.generate(program, check_every_read=debug)
            (directory / f"{name}.py").write_text(source, encoding="utf-8")

        path = caching.BuildDirCache("next/itir_python").get_or_build(key, write) / f"{name}.py"
        metadata["module"] = name
        metadata["module_path"] = str(path)
        return path.read_text(encoding="utf-8")

    def load(self, artifact: _pipeline.Artifact) -> Callable[..., Any]:
        from gt4py.infra import caching

        module = caching.import_generated_module(
            pathlib.Path(artifact.metadata["module_path"]), artifact.metadata["module"]
        )
        return module.run  # type: ignore[no-any-return]


def make_itir_python_backend(
    *, name: str = "itir_python", cse: bool = True
) -> _step_backend.StepBackend:
    return _step_backend.StepBackend(
        name, config=None, optimize=_pipeline.Passes(cse=cse), compiler=PythonPipeline()
    )
