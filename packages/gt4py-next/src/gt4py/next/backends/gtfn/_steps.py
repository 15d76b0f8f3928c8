"""The gtfn pipeline steps and their builders (DESIGN §6: plain functions, no factory-boy).

``GTFNConfig`` holds what all steps must agree on; each ``make_gtfn_<step>(config, **setting)``
returns the step; ``make_gtfn_backend(config, translation=functools.partial(...))`` composes
them and wraps the translation in the persistent cache. A misspelled step setting is a
``TypeError`` when the backend is built (the builder is called then).

The pipeline: ``frontend → ir → ir_optimized → cpp → so`` (gtfn_gpu: ``cu`` for ``cpp``).
Steps are frozen dataclasses, so a backend built from them pickles and compares by value.
"""

from __future__ import annotations

import dataclasses
import functools
import pathlib
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, cast

from ... import ir
from .. import _pipeline, _step_backend
from .._table_layout import TableLayout
from . import _codegen, _identifiers


def translation_version() -> str:
    """gt4py.next's own sources: any change to the generator is a new translation key."""
    from gt4py.infra import caching

    return f"gtfn-cpp:{caching.source_digest('gt4py.next')}"


CUDA_INSTALL_HINT = (
    "gtfn_gpu needs cupy and a CUDA compiler: pip install 'gt4py-next[cuda12]' (or [cuda13]), "
    "which brings cupy and nvcc with the CUDA headers as wheels; a system CUDA toolkit "
    "(nvcc on PATH, $CUDA_HOME or $CUDACXX) is used first when present"
)


def import_cupy() -> Any:
    """cupy, or an ``ImportError`` saying exactly what to install."""
    try:
        import cupy
    except ImportError as error:
        raise ImportError(f"{CUDA_INSTALL_HINT} ({error})") from None
    return cupy


def require_gpu() -> Any:
    """cupy, once it has found a GPU: before a gtfn_gpu variant is built or run (its tables are
    copied to the device, ahead of compiling), so that a machine without a GPU fails at once
    with an error that says so, not after nvcc (or in cupy's words). The
    ``gpu_build_without_device`` setting builds anyway (a cache on a login node)."""
    from gt4py import storage
    from gt4py.infra import config

    if config.GPU_BUILD_WITHOUT_DEVICE.get():
        return import_cupy()
    try:
        return storage.require_gpu(
            "gtfn_gpu", CUDA_INSTALL_HINT.removeprefix("gtfn_gpu needs cupy and a CUDA compiler: ")
        )
    except storage.NoGPUError as error:
        raise storage.NoGPUError(
            f"{error}; to build without a GPU (into a cache, e.g. on a login node), set "
            "GT4PY_GPU_BUILD_WITHOUT_DEVICE=1"
        ) from error.__cause__


BuildType = Literal["Release", "Debug", "RelWithDebInfo", "MinSizeRel"]


def configured_build_type() -> BuildType:
    """The ``cmake_build_type`` setting (``GT4PY_CMAKE_BUILD_TYPE``), read when a config is made."""
    from gt4py.infra import config

    return cast(BuildType, config.CMAKE_BUILD_TYPE.get())


_DEVICES: Final = ("cpu", "gpu", "emulated")
_BUILD_TYPES: Final = ("Release", "Debug", "RelWithDebInfo", "MinSizeRel")


@dataclasses.dataclass(frozen=True)
class GTFNConfig:
    """Settings every gtfn step agrees on. ``build_type`` defaults to the ``cmake_build_type``
    setting when the config is made (the stock ``gtfn_cpu``/``gtfn_gpu``: at their first use);
    it is part of the native build's key."""

    #: ``"emulated"``: the gtfn_gpu code, compiled by the host compiler with the CUDA launch
    #: and runtime emulated (``gt4py/cuda_emulation.hpp``), on numpy arrays; for tests (CI has
    #: no GPU), not a backend of ``gtx``.
    device: Literal["cpu", "gpu", "emulated"] = "cpu"
    build_type: BuildType = dataclasses.field(default_factory=configured_build_type)
    cached_translation: bool = True

    def __post_init__(self) -> None:
        # checked here, not at the first compile (issue 44): each value's type and range
        if not isinstance(self.device, str) or self.device not in _DEVICES:
            raise ValueError(
                f"GTFNConfig: device={self.device!r} is not 'cpu', 'gpu' or 'emulated'"
            )
        if not isinstance(self.build_type, str) or self.build_type not in _BUILD_TYPES:
            raise ValueError(
                f"GTFNConfig: build_type={self.build_type!r} is not one of "
                f"{', '.join(map(repr, _BUILD_TYPES))}"
            )
        if not isinstance(self.cached_translation, bool):
            raise TypeError(
                f"GTFNConfig: cached_translation={self.cached_translation!r} is not a bool "
                f"(a {type(self.cached_translation).__name__})"
            )

    @property
    def cuda_code(self) -> bool:
        """Whether the generated code is CUDA (a GPU, or its emulation on the host)."""
        return self.device != "cpu"


