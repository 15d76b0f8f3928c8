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
import functools
import itertools
import json
import linecache
import os
import pathlib
import shutil
import socket
import sys
import tempfile
import threading
import types
import zlib
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any

from gt4py.infra import pipeline
from gt4py.infra.caching import BuildDirCache, build_label, import_generated_module
from gt4py.infra.tracebacks import hide_internal_frames

from . import _backends
from ._backends import MODULE_FILE, Backend, EntryContents
from ._errors import USER_ERRORS, GTScriptDefinitionError
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


def run_stages(backend: Backend, request: BuildRequest) -> dict[str, Any]:
    """Every declared stage's value, each step fed the previous stage's value."""
    values: dict[str, Any] = {}
    value: Any = request
    for stage in backend.STAGES:
        value = values[stage.name] = backend.step(stage)(value, request)
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


#: The backends that build CUDA for a GPU (gt:gpu_emulated builds it for the host: no GPU).
DEVICE_BACKENDS = ("gt:gpu", "cuda")


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
    if not isinstance(func, types.FunctionType | types.MethodType):
        raise TypeError(f"a stencil definition must be a Python function, got {func!r}")
    backend_obj = _backends.get_backend(backend)
    unknown = set(options) - set(backend_obj.options)
    if unknown:
        raise GTScriptDefinitionError(
            f"backend {backend!r} does not accept option(s) {sorted(unknown)}"
        )
    if backend in DEVICE_BACKENDS:
        _require_gpu(backend)
    request = BuildRequest(
        func=func,
        name=name or func.__name__,
        backend=backend,
        externals=dict(externals or {}),
        dtypes=dict(dtypes or {}),
        annotation_locals=annotation_locals,
    )
    identity = stencil_identity(
        func,
        backend=backend,
        externals=request.externals,
        dtypes=request.dtypes,
        name=request.name,
        options=options,
        annotation_locals=annotation_locals,
    )
    built: list[tuple[dict[str, Any], EntryContents]] = []  # empty on a cache hit
    # The label names the stencil in the caches' messages (its C++ build's start, lock waits).
    with (
        pipeline.CompileEvent(what=identity.call, target=backend) as event,
        build_label(f"{identity.call} for {backend}"),
    ):

        def build(directory: pathlib.Path) -> None:
            values = run_stages(backend_obj, request)
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
            entry = _cache.get_or_build(identity.key, build)
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
    stencil = StencilObject(
        module, module.METADATA, source_path=str(entry / MODULE_FILE), stages=stages
    )
    stencil.__doc__ = func.__doc__
    sys.modules.setdefault(module.__name__, module)
    return stencil


@contextlib.contextmanager
def _rebuild_directory() -> Iterator[pathlib.Path]:
    """A fresh private directory for a ``rebuild=True`` build, removed afterwards."""
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
    return f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _remove_abandoned_rebuilds(owner: str) -> None:
    """Remove this host's rebuild directories whose process is no longer running."""
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

    def run(self, *args: Any, **kwargs: Any) -> None:
        try:
            self.implementation.run(*args, **kwargs)
        except USER_ERRORS as error:
            hide_internal_frames(error)
            raise
