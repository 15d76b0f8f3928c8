"""The settings gt4py.infra itself owns (both DSL stacks read them)."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Mapping

from ._registry import REGISTRY
from ._setting import LegacyAlias, Setting


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


BUILD_CACHE_DIR = REGISTRY.register(
    Setting(
        name="build_cache_dir",
        type=pathlib.Path,
        default=_default_cache_dir,
        doc="root directory of every gt4py cache (both stacks)",
        env="GT4PY_BUILD_CACHE_DIR",
        aliases=(
            LegacyAlias("GT_CACHE_DIR_NAME", _legacy_cache_dir),
            LegacyAlias("GT_CACHE_ROOT"),
        ),
    )
)
BUILD_CACHE_LIFETIME = REGISTRY.register(
    Setting(
        name="build_cache_lifetime",
        type=str,
        default="persistent",
        choices=("persistent", "session"),
        doc="'persistent': later processes reuse builds; 'session': builds vanish at exit",
        env="GT4PY_BUILD_CACHE_LIFETIME",
    )
)
SESSION_CACHE_DIR: Setting[pathlib.Path | None] = REGISTRY.register(
    Setting(
        name="session_cache_dir",
        type=pathlib.Path,
        default=None,
        optional=True,
        doc="internal: the session-lifetime cache directory, shared with compilation workers",
        env="GT4PY_SESSION_CACHE_DIR",
    )
)
BUILD_CACHE_OVERLAY: Setting[pathlib.Path | None] = REGISTRY.register(
    Setting(
        name="build_cache_overlay",
        type=pathlib.Path,
        default=None,
        optional=True,
        doc=(
            "writable directory for new builds when the cache root is read-only (a cache baked "
            "into a container image, a read-only shared file system); unset: a miss there is "
            "an error"
        ),
        env="GT4PY_BUILD_CACHE_OVERLAY",
    )
)
BUILD_CACHE_SHARED_GROUP: Setting[str | None] = REGISTRY.register(
    Setting(
        name="build_cache_shared_group",
        type=str,
        default=None,
        optional=True,
        doc=(
            "group (name or number) that shares the cache on purpose: new cache directories "
            "and files get mode 2770/0660 and that group, and its members' entries are "
            "trusted; unset: caches are private to their user (0700/0600) and a cache another "
            "user can write is refused"
        ),
        env="GT4PY_BUILD_CACHE_SHARED_GROUP",
    )
)
BUILD_LOCK_TIMEOUT: Setting[float | None] = REGISTRY.register(
    Setting(
        name="build_lock_timeout",
        type=float,
        default=None,
        optional=True,
        minimum=0,
        doc=(
            "seconds to wait for another process building the same cache entry before failing "
            "with an error naming it (unset: wait as long as it takes)"
        ),
        env="GT4PY_BUILD_LOCK_TIMEOUT",
    )
)
CACHE_DIAGNOSTICS = REGISTRY.register(
    Setting(
        name="cache_diagnostics",
        type=bool,
        default=False,
        doc="log one line per cache miss saying why it missed",
        env="GT4PY_CACHE_DIAGNOSTICS",
    )
)
BUILD_JOBS = REGISTRY.register(
    Setting(
        name="build_jobs",
        type=int,
        default=available_cpus,
        minimum=1,
        doc="number of parallel compilation jobs (default: CPUs in this process's affinity)",
        env="GT4PY_BUILD_JOBS",
        hint=(
            "released gt4py's GT4PY_BUILD_JOBS=0 (compile in the calling thread) is "
            "GT4PY_BUILD_JOBS_MODE=serial"
        ),
    )
)
BUILD_JOBS_MODE = REGISTRY.register(
    Setting(
        name="build_jobs_mode",
        type=str,
        default="process",
        choices=("process", "thread", "serial"),
        doc="how compilation jobs run: worker processes, threads, or in the calling thread",
        env="GT4PY_BUILD_JOBS_MODE",
    )
)
CMAKE_BUILD_TYPE = REGISTRY.register(
    Setting(
        name="cmake_build_type",
        type=str,
        default="Release",
        choices=("Release", "Debug", "RelWithDebInfo", "MinSizeRel"),
        doc=(
            "CMake build type of native extensions, both stacks (gtfn_cpu/gtfn_gpu read it when "
            "first used); any case, released gt4py's spellings (debug, rel_with_deb_info) too"
        ),
        env="GT4PY_CMAKE_BUILD_TYPE",
    )
)
NANOBIND_MODE = REGISTRY.register(
    Setting(
        name="nanobind_mode",
        type=str,
        default="auto",
        choices=("auto", "split", "static"),
        doc=(
            "how native modules get nanobind's runtime: 'split' from the prebuilt "
            "nanobind-backend package (nothing of nanobind is compiled), 'static' compiled once "
            "per toolchain and linked in, 'auto' split where the backend is installed and the "
            "interpreter supports it"
        ),
        env="GT4PY_NANOBIND_MODE",
    )
)
CXX_COMPILER: Setting[str | None] = REGISTRY.register(
    Setting(
        name="cxx_compiler",
        type=str,
        default=None,
        optional=True,
        doc="C++ compiler for native builds (default: $CXX, else the system c++)",
        env="GT4PY_CXX",
    )
)
DUMP_STAGES: Setting[pathlib.Path | None] = REGISTRY.register(
    Setting(
        name="dump_stages",
        type=pathlib.Path,
        default=None,
        optional=True,
        doc="directory where every compilation stage is written (unset: nothing is written)",
        env="GT4PY_DUMP_STAGES",
    )
)
DEBUG = REGISTRY.register(
    Setting(
        name="debug",
        type=bool,
        default=False,
        doc="debug mode: keep build sources, add debug info and runtime checks",
        env="GT4PY_DEBUG",
    )
)
COMPILE_LOG_THRESHOLD_S = REGISTRY.register(
    Setting(
        name="compile_log_threshold_s",
        type=float,
        default=1.0,
        minimum=0,
        doc=(
            "compiles taking longer (seconds) are logged at WARNING on the 'gt4py.compile' "
            "logger, so they show without any logging set up; faster ones at INFO"
        ),
        env="GT4PY_COMPILE_LOG_THRESHOLD_S",
    )
)
SPECIAL_FUNCTIONS_SCIPY = REGISTRY.register(
    Setting(
        name="special_functions_scipy",
        type=bool,
        default=True,
        doc=(
            "gamma/erf/erfc on NumPy arrays (embedded gt4py.next, GTScript's numpy backend) use "
            "scipy.special when it is installed (the 'scipy' extras); off: gt4py's own, slower "
            "implementation (ADR 0028)"
        ),
        env="GT4PY_SPECIAL_FUNCTIONS_SCIPY",
    )
)
NATIVE_HOST_TUNED = REGISTRY.register(
    Setting(
        name="native_host_tuned",
        type=bool,
        default=True,
        doc=(
            "tune native builds to the build machine's CPU (-march=native); their cache key "
            "then holds the CPU's identity. 0: portable binaries"
        ),
        env="GT4PY_NATIVE_HOST_TUNED",
    )
)


def _on_off(text: str) -> str:
    # the boolean spellings of every other switch (1/0, true/false, yes/no) mean on/off too
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes"):
        return "on"
    if lowered in ("0", "false", "no"):
        return "off"
    return text


TRACEBACK_FILTERING = REGISTRY.register(
    Setting(
        name="traceback_filtering",
        type=str,
        default="on",
        choices=("on", "off"),
        doc=(
            "'on': tracebacks of errors in the user's definitions and calls (DSL errors, bad "
            "arguments, GTScript errors) show the user's frames only, with a note; 'off': "
            "gt4py's internal frames too (gt4py's own bugs are never filtered)"
        ),
        env="GT4PY_TRACEBACK_FILTERING",
        env_text=_on_off,
    )
)
