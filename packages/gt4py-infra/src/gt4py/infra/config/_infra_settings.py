"""The settings gt4py.infra itself owns (both DSL stacks read them)."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ._registry import REGISTRY
from ._setting import LegacyAlias, Setting


_T = TypeVar("_T")


def _declare(
    name: str, type: type[_T], default: _T | Callable[[], _T], doc: str, **options: Any
) -> Setting[_T]:
    """Register infra's setting ``name``; it is read from ``GT4PY_<NAME>`` unless ``env`` says
    otherwise (``options``: the other fields of :class:`Setting`)."""
    options.setdefault("env", f"GT4PY_{name.upper()}")
    return REGISTRY.register(Setting(name=name, type=type, default=default, doc=doc, **options))


def _declare_optional(name: str, type: type[_T], doc: str, **options: Any) -> Setting[_T | None]:
    """``_declare`` for a setting that is unset (``None``) by default, and by the empty string."""
    return _declare(name, type, None, doc, optional=True, **options)


def available_cpus() -> int:
    """CPUs this process may run on (affinity-aware, so containers and ``taskset`` count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _default_cache_dir() -> pathlib.Path:
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = pathlib.Path(xdg) if xdg else pathlib.Path.home() / ".cache"
    return base / "gt4py"


def _legacy_cache_dir(dir_name: str, environ: Mapping[str, str]) -> str:
    # Released cartesian put its cache at $GT_CACHE_ROOT/$GT_CACHE_DIR_NAME (root: cwd).
    return os.path.join(environ.get("GT_CACHE_ROOT", os.getcwd()), dir_name)


BUILD_CACHE_DIR = _declare(
    "build_cache_dir",
    pathlib.Path,
    _default_cache_dir,
    "root directory of every gt4py cache (both stacks)",
    aliases=(
        LegacyAlias("GT_CACHE_DIR_NAME", _legacy_cache_dir),
        LegacyAlias("GT_CACHE_ROOT"),
    ),
)
BUILD_CACHE_LIFETIME = _declare(
    "build_cache_lifetime",
    str,
    "persistent",
    "'persistent': later processes reuse builds; 'session': builds vanish at exit",
    choices=("persistent", "session"),
)
SESSION_CACHE_DIR = _declare_optional(
    "session_cache_dir",
    pathlib.Path,
    "internal: the session-lifetime cache directory, shared with compilation workers",
)
BUILD_CACHE_OVERLAY = _declare_optional(
    "build_cache_overlay",
    pathlib.Path,
    (
        "writable directory for new builds when the cache root is read-only (a cache baked "
        "into a container image, a read-only shared file system); unset: a miss there is "
        "an error"
    ),
)
BUILD_CACHE_SHARED_GROUP = _declare_optional(
    "build_cache_shared_group",
    str,
    (
        "group (name or number) that shares the cache on purpose: new cache directories "
        "and files get mode 2770/0660 and that group, and its members' entries are "
        "trusted; unset: caches are private to their user (0700/0600) and a cache another "
        "user can write is refused"
    ),
)
BUILD_LOCK_TIMEOUT = _declare_optional(
    "build_lock_timeout",
    float,
    (
        "seconds to wait for another process building the same cache entry before failing "
        "with an error naming it (unset: wait as long as it takes)"
    ),
    minimum=0,
)
CACHE_DIAGNOSTICS = _declare(
    "cache_diagnostics", bool, False, "log one line per cache miss saying why it missed"
)
BUILD_JOBS = _declare(
    "build_jobs",
    int,
    available_cpus,
    "number of parallel compilation jobs (default: CPUs in this process's affinity)",
    minimum=1,
    hint=(
        "released gt4py's GT4PY_BUILD_JOBS=0 (compile in the calling thread) is "
        "GT4PY_BUILD_JOBS_MODE=serial"
    ),
)
BUILD_JOBS_MODE = _declare(
    "build_jobs_mode",
    str,
    "process",
    "how compilation jobs run: worker processes, threads, or in the calling thread",
    choices=("process", "thread", "serial"),
)
GPU_BUILD_WITHOUT_DEVICE = _declare(
    "gpu_build_without_device",
    bool,
    False,
    (
        "build for the GPU backends (gt:gpu, cuda, gtfn_gpu) on a machine without a GPU, e.g. "
        "into a cache on a login node; off, they check for cupy and a GPU before compiling"
    ),
)
CMAKE_BUILD_TYPE = _declare(
    "cmake_build_type",
    str,
    "Release",
    (
        "CMake build type of native extensions, both stacks (gtfn_cpu/gtfn_gpu read it when "
        "first used); any case, released gt4py's spellings (debug, rel_with_deb_info) too"
    ),
    choices=("Release", "Debug", "RelWithDebInfo", "MinSizeRel"),
)
NANOBIND_MODE = _declare(
    "nanobind_mode",
    str,
    "auto",
    (
        "how native modules get nanobind's runtime: 'split' from the prebuilt "
        "nanobind-backend package (nothing of nanobind is compiled), 'static' compiled once "
        "per toolchain and linked in, 'auto' split where the backend is installed and the "
        "interpreter supports it"
    ),
    choices=("auto", "split", "static"),
)
CXX_COMPILER = _declare_optional(
    "cxx_compiler",
    str,
    "C++ compiler for native builds (default: $CXX, else the system c++)",
    env="GT4PY_CXX",
)
DUMP_STAGES = _declare_optional(
    "dump_stages",
    pathlib.Path,
    "directory where every compilation stage is written (unset: nothing is written)",
)
DEBUG = _declare(
    "debug", bool, False, "debug mode: keep build sources, add debug info and runtime checks"
)
COMPILE_LOG_THRESHOLD_S = _declare(
    "compile_log_threshold_s",
    float,
    1.0,
    (
        "compiles taking longer (seconds) are logged at WARNING on the 'gt4py.compile' "
        "logger, so they show without any logging set up; faster ones at INFO"
    ),
    minimum=0,
)
SPECIAL_FUNCTIONS_SCIPY = _declare(
    "special_functions_scipy",
    bool,
    True,
    (
        "gamma/erf/erfc on NumPy arrays (embedded gt4py.next, GTScript's numpy backend) use "
        "scipy.special when it is installed (the 'scipy' extras); off: gt4py's own, slower "
        "implementation (ADR 0028)"
    ),
)
NATIVE_HOST_TUNED = _declare(
    "native_host_tuned",
    bool,
    True,
    (
        "tune native builds to the build machine's CPU (-march=native); their cache key "
        "then holds the CPU's identity. 0: portable binaries"
    ),
)


def _on_off(text: str) -> str:
    # the boolean spellings of every other switch (1/0, true/false, yes/no) mean on/off too
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes"):
        return "on"
    if lowered in ("0", "false", "no"):
        return "off"
    return text


TRACEBACK_FILTERING = _declare(
    "traceback_filtering",
    str,
    "on",
    (
        "'on': tracebacks of errors in the user's definitions and calls (DSL errors, bad "
        "arguments, GTScript errors) show the user's frames only, with a note; 'off': "
        "gt4py's internal frames too (gt4py's own bugs are never filtered)"
    ),
    choices=("on", "off"),
    env_text=_on_off,
)
