"""Released gt4py.next's ``config`` module, read and written through the settings registry.

Released gt4py.next kept its settings as variables of this module (``config.DEBUG``,
``config.COLLECT_METRICS_LEVEL = 10``, as icon4py's driver does). Here there is one registry,
:mod:`gt4py.infra.config`; each released variable is a view of its setting:

- reading ``config.NAME`` returns the setting's current value (set by code, environment or
  default), in released gt4py's form (the enums below for lifetime, build type, jobs mode);
- assigning ``config.NAME = value`` sets the setting for this process
  (``gt4py.infra.config.set``), so the backends, compilation workers and metrics follow;
- both warn (``DeprecationWarning``) naming the setting in ``gt4py.infra.config``;
- a released variable with no equivalent raises ``AttributeError`` naming what to use.
"""

from __future__ import annotations

import dataclasses
import enum
import pathlib
import sys
import types
import warnings
from collections.abc import Callable
from typing import Any, Final

from gt4py.infra import config as _config
from gt4py.infra.deprecation import GT4PyDeprecationWarning

from ._relocated import Gone


class BuildCacheLifetime(enum.Enum):
    """Released ``BUILD_CACHE_LIFETIME`` values (the setting's ``session`` / ``persistent``)."""

    SESSION = 1
    PERSISTENT = 2


class CMakeBuildType(enum.Enum):
    """Released ``CMAKE_BUILD_TYPE`` values; each value is the setting's spelling."""

    DEBUG = "Debug"
    RELEASE = "Release"
    REL_WITH_DEB_INFO = "RelWithDebInfo"
    MIN_SIZE_REL = "MinSizeRel"


class BuildJobsMode(enum.Enum):
    """Released ``BUILD_JOBS_MODE`` values; each value is the setting's spelling."""

    SERIAL = "serial"
    THREAD = "thread"
    PROCESS = "process"


def _same(value: Any) -> Any:
    return value


def _enum_to_setting(value: Any) -> Any:
    """An enum member as the setting's text (lifetime: its name); other values unchanged."""
    if isinstance(value, BuildCacheLifetime):
        return value.name.lower()
    if isinstance(value, enum.Enum):
        return value.value
    return value


def _optional_path(value: Any) -> Any:
    return None if value is None or value == "" else pathlib.Path(value)


@dataclasses.dataclass(frozen=True)
class _View:
    """A released variable as a view of the setting ``setting``."""

    setting: str
    #: the setting's value in released gt4py's form
    to_released: Callable[[Any], Any] = _same
    #: an assigned value (released form or the setting's) as the setting's value
    from_released: Callable[[Any], Any] = _same

    def warning(self, name: str) -> str:
        env = _config.setting(self.setting).env
        return (
            f"gt4py.next.config.{name} is deprecated: it is the gt4py.infra.config setting "
            f"{self.setting!r} (config.get({self.setting!r}), config.set({self.setting!r}, "
            f"value), environment variable {env})"
        )


_VIEWS: Final[dict[str, _View]] = {
    "DEBUG": _View("debug"),
    "BUILD_CACHE_DIR": _View("build_cache_dir"),
    "BUILD_CACHE_LIFETIME": _View(
        "build_cache_lifetime", lambda v: BuildCacheLifetime[v.upper()], _enum_to_setting
    ),
    "CMAKE_BUILD_TYPE": _View("cmake_build_type", CMakeBuildType, _enum_to_setting),
    "BUILD_JOBS": _View("build_jobs"),
    "BUILD_JOBS_MODE": _View("build_jobs_mode", BuildJobsMode, _enum_to_setting),
    "COLLECT_METRICS_LEVEL": _View("collect_metrics_level"),
    # released: a file name (str) or None
    "DUMP_METRICS_AT_EXIT": _View(
        "dump_metrics_at_exit", lambda v: None if v is None else str(v), _optional_path
    ),
    "ENABLE_JIT_DEFAULT": _View("enable_jit"),
}

#: Released variables without a setting: what they did and what to use (when the registry has
#: no retired entry for their environment variable, which says it in its own words).
_NO_SETTING: Final[dict[str, str]] = {
    "VERBOSE_EXCEPTIONS": "DSL errors have one format, with the source location of the user's code",
    "BUILD_CACHE_VERSION_ID": (
        "cache keys hold the versions of what built an entry; "
        "`python -m gt4py.infra.cache clean` empties the cache"
    ),
    "UNSTRUCTURED_HORIZONTAL_HAS_UNIT_STRIDE": "gtfn uses the strides of the fields it is called with",
    "ADD_GPU_TRACE_MARKERS": "no markers are generated; COLLECT_METRICS_LEVEL times every program",
    "KEEP_DACE_BUILD_FILES": "there is no dace backend (GT4PY_DUMP_STAGES writes every stage)",
    "SKIP_DACE_WARNINGS": "there is no dace backend",
}

_HELPERS: Final[dict[str, Gone]] = {
    name: Gone(
        "gt4py.infra.config.get(name): every setting parses its own GT4PY_* variable",
        "released gt4py's environment parsing helper is not part of this implementation",
    )
    for name in ("env_flag_to_bool", "env_flag_to_int")
}


def _no_setting_error(name: str) -> AttributeError:
    env = f"GT4PY_{name}"
    instead = next(
        (r.instead for r in _config.retired() if r.env == env), _NO_SETTING.get(name, "")
    )
    return AttributeError(
        f"gt4py.next.config.{name} has no equivalent here (no gt4py.infra.config setting "
        f"reads {env}): {instead}"
    )


def _missing(name: str) -> AttributeError:
    helper = _HELPERS.get(name)
    if helper is not None:
        return AttributeError(helper.message(f"gt4py.next.config.{name}"))
    if name in _NO_SETTING:
        return _no_setting_error(name)
    return AttributeError(
        f"module 'gt4py.next.config' has no attribute {name!r} "
        "(settings are in gt4py.infra.config: `python -m gt4py.infra.config` lists them)"
    )


def __getattr__(name: str) -> Any:
    view = _VIEWS.get(name)
    if view is None:
        raise _missing(name)
    warnings.warn(view.warning(name), GT4PyDeprecationWarning, stacklevel=2)
    return view.to_released(_config.get(view.setting))


class _ReleasedConfigModule(types.ModuleType):
    """This module's class: assigning a released variable sets its setting."""

    def __setattr__(self, name: str, value: Any) -> None:
        view = _VIEWS.get(name)
        if view is not None:
            warnings.warn(view.warning(name), GT4PyDeprecationWarning, stacklevel=2)
            _config.set(view.setting, view.from_released(value), source=f"gt4py.next.config.{name}")
            return
        if name in _NO_SETTING:
            raise _no_setting_error(name)
        super().__setattr__(name, value)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *_VIEWS})


sys.modules[__name__].__class__ = _ReleasedConfigModule

__all__ = ["BuildCacheLifetime", "BuildJobsMode", "CMakeBuildType"]
