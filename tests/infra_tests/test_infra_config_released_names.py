"""Released gt4py 1.2.3's environment variables: each one works or fails naming its replacement.

A released name with an equivalent is read as a deprecated alias of its setting (a
``DeprecationWarning`` naming the new variable; the new one wins, with a warning, when both are
set); a released name without one fails the first use of the config naming what to use
instead, or warns where ignoring it cannot change results. gt4py.next's names are tested in
tests/next_tests/unit_tests/backends/test_next_released_settings.py.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import warnings

import pytest

from gt4py.infra import config
from gt4py.infra.config import _released_variables
from gt4py.infra.config._registry import _Registry


REPO = pathlib.Path(__file__).resolve().parents[2]

#: Every environment variable released gt4py 1.2.3 reads (gt4py/next/config.py,
#: gt4py/cartesian/config.py and the modules they feed), and BOOST_ROOT of earlier releases.
RELEASED_NEXT = (
    "GT4PY_DEBUG",
    "GT4PY_VERBOSE_EXCEPTIONS",
    "GT4PY_BUILD_CACHE_DIR",
    "GT4PY_BUILD_CACHE_VERSION_ID",
    "GT4PY_BUILD_CACHE_LIFETIME",
    "GT4PY_CMAKE_BUILD_TYPE",
    "GT4PY_UNSTRUCTURED_HORIZONTAL_HAS_UNIT_STRIDE",
    "GT4PY_ADD_GPU_TRACE_MARKERS",
    "GT4PY_BUILD_JOBS",
    "GT4PY_BUILD_JOBS_MODE",
    "GT4PY_COLLECT_METRICS_LEVEL",
    "GT4PY_DUMP_METRICS_AT_EXIT",
    "GT4PY_KEEP_DACE_BUILD_FILES",
    "GT4PY_SKIP_DACE_WARNINGS",
    "GT4PY_ENABLE_JIT_DEFAULT",
)
RELEASED_CARTESIAN = (
    "GT4PY_COMPILE_OPT_LEVEL",
    "GT4PY_EXTRA_COMPILE_OPT_FLAGS",
    "GT4PY_EXTRA_COMPILE_ARGS",
    "GT4PY_EXTRA_LINK_ARGS",
    "GT4PY_CARTESIAN_ENABLE_OPENMP",
    "GT4PY_CARTESIAN_EXTRA_CUDA_COMPILE_ARGS",
    "GT4PY_LITERAL_INT_PRECISION",
    "GT4PY_LITERAL_FLOAT_PRECISION",
    "GT_CACHE_ROOT",
    "GT_CACHE_DIR_NAME",
    "GT_CACHE_LOAD_RETRIES",
    "GT_CACHE_LOAD_RETRY_DELAY",
    "GT_CPP_TEMPLATE_DEPTH",
    "GT_INCLUDE_PATH",
    "OPENMP_CPPFLAGS",
    "OPENMP_LDFLAGS",
    "CUDA_ARCH",
    "CUDA_HOST_CXX",
    "DACE_DEFAULT_BLOCK_SIZE",
    "CLANG_FORMAT_EXECUTABLE",
)
#: Read by released gt4py too, but general-purpose (other tools read them): never reported,
#: docs/configuration.md says what gt4py does with each.
GENERAL_PURPOSE = (
    "CUDA_HOME",
    "CUDA_PATH",
    "CXX",
    "CXXFLAGS",
    "CUDAARCHS",
    "HIPARCHS",
    "CUDAFLAGS",
    "HIPFLAGS",
    "OMP_NUM_THREADS",
    "CUDA_VISIBLE_DEVICES",
    "BOOST_ROOT",
    "DACE_CONFIG",
)


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for var in list(os.environ):
        if var.startswith(("GT4PY_", "GT_")):
            monkeypatch.delenv(var)
    return monkeypatch


def _fresh(*variables: config.RetiredVariable, settings: tuple = ()) -> _Registry:
    registry = _Registry()
    for setting in settings:
        registry.register(setting)
    registry.retire(*variables)
    return registry


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("GT4PY_", "GT_"))}
    environment["GT4PY_BUILD_CACHE_DIR"] = os.environ["GT4PY_BUILD_CACHE_DIR"]
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-W", "always", "-c", code],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


READ_SOMETHING = """\
from gt4py.infra import config
for attempt in (1, 2):
    try:
        config.get("cache_diagnostics")
        print("read")
    except config.ConfigError as error:
        print("ConfigError:", error)
