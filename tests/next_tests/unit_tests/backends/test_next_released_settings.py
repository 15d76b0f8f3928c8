"""Released gt4py.next's environment variables: each one works or fails naming its replacement.

``GT4PY_ENABLE_JIT_DEFAULT`` is a deprecated alias of ``GT4PY_ENABLE_JIT``; the variables of the
same name (``GT4PY_CMAKE_BUILD_TYPE``, ``GT4PY_DUMP_METRICS_AT_EXIT``, ...) take released
values; those without an equivalent warn (none of released gt4py.next's changes results).
The registry side (aliases, retired variables) is tested in
tests/infra_tests/test_infra_config_released_names.py.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import warnings

import pytest

from gt4py.infra import config
from gt4py.infra.config._registry import _Registry
from gt4py.next.backends import _settings
from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for var in list(os.environ):
        if var.startswith("GT4PY_") and var != "GT4PY_BUILD_CACHE_DIR":
            monkeypatch.delenv(var)
    config._REGISTRY._warned.clear()
    return monkeypatch


def run(code: str, script: pathlib.Path | None = None, **env: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter (from the file ``script``: the DSL reads its source)."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GT4PY_")}
    environment["GT4PY_BUILD_CACHE_DIR"] = os.environ["GT4PY_BUILD_CACHE_DIR"]
    environment.update(env)
    if script is not None:
        script.write_text(code, encoding="utf-8")
    command = [str(script)] if script is not None else ["-c", code]
    return subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", *command],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )


PROGRAM = """\
import numpy as np
import gt4py.next as gtx

I = gtx.Dimension("I")

@gtx.field_operator
def double(a: gtx.Field[gtx.Dims[I], gtx.float64]) -> gtx.Field[gtx.Dims[I], gtx.float64]:
    return 2.0 * a

@gtx.program(backend=gtx.gtfn_cpu)
def doubled(a: gtx.Field[gtx.Dims[I], gtx.float64], out: gtx.Field[gtx.Dims[I], gtx.float64]):
    double(a, out=out)

a = gtx.as_field([I], np.arange(4.0))
out = gtx.zeros({I: 4})
"""


# -- GT4PY_ENABLE_JIT_DEFAULT -----------------------------------------------------------------


def test_enable_jit_default_is_a_deprecated_alias_of_enable_jit(clean_env):
    clean_env.setenv("GT4PY_ENABLE_JIT_DEFAULT", "0")
    with pytest.warns(
        DeprecationWarning, match="GT4PY_ENABLE_JIT_DEFAULT is deprecated; use GT4PY_ENABLE_JIT"
    ):
        assert config.get("enable_jit") is False
    assert config.resolve("enable_jit").source == "env GT4PY_ENABLE_JIT_DEFAULT (deprecated alias)"


def test_enable_jit_default_0_disables_jit_on_gtfn_cpu(tmp_path):
    result = run(
        PROGRAM
        + """
try:
    doubled(a, out, offset_provider={})
except RuntimeError as error:
    print("RuntimeError:", error)
""",
        tmp_path / "no_jit.py",
        GT4PY_ENABLE_JIT_DEFAULT="0",
    )
    assert result.returncode == 0, result.stderr
    assert "matches no compiled variant" in result.stdout, result.stdout + result.stderr
    assert "JIT compilation is disabled" in result.stdout
    assert "GT4PY_ENABLE_JIT_DEFAULT is deprecated; use GT4PY_ENABLE_JIT" in result.stderr


def test_enable_jit_wins_over_enable_jit_default_with_a_warning():
    result = run(
        "import gt4py.next\nfrom gt4py.infra import config\nprint(config.get('enable_jit'))",
        GT4PY_ENABLE_JIT="1",
        GT4PY_ENABLE_JIT_DEFAULT="0",
    )
    assert result.stdout.strip() == "True", result.stderr
    assert "GT4PY_ENABLE_JIT='1' wins, GT4PY_ENABLE_JIT_DEFAULT is ignored" in result.stderr


def test_a_bad_enable_jit_default_names_the_released_variable(clean_env):
    clean_env.setenv("GT4PY_ENABLE_JIT_DEFAULT", "maybe")
    bad = "GT4PY_ENABLE_JIT_DEFAULT='maybe' is not a valid boolean"
    with pytest.raises(config.ConfigError, match=bad), pytest.warns(DeprecationWarning):
        config.get("enable_jit")


# -- GT4PY_CMAKE_BUILD_TYPE reaches gtfn --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("debug", "Debug"), ("Release", "Release"), ("relwithdebinfo", "RelWithDebInfo")],
)
def test_gtfn_build_type_defaults_to_the_setting(clean_env, text, expected):
    clean_env.setenv("GT4PY_CMAKE_BUILD_TYPE", text)
    assert GTFNConfig().build_type == expected
    assert GTFNConfig(build_type="MinSizeRel").build_type == "MinSizeRel"  # explicit wins


def test_the_build_type_is_in_the_native_build_options(clean_env, monkeypatch):
    from gt4py.infra import native

    seen = []
    monkeypatch.setattr(
        native, "build_extension", lambda name, sources, options: seen.append(options)
    )
    with config.overrides(cmake_build_type="MinSizeRel"):
        backend = make_gtfn_backend(GTFNConfig())
    assert backend.config.build_type == "MinSizeRel"
    assert backend != make_gtfn_backend(GTFNConfig(build_type="Release"))  # a different backend
    backend.compiler.build(_steps_module().TranslatedModule("m", {"m.cpp": ""}, False))
    (options,) = seen
    assert options.build_type == "MinSizeRel"


def _steps_module():
    from gt4py.next.backends.gtfn import _steps

    return _steps


RECORD_BUILDS = """\
from gt4py.infra import native
built = []
build_extension = native.build_extension
def recording(name, sources, options=None):
    built.append(options.resolved().build_type)
    return build_extension(name, sources, options)
