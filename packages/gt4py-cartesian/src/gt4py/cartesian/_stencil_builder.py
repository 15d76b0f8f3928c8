"""Building a stencil: key (``_stencil_key``) -> infra's build cache -> on a miss, the
backend's declared stages (``_pipeline``) run in one loop -> the entry's stencil module ->
StencilObject. Every build, hit or miss, is one ``gt4py.compile`` log line.

``StencilObject.stages`` of a stencil built here holds every declared stage; of one loaded
from the cache, the stages its entry records (``stages.json``): ``py`` for numpy and debug,
``cpp``/``cu`` and ``so`` for the native backends. ``frontend``, ``ir`` and ``analysis`` are
not kept in the entry (a hit runs no frontend); ``rebuild=True`` or a cleared cache brings
them back, and ``GT4PY_DUMP_STAGES`` writes them whenever a stencil is built.

``rebuild=True`` regenerates the stencil whatever the cache holds, without touching the cache:
in a private temporary directory (``gt4py-rebuild-<host>-<pid>-*``) that is removed as soon as
the stencil module is loaded. Nothing of it is needed afterwards: the module's code is in
memory (its source stays readable for tracebacks through ``linecache``), a native extension
stays mapped once loaded (POSIX), and the ``so`` stage names the extension in the native-module
cache. A directory left by a process that was killed while rebuilding is removed by the next
rebuild on the same host.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import json
import linecache
import os
import pathlib
import re
import sys
import threading
import time
import types
import zlib
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any

from gt4py.infra import config as infra_config, pipeline
from gt4py.infra.caching import (
    BuildDirCache,
    CacheKey,
    build_label,
    import_generated_module,
)
from gt4py.infra.tracebacks import hide_internal_frames

from . import _backends
from ._backends import MODULE_FILE, Backend, EntryContents
from ._errors import (
    USER_ERRORS,
    BackendNotAvailableError,
    GTScriptDefinitionError,
    StencilNotCachedError,
)
from ._pipeline import BuildRequest, render
from ._stencil_key import stencil_identity
from ._stencil_object import StencilObject


CACHE_NAMESPACE = "cartesian/stencils"
#: Which stages' values an entry holds: ``{stage: [file name, "text" or "path"]}``.
STAGES_FILE = "stages.json"
_cache = BuildDirCache(CACHE_NAMESPACE)
_loaded: dict[str, ModuleType] = {}
_lock = threading.Lock()
_rebuilt_numbers = itertools.count(1)
REBUILD_PREFIX = "gt4py-rebuild-"


def run_stages(
    backend: Backend, request: BuildRequest, durations: dict[str, float] | None = None
) -> dict[str, Any]:
    """Every declared stage's value, each step fed the previous stage's value (and, into
    ``durations``, the seconds each step took)."""
    values: dict[str, Any] = {}
    value: Any = request
    for stage in backend.STAGES:
        start = time.perf_counter()
        value = values[stage.name] = backend.step(stage)(value, request)
        if durations is not None:
            durations[stage.name] = time.perf_counter() - start
    return values


def _dump(backend: Backend, request: BuildRequest, values: Mapping[str, Any]) -> None:
    directory = pipeline.dump_directory()
    if directory is not None:
        # dump() creates the directory; one it cannot write is an error naming the setting.
        target = directory / f"cartesian_{request.name}_{backend.name}"
        pipeline.StageValues(backend.STAGES, values).dump(target, render)


def _publish(contents: EntryContents, values: Mapping[str, Any], directory: pathlib.Path) -> None:
    (directory / MODULE_FILE).write_text(contents.module)
    for file_name, content in contents.files.items():
        if isinstance(content, str):
            (directory / file_name).write_text(content)
        else:
            import shutil  # only a miss publishes: a warm process never imports it

            shutil.copyfile(content, directory / file_name)
    recorded = {
        stage: [file_name, "path" if isinstance(values[stage], pathlib.Path) else "text"]
        for stage, file_name in contents.stage_files.items()
    }
    (directory / STAGES_FILE).write_text(json.dumps(recorded))


def _entry_stages(backend: Backend, entry: pathlib.Path) -> pipeline.StageValues:
    """The stage values a cache entry records (its files, checked with the entry)."""
    recorded = json.loads((entry / STAGES_FILE).read_text())
    values = {
        stage: entry / file_name if kind == "path" else (entry / file_name).read_text()
        for stage, (file_name, kind) in recorded.items()
    }
    return pipeline.StageValues(backend.STAGES, values)


def _built_stages(
    backend: Backend, values: Mapping[str, Any], contents: EntryContents, entry: pathlib.Path
) -> pipeline.StageValues:
    """All stage values of a build, a path stage pointing at its copy in the entry."""
    located = dict(values)
    for stage, file_name in contents.stage_files.items():
        if isinstance(located[stage], pathlib.Path):
            located[stage] = entry / file_name
    return pipeline.StageValues(backend.STAGES, located)


def _require_gpu(backend: str) -> None:
    """Before a GPU build (nvcc takes tens of seconds): cupy and a GPU, unless the
    ``gpu_build_without_device`` setting says to build anyway (a cache on a login node)."""
    from gt4py import storage
    from gt4py.infra import config

    if config.GPU_BUILD_WITHOUT_DEVICE.get():
        return
    try:
        storage.require_gpu(
            f"backend {backend!r}",
            "pip install 'gt4py-cartesian[cuda12]' (or [cuda13]), or the cupy of your CUDA "
            "version; to build without a GPU (into a cache), set "
            "GT4PY_GPU_BUILD_WITHOUT_DEVICE=1",
        )
    except storage.NoGPUError as error:
        raise storage.NoGPUError(
            f"{error}; to build without a GPU (into a cache, e.g. on a login node), set "
            "GT4PY_GPU_BUILD_WITHOUT_DEVICE=1"
        ) from error.__cause__


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
    """Build (or load from the cache) the stencil of ``func`` for ``backend``. The options
    that are settings for this one stencil (released's ``cache_settings=``,
    ``literal_int_precision=``, ``literal_float_precision=``) apply while it is built."""
    started = time.perf_counter()
    with infra_config.overrides(**_stencil_settings(options)):
        prepared = _prepare(
            func,
            backend=backend,
            externals=externals,
            name=name,
            dtypes=dtypes,
            options=options,
            annotation_locals=annotation_locals,
        )
        return _build_prepared(func, prepared, rebuild=rebuild, started=started)


def _stencil_settings(options: Mapping[str, Any]) -> dict[str, Any]:
    settings: dict[str, Any] = {}
    for kind in ("int", "float"):
        precision = options.get(f"literal_{kind}_precision")
        if precision is not None:
            if precision not in (32, 64):
                raise GTScriptDefinitionError(
                    f"literal_{kind}_precision={precision!r}: the bit width of untyped "
                    f"{kind} literals must be 32 or 64"
                )
            settings[f"literal_{kind}_precision"] = int(precision)
    cache_settings = options.get("cache_settings")
    if cache_settings:
        from .config import cache_settings as current

        if not isinstance(cache_settings, Mapping):
            raise GTScriptDefinitionError(
                f"cache_settings must be a dict (root_path, dir_name), got {cache_settings!r}"
            )
        root = cache_settings.get("root_path", current["root_path"])
        dir_name = cache_settings.get("dir_name", current["dir_name"])
        settings["build_cache_dir"] = pathlib.Path(os.fspath(root), os.fspath(dir_name))
    return settings


@dataclasses.dataclass(frozen=True)
class _Prepared:
    """A stencil build checked and keyed, before any work: the backend, the request, its
    identity and the common options (``split_stencil_options``)."""

    backend: Backend
    request: BuildRequest
    identity: Any  # _stencil_key.StencilIdentity
    common: Mapping[str, Any]


def _prepare(
    func: Callable[..., Any],
    *,
    backend: str,
    externals: Mapping[str, Any] | None,
    name: str | None,
    dtypes: Mapping[str, Any] | None,
    options: Mapping[str, Any],
    annotation_locals: Mapping[str, Any] | None,
    **_: Any,
) -> _Prepared:
    if not isinstance(func, types.FunctionType | types.MethodType):
        raise TypeError(f"a stencil definition must be a Python function, got {func!r}")
    backend_obj = _backends.get_backend(backend)
    unavailable = backend_obj.unavailable_reason()
    if unavailable is not None:
        raise BackendNotAvailableError(unavailable)
    own_options, common = split_stencil_options(backend_obj, options)
    request = BuildRequest(
        func=func,
        name=name or func.__name__,
        backend=backend,
        externals=dict(externals or {}),
        dtypes=dict(dtypes or {}),
        annotation_locals=annotation_locals,
        options=own_options,
    )
    identity = stencil_identity(
        func,
        backend=backend,
        externals=request.externals,
        dtypes=request.dtypes,
        name=request.name,
        options=own_options,
        annotation_locals=annotation_locals,
    )
    return _Prepared(backend_obj, request, identity, common)


def _build_prepared(
    func: Callable[..., Any], prepared: _Prepared, *, rebuild: bool, started: float
) -> StencilObject:
    """The stencil of a prepared build: loaded from the cache, or built and published."""
    backend = prepared.request.backend
    if backend in _backends.DEVICE_BACKENDS:
        _require_gpu(backend)
    backend_obj, request, identity, common = (
        prepared.backend,
        prepared.request,
        prepared.identity,
        prepared.common,
    )
    options = request.options
    build_info: dict[str, Any] | None = common.get("build_info")
    built: list[tuple[dict[str, Any], EntryContents]] = []  # empty on a cache hit
    # The label names the stencil in the caches' messages (its C++ build's start, lock waits).
    with (
        pipeline.CompileEvent(what=identity.call, target=backend) as event,
        build_label(f"{identity.call} for {backend}"),
    ):
        durations: dict[str, float] = {}

        def build(directory: pathlib.Path) -> None:
            values = run_stages(backend_obj, request, durations)
            _dump(backend_obj, request, values)
            contents = backend_obj.package(values, request)
            _publish(contents, values, directory)
            built.append((values, contents))

        if rebuild:
            with _rebuild_directory() as entry:
                build(entry)
                event.note(CACHE_NAMESPACE, "bypassed (rebuild=True)")
                module = _import_rebuilt(entry / MODULE_FILE)
        else:
            digest = identity.key.digest
            with _lock:
                loaded = _loaded.get(digest)
            if common.get("raise_if_not_cached") and _cache.get(identity.key) is None:
                raise StencilNotCachedError(
                    f"stencil {identity.call} for {backend} is not in the cache "
                    f"({_cache_root_text()}) and raise_if_not_cached=True"
                )
            entry = _cache.get_or_build(identity.key, build)
            loading = time.perf_counter()
            if loaded is None:
                module = import_generated_module(
                    entry / MODULE_FILE, f"gt4py_cartesian_stencil_{digest}"
                )
                with _lock:
                    _loaded[digest] = module
            else:
                module = loaded
    stages: Callable[[], pipeline.StageValues]
    if built:
        values, contents = built[0]
        fresh = (
            pipeline.StageValues(backend_obj.STAGES, values)  # the entry is gone
            if rebuild
            else _built_stages(backend_obj, values, contents, entry)
        )
        stages = lambda: fresh  # noqa: E731 - as lazy as the entry's
    else:
        stages = functools.partial(_entry_stages, backend_obj, entry)
    if rebuild:
        loading = time.perf_counter()
    stencil_id = identity.key.digest[:10]
    stencil_class = _stencil_class(request.name, backend, stencil_id)
    stencil = stencil_class(
        module,
        module.METADATA,
        source_path=str(entry / MODULE_FILE),
        stages=stages,
        stencil_id=stencil_id,
        cache_key=identity.key.digest,
        options={
            "name": request.name.rpartition(".")[2],
            "module": request.name.rpartition(".")[0] or getattr(func, "__module__", None),
            "backend_opts": dict(options),
            "rebuild": rebuild,
            **{k: v for k, v in common.items() if k != "build_info"},
        },
    )
    stencil.__doc__ = func.__doc__
    if build_info is not None:
        _fill_build_info(build_info, durations, started, loading, backend_obj)
    sys.modules.setdefault(module.__name__, module)
    return stencil


#: Keywords every backend takes (released's build options): not part of the cache key
#: themselves (none changes generated code, or it does so through a keyed setting). ``build_info`` is a dict filled with the build's timings;
#: ``format_source`` is accepted (generated code is always written readable);
#: ``oir_pipeline`` may skip released's optimization passes, none of which this gt4py's
#: generators apply (ADR 0040).
COMMON_OPTIONS = (
    "build_info",
    "format_source",
    "oir_pipeline",
    # settings for this stencil's build (build_stencil applies them; keyed as settings are)
    "cache_settings",
    "literal_int_precision",
    "literal_float_precision",
    # an error instead of a build when the stencil is not in the cache
    "raise_if_not_cached",
)


def split_stencil_options(
    backend: Backend, options: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` as (the backend's own, the common ones), checked: an unknown option is an
    error naming the accepted ones."""
    own = {k: v for k, v in options.items() if k not in COMMON_OPTIONS}
    common = {k: v for k, v in options.items() if k in COMMON_OPTIONS}
    unknown = set(own) - set(backend.options)
    if unknown:
        accepted = sorted({*backend.options, *COMMON_OPTIONS})
        raise GTScriptDefinitionError(
            f"backend {backend.name!r} does not accept option(s) {sorted(unknown)}; "
            f"it accepts {', '.join(accepted)}"
        )
    for name, kind in backend.options.items():
        if name in own and not isinstance(own[name], kind):
            raise GTScriptDefinitionError(
                f"option {name}={own[name]!r} of backend {backend.name!r} must be a {kind.__name__}"
            )
    if "build_info" in common and not isinstance(common["build_info"], dict):
        raise GTScriptDefinitionError(
            f"build_info must be a dict (filled with the build's timings), got "
            f"{type(common['build_info']).__name__}"
        )
    pipeline = common.get("oir_pipeline")
    if pipeline is not None and not _is_released_pipeline(pipeline):
        raise GTScriptDefinitionError(
            "oir_pipeline must be a gt4py.cartesian.gtc.passes.oir_pipeline.DefaultPipeline "
            f"(custom OIR pipelines cannot run here, ADR 0040), got {type(pipeline).__name__}"
        )
    return own, common


