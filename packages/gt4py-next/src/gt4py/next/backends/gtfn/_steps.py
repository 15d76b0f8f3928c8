"""The gtfn pipeline steps and their builders (DESIGN §6: plain functions, no factory-boy).

``GTFNConfig`` holds what all steps must agree on; each ``make_gtfn_<step>(config, **setting)``
returns the step; ``make_gtfn_backend(config, translation=functools.partial(...))`` composes
them and wraps the translation in the persistent cache. A misspelled step setting is a
``TypeError`` when the backend is built (the builder is called then).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, Literal

from ... import ir
from .. import _backend
from . import _codegen


def translation_version() -> str:
    """gt4py.next's own sources: any change to the generator is a new translation key."""
    from gt4py.infra import caching

    return f"gtfn-cpp:{caching.source_digest('gt4py.next')}"


@dataclasses.dataclass(frozen=True)
class GTFNConfig:
    """Settings every gtfn step agrees on."""

    device: Literal["cpu"] = "cpu"
    build_type: Literal["Release", "Debug", "RelWithDebInfo", "MinSizeRel"] = "Release"
    cache_lifetime: Literal["persistent", "session"] | None = None  # None: the infra setting
    layout: Literal["C"] = "C"
    cached_translation: bool = True

    def __post_init__(self) -> None:
        if self.device != "cpu":
            raise ValueError(f"GTFNConfig: device={self.device!r}; only 'cpu' is built here")
        if self.build_type not in ("Release", "Debug", "RelWithDebInfo", "MinSizeRel"):
            raise ValueError(f"GTFNConfig: unknown build_type {self.build_type!r}")


@dataclasses.dataclass(frozen=True)
class TranslatedModule:
    """The output of translation: module name and sources, plus build options."""

    name: str
    sources: Mapping[str, str]
    openmp: bool
    extra_compile_flags: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class GTFNTranslation:
    config: GTFNConfig
    openmp: bool = True
    parallel_threshold: int = _codegen.PARALLEL_THRESHOLD

    def __call__(self, program: ir.Program, table_dtypes: Mapping[str, str]) -> TranslatedModule:
        from gt4py.infra import fingerprinting as fp

        settings = self.settings_key()
        fingerprint = fp.strict((program, sorted(table_dtypes.items()), settings))
        name = _codegen.module_name(fingerprint)
        generator = _codegen.CppGenerator(program, table_dtypes, check_every_read=settings[-1])
        source = generator.module(name).replace(
            f"> {_codegen.PARALLEL_THRESHOLD})", f"> {self.parallel_threshold})"
        )
        if not self.openmp:
            source = source.replace("#pragma omp", "// (openmp off) #pragma omp")
        return TranslatedModule(name, {f"{name}.cpp": source}, self.openmp, ())

    def settings_key(self) -> tuple[Any, ...]:
        """What decides the generated code besides the program (last: the debug setting)."""
        return (translation_version(), self.openmp, self.parallel_threshold, debug_checks())


def debug_checks() -> bool:
    """``GT4PY_DEBUG``: check every field read per point, not only those that could not be
    checked before the call (a second line of defence, at a cost in speed)."""
    from gt4py.infra import config

    return bool(config.get("debug"))


@dataclasses.dataclass(frozen=True)
class GTFNBindings:
    """nanobind bindings are generated with the module (one ``run`` function)."""

    config: GTFNConfig

    def __call__(self, module: TranslatedModule) -> TranslatedModule:
        return module


@dataclasses.dataclass(frozen=True)
class GTFNCompiler:
    config: GTFNConfig
    # No fused multiply-adds: embedded numpy (the oracle) rounds every operation, and a
    # threshold (`q > qmin`) turns a last-bit difference into a different branch.
    extra_compile_flags: tuple[str, ...] = ("-march=native", "-ffp-contract=off")

    def __call__(self, module: TranslatedModule) -> str:
        from gt4py.infra import native

        options = native.BuildOptions(
            openmp=module.openmp,
            build_type=self.config.build_type,
            extra_compile_flags=(*module.extra_compile_flags, *self.extra_compile_flags),
        )
        return str(native.build_extension(module.name, dict(module.sources), options))