@dataclasses.dataclass(frozen=True)
class TranslatedModule:
    """The output of translation: the extension's module name, its sources, whether it uses
    OpenMP (a build option)."""

    name: str
    sources: Mapping[str, str]
    openmp: bool


@dataclasses.dataclass(frozen=True)
class GTFNTranslation:
    config: GTFNConfig
    openmp: bool = True
    parallel_threshold: int = _codegen.PARALLEL_THRESHOLD

    def __call__(
        self, program: ir.Program, table_dtypes: Mapping[str, TableLayout]
    ) -> TranslatedModule:
        from gt4py.infra import fingerprinting as fp

        settings = self.settings_key()
        fingerprint = fp.strict(
            (ir.program_fingerprint(program), sorted(table_dtypes.items()), settings)
        )
        name = _codegen.module_name(fingerprint)
        program = _identifiers.cxx_safe(program)  # `new`, `double`, `rows`: renamed in C++
        if self.config.cuda_code:
            from . import _cuda_codegen

            cuda = _cuda_codegen.CudaGenerator(program, table_dtypes, check_every_read=settings[-1])
            return TranslatedModule(name, {f"{name}.cu": cuda.module(name)}, False)
        generator = _codegen.CppGenerator(
            program,
            table_dtypes,
            check_every_read=settings[-1],
            openmp=self.openmp,
            parallel_threshold=self.parallel_threshold,
        )
        return TranslatedModule(name, {f"{name}.cpp": generator.module(name)}, self.openmp)

    def settings_key(self) -> tuple[Any, ...]:
        """What decides the generated code besides the program (last: the debug setting)."""
        return (
            translation_version(),
            self.config.device,
            self.openmp,
            self.parallel_threshold,
            debug_checks(),
        )


def debug_checks() -> bool:
    """``GT4PY_DEBUG``: check every field read per point, not only those that could not be
    checked before the call (a second line of defence, at a cost in speed)."""
    from gt4py.infra import config

    return bool(config.DEBUG.get())


#: Always passed, whatever the extra flags: signed integer +, -, * wrap modulo 2^n as numpy's
#: (C++ leaves signed overflow undefined, and GCC folds ``a + 1 > a`` to true; ADR 0044). In
#: the build options, so in every build key. nvcc gets it for the host code (its device code
#: has no such flag; its integer instructions wrap).
SEMANTICS_FLAGS: tuple[str, ...] = ("-fwrapv",)
SEMANTICS_CUDA_FLAGS: tuple[str, ...] = ("-Xcompiler=-fwrapv",)


@dataclasses.dataclass(frozen=True)
class GTFNCompiler:
    config: GTFNConfig
    # No fused multiply-adds: embedded numpy (the oracle) rounds every operation, and a
    # threshold (`q > qmin`) turns a last-bit difference into a different branch.
    extra_compile_flags: tuple[str, ...] = ("-ffp-contract=off",)

    # gtfn_gpu: relaxed constexpr for std::min/max/numeric_limits in device code, no fused
    # multiply-adds (as on the CPU); the architecture is the current device's when one is
    # present (`cuda_arch`, e.g. "sm_90", fixes it; None without a device: nvcc's default)
    extra_cuda_flags: tuple[str, ...] = ("--expt-relaxed-constexpr", "--fmad=false")
    cuda_arch: str | None = None

    def __call__(self, module: TranslatedModule) -> str:
        from gt4py.infra import native

        if self.config.device == "emulated":
            emulated = native.BuildOptions(
                cuda_emulation=True,
                openmp=True,  # blocks run in parallel
                build_type=self.config.build_type,
                extra_compile_flags=(*SEMANTICS_FLAGS, *self.extra_compile_flags),
            )
            return str(native.build_extension(module.name, dict(module.sources), emulated))
        if self.config.device == "gpu":
            arch = self.cuda_arch or current_cuda_arch()
            gpu_options = native.BuildOptions(
                cuda=True,
                build_type=self.config.build_type,
                extra_cuda_flags=(
                    *SEMANTICS_CUDA_FLAGS,
                    *self.extra_cuda_flags,
                    *((f"-arch={arch}",) if arch else ()),
                ),
            )
            return str(native.build_extension(module.name, dict(module.sources), gpu_options))
        options = native.BuildOptions(
            openmp=module.openmp,
            build_type=self.config.build_type,
            extra_compile_flags=(*SEMANTICS_FLAGS, *self.extra_compile_flags),
            precompiled_prelude=True,  # the module's own includes, parsed once per toolchain
        )
        return str(native.build_extension(module.name, dict(module.sources), options))


def current_cuda_arch() -> str | None:
    """``sm_XY`` of cupy's current device, or None without cupy or a device (compile only)."""
    try:
        import cupy

        return f"sm_{cupy.cuda.Device().compute_capability}"
    except Exception:  # no cupy, no driver, no device
        return None


def make_gtfn_translation(
    config: GTFNConfig,
    *,
    openmp: bool = True,
    parallel_threshold: int = _codegen.PARALLEL_THRESHOLD,
) -> GTFNTranslation:
    return GTFNTranslation(config, openmp=openmp, parallel_threshold=parallel_threshold)


