from __future__ import annotations

import os
import pathlib
import pickle
import subprocess
import sys

import pytest

from gt4py.infra import config


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for var in list(os.environ):
        if var.startswith(("GT4PY_", "GT_CACHE")):
            monkeypatch.delenv(var)
    return monkeypatch


@pytest.mark.parametrize(
    ("variable", "text", "name", "expected"),
    [
        ("GT4PY_BUILD_JOBS", "7", "build_jobs", 7),
        ("GT4PY_BUILD_JOBS", " 3 ", "build_jobs", 3),
        ("GT4PY_CACHE_DIAGNOSTICS", "1", "cache_diagnostics", True),
        ("GT4PY_CACHE_DIAGNOSTICS", "yes", "cache_diagnostics", True),
        ("GT4PY_CACHE_DIAGNOSTICS", "Off", "cache_diagnostics", False),
        ("GT4PY_BUILD_JOBS_MODE", "thread", "build_jobs_mode", "thread"),
        ("GT4PY_BUILD_CACHE_LIFETIME", "session", "build_cache_lifetime", "session"),
        ("GT4PY_CXX", "clang++", "cxx_compiler", "clang++"),
        ("GT4PY_CXX", "", "cxx_compiler", None),
        (
            "GT4PY_BUILD_CACHE_DIR",
            "/tmp/somewhere",
            "build_cache_dir",
            pathlib.Path("/tmp/somewhere"),
        ),
    ],
)
def test_env_parsing_per_type(clean_env, variable, text, name, expected):
    clean_env.setenv(variable, text)
    assert config.get(name) == expected
    assert config.resolve(name).source == f"env {variable}"


def test_path_expands_user(clean_env):
    clean_env.setenv("GT4PY_BUILD_CACHE_DIR", "~/x")
    assert config.get("build_cache_dir") == pathlib.Path.home() / "x"


def test_env_changes_are_seen(clean_env):
    clean_env.setenv("GT4PY_BUILD_JOBS", "2")
    assert config.get("build_jobs") == 2
    clean_env.setenv("GT4PY_BUILD_JOBS", "5")
    assert config.get("build_jobs") == 5
    clean_env.delenv("GT4PY_BUILD_JOBS")
    assert config.resolve("build_jobs").source == "default"
    assert config.get("build_jobs") == config.available_cpus()


@pytest.mark.parametrize(
    ("variable", "text", "fragment"),
    [
        ("GT4PY_BUILD_JOBS", "many", "GT4PY_BUILD_JOBS='many' is not a valid int"),
        ("GT4PY_BUILD_JOBS", "0", "GT4PY_BUILD_JOBS=0 is too small"),
        (
            "GT4PY_CACHE_DIAGNOSTICS",
            "maybe",
            "GT4PY_CACHE_DIAGNOSTICS='maybe' is not a valid boolean",
        ),
        ("GT4PY_BUILD_JOBS_MODE", "fork", "choose one of: process, thread, serial"),
        ("GT4PY_BUILD_CACHE_LIFETIME", "forever", "GT4PY_BUILD_CACHE_LIFETIME"),
    ],
)
def test_bad_value_names_the_variable(clean_env, variable, text, fragment):
    clean_env.setenv(variable, text)
    setting_name = next(n for n in config.names() if config.setting(n).env == variable)
    with pytest.raises(config.ConfigError) as info:
        config.get(setting_name)
    assert fragment in str(info.value)


def test_unknown_setting_suggests(clean_env):
    with pytest.raises(config.UnknownSettingError, match="did you mean 'build_jobs'"):
        config.get("build_job")
    with pytest.raises(KeyError):
        config.get("nothing_like_this")


def test_set_validates_type():
    with pytest.raises(config.ConfigError, match="must be a int"):
        config.set("build_jobs", "4")
    with pytest.raises(config.ConfigError, match="choose one of"):
        config.set("build_jobs_mode", "fork")


def test_legacy_alias_warns(clean_env, tmp_path):
    clean_env.setenv("GT_CACHE_ROOT", str(tmp_path))
    with pytest.warns(
        DeprecationWarning, match="GT_CACHE_ROOT is deprecated; use GT4PY_BUILD_CACHE_DIR"
    ):
        config._REGISTRY._warned.clear()
        assert config.get("build_cache_dir") == tmp_path
    assert "deprecated alias" in config.resolve("build_cache_dir").source


def test_legacy_dir_name_joins_root(clean_env, tmp_path):
    clean_env.setenv("GT_CACHE_ROOT", str(tmp_path))
    clean_env.setenv("GT_CACHE_DIR_NAME", ".gt_cache_0001")
    config._REGISTRY._warned.clear()
    with pytest.warns(DeprecationWarning, match="GT_CACHE_DIR_NAME"):
        assert config.get("build_cache_dir") == tmp_path / ".gt_cache_0001"


def test_new_name_beats_alias(clean_env, tmp_path):
    clean_env.setenv("GT_CACHE_ROOT", "/elsewhere")
    clean_env.setenv("GT4PY_BUILD_CACHE_DIR", str(tmp_path))
    # the environment is checked once per process: a fresh one sees the warning
    code = "from gt4py.infra import config; print(config.get('build_cache_dir'))"
    result = subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ),
    )
    assert result.stdout.strip() == str(tmp_path)
    assert "GT4PY_BUILD_CACHE_DIR" in result.stderr and "wins" in result.stderr


