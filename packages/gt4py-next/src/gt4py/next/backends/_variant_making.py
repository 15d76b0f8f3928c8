"""Making the variants of a compiled program: lowering, optimizing, building and loading.

:class:`VariantMaker` is the part of :class:`~._compiled_programs.ProgramPool` that makes one
variant from its :class:`~._variant_keys.VariantKey`: ``prepare`` runs the stages in the
caller (the frontend reads the user's function), the backend's ``make_artifact`` the rest
(here, or in a runner worker: :func:`make_artifact` is the task), ``_finish`` loads, dumps and
counts the variant.
"""

from __future__ import annotations

import dataclasses
import functools
import pickle
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from gt4py.infra import pipeline

from .. import ir
from ..ffront import type_specifications as ts
from . import _aliasing, _arguments as arguments, _definition_keys, _pipeline
from ._table_layout import TableLayout
from ._variant_keys import VariantKey, bind_static, bind_static_domains, domain_arity
from ._variants import ArgumentSpec, TimedVariant, Variant, ignore_static


@dataclasses.dataclass
class Prepared:
    """A variant lowered and optimized in the caller, waiting for its artifact."""

    key: VariantKey
    optimized: ir.Program
    stages: dict[str, Any]  # frontend, ir, ir_optimized
    converters: list[arguments.Converter]
    tables: list[Any]
    table_dtypes: dict[str, TableLayout]
    started: float
    argument_spec: ArgumentSpec
    # per statement its operator call, for fields sharing memory (``_aliasing``; on demand)
    alias_groups: Callable[[], list[int] | None] = lambda: None


def make_artifact(
    compiler: _pipeline.ArtifactPipeline,
    program: ir.Program,
    table_dtypes: Mapping[str, TableLayout],
    label: str | None = None,
) -> _pipeline.Artifact:
    """The runner task: the stages after ``ir_optimized`` (IR in, a picklable artifact out).

    ``label`` (the variant, as the compile log names it) labels the cache entries built for it
    in the caches' diagnostics and lock waits, in the worker too."""
    from gt4py.infra import caching

    with caching.build_label(label):
        return compiler.make_artifact(program, table_dtypes)