"""


# -- the alias mechanism ----------------------------------------------------------------------


def _aliased_setting(**extra) -> config.Setting:
    return config.Setting(
        name="level",
        type=int,
        default=0,
        minimum=0,
        doc="a level",
        env="NEW_LEVEL",
        aliases=(config.LegacyAlias("OLD_LEVEL"),),
        **extra,
    )


def test_a_released_name_is_read_with_a_deprecation_warning_naming_the_new(clean_env):
    registry = _fresh(settings=(_aliased_setting(),))
    clean_env.setenv("OLD_LEVEL", "3")
    with pytest.warns(DeprecationWarning, match="OLD_LEVEL is deprecated; use NEW_LEVEL"):
        assert registry.get("level") == 3
    assert registry.resolve("level").source == "env OLD_LEVEL (deprecated alias)"


def test_the_new_name_wins_over_the_released_one_with_a_warning(clean_env):
    registry = _fresh(settings=(_aliased_setting(),))
    clean_env.setenv("OLD_LEVEL", "3")
    clean_env.setenv("NEW_LEVEL", "5")
    with pytest.warns(DeprecationWarning, match="NEW_LEVEL='5' wins, OLD_LEVEL is ignored"):
        assert registry.get("level") == 5
    assert registry.resolve("level").source == "env NEW_LEVEL"


def test_a_bad_value_of_a_released_name_names_the_released_name(clean_env):
    registry = _fresh(settings=(_aliased_setting(),))
    clean_env.setenv("OLD_LEVEL", "high")
    with pytest.raises(config.ConfigError, match="OLD_LEVEL='high' is not a valid integer"):
        registry.get("level")


def test_a_hint_follows_every_bad_value_error(clean_env):
    registry = _fresh(settings=(_aliased_setting(hint="released 0 is now NEW_MODE=off"),))
    clean_env.setenv("NEW_LEVEL", "-1")
    with pytest.raises(config.ConfigError, match=r"too small.*; released 0 is now NEW_MODE=off"):
        registry.get("level")


# -- released names of infra's settings -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("debug", "Debug"),
        ("DEBUG", "Debug"),
        ("Release", "Release"),
        ("release", "Release"),
        ("relwithdebinfo", "RelWithDebInfo"),
        ("REL_WITH_DEB_INFO", "RelWithDebInfo"),
        ("minsizerel", "MinSizeRel"),
        ("MIN_SIZE_REL", "MinSizeRel"),
    ],
)
def test_cmake_build_type_takes_released_spellings(clean_env, text, expected):
    clean_env.setenv("GT4PY_CMAKE_BUILD_TYPE", text)
    assert config.get("cmake_build_type") == expected
    with config.overrides(cmake_build_type=text):
        assert config.get("cmake_build_type") == expected


@pytest.mark.parametrize(
    ("variable", "text", "name", "expected"),
    [
        ("GT4PY_BUILD_CACHE_LIFETIME", "SESSION", "build_cache_lifetime", "session"),
        ("GT4PY_BUILD_CACHE_LIFETIME", "PERSISTENT", "build_cache_lifetime", "persistent"),
        ("GT4PY_BUILD_JOBS_MODE", "PROCESS", "build_jobs_mode", "process"),
        ("GT4PY_BUILD_JOBS_MODE", "Serial", "build_jobs_mode", "serial"),
        ("GT4PY_BUILD_JOBS", "4", "build_jobs", 4),
        ("GT4PY_DEBUG", "on", "debug", True),
        ("GT4PY_DEBUG", "False", "debug", False),
        (
            "GT4PY_BUILD_CACHE_DIR",
            "/tmp/released",
            "build_cache_dir",
            pathlib.Path("/tmp/released"),
        ),
    ],
)
def test_released_variables_of_the_same_name_work(clean_env, variable, text, name, expected):
    clean_env.setenv(variable, text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert config.get(name) == expected
    assert config.resolve(name).source == f"env {variable}"


@pytest.mark.parametrize("text", ["0", "-1"])
def test_released_build_jobs_zero_names_the_serial_mode(clean_env, text):
    clean_env.setenv("GT4PY_BUILD_JOBS", text)
    with pytest.raises(config.ConfigError, match="GT4PY_BUILD_JOBS_MODE=serial"):
        config.get("build_jobs")


def test_gt_cache_root_is_an_alias_of_the_cache_dir(clean_env, tmp_path):
    clean_env.setenv("GT_CACHE_ROOT", str(tmp_path))
    config._REGISTRY._warned.clear()
    with pytest.warns(DeprecationWarning, match="GT_CACHE_ROOT is deprecated; use GT4PY_BUILD"):
        assert config.get("build_cache_dir") == tmp_path


def test_gt_cache_dir_name_is_an_alias_joined_to_the_root(clean_env, tmp_path):
    clean_env.setenv("GT_CACHE_ROOT", str(tmp_path))
    clean_env.setenv("GT_CACHE_DIR_NAME", ".gt_cache")
    config._REGISTRY._warned.clear()
    with pytest.warns(DeprecationWarning, match="GT_CACHE_DIR_NAME is deprecated"):
        assert config.get("build_cache_dir") == tmp_path / ".gt_cache"


def test_gt4py_build_cache_dir_wins_over_gt_cache_root_with_a_warning():
    result = run(
        "from gt4py.infra import config; print(config.get('build_cache_dir'))",
        GT_CACHE_ROOT="/elsewhere",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == os.environ["GT4PY_BUILD_CACHE_DIR"]
    assert (
        "GT4PY_BUILD_CACHE_DIR='" in result.stderr and "GT_CACHE_ROOT is ignored" in result.stderr
    )


# -- released names without an equivalent -----------------------------------------------------


def _bad_text(variable: config.RetiredVariable) -> str:
    return "-O1 -g" if variable.env != "GT4PY_COMPILE_OPT_LEVEL" else "1"


@pytest.mark.parametrize("variable", _released_variables.RELEASED_VARIABLES, ids=lambda v: v.env)
def test_each_retired_released_variable_fails_or_warns_naming_the_replacement(clean_env, variable):
    registry = _fresh(variable)
    text = _bad_text(variable)
    clean_env.setenv(variable.env, text)
    if variable.fatal:
        for _ in range(2):  # it stays an error until it is unset
            with pytest.raises(config.ConfigError) as info:
                registry.get("nothing_registered")
            message = str(info.value)
            assert f"{variable.env}={text!r}" in message
            assert variable.instead in message and "unset it" in message
        clean_env.delenv(variable.env)
        with pytest.raises(config.UnknownSettingError):  # the check passes now
            registry.get("nothing_registered")
    else:
        with pytest.warns(UserWarning, match=re.escape(f"{variable.env} was read by released")):
            registry.check_environment()
        with warnings.catch_warnings():  # once per process
            warnings.simplefilter("error")
            registry.check_environment()


@pytest.mark.parametrize(
    "variable",
    [v for v in _released_variables.RELEASED_VARIABLES if v.same_as_ours],
    ids=lambda v: v.env,
)
def test_a_retired_variable_set_to_what_gt4py_does_anyway_only_warns(clean_env, variable):
    registry = _fresh(variable)
    clean_env.setenv(variable.env, variable.same_as_ours[0])
    with pytest.warns(UserWarning, match=f"{variable.env} was read by released gt4py"):
        registry.check_environment()


def test_a_fatal_released_variable_fails_the_first_use_whatever_is_read():
    result = run(READ_SOMETHING, GT4PY_EXTRA_COMPILE_ARGS="-fno-fast-math")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("ConfigError:") for line in lines)
    assert "GT4PY_EXTRA_COMPILE_ARGS='-fno-fast-math'" in lines[0] and "CXXFLAGS" in lines[0]


def test_the_settings_listing_reports_a_fatal_released_variable():
    result = subprocess.run(
        [sys.executable, "-m", "gt4py.infra.config"],
        env={**os.environ, "GT4PY_EXTRA_COMPILE_ARGS": "-O2"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "GT4PY_EXTRA_COMPILE_ARGS='-O2'" in result.stderr and "CXXFLAGS" in result.stderr


def test_the_settings_listing_warns_about_an_ignored_released_variable():
    result = subprocess.run(
        [sys.executable, "-m", "gt4py.infra.config"],
        env={**os.environ, "GT_INCLUDE_PATH": "/opt/gridtools/include"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("GT_INCLUDE_PATH was read by released gt4py") == 1, result.stderr


def test_a_harmless_released_variable_warns_once_and_is_not_unknown():
    result = run(READ_SOMETHING, GT_CACHE_LOAD_RETRIES="5")
    assert result.stdout.splitlines() == ["read", "read"], result.stderr
    assert result.stderr.count("GT_CACHE_LOAD_RETRIES was read by released gt4py") == 1
    assert "GT4PY_BUILD_LOCK_TIMEOUT" in result.stderr
    assert "no gt4py setting reads" not in result.stderr


def test_general_purpose_variables_are_never_reported():
    result = run(READ_SOMETHING, **dict.fromkeys(GENERAL_PURPOSE, "1"))
    assert result.stdout.splitlines() == ["read", "read"], result.stderr
    assert "Warning" not in result.stderr, result.stderr


def test_released_next_names_are_not_unknown_before_gt4py_next_is_imported():
    env = {"GT4PY_ENABLE_JIT_DEFAULT": "0", "GT4PY_VERBOSE_EXCEPTIONS": "1"}
    result = run(READ_SOMETHING + "import sys; print('gt4py.next' in sys.modules)\n", **env)
    assert result.stdout.splitlines() == ["read", "read", "False"], result.stderr
    assert "no gt4py setting reads" not in result.stderr, result.stderr


# -- every released variable is accounted for, here and in the docs ------------------------------


def _outcomes() -> dict[str, str]:
    import gt4py.cartesian._literal_precision  # gt4py.cartesian's names
    import gt4py.next.backends._settings  # noqa: F401  # gt4py.next's names

    outcomes: dict[str, str] = {}
    for name in config.names():
        setting = config.setting(name)
        outcomes[setting.env] = "setting"
        for alias in setting.aliases:
            outcomes[alias.env] = "alias"
    for variable in config.retired():
        outcomes[variable.env] = "error" if variable.fatal else "warning"
    return outcomes


@pytest.mark.parametrize("variable", RELEASED_NEXT + RELEASED_CARTESIAN)
def test_every_released_variable_is_a_setting_an_alias_or_retired(variable):
    assert variable in _outcomes()


def test_the_docs_table_lists_every_released_variable_with_its_outcome():
    page = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    rows = dict(
        re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \| [^|]+ \| \*\*([a-z ]+)\*\*", page, re.MULTILINE)
    )
    missing = set(RELEASED_NEXT + RELEASED_CARTESIAN + GENERAL_PURPOSE) - set(rows)
    assert not missing, f"docs/configuration.md has no row for {sorted(missing)}"
    expected = {"setting": "works", "alias": "alias", "error": "error", "warning": "warning"}
    outcomes = _outcomes()
    wrong = {
        name: (rows[name], outcomes[name])
        for name in RELEASED_NEXT + RELEASED_CARTESIAN
        if rows[name] != expected[outcomes[name]]
    }
    assert not wrong, f"docs/configuration.md gives other outcomes: {wrong}"
    assert all(rows[name] in ("as before", "not read") for name in GENERAL_PURPOSE)


@pytest.mark.parametrize("text", ["False", "0", "off"])
def test_disabling_cartesian_openmp_fails_naming_the_replacement(text):
    """Issue 44: GT4PY_CARTESIAN_ENABLE_OPENMP=False was ignored with a warning, and the
    builds used OpenMP anyway."""
    result = run(READ_SOMETHING, GT4PY_CARTESIAN_ENABLE_OPENMP=text)
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("ConfigError:"), result.stdout
    assert f"GT4PY_CARTESIAN_ENABLE_OPENMP={text!r}" in first and "OMP_NUM_THREADS=1" in first


def test_enabling_cartesian_openmp_only_warns():
    result = run(READ_SOMETHING, GT4PY_CARTESIAN_ENABLE_OPENMP="True")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["read", "read"]
    assert "GT4PY_CARTESIAN_ENABLE_OPENMP was read by released gt4py" in result.stderr
