"""nanobind's runtime in gt4py.infra.native: split mode (prebuilt backend) and static mode.

The default where ``nanobind-backend`` is installed, split mode, is what every other native
test builds with; here: which mode is chosen when, and the static fallback building for real.
"""

from __future__ import annotations

import json
import logging
import os
import pathlib
import shutil
import stat
import sys
import sysconfig

import pytest

from gt4py.infra import config, native
from gt4py.infra.native import _toolchain, _tools


ADDER = """\
#include <nanobind/nanobind.h>
namespace nb = nanobind;
NB_MODULE(mode_adder, m) { m.def("add", [](int a, int b) { return a + b; }); }
"""


@pytest.fixture
def no_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_tools, "nanobind_backend_identity", lambda: None)


def test_auto_mode_tries_split_then_static_where_the_backend_is_installed() -> None:
    pytest.importorskip("nanobind")
    if _tools.nanobind_backend_identity() is None or _tools.free_threaded_python():
        pytest.skip("nanobind-backend is not installed or cannot serve this interpreter")
    with config.overrides(nanobind_mode="auto"):
        spec = _toolchain.toolchain_spec("Release")
    assert spec.nanobind_modes == ("split", "static")
    assert "nanobind_backend" in spec.key.parts["nanobind_backend"]


@pytest.mark.usefixtures("no_backend")
def test_auto_mode_without_the_backend_is_static() -> None:
    pytest.importorskip("nanobind")
    with config.overrides(nanobind_mode="auto"):
        spec = _toolchain.toolchain_spec("Release")
    assert spec.nanobind_modes == ("static",)


@pytest.mark.usefixtures("no_backend")
def test_split_mode_without_the_backend_is_a_toolchain_error_naming_the_setting() -> None:
    pytest.importorskip("nanobind")
    with (
        config.overrides(nanobind_mode="split"),
        pytest.raises(native.ToolchainError, match="GT4PY_NANOBIND_MODE=static") as info,
    ):
        _toolchain.toolchain_spec("Release")
    assert "nanobind-backend package is not installed" in str(info.value)


def test_modes_have_toolchains_of_their_own() -> None:
    pytest.importorskip("nanobind")
    with config.overrides(nanobind_mode="static"):
        static = _toolchain.toolchain_spec("Release")
    with config.overrides(nanobind_mode="auto"):
        auto = _toolchain.toolchain_spec("Release")
    assert static.nanobind_modes == ("static",)
    if auto.nanobind_modes != static.nanobind_modes:
        assert static.key.digest != auto.key.digest


def test_unknown_mode_is_refused_by_the_setting() -> None:
    with pytest.raises(ValueError, match="nanobind_mode"), config.overrides(nanobind_mode="shared"):
        pass


@pytest.mark.slow
def test_auto_falls_back_to_static_when_the_backend_cannot_load_the_probe(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A backend that refuses the probe (as one built for another C++ ABI would) makes the
    toolchain static: nanobind is compiled and linked into every module, which then loads."""
    for tool in ("nanobind", "cmake", "ninja"):
        pytest.importorskip(tool)
    fake = tmp_path / "fake-site"
    (fake / "nanobind_backend").mkdir(parents=True)
    (fake / "nanobind_backend" / "__init__.py").write_text(
        "def fill(abi_major, platform_tag, capsule):\n"
        "    raise ImportError('fake backend: built for another platform ABI')\n"
    )
    (fake / "nanobind_backend" / "_nb_backend_v1.fake.so").write_bytes(b"")
    monkeypatch.syspath_prepend(str(fake))
    # The real backend is imported once any split module has been loaded in this process.
    monkeypatch.delitem(sys.modules, "nanobind_backend", raising=False)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, (str(fake), os.environ.get("PYTHONPATH"))))
    )

    with (
        config.overrides(
            build_cache_dir=tmp_path / "cache",
            build_cache_lifetime="persistent",
            nanobind_mode="auto",
        ),
        caplog.at_level(logging.WARNING, logger="gt4py.infra.native"),
    ):
        assert "fake-site" in str(_tools.nanobind_backend_identity())
        toolchain_dir = native.prepare_toolchain()
        path = native.build_extension("mode_adder", {"mode_adder.cpp": ADDER})
        module = native.load_extension(path)

    recorded = json.loads((toolchain_dir / "toolchain.json").read_text())
    assert recorded["nanobind_mode"] == "static"
    # nanobind's library was compiled in unity chunks, not CMake's eleven translation units.
    assert list((toolchain_dir / "static" / "build" / "unity").glob("chunk*.o"))
    assert any(
        pathlib.Path(token).name.startswith("libnanobind") for token in recorded["link_command"]
    )
    assert "fake backend: built for another platform ABI" in caplog.text
    assert path.name == "mode_adder" + str(sysconfig.get_config_var("EXT_SUFFIX"))
    assert module.add(40, 2) == 42


@pytest.mark.slow
def test_a_failing_support_library_chunk_is_a_toolchain_error_with_the_compiler_output(
    tmp_path: pathlib.Path,
) -> None:
    for tool in ("nanobind", "cmake", "ninja"):
        pytest.importorskip(tool)
    real = shutil.which("c++") or shutil.which("g++")
    if real is None:
        pytest.skip("no C++ compiler on PATH")
    wrapper = tmp_path / "refuses-chunks-c++"
    wrapper.write_text(
        "#!/bin/sh\n"
        'case "$*" in *unity/chunk*) echo "chunk refused by the test compiler" >&2; exit 1;; esac\n'
        f'exec "{real}" "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    with (
        config.overrides(
            build_cache_dir=tmp_path / "cache", cxx_compiler=str(wrapper), nanobind_mode="static"
        ),
        pytest.raises(native.ToolchainError, match="building nanobind's support library") as info,
    ):
        native.prepare_toolchain()
    assert "chunk refused by the test compiler" in info.value.output
    assert "unity/chunk" in info.value.output  # the failing command is shown
    assert not list((tmp_path / "cache" / "native" / "toolchains").glob("_dirs/*/toolchain.json"))
