"""Every set GT4PY_* variable is checked at the first use of the config, whatever is read first;
unknown GT4PY_* names get one warning naming the nearest known name.

Run in fresh interpreters: the check happens once per process (and per newly registered
setting), so the test process itself, whose config is long in use, cannot show it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    environment["GT4PY_BUILD_CACHE_DIR"] = os.environ["GT4PY_BUILD_CACHE_DIR"]
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-W", "always::UserWarning", "-c", code],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


READ_SOMETHING_ELSE = """\
from gt4py.infra import config
try:
    config.get("cache_diagnostics")
except config.ConfigError as error:
    print("ConfigError:", error)
"""


@pytest.mark.parametrize(
    ("variable", "text", "accepted"),
    [
        ("GT4PY_BUILD_JOBS_MODE", "bogus", "process, thread, serial"),
        ("GT4PY_CMAKE_BUILD_TYPE", "bogus", "Release, Debug, RelWithDebInfo, MinSizeRel"),
        ("GT4PY_DEBUG", "2", "1/0, true/false, yes/no, on/off"),
        ("GT4PY_BUILD_JOBS", "abc", "integer >= 1"),
        ("GT4PY_BUILD_JOBS", "0", "minimum 1"),
        ("GT4PY_BUILD_LOCK_TIMEOUT", "soon", "number >= 0"),
    ],
)
def test_a_bad_value_fails_at_the_first_use_of_the_config(variable, text, accepted):
    result = run(READ_SOMETHING_ELSE, **{variable: text})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ConfigError:"), result.stdout
    assert f"{variable}=" in result.stdout and text in result.stdout
    assert accepted in result.stdout


def test_settings_registered_later_are_checked_at_the_next_use():
    code = """\
from gt4py.infra import config
config.get("debug")  # first use: everything registered so far is fine
config.register(config.Setting(
    name="plugin_level", type=int, default=0, doc="a plugin's", env="GT4PY_PLUGIN_LEVEL"
))
try:
    config.get("debug")
except config.ConfigError as error:
    print("ConfigError:", error)
"""
    result = run(code, GT4PY_PLUGIN_LEVEL="high")
    assert "ConfigError: GT4PY_PLUGIN_LEVEL='high'" in result.stdout, result.stderr


def test_good_values_pass_silently():
    result = run(
        READ_SOMETHING_ELSE,
        GT4PY_BUILD_JOBS_MODE="thread",
        GT4PY_DEBUG="1",
        GT4PY_BUILD_JOBS="3",
        GT4PY_ENABLE_JIT="0",  # gt4py.next's, not imported here
    )
    assert result.returncode == 0
    assert result.stdout == ""
    assert "Warning" not in result.stderr, result.stderr


def test_unknown_name_warns_with_the_nearest_known_name():
    result = run(READ_SOMETHING_ELSE, GT4PY_BULD_JOBS="4")
    assert result.stdout == ""
    assert "GT4PY_BULD_JOBS is set but no gt4py setting reads it" in result.stderr
    assert "did you mean GT4PY_BUILD_JOBS?" in result.stderr
    assert result.stderr.count("GT4PY_BULD_JOBS is set") == 1


def test_settings_of_a_package_imported_later_are_not_unknown():
    code = READ_SOMETHING_ELSE + "import gt4py.next\nprint(config.get('enable_jit'))\n"
    result = run(code, GT4PY_ENABLE_JIT="0", GT4PY_ASYNC_COMPILATION="1")
    assert result.stdout.strip() == "False", result.stderr
    assert "no gt4py setting reads" not in result.stderr


def test_a_near_miss_of_a_later_package_setting_is_named():
    result = run(READ_SOMETHING_ELSE, GT4PY_ENABLE_JITT="0")
    assert "did you mean GT4PY_ENABLE_JIT?" in result.stderr, result.stderr