native.build_extension = recording
"""


def test_cmake_build_type_debug_gives_a_debug_gtfn_build(tmp_path):
    result = run(
        RECORD_BUILDS
        + PROGRAM
        + """
print(gtx.gtfn_cpu.config.build_type)
doubled(a, out, offset_provider={})
print(out.asnumpy().tolist(), built)
""",
        tmp_path / "debug_build.py",
        GT4PY_CMAKE_BUILD_TYPE="Debug",
        GT4PY_BUILD_JOBS_MODE="serial",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["Debug", "[0.0, 2.0, 4.0, 6.0] ['Debug']"], (
        result.stdout + result.stderr
    )


# -- the other released variables -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("0", None), ("off", None), ("", None), ("/tmp/m.json", pathlib.Path("/tmp/m.json"))],
)
def test_dump_metrics_at_exit_takes_a_path_or_released_flags(clean_env, text, expected):
    clean_env.setenv("GT4PY_DUMP_METRICS_AT_EXIT", text)
    assert config.get("dump_metrics_at_exit") == expected


@pytest.mark.parametrize("text", ["1", "true", "ON"])
def test_dump_metrics_at_exit_on_names_a_timestamped_file_here(clean_env, text):
    clean_env.setenv("GT4PY_DUMP_METRICS_AT_EXIT", text)
    path = config.get("dump_metrics_at_exit")
    assert path.parent == pathlib.Path.cwd()
    assert path.name.startswith("gt4py_metrics_") and path.suffix == ".json"
    assert config.get("dump_metrics_at_exit") == path  # one name per process


def test_collect_metrics_level_is_read_as_released(clean_env):
    clean_env.setenv("GT4PY_COLLECT_METRICS_LEVEL", "10")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert config.get("collect_metrics_level") == 10


NEXT_RETIRED = (
    "GT4PY_VERBOSE_EXCEPTIONS",
    "GT4PY_UNSTRUCTURED_HORIZONTAL_HAS_UNIT_STRIDE",
    "GT4PY_ADD_GPU_TRACE_MARKERS",
    "GT4PY_KEEP_DACE_BUILD_FILES",
    "GT4PY_SKIP_DACE_WARNINGS",
)


@pytest.mark.parametrize("name", NEXT_RETIRED)
def test_released_next_variables_without_an_equivalent_warn_naming_what_instead(clean_env, name):
    assert _settings.ENABLE_JIT.get() in (True, False)  # next's settings are registered
    (variable,) = [v for v in config.retired() if v.env == name]
    assert not variable.fatal  # none of them changes what a program computes
    registry = _Registry()
    registry.retire(variable)
    clean_env.delenv("GT4PY_BUILD_CACHE_DIR")  # a setting the fresh registry does not know
    clean_env.setenv(name, "1")
    with pytest.warns(UserWarning, match=f"{name} was read by released gt4py") as record:
        registry.check_environment()
    assert variable.instead in str(record[0].message)


def test_a_released_next_variable_warns_at_the_first_use_after_import():
    result = run(
        "import gt4py.next\nfrom gt4py.infra import config\nprint(config.get('enable_jit'))",
        GT4PY_UNSTRUCTURED_HORIZONTAL_HAS_UNIT_STRIDE="1",
    )
    assert result.stdout.strip() == "True", result.stderr
    assert (
        "GT4PY_UNSTRUCTURED_HORIZONTAL_HAS_UNIT_STRIDE was read by released gt4py" in result.stderr
    )
    assert "no gt4py setting reads" not in result.stderr