class VariantMaker:
    """Making the variants of one program or directly called operator on one backend (the
    base of :class:`~._compiled_programs.ProgramPool`, which sets these attributes)."""

    backend: Any
    definition: Any
    _is_program: bool
    _names: list[str]
    _callee: str
    _providers: dict[Any, Any]

    def _lower(self, key: VariantKey) -> ir.Program:
        """The IR of a variant."""
        from .. import lowering

        if self._is_program:
            program = lowering.lower_program(self.definition)
        else:
            *arg_types, out_type = key.arguments
            program = lowering.lower_operator_call(
                self.definition,
                arg_types,
                out_type,
                None if key.domain_dims is None else list(key.domain_dims),
            )
        if key.static:
            program = bind_static(program, dict(key.static))
        if key.domains:
            program = bind_static_domains(program, key.domains)
        return program

    def _argument_types(self, key: VariantKey) -> list[Any]:
        """The frontend types of the variant's arguments in call order."""
        if self._is_program:
            return list(key.arguments)
        bounds = [ts.ScalarType(np.dtype("int64"))] * (2 * domain_arity(key.domain_dims))
        return [*key.arguments, *bounds]

    def _lowered(
        self, key: VariantKey
    ) -> tuple[Callable[[], tuple[ir.Program, ir.Program]], ir.Program, list[int]]:
        """The variant's IR with self-writes staged (and each statement's origin), and on
        demand the IR as lowered and as optimized before the staging: from the persistent
        ``next/lowered`` cache when the same checked definition was lowered before (a warm
        start neither lowers nor folds IR, and unpickles the earlier IR only when asked for),
        else made here."""
        from gt4py.infra import caching

        def lower_and_stage() -> tuple[ir.Program, ir.Program, ir.Program, list[int]]:
            program = self._lower(key)
            # a statement reading a field it writes at another point writes it after
            # computing everything, as embedded does (not a pass: a customized `optimize`
            # needs it too)
            before_staging = self.backend.optimize(program)
            optimized, origin = _aliasing.stage_self_writes(before_staging)
            return program, before_staging, optimized, list(origin)

        cache_key = _definition_keys.lowered_key(self.definition, key, self.backend.optimize)
        if cache_key is None:
            program, before_staging, optimized, origin = lower_and_stage()
            return (lambda: (program, before_staging)), optimized, origin

        made: list[tuple[ir.Program, ir.Program]] = []

        def make() -> tuple[bytes, ir.Program, list[int], str]:
            program, before_staging, optimized, origin = lower_and_stage()
            made.append((program, before_staging))
            earlier = pickle.dumps((program, before_staging), protocol=pickle.HIGHEST_PROTOCOL)
            # folded here once, then remembered for the translation's key (same object)
            return earlier, optimized, origin, ir.program_fingerprint(optimized)

        cache = caching.FileCache(_definition_keys.NAMESPACE)
        earlier, optimized, origin, fingerprint = cache.get_or_build_object(cache_key, make)
        ir.remember_fingerprint(optimized, fingerprint)  # no IR fold for the translation
        if made:  # built here: the objects themselves
            return (lambda: made[0]), optimized, origin
        return functools.cache(lambda: pickle.loads(earlier)), optimized, origin

    def prepare(self, key: VariantKey, offset_provider: Any) -> Prepared:
        """Lower and optimize the variant ``key`` in this process (the frontend reads the
        user's function); what is left is the backend's ``make_artifact`` and the load."""
        self._providers[key.offset_provider] = offset_provider
        started = time.perf_counter()
        types_ = self._argument_types(key)
        earlier, optimized, origin = self._lowered(key)
        definition, is_program = self.definition, self._is_program

        def alias_groups() -> list[int] | None:
            groups = _aliasing.call_groups(definition, earlier()[1], is_program)
            return None if groups is None else [groups[k] for k in origin]

        tables, table_dtypes = arguments.table_arguments(optimized, offset_provider)
        tables = self.backend.compiler.device_tables(tables)  # gtfn_gpu: once per variant
        params = {p.name: p for p in optimized.params}
        static = dict(key.static)
        names = _argument_names(optimized, self._is_program, self.definition)
        converters = [
            ignore_static if name in static else arguments.converter_for(name, type_, params)
            for name, type_ in zip(names, types_, strict=True)
        ]
        frontend = (
            self.definition.definition_stage
            if self._is_program
            else self.definition.__gt_signature__
        )
        stages: dict[str, Any] = {
            _pipeline.FRONTEND.name: pipeline.Deferred(lambda: repr(frontend)),
            _pipeline.IR.name: pipeline.Deferred(lambda: earlier()[0]),
            _pipeline.IR_OPTIMIZED.name: optimized,
        }
        return Prepared(
            key,
            optimized,
            stages,
            converters,
            tables,
            table_dtypes,
            started,
            (names, list(types_), params),
            alias_groups,
        )

    def compile_event(self, key: VariantKey) -> pipeline.CompileEvent:
        """The compile log's line for making the variant ``key`` on this backend."""
        what = f"{self.definition.__name__}{key.summary(self._names)}"
        return pipeline.CompileEvent(what=what, target=self.backend.name)

    def build_label(self, key: VariantKey) -> str:
        """What the caches call the entries built for the variant ``key`` (as the compile log
        does): ``lap(a: Field[[I, J, K], float64]) for gtfn_cpu``."""
        return f"{self.definition.__name__}{key.summary(self._names)} for {self.backend.name}"

    def _make(self, key: VariantKey, offset_provider: Any) -> Variant:
        """Make the variant ``key`` here and now: every stage, logged as one compile."""
        from gt4py.infra import caching

        with self.compile_event(key) as event, caching.build_label(self.build_label(key)):
            return self._finish(self.prepare(key, offset_provider), None, event)

    def _finish(
        self,
        prepared: Prepared,
        artifact: _pipeline.Artifact | None,
        event: pipeline.CompileEvent,
    ) -> Variant:
        """The variant from its artifact (built here when None): loaded, dumped, counted."""
        compiler = self.backend.compiler
        if artifact is None:
            artifact = compiler.make_artifact(prepared.optimized, prepared.table_dtypes)
        for part, outcome in artifact.notes:  # the caches' outcomes, maybe from a worker
            event.note(part, outcome)
        entry = compiler.load(artifact)
        stages = pipeline.StageValues(self.backend.STAGES, {**prepared.stages, **artifact.values})
        compile_seconds = time.perf_counter() - prepared.started
        directory = pipeline.dump_directory()
        if directory is not None:
            label = prepared.key.label(self._names)
            stages.dump(
                directory / self.definition.__name__ / self.backend.name / label,
                render=_pipeline.render_for_dump,
            )
        from .. import metrics

        parts = (
            prepared.key,
            entry,
            prepared.converters,
            prepared.tables,
            stages,
            prepared.argument_spec,
            compile_seconds,
        )
        variant: Variant
        if metrics.level() > 0:
            record = metrics.metrics_for(self.definition.__name__)
            record.variants += 1
            record.compile_time_s += compile_seconds
            variant = TimedVariant(record, *parts)
        else:
            variant = Variant(*parts)
        variant.description = prepared.key.describe(self._names)
        variant.callee = self._callee
        variant.alias_groups = prepared.alias_groups
        variant.fuses = bool(getattr(compiler, "fuses_statements", True))
        if self._is_program:
            definition = self.definition
            variant.run_embedded = lambda args, provider, why: _aliasing.run_embedded(
                definition, args, provider, why
            )
        return variant


def _argument_names(program: ir.Program, is_program: bool, definition: Any) -> list[str]:
    if is_program:
        return [p.name for p in definition.definition_stage.params]
    signature = definition.__gt_signature__
    names = [name for name, _ in signature.params] + ["__out"]
    bounds = [p.name for p in program.params if p.name.startswith("__domain")]
    return names + bounds