def _is_released_pipeline(pipeline: object) -> bool:
    """Whether ``pipeline`` is released's ``DefaultPipeline`` (imported only when one is
    given: a warm decoration without one does not load the pass names)."""
    from ._released_passes import DefaultPipeline

    return isinstance(pipeline, DefaultPipeline)


def _cache_root_text() -> str:
    return str(infra_config.BUILD_CACHE_DIR.get())


def _fill_build_info(
    build_info: dict[str, Any],
    durations: Mapping[str, float],
    started: float,
    loading: float,
    backend: Backend,
) -> None:
    """Released's ``build_info`` keys: seconds spent parsing (frontend to analysis),
    generating code, compiling, loading, and in all (``module_time``); zeros for the steps a
    cache hit skipped."""
    from ._pipeline import ANALYSIS, CPP, CU, FRONTEND, IR, PY, SDFG, SO

    now = time.perf_counter()
    build_info["parse_time"] = sum(durations.get(s.name, 0.0) for s in (FRONTEND, IR, ANALYSIS))
    build_info["codegen_time"] = sum(durations.get(s.name, 0.0) for s in (SDFG, PY, CPP, CU))
    build_info["build_time"] = durations.get(SO.name, 0.0)
    build_info["load_time"] = now - loading
    build_info["module_time"] = now - started
    build_info["cache_hit"] = not durations
    build_info["backend"] = backend.name


