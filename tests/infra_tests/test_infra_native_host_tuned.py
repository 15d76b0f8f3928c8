"""Host-tuned native builds (ADR 0023): the ``native_host_tuned`` setting, flags and keys."""

from __future__ import annotations

import pathlib
import shutil
import stat

import pytest

from gt4py.infra import caching, config, native
from gt4py.infra.native import _build, _host, _module_build, _tools
from gt4py.infra.native._toolchain import OBJECTS_SLOT, OUTPUT_SLOT, Toolchain


SOURCE = {"m.cpp": "#include <nanobind/nanobind.h>\nNB_MODULE(m, m) {}\n"}


@pytest.fixture
def no_setting_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GT4PY_NATIVE_HOST_TUNED", raising=False)


def test_the_setting_is_the_default(no_setting_in_env, monkeypatch):
    assert config.get("native_host_tuned") is True
    assert native.BuildOptions().host_tuned is None
    assert native.BuildOptions().resolved().host_tuned is True
    with config.overrides(native_host_tuned=False):
        assert native.BuildOptions().resolved().host_tuned is False
        assert native.BuildOptions(host_tuned=True).resolved().host_tuned is True
    monkeypatch.setenv("GT4PY_NATIVE_HOST_TUNED", "0")
    assert native.BuildOptions().resolved().host_tuned is False


def test_host_tuned_must_be_a_bool_or_none():
    with pytest.raises(TypeError, match="host_tuned"):
        native.BuildOptions(host_tuned="yes")  # type: ignore[arg-type]


def build_keys(monkeypatch, *options: native.BuildOptions) -> list[caching.CacheKey]:
    """The cache key each build would have, stopping before anything is compiled."""
    seen: list[caching.CacheKey] = []

    class Recorder:
        def __init__(self, namespace: str) -> None:
            pass

        def get(self, key: caching.CacheKey) -> None:
            return None

        def get_or_build(self, key: caching.CacheKey, build: object) -> None:
            seen.append(key)
            raise RuntimeError("stop here")

    monkeypatch.setattr(_build.caching, "BuildDirCache", Recorder)
    for option in options:
        with pytest.raises(RuntimeError, match="stop here"):
            _build.build_extension("m", SOURCE, option)
    return seen


def test_tuned_and_portable_builds_have_different_keys(no_setting_in_env, monkeypatch):
    tuned, portable, by_setting = build_keys(
        monkeypatch,
        native.BuildOptions(host_tuned=True),
        native.BuildOptions(host_tuned=False),
        native.BuildOptions(),
    )
    assert tuned.digest != portable.digest
    assert tuned.parts["host_cpu"] != "any"  # a shared cache finds it only on this CPU
    assert portable.parts["host_cpu"] == "any"
    assert by_setting == tuned  # the setting (default: tuned) decided
    with config.overrides(native_host_tuned=False):
        [by_setting] = build_keys(monkeypatch, native.BuildOptions())
    assert by_setting == portable


def test_another_cpu_does_not_find_a_tuned_build(monkeypatch):
    [tuned] = build_keys(monkeypatch, native.BuildOptions(host_tuned=True))
    monkeypatch.setattr(_build, "host_cpu_identity", lambda: "another cpu")
    [elsewhere] = build_keys(monkeypatch, native.BuildOptions(host_tuned=True))
    assert tuned.digest != elsewhere.digest


def fake_toolchain(host_tuning_flags: tuple[str, ...]) -> Toolchain:
    return Toolchain(
        directory=pathlib.Path("/toolchain"),
        cxx="c++",
        build_type="Release",
        nanobind_mode="static",
        compile_command=("c++", "-O3", "-fPIC"),
        link_command=("c++", "-shared", "-o", OUTPUT_SLOT, OBJECTS_SLOT),
        openmp_flags=None,
        extension_suffix=".so",
        host_tuning_flags=host_tuning_flags,
    )


def compile_rule(options: native.BuildOptions, tuning: tuple[str, ...]) -> str:
    module = _module_build.ModuleSources.validate("m", SOURCE, cuda=False)
    toolchain = fake_toolchain(tuning)
    command = _module_build._cxx_command(toolchain, options, None)
    ninja = _module_build._ninja_file(toolchain, module, options, None, "m.so", command, [])
    [line] = [line for line in ninja.splitlines() if "-c $in" in line]
    return line


def test_tuned_builds_get_the_compilers_tuning_flag_and_portable_ones_not():
    tuned = native.BuildOptions(host_tuned=True).resolved()
    portable = native.BuildOptions(host_tuned=False).resolved()
    assert "-march=native" in compile_rule(tuned, ("-march=native",))
    assert "-mcpu=native" in compile_rule(tuned, ("-mcpu=native",))
    assert "=native" not in compile_rule(portable, ("-march=native",))
    assert "=native" not in compile_rule(tuned, ())  # a compiler without such a flag


def test_an_explicit_architecture_flag_comes_last_and_wins():
    options = native.BuildOptions(host_tuned=True, extra_compile_flags=["-march=x86-64-v3"])
    rule = compile_rule(options.resolved(), ("-march=native",))
    assert rule.index("-march=native") < rule.index("-march=x86-64-v3")
    own = native.BuildOptions(host_tuned=True, extra_compile_flags=["-march=native"]).resolved()
    assert compile_rule(own, ("-march=native",)).count("-march=native") == 1


def fake_compiler(tmp_path: pathlib.Path, accepts: str | None) -> _tools.Tool:
    script = tmp_path / "fake-c++"
    accept = f'[ "$1" = "{accepts}" ] && exit 0\n' if accepts else ""
    script.write_text(f'#!/bin/sh\n{accept}echo "unknown option $1"\nexit 1\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return _tools.Tool(path=str(script), identity="fake", role="C++ compiler")


@pytest.mark.parametrize(
    ("accepts", "expected"),
    [("-march=native", ["-march=native"]), ("-mcpu=native", ["-mcpu=native"]), (None, [])],
)
def test_tuning_flag_is_the_one_the_compiler_takes(tmp_path, accepts, expected):
    assert _host.host_tuning_flags(fake_compiler(tmp_path, accepts)) == expected


def test_the_system_compiler_has_a_tuning_flag():
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no C++ compiler on PATH")
    tool = _tools.Tool(path=cxx, identity="system", role="C++ compiler")
    assert _host.host_tuning_flags(tool) in (["-march=native"], ["-mcpu=native"])