def make_gtfn_translation(
    config: GTFNConfig,
    *,
    openmp: bool = True,
    parallel_threshold: int = _codegen.PARALLEL_THRESHOLD,
) -> GTFNTranslation:
    return GTFNTranslation(config, openmp=openmp, parallel_threshold=parallel_threshold)


def make_gtfn_bindings(config: GTFNConfig) -> GTFNBindings:
    return GTFNBindings(config)


def make_gtfn_compiler(
    config: GTFNConfig,
    *,
    extra_compile_flags: tuple[str, ...] = ("-march=native", "-ffp-contract=off"),
) -> GTFNCompiler:
    return GTFNCompiler(config, tuple(extra_compile_flags))


def make_gtfn_passes(
    config: GTFNConfig,
    *,
    cse: bool = True,
    constant_folding: bool = True,
    temporaries: str = "auto",
) -> Callable[[ir.Program], ir.Program]:
    """The IR passes; ``temporaries``: ``"auto"`` (ADR 0013 heuristic), ``"materialize"`` or
    ``"recompute"`` intermediates (scans called in field operators are always materialized)."""
    from ...passes import POLICIES, default_pipeline

    if temporaries not in POLICIES:
        raise ValueError(f"temporaries={temporaries!r} is not one of {', '.join(POLICIES)}")
    return functools.partial(
        default_pipeline,
        cse=cse,
        constant_folding=constant_folding,
        temporaries=temporaries,
    )


class CachedTranslation:
    """The translation step behind the persistent ``next/translation`` file cache."""

    def __init__(self, translation: Any) -> None:
        self.translation = translation

    def __call__(self, program: ir.Program, table_dtypes: Mapping[str, str]) -> TranslatedModule:
        from gt4py.infra import caching, fingerprinting as fp

        key = caching.CacheKey(
            {
                "program": fp.strict(program),
                "table_dtypes": fp.strict(sorted(table_dtypes.items())),
                "translation": fp.strict(
                    (type(self.translation).__qualname__, self.translation.settings_key())
                ),
            }
        )
        return caching.FileCache("next/translation").get_or_build_object(  # type: ignore[no-any-return]
            key, lambda: self.translation(program, table_dtypes)
        )


@dataclasses.dataclass(frozen=True)
class GTFNArtifact:
    """What a (possibly remote) build produces: the C++ source and the built extension."""

    source: str
    library: str


class GTFNPipeline:
    """translation -> bindings -> native build (``make_artifact``, picklable) -> load."""

    def __init__(self, translation: Any, bindings: Any, compiler: Any) -> None:
        self.translation = translation
        self.bindings = bindings
        self.build = compiler

    def make_artifact(self, program: ir.Program, table_dtypes: Mapping[str, str]) -> GTFNArtifact:
        module = self.bindings(self.translation(program, table_dtypes))
        return GTFNArtifact(next(iter(module.sources.values())), self.build(module))

    def load_artifact(self, artifact: GTFNArtifact) -> tuple[Any, dict[str, Any]]:
        from gt4py.infra import native

        extension = native.load_extension(artifact.library)
        return extension.run, {"cpp": artifact.source, "library": artifact.library}

    def __call__(
        self, program: ir.Program, table_dtypes: Mapping[str, str]
    ) -> tuple[Any, dict[str, Any]]:
        return self.load_artifact(self.make_artifact(program, table_dtypes))


def make_gtfn_backend(
    config: GTFNConfig | None = None,
    *,
    name: str = "gtfn_cpu",
    passes: Callable[..., Any] = make_gtfn_passes,
    translation: Callable[..., Any] = make_gtfn_translation,
    bindings: Callable[..., Any] = make_gtfn_bindings,
    compiler: Callable[..., Any] = make_gtfn_compiler,
) -> _backend.StepBackend:
    """The gtfn backend from its step builders (each called here with ``config``)."""
    config = config if config is not None else GTFNConfig()
    translation_step = translation(config)
    if config.cached_translation:
        translation_step = CachedTranslation(translation_step)
    pipeline = GTFNPipeline(translation_step, bindings(config), compiler(config))
    return _backend.StepBackend(name, config=config, optimize=passes(config), compiler=pipeline)