def test_overrides_restore_and_beat_env(clean_env):
    clean_env.setenv("GT4PY_BUILD_JOBS", "3")
    with config.overrides(build_jobs=9):
        assert config.get("build_jobs") == 9
        assert config.resolve("build_jobs").source == "overrides()"
        with config.overrides(build_jobs=1):
            assert config.get("build_jobs") == 1
        assert config.get("build_jobs") == 9
    assert config.get("build_jobs") == 3


def test_overrides_validate_everything_first():
    before = config.get("build_jobs")
    with pytest.raises(config.ConfigError), config.overrides(build_jobs=5, build_jobs_mode="fork"):
        pass
    assert config.get("build_jobs") == before


def test_snapshot_pickles_and_applies_in_subprocess(tmp_path):
    with config.overrides(build_jobs=13, cache_diagnostics=True, build_cache_dir=tmp_path):
        snap = config.snapshot()
    data = pickle.dumps(snap)
    code = (
        "import pickle, sys\n"
        "from gt4py.infra import config\n"
        "config.apply(pickle.loads(sys.stdin.buffer.read()))\n"
        "print(config.get('build_jobs'), config.get('cache_diagnostics'), config.get('build_cache_dir'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], input=data, capture_output=True, check=True
    ).stdout.decode()
    assert out.split() == ["13", "True", str(tmp_path)]


def test_snapshot_keeps_values_of_settings_registered_later():
    snap = config.Snapshot({"not_yet_registered_xyz": 4})
    config.apply(snap)
    try:
        config.register(
            config.Setting(
                name="not_yet_registered_xyz", type=int, default=1, doc="d", env="GT4PY_XYZ"
            )
        )
        assert config.get("not_yet_registered_xyz") == 4
        assert config.resolve("not_yet_registered_xyz").source == "snapshot"
    finally:
        config.unset("not_yet_registered_xyz")


def test_setting_definition_errors():
    with pytest.raises(TypeError, match="unsupported type"):
        config.Setting(name="x", type=list, default=[], doc="d", env="GT4PY_X")
    with pytest.raises(config.ConfigError, match="already registered"):
        config.register(
            config.Setting(name="build_jobs", type=int, default=99, doc="other", env="GT4PY_J")
        )


def test_cache_root_persistent(cache_dir):
    assert config.cache_root() == cache_dir
    assert cache_dir.is_dir()


def test_cache_root_unwritable_is_clear(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with (
        config.overrides(build_cache_dir=blocker / "cache"),
        pytest.raises(config.CacheRootError, match="GT4PY_BUILD_CACHE_DIR") as info,
    ):
        config.cache_root()
    assert str(blocker / "cache") in str(info.value)


def test_session_lifetime_dir_removed_at_exit(tmp_path):
    code = (
        "from gt4py.infra import config\n"
        "root = config.cache_root()\n"
        "(root / 'x').write_text('1')\n"
        "assert config.cache_root() == root\n"
        "print(root)\n"
    )
    env = dict(os.environ, GT4PY_BUILD_CACHE_LIFETIME="session")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, check=True, text=True
    )
    root = pathlib.Path(out.stdout.strip())
    assert root.name.startswith("gt4py-session-")
    assert not root.exists()


def test_cli_lists_settings_with_source(tmp_path):
    env = dict(os.environ, GT4PY_BUILD_JOBS="4", GT4PY_TYPO_SETTING="1")
    out = subprocess.run(
        [sys.executable, "-m", "gt4py.infra.config"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(li for li in out.stdout.splitlines() if li.startswith("build_jobs "))
    assert "4" in line and "[env GT4PY_BUILD_JOBS]" in line
    assert "GT4PY_TYPO_SETTING is set but no gt4py setting reads it" in out.stderr


def test_cli_reports_bad_value(tmp_path):
    env = dict(os.environ, GT4PY_BUILD_JOBS="lots")
    out = subprocess.run(
        [sys.executable, "-m", "gt4py.infra.config"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1
    assert "GT4PY_BUILD_JOBS='lots'" in out.stderr


def test_session_snapshot_shares_the_session_dir(tmp_path):
    code = (
        "import pickle, subprocess, sys\n"
        "from gt4py.infra import config\n"
        "snap = config.snapshot()\n"
        "child = 'import pickle,sys; from gt4py.infra import config; "
        "config.apply(pickle.loads(sys.stdin.buffer.read())); print(config.cache_root())'\n"
        "out = subprocess.run([sys.executable, '-c', child], input=pickle.dumps(snap),"
        " capture_output=True, check=True).stdout.decode().strip()\n"
        "assert out == str(config.cache_root()), (out, config.cache_root())\n"
        "print(out)\n"
    )
    env = dict(os.environ, GT4PY_BUILD_CACHE_LIFETIME="session")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert pathlib.Path(out.stdout.strip()).name.startswith("gt4py-session-")