def make_gtfn_compiler(
    config: GTFNConfig,
    *,
    extra_compile_flags: tuple[str, ...] = ("-ffp-contract=off",),
    extra_cuda_flags: tuple[str, ...] = ("--expt-relaxed-constexpr", "--fmad=false"),
    cuda_arch: str | None = None,
) -> GTFNCompiler:
    return GTFNCompiler(config, tuple(extra_compile_flags), tuple(extra_cuda_flags), cuda_arch)


def make_gtfn_passes(
    config: GTFNConfig,
    *,
    cse: bool = True,
    constant_folding: bool = True,
    temporaries: str = "auto",
) -> _pipeline.Passes:
    """The IR passes; ``temporaries``: ``"auto"`` (ADR 0013 heuristic), ``"materialize"`` or
    ``"recompute"`` intermediates (scans called in field operators are always materialized)."""
    return _pipeline.Passes(cse=cse, constant_folding=constant_folding, temporaries=temporaries)


@dataclasses.dataclass(frozen=True)
class CachedTranslation:
    """The translation step behind the persistent ``next/translation`` file cache."""

    translation: Any

    def __call__(
        self, program: ir.Program, table_dtypes: Mapping[str, TableLayout]
    ) -> TranslatedModule:
        from gt4py.infra import caching, fingerprinting as fp

        key = caching.CacheKey(
            {
                "program": ir.program_fingerprint(program),
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
class GTFNPipeline(_pipeline.ArtifactPipeline):
    """``ir_optimized → cpp → so`` (gtfn_gpu: ``→ cu → so``): translation, native build;
    then the load (with cupy's current stream as the last argument on the GPU)."""

    translation: Callable[[ir.Program, Mapping[str, TableLayout]], TranslatedModule]
    build: Callable[[TranslatedModule], str]
    device: Literal["cpu", "gpu", "emulated"] = "cpu"

    @property
    def cached_steps(self) -> bool:  # type: ignore[override]  # a property of the config
        """The native build is always cached; the translation unless configured off."""
        return isinstance(self.translation, CachedTranslation)

    @property
    def steps(self) -> tuple[tuple[Any, _pipeline.Step], ...]:
        source = _pipeline.CPP if self.device == "cpu" else _pipeline.CU
        return ((source, self.translate), (_pipeline.SO, self.compile))

    def translate(self, program: ir.Program, metadata: dict[str, Any]) -> str:
        module = self.translation(program, metadata["table_dtypes"])
        metadata["module"] = module.name
        metadata["openmp"] = module.openmp
        (source,) = module.sources.values()
        return source

    def compile(self, source: str, metadata: dict[str, Any]) -> pathlib.Path:
        name = metadata["module"]
        suffix = "cpp" if self.device == "cpu" else "cu"
        return pathlib.Path(
            self.build(TranslatedModule(name, {f"{name}.{suffix}": source}, metadata["openmp"]))
        )

    def load(self, artifact: _pipeline.Artifact) -> Callable[..., Any]:
        from gt4py.infra import native

        extension = native.load_extension(artifact.values[_pipeline.SO.name])
        run: Callable[..., Any] = extension.run
        if self.device == "emulated":
            return functools.partial(_on_no_stream, run)
        return _on_current_stream(run) if self.device == "gpu" else run

    def array_namespace(self) -> Any:
        """gtfn_gpu: fields in cupy arrays; gtfn_cpu: numpy."""
        return import_cupy() if self.device == "gpu" else super().array_namespace()

    def device_tables(self, tables: list[Any]) -> list[Any]:
        """gtfn_gpu: the table arrays on the GPU (copied once per variant; tables key variants
        by identity); gtfn_cpu: unchanged."""
        if self.device != "gpu":
            return tables
        cupy = require_gpu()
        return [cupy.asarray(t) if i % 2 == 0 else t for i, t in enumerate(tables)]


def _on_no_stream(run: Any, *args: Any) -> Any:
    """An emulated module's ``run``: every launch runs to its end, so the stream is null."""
    return run(*args, 0)


def _on_current_stream(run: Any) -> Any:
    """``run`` with cupy's current stream handle as its last argument."""
    current_stream = import_cupy().cuda.get_current_stream

    def entry(*args: Any) -> Any:
        return run(*args, current_stream().ptr)

    return entry


def make_gtfn_backend(
    config: GTFNConfig | None = None,
    *,
    name: str = "gtfn_cpu",
    passes: Callable[..., Any] = make_gtfn_passes,
    translation: Callable[..., Any] = make_gtfn_translation,
    compiler: Callable[..., Any] = make_gtfn_compiler,
) -> _step_backend.StepBackend:
    """The gtfn backend from its step builders (each called here with ``config``)."""
    config = config if config is not None else GTFNConfig()
    translation_step = translation(config)
    if config.cached_translation:
        translation_step = CachedTranslation(translation_step)
    pipeline = GTFNPipeline(translation_step, compiler(config), config.device)
    return _step_backend.StepBackend(
        name, config=config, optimize=passes(config), compiler=pipeline
    )