_stencil_classes: dict[tuple[str, str, str], type[StencilObject]] = {}


def _stencil_class(name: str, backend: str, stencil_id: str) -> type[StencilObject]:
    """The stencil's own subclass of StencilObject, named after it, its backend and its id
    (as released's stencil classes are): frameworks key timings by ``type(stencil).__name__``."""
    key = (name, backend, stencil_id)
    with _lock:
        cls = _stencil_classes.get(key)
        if cls is None:
            short = re.sub(r"[^A-Za-z0-9_]", "_", name.rpartition(".")[2])
            cls = _stencil_classes[key] = type(
                f"{short}__{re.sub(r'[^A-Za-z0-9_]', '_', backend)}_{stencil_id}",
                (StencilObject,),
                {"__module__": StencilObject.__module__, "__slots__": ()},
            )
    return cls


@contextlib.contextmanager
def _rebuild_directory() -> Iterator[pathlib.Path]:
    """A fresh private directory for a ``rebuild=True`` build, removed afterwards."""
    import shutil
    import tempfile

    owner = f"{REBUILD_PREFIX}{_host_tag()}-"
    _remove_abandoned_rebuilds(owner)
    path = pathlib.Path(tempfile.mkdtemp(prefix=f"{owner}{os.getpid()}-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _import_rebuilt(module_file: pathlib.Path) -> ModuleType:
    source = module_file.read_text()
    module = import_generated_module(
        module_file, f"gt4py_cartesian_stencil_rebuilt_{next(_rebuilt_numbers)}"
    )
    # The file goes with its directory; tracebacks and inspect read the source from here
    # (an entry without a modification time is never invalidated).
    linecache.cache[str(module_file)] = (
        len(source),
        None,
        source.splitlines(True),
        str(module_file),
    )
    return module


def _host_tag() -> str:
    """This host, short (a temporary directory may be shared by hosts, rarely)."""
    import socket

    return f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _remove_abandoned_rebuilds(owner: str) -> None:
    """Remove this host's rebuild directories whose process is no longer running."""
    import shutil
    import tempfile

    try:
        names = [n for n in os.listdir(tempfile.gettempdir()) if n.startswith(owner)]
    except OSError:
        return
    for name in names:
        pid_text = name[len(owner) :].partition("-")[0]
        if not pid_text.isdigit() or _running(int(pid_text)):
            continue
        shutil.rmtree(pathlib.Path(tempfile.gettempdir(), name), ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # someone else's process, or cannot tell
        return True
    return True


def _describe_prepared(
    func: Callable[..., Any], prepared: _Prepared, *, rebuild: bool
) -> StencilObject:
    """The stencil of a prepared build described without building it: its stages up to the
    SDFG (the DaCe backends) or the analysis (the others), nothing compiled. Its metadata,
    ``field_info`` and stages are the built stencil's; it cannot run (``_not_built``).

    The description is a cache entry of its own (the stencil's key and the last stage): a
    new process loads its metadata and SDFG instead of parsing and analysing again."""
    from ._pipeline import ANALYSIS, SDFG, stencil_metadata, with_metadata

    backend, request, identity = prepared.backend, prepared.request, prepared.identity
    last = SDFG if SDFG in backend.STAGES else ANALYSIS
    key = CacheKey({**identity.key.parts, "described_until": last.name})
    made: list[dict[str, Any]] = []  # the stage values, when this process made them

    def describe(directory: pathlib.Path | None) -> None:
        values: dict[str, Any] = {}
        value: Any = request
        for stage in backend.STAGES:
            value = values[stage.name] = backend.step(stage)(value, request)
            if stage == last:
                break
        made.append(values)
        if directory is None:
            return
        code = f'"""GTScript stencil {request.name} described, not built (its stages to {last.name})."""'
        files: dict[str, pathlib.Path | str] = {}
        if last == SDFG:
            sdfg_json = render(SDFG, values[SDFG.name])
            assert isinstance(sdfg_json, str)
            files["stencil.sdfg"] = sdfg_json
        stage_files = {SDFG.name: "stencil.sdfg"} if last == SDFG else {}
        contents = EntryContents(
            with_metadata(code, values[ANALYSIS.name], request.backend), files, stage_files
        )
        _publish(contents, values, directory)

    with build_label(f"the description of {identity.call} for {request.backend}"):
        if rebuild:
            describe(None)
            metadata = stencil_metadata(made[0][ANALYSIS.name], request.backend)
        else:
            entry = _cache.get_or_build(key, describe)
            module = import_generated_module(
                entry / MODULE_FILE, f"gt4py_cartesian_description_{key.digest}"
            )
            metadata = module.METADATA
    stages: Callable[[], pipeline.StageValues]
    if made:
        fresh = pipeline.StageValues(backend.STAGES, made[0])
        stages = lambda: fresh  # noqa: E731
    else:
        stages = functools.partial(_entry_stages, backend, entry)
    stencil_id = identity.key.digest[:10]
    not_built = types.ModuleType(f"gt4py_cartesian_described_{stencil_id}")
    not_built.run = _not_built  # type: ignore[attr-defined]
    stencil = _stencil_class(request.name, request.backend, stencil_id)(
        not_built,
        metadata,
        source_path=func.__code__.co_filename if hasattr(func, "__code__") else "",
        stages=stages,
        stencil_id=stencil_id,
        cache_key=identity.key.digest,
        options={"name": request.name, "backend_opts": dict(request.options)},
    )
    stencil.__doc__ = func.__doc__
    return stencil


def _not_built(*args: Any) -> None:
    raise RuntimeError("internal error: a described stencil was run; build it first")


class LazyStencil:
    """A stencil built on first use (call or ``.implementation``). Until then, what a
    framework asks of it before any call (``field_info``; an orchestrated program's SDFG
    protocol) comes from the built stencil if it is cached, else from its stages up to the
    SDFG run in this process (``_describe_prepared``): a DaCe-orchestrated program compiles
    its stencils' SDFGs itself, so their own native builds would be wasted (NDSL builds every
    stencil of an orchestrated component as a lazy stencil)."""

    def __init__(self, func: Callable[..., Any], **build_args: Any) -> None:
        self.definition = func
        self._build_args = build_args
        self._implementation: StencilObject | None = None
        self._described: StencilObject | None = None
        self.backend = build_args["backend"]

    @property
    def field_info(self) -> Any:
        return self._known().field_info

    def _known(self) -> StencilObject:
        """The built stencil if built or cached (loading it is cheap), else its description."""
        if self._implementation is not None:
            return self._implementation
        if self._described is None:
            args = self._build_args
            try:
                with infra_config.overrides(**_stencil_settings(args["options"])):
                    prepared = _prepare(self.definition, **args)
                    if not args["rebuild"] and _cache.get(prepared.identity.key) is not None:
                        return self.implementation
                    self._described = _describe_prepared(
                        self.definition, prepared, rebuild=args["rebuild"]
                    )
            except USER_ERRORS as error:
                hide_internal_frames(error)
                raise
        return self._described

    def check_syntax(self) -> None:
        """Parse the definition (raising its GTScript errors) unless its stencil is cached."""
        args = self._build_args
        with infra_config.overrides(**_stencil_settings(args["options"])):
            prepared = _prepare(self.definition, **args)
            if args["rebuild"] or _cache.get(prepared.identity.key) is None:
                from ._pipeline import definition_ir, parse_definition

                request = prepared.request
                definition_ir(parse_definition(request, request), request)

    @property
    def implementation(self) -> StencilObject:
        if self._implementation is None:
            try:
                self._implementation = build_stencil(self.definition, **self._build_args)
            except USER_ERRORS as error:  # the user's frames only (ADR 0030)
                hide_internal_frames(error)
                raise
        return self._implementation

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        try:
            self.implementation(*args, **kwargs)
        except USER_ERRORS as error:
            hide_internal_frames(error)
            raise

    @property
    def name(self) -> str:
        return str(self._build_args.get("name") or self.definition.__name__)

    def _lazy_cache_key(self) -> str:
        """The digest of the cache key of the stencil this builds (without building it)."""
        args = self._build_args
        with infra_config.overrides(**_stencil_settings(args["options"])):
            digest: str = _prepare(self.definition, **args).identity.key.digest
        return digest

    # DaCe's SDFG-convertible protocol (ADR 0042): the built or described stencil's.
    def __sdfg__(self, *args: Any, **kwargs: Any) -> Any:
        _require_dace_backend(self)
        return self._known().__sdfg__(*args, **kwargs)

    def __sdfg_signature__(self) -> tuple[list[str], list[str]]:
        _require_dace_backend(self)
        return self._known().__sdfg_signature__()

    def __sdfg_closure__(self, reevaluate: Mapping[str, str] | None = None) -> dict[str, Any]:
        _require_dace_backend(self)
        return self._known().__sdfg_closure__(reevaluate)

    def closure_resolver(
        self, constant_args: Any, given_args: Any, parent_closure: Any = None
    ) -> Any:
        _require_dace_backend(self)
        return self._known().closure_resolver(constant_args, given_args, parent_closure)

    def run(self, *args: Any, **kwargs: Any) -> None:
        try:
            self.implementation.run(*args, **kwargs)
        except USER_ERRORS as error:
            hide_internal_frames(error)
            raise


def _require_dace_backend(stencil: Any) -> None:
    from ._orchestration import require_dace_backend

    require_dace_backend(stencil)
