"""Typed setting handles: ``config.register`` returns the handle a module reads its setting by."""

from __future__ import annotations

import pathlib

import pytest

from gt4py.infra import config


def test_infra_handles_read_what_config_get_reads():
    for name in config.names():
        handle = config.setting(name)
        assert handle.get() == config.get(name)
    assert config.BUILD_JOBS is config.setting("build_jobs")
    assert config.DUMP_STAGES is config.setting("dump_stages")


def test_a_handle_follows_set_overrides_and_the_environment(monkeypatch):
    monkeypatch.delenv("GT4PY_BUILD_JOBS", raising=False)
    default = config.BUILD_JOBS.get()
    monkeypatch.setenv("GT4PY_BUILD_JOBS", "3")
    assert config.BUILD_JOBS.get() == 3 == config.get("build_jobs")
    with config.overrides(build_jobs=5):
        assert config.BUILD_JOBS.get() == 5
    assert config.BUILD_JOBS.get() == 3
    config.BUILD_JOBS.set(7)
    try:
        assert config.get("build_jobs") == 7  # set through the handle, seen by name
        assert config.BUILD_JOBS.resolve().source == "set by code"
    finally:
        config.unset("build_jobs")
    monkeypatch.delenv("GT4PY_BUILD_JOBS")
    assert config.BUILD_JOBS.get() == default


def test_a_handle_validates_what_it_is_set_to():
    with pytest.raises(config.ConfigError, match="build_jobs"):
        config.BUILD_JOBS.set(0)
    assert config.resolve("build_jobs").source != "set by code"


def test_a_registered_setting_is_its_handle(monkeypatch):
    setting = config.Setting(
        name="handle_test_path",
        type=pathlib.Path,
        default=None,
        optional=True,
        doc="a setting of this test",
        env="GT4PY_HANDLE_TEST_PATH",
    )
    handle = config.register(setting)
    assert handle is setting
    # A module imported twice registers an equal setting again: it gets the same handle.
    again = config.register(
        config.Setting(
            name="handle_test_path",
            type=pathlib.Path,
            default=None,
            optional=True,
            doc="a setting of this test",
            env="GT4PY_HANDLE_TEST_PATH",
        )
    )
    assert again is handle
    assert handle.get() is None
    monkeypatch.setenv("GT4PY_HANDLE_TEST_PATH", "/tmp/x")
    assert handle.get() == pathlib.Path("/tmp/x") == config.get("handle_test_path")


def test_an_unregistered_setting_is_no_handle():
    stray = config.Setting(name="never_registered", type=int, default=1, doc="", env="GT4PY_X")
    with pytest.raises(config.UnknownSettingError, match=r"never_registered.*not registered"):
        stray.get()
    with pytest.raises(config.UnknownSettingError):
        stray.set(2)
    with pytest.raises(config.UnknownSettingError):
        stray.resolve()


def test_a_look_alike_of_a_registered_setting_is_no_handle():
    # Same name, other definition: it must not read (or set) the registered setting's value.
    look_alike = config.Setting(
        name="build_jobs", type=int, default=99, doc="not the real one", env="GT4PY_BUILD_JOBS"
    )
    with pytest.raises(config.UnknownSettingError, match="build_jobs"):
        look_alike.get()
