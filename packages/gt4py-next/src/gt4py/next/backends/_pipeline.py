"""The compile pipeline of a compiled backend as declared stages (Triton's ``compile()``).

A backend declares its stages as one ordered list (``backend.STAGES``), e.g. gtfn_cpu
``frontend → ir → ir_optimized → cpp → so``. The first three are the same for every backend
and run in the caller (lowering reads the user's function); the rest belong to the backend's
:class:`ArtifactPipeline`: one step function per stage, run in one loop by
:meth:`ArtifactPipeline.make_artifact`, which is picklable so that a runner worker can run it.
The caller then loads the :class:`Artifact` (:meth:`ArtifactPipeline.load`).

Every compiled variant exposes what each stage produced as ``variant.stages`` (an
``infra.pipeline.StageValues`` keyed by those names), and ``GT4PY_DUMP_STAGES`` writes them as
``<stage>.<suffix>`` files.
"""

from __future__ import annotations

import abc
import dataclasses
import pathlib
from collections.abc import Callable, Mapping
from typing import Any, Final

from gt4py.infra import pipeline

from .. import ir
from ._table_layout import TableLayout


FRONTEND: Final = pipeline.Stage("frontend", "txt")  # the checked definition (its repr)
IR: Final = pipeline.Stage("ir", "ir")  # the lowered ir.Program
IR_OPTIMIZED: Final = pipeline.Stage("ir_optimized", "ir")  # after the backend's passes
CPP: Final = pipeline.Stage("cpp", "cpp")  # generated C++ source
CU: Final = pipeline.Stage("cu", "cu")  # generated CUDA source
SO: Final = pipeline.Stage("so", "so")  # the built extension (a pathlib.Path)
PY: Final = pipeline.Stage("py", "py")  # generated Python module source

#: The stages every compiled backend starts with (run in the caller).
CALLER_STAGES: Final = (FRONTEND, IR, IR_OPTIMIZED)

#: One stage transition: (the previous stage's value, the build's metadata) -> this stage's
#: value. ``metadata`` starts as ``{"table_dtypes": ...}``; a step may add what later steps
#: or the loader need besides the stage value (e.g. the extension's module name).
Step = Callable[[Any, dict[str, Any]], Any]

Note = tuple[str, str]


@dataclasses.dataclass(frozen=True)
class Artifact:
    """What :meth:`ArtifactPipeline.make_artifact` produced (picklable: it may come back from
    a worker): the value of each of the pipeline's stages, the metadata its steps left, and
    the cache outcomes noted on the way (replayed into the caller's compile log)."""

    values: Mapping[str, Any]
    metadata: Mapping[str, Any]
    notes: tuple[Note, ...] = ()


class ArtifactPipeline(abc.ABC):
    """The backend's stages after ``ir_optimized``: translation and build, then the load."""

    #: Whether the generated code may run consecutive statements point by point in one loop
    #: nest (gtfn's fusion): then fields sharing memory across them need care (``_aliasing``).
    fuses_statements: bool = True

    #: Whether every step that takes time is behind a cache (``infra.caching``): then a
    #: background compile first runs the steps here under ``caching.hits_only()``, and a warm
    #: cache costs lookups, not a worker (a step without a cache would run in the caller).
    cached_steps: bool = False

    @property
    @abc.abstractmethod
    def steps(self) -> tuple[tuple[pipeline.Stage, Step], ...]:
        """Per stage, in order, the step that produces its value."""

    @property
    def stages(self) -> tuple[pipeline.Stage, ...]:
        return tuple(stage for stage, _ in self.steps)

    def make_artifact(
        self, program: ir.Program, table_dtypes: Mapping[str, TableLayout]
    ) -> Artifact:
        """Run the steps in order from ``program`` (IR in, a picklable artifact out)."""
        metadata: dict[str, Any] = {"table_dtypes": dict(table_dtypes)}
        values: dict[str, Any] = {}
        value: Any = program
        with pipeline.collect_outcomes() as notes:  # in a worker too: they travel back
            for stage, step in self.steps:
                value = values[stage.name] = step(value, metadata)
        return Artifact(values, metadata, tuple(notes))

    @abc.abstractmethod
    def load(self, artifact: Artifact) -> Callable[..., Any]:
        """The entry point of a built artifact (in the calling process)."""

    def array_namespace(self) -> Any:
        """What the fields of the entry point live in (the backend's allocator)."""
        import numpy as np

        return np

    def device_tables(self, tables: list[Any]) -> list[Any]:
        """The flat neighbour-table arguments where the entry point reads them (unchanged on
        the host; a GPU pipeline copies the arrays to the device once per variant)."""
        return tables


@dataclasses.dataclass(frozen=True)
class Passes:
    """The ``ir → ir_optimized`` step: the IR passes with their settings (a value, so that a
    backend holding it pickles and compares by value)."""

    cse: bool = True
    constant_folding: bool = True
    temporaries: str = "auto"

    def __post_init__(self) -> None:
        from ..passes import POLICIES

        if self.temporaries not in POLICIES:
            raise ValueError(
                f"temporaries={self.temporaries!r} is not one of {', '.join(POLICIES)}"
            )

    def __call__(self, program: ir.Program) -> ir.Program:
        """The optimized program, from the persistent ``next/passes`` cache when these passes
        ran on this exact program before (keyed on the IR itself, the settings and gt4py.next's
        sources: the passes are pure). ICON's graupel spends ~40 s in them, every process."""
        from gt4py.infra import caching, fingerprinting as fp

        key = caching.CacheKey(
            {
                "program": ir.program_fingerprint(program),
                "passes": fp.strict((self.cse, self.constant_folding, self.temporaries)),
                "generator": caching.source_digest("gt4py.next"),
            }
        )
        optimized: ir.Program = caching.FileCache("next/passes").get_or_build_object(
            key, lambda: self.run(program)
        )
        return optimized

    def run(self, program: ir.Program) -> ir.Program:
        """The passes themselves (no cache)."""
        from ..passes import default_pipeline

        return default_pipeline(
            program,
            cse=self.cse,
            constant_folding=self.constant_folding,
            temporaries=self.temporaries,  # type: ignore[arg-type]  # checked above
        )


def render_for_dump(stage: pipeline.Stage, value: Any) -> str | bytes | None:
    """Dump files: IR as ``ir.to_text``, sources as text, the built library copied."""
    if isinstance(value, ir.Program):
        return ir.to_text(value)
    if isinstance(value, str | bytes):
        return value
    if isinstance(value, pathlib.Path):
        return value.read_bytes() if value.is_file() else None
    return repr(value)


__all__ = [
    "CALLER_STAGES",
    "CPP",
    "CU",
    "FRONTEND",
    "IR",
    "IR_OPTIMIZED",
    "PY",
    "SO",
    "Artifact",
    "ArtifactPipeline",
    "Passes",
    "Step",
    "render_for_dump",
]
