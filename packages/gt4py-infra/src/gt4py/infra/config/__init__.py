"""One typed settings registry for every gt4py package.

Each setting has a name, a type, a default, a doc line and an environment variable
(``GT4PY_*``); released gt4py's variable names are read as deprecated aliases, and those
without an equivalent (``retired()``) fail or warn naming what to use instead. DSL packages
register their own settings here. ``python -m gt4py.infra.config`` lists them all.

``register`` returns the setting's typed handle: read ``config.BUILD_JOBS.get()`` rather than
``config.get("build_jobs")``. The handles of infra's own settings are attributes of this module.
"""

from __future__ import annotations

from typing import Any

from . import _released_variables  # noqa: F401  # registers released cartesian's retired names
from ._cache_root import CacheRootError as CacheRootError, cache_root as cache_root
from ._infra_settings import (
    BUILD_CACHE_DIR as BUILD_CACHE_DIR,
    BUILD_CACHE_LIFETIME as BUILD_CACHE_LIFETIME,
    BUILD_CACHE_OVERLAY as BUILD_CACHE_OVERLAY,
    BUILD_CACHE_SHARED_GROUP as BUILD_CACHE_SHARED_GROUP,
    BUILD_JOBS as BUILD_JOBS,
    BUILD_JOBS_MODE as BUILD_JOBS_MODE,
    BUILD_LOCK_TIMEOUT as BUILD_LOCK_TIMEOUT,
    CACHE_DIAGNOSTICS as CACHE_DIAGNOSTICS,
    CMAKE_BUILD_TYPE as CMAKE_BUILD_TYPE,
    COMPILE_LOG_THRESHOLD_S as COMPILE_LOG_THRESHOLD_S,
    CXX_COMPILER as CXX_COMPILER,
    DEBUG as DEBUG,
    DUMP_STAGES as DUMP_STAGES,
    GPU_BUILD_WITHOUT_DEVICE as GPU_BUILD_WITHOUT_DEVICE,
    NANOBIND_MODE as NANOBIND_MODE,
    NATIVE_HOST_TUNED as NATIVE_HOST_TUNED,
    SESSION_CACHE_DIR as SESSION_CACHE_DIR,
    SPECIAL_FUNCTIONS_SCIPY as SPECIAL_FUNCTIONS_SCIPY,
    TRACEBACK_FILTERING as TRACEBACK_FILTERING,
    available_cpus as available_cpus,
)
from ._registry import REGISTRY as _REGISTRY, Resolved as Resolved, Snapshot as Snapshot
from ._setting import (
    ConfigError as ConfigError,
    LegacyAlias as LegacyAlias,
    RetiredVariable as RetiredVariable,
    Setting as Setting,
    UnknownSettingError as UnknownSettingError,
)


get = _REGISTRY.get
set = _REGISTRY.set  # shadows the builtin on purpose: config.set next to config.get
unset = _REGISTRY.unset
overrides = _REGISTRY.overrides
apply = _REGISTRY.apply
register = _REGISTRY.register
retire = _REGISTRY.retire
retired = _REGISTRY.retired
resolve = _REGISTRY.resolve
names = _REGISTRY.names
setting = _REGISTRY.setting


def snapshot() -> Snapshot:
    """Every setting's current value, picklable, for :func:`apply` in compilation workers.

    With lifetime ``session`` the session directory is created first, so that workers write
    into this process's session cache instead of each making (and deleting) their own.
    """
    if BUILD_CACHE_LIFETIME.get() == "session":
        cache_root()
    return _REGISTRY.snapshot()


def settings() -> list[Resolved]:
    """Every registered setting with its current value and source, sorted by name."""
    return [_REGISTRY.resolve(name) for name in _REGISTRY.names()]


def unknown_environment_variables() -> list[str]:
    """``GT4PY_*`` variables in the environment that no gt4py setting reads (typos?).

    Settings of installed packages not imported yet count as known.
    """
    from ._unknown_variables import unknown_variables

    return unknown_variables(_REGISTRY.known_variables())


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'gt4py.infra.config' has no attribute {name!r}")


__all__ = [
    "BUILD_CACHE_DIR",
    "BUILD_CACHE_LIFETIME",
    "BUILD_CACHE_OVERLAY",
    "BUILD_CACHE_SHARED_GROUP",
    "BUILD_JOBS",
    "BUILD_JOBS_MODE",
    "BUILD_LOCK_TIMEOUT",
    "CACHE_DIAGNOSTICS",
    "CMAKE_BUILD_TYPE",
    "COMPILE_LOG_THRESHOLD_S",
    "SPECIAL_FUNCTIONS_SCIPY",
    "CXX_COMPILER",
    "DEBUG",
    "DUMP_STAGES",
    "GPU_BUILD_WITHOUT_DEVICE",
    "NANOBIND_MODE",
    "NATIVE_HOST_TUNED",
    "SESSION_CACHE_DIR",
    "TRACEBACK_FILTERING",
    "CacheRootError",
    "ConfigError",
    "LegacyAlias",
    "Resolved",
    "RetiredVariable",
    "Setting",
    "Snapshot",
    "UnknownSettingError",
    "apply",
    "available_cpus",
    "cache_root",
    "get",
    "names",
    "overrides",
    "register",
    "resolve",
    "retire",
    "retired",
    "set",
    "setting",
    "settings",
    "snapshot",
    "unknown_environment_variables",
    "unset",
]
