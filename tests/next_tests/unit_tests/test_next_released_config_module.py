"""Released ``gt4py.next.config`` (icon4py's driver assigns ``config.COLLECT_METRICS_LEVEL``).

Each released module variable is a view of a setting of ``gt4py.infra.config``: reading
returns the setting's value, assigning sets it for the process, both warn naming the setting;
released variables without a setting raise naming what to use.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from gt4py.infra import config as infra_config
from gt4py.next import config, metrics


# released variable -> its setting
VIEWS = {
    "DEBUG": "debug",
    "BUILD_CACHE_DIR": "build_cache_dir",
    "BUILD_CACHE_LIFETIME": "build_cache_lifetime",
    "CMAKE_BUILD_TYPE": "cmake_build_type",
    "BUILD_JOBS": "build_jobs",
    "BUILD_JOBS_MODE": "build_jobs_mode",
    "COLLECT_METRICS_LEVEL": "collect_metrics_level",
    "DUMP_METRICS_AT_EXIT": "dump_metrics_at_exit",
    "ENABLE_JIT_DEFAULT": "enable_jit",
}
NO_SETTING = [
    "VERBOSE_EXCEPTIONS",
    "BUILD_CACHE_VERSION_ID",
    "UNSTRUCTURED_HORIZONTAL_HAS_UNIT_STRIDE",
    "ADD_GPU_TRACE_MARKERS",
    "KEEP_DACE_BUILD_FILES",
    "SKIP_DACE_WARNINGS",
]


@pytest.fixture(autouse=True)
def _restore_settings():
    """Assignments set settings for the process: undo them after each test."""
    saved = {s: infra_config.resolve(s) for s in VIEWS.values()}
    yield
    for name, resolved in saved.items():
        if resolved.source == "default" or resolved.source.startswith("env"):
            infra_config.unset(name)
        else:
            infra_config.set(name, resolved.value, source=resolved.source)


def _read(name: str):
    with pytest.warns(DeprecationWarning, match=rf"gt4py\.next\.config\.{name} "):
        return getattr(config, name)


def _assign(name: str, value) -> None:
    with pytest.warns(DeprecationWarning, match=rf"gt4py\.next\.config\.{name} "):
        setattr(config, name, value)


def test_import_does_not_warn():
    subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", "import gt4py.next.config"],
        check=True,
        timeout=120,
    )


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_warning_names_the_setting(name):
    setting = VIEWS[name]
    env = infra_config.setting(setting).env
    with pytest.warns(DeprecationWarning) as record:
        getattr(config, name)
    (warning,) = [w for w in record if issubclass(w.category, DeprecationWarning)]
    text = str(warning.message)
    assert f"gt4py.next.config.{name} is deprecated" in text
    assert f"gt4py.infra.config setting {setting!r}" in text
    assert env in text
    assert warning.filename == __file__  # points at the user's line


def test_reads_follow_the_registry():
    with infra_config.overrides(collect_metrics_level=3, debug=True, build_jobs=5):
        assert _read("COLLECT_METRICS_LEVEL") == 3
        assert _read("DEBUG") is True
        assert _read("BUILD_JOBS") == 5
    with infra_config.overrides(enable_jit=False):
        assert _read("ENABLE_JIT_DEFAULT") is False


def test_enum_valued_variables_read_as_released_enums():
    with infra_config.overrides(
        build_cache_lifetime="session", cmake_build_type="RelWithDebInfo", build_jobs_mode="thread"
    ):
        assert _read("BUILD_CACHE_LIFETIME") is config.BuildCacheLifetime.SESSION
        assert _read("CMAKE_BUILD_TYPE") is config.CMakeBuildType.REL_WITH_DEB_INFO
        assert _read("BUILD_JOBS_MODE") is config.BuildJobsMode.THREAD


def test_assigning_collect_metrics_level_steers_metrics():
    _assign("COLLECT_METRICS_LEVEL", 10)
    assert metrics.level() == 10
    assert infra_config.get("collect_metrics_level") == 10
    assert infra_config.resolve("collect_metrics_level").source == (
        "gt4py.next.config.COLLECT_METRICS_LEVEL"
    )
    _assign("COLLECT_METRICS_LEVEL", 0)
    assert metrics.level() == 0


def test_assigning_released_enums_and_their_spellings():
    _assign("BUILD_JOBS_MODE", config.BuildJobsMode.SERIAL)
    assert infra_config.get("build_jobs_mode") == "serial"
    _assign("CMAKE_BUILD_TYPE", config.CMakeBuildType.DEBUG)
    assert infra_config.get("cmake_build_type") == "Debug"
    _assign("BUILD_CACHE_LIFETIME", config.BuildCacheLifetime.SESSION)
    assert infra_config.get("build_cache_lifetime") == "session"
    _assign("BUILD_CACHE_LIFETIME", "persistent")
    assert infra_config.get("build_cache_lifetime") == "persistent"


def test_assigning_paths_and_flags(tmp_path):
    _assign("DUMP_METRICS_AT_EXIT", str(tmp_path / "m.json"))
    assert infra_config.get("dump_metrics_at_exit") == tmp_path / "m.json"
    assert _read("DUMP_METRICS_AT_EXIT") == str(tmp_path / "m.json")  # released: a str
    _assign("DUMP_METRICS_AT_EXIT", None)
    assert infra_config.get("dump_metrics_at_exit") is None
    _assign("BUILD_CACHE_DIR", tmp_path)
    assert _read("BUILD_CACHE_DIR") == pathlib.Path(tmp_path)
    _assign("ENABLE_JIT_DEFAULT", False)
    assert infra_config.get("enable_jit") is False
    _assign("DEBUG", True)
    assert infra_config.get("debug") is True


def test_bad_values_fail_like_the_registry():
    with pytest.warns(DeprecationWarning), pytest.raises(infra_config.ConfigError):
        config.BUILD_JOBS_MODE = "sometimes"


@pytest.mark.parametrize("name", NO_SETTING)
def test_released_variables_without_a_setting_name_what_to_use(name):
    with pytest.raises(AttributeError, match=f"gt4py.next.config.{name} has no equivalent") as info:
        getattr(config, name)
    assert f"GT4PY_{name}" in str(info.value)
    assert str(info.value).split(": ", 1)[1]  # says what to do instead
    with pytest.raises(AttributeError, match="has no equivalent"):
        setattr(config, name, True)


@pytest.mark.parametrize("name", ["env_flag_to_bool", "env_flag_to_int"])
def test_released_helpers_name_the_registry(name):
    with pytest.raises(AttributeError, match=r"; use gt4py\.infra\.config\.get"):
        getattr(config, name)


def test_unknown_name():
    with pytest.raises(AttributeError, match=r"no attribute 'NOT_A_SETTING'.*gt4py\.infra\.config"):
        config.NOT_A_SETTING  # noqa: B018


def test_dir_lists_the_released_variables():
    assert set(VIEWS) <= set(dir(config))
    assert {"BuildCacheLifetime", "BuildJobsMode", "CMakeBuildType"} <= set(config.__all__)
