"""A configured toolchain: CMake and nanobind asked once, their answers reused for every module.

Setting up a toolchain configures a small probe project with CMake (``find_package(nanobind)``,
``nanobind_add_module(...)``) and records the exact compile command of the probe's source and
the link command of the probe module. A module build then substitutes its own sources into
those commands (see ``_module_build``): no CMake configure, one compiler run per source plus a
link. Toolchains live in the build cache, keyed on everything that shapes those commands.

nanobind's runtime comes one of two ways (the ``nanobind_mode`` setting, ADR 0014):

- *split*: modules target Python's stable ABI and call into the prebuilt ``nanobind-backend``
  package at import; nothing of nanobind is compiled, so setting up costs one CMake configure
  and the self-test (about 2 s instead of 10-15 s).
- *static*: nanobind's support library is compiled once per toolchain (in unity chunks, see
  ``_support_library``), and every module links it statically (nanobind's classic mode; for
  interpreters or compilers the backend cannot serve).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import os
import pathlib
import platform
import shlex
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from gt4py.infra import caching, config, pipeline
from gt4py.infra._python_command import python_command

from . import _support_library, _tools
from ._errors import ToolchainError
from ._failed_builds import keep_failed_build, raise_if_disk_full
from ._host import host_tuning_flags
from ._start_log import logged_start


# Bump when the probe project or the recorded commands change meaning: old toolchains in
# users' caches must then no longer match.
_TOOLCHAIN_FORMAT: Final = "4"
_PROBE_MODULE: Final = "gt4py_native_probe"
_TOOLCHAIN_FILE: Final = "toolchain.json"
# Stands for the toolchain's cache entry in recorded commands: the entry is built in a
# temporary directory and published (renamed) afterwards.
_HERE: Final = "@TOOLCHAIN_DIR@"
OUTPUT_SLOT: Final = "@OUTPUT@"
OBJECTS_SLOT: Final = "@OBJECTS@"
_MODULE_FILE_RECORD: Final = "module_file.txt"
_BACKEND_PACKAGE: Final = "nanobind_backend"

NanobindMode = Literal["split", "static"]
_LINKAGE: Final[Mapping[NanobindMode, str]] = {
    "split": f"BACKEND_MODULE {_BACKEND_PACKAGE}",
    "static": "NB_STATIC",
}

_logger = logging.getLogger(__name__)


def _probe_cmakelists(mode: NanobindMode) -> str:
    return f"""\
cmake_minimum_required(VERSION 3.18...3.31)
project(gt4py_native_probe LANGUAGES CXX)
find_package(Python 3.8 REQUIRED COMPONENTS Interpreter Development.Module)
find_package(nanobind CONFIG REQUIRED)
find_package(OpenMP COMPONENTS CXX)
# NOMINSIZE: generated stencil code must be optimized for speed, not size (nanobind's default).
# NOSTRIP: one link command per module, and symbols for profilers.
# NB_SUPPRESS_WARNINGS: nanobind headers as system headers, so users' -Werror stays usable.
nanobind_add_module({_PROBE_MODULE} {_LINKAGE[mode]} NOMINSIZE NOSTRIP NB_SUPPRESS_WARNINGS
                    probe.cpp)
file(WRITE "${{CMAKE_BINARY_DIR}}/openmp.txt" "${{OpenMP_CXX_FOUND}}\\n${{OpenMP_CXX_FLAGS}}\\n")
file(GENERATE OUTPUT "${{CMAKE_BINARY_DIR}}/{_MODULE_FILE_RECORD}"
     CONTENT "$<TARGET_FILE_NAME:{_PROBE_MODULE}>")
"""


_PROBE_SOURCE: Final = f"""\
#include <nanobind/nanobind.h>

NB_MODULE({_PROBE_MODULE}, m) {{
    m.def("answer", []() {{ return 42; }});
}}
"""

# Run isolated (-I, ADR 0037) with this process's sys.path: the module must load as it would
# here, with the nanobind runtime this process would import.
_SELF_TEST: Final = """\
import importlib.machinery, importlib.util, json, sys
name, path = sys.argv[1], sys.argv[2]
sys.path[:] = json.loads(sys.argv[3])
loader = importlib.machinery.ExtensionFileLoader(name, path)
spec = importlib.util.spec_from_file_location(name, path, loader=loader)
module = importlib.util.module_from_spec(spec)
loader.exec_module(module)
print(module.answer())
"""


@dataclasses.dataclass(frozen=True)
class ToolchainSpec:
    """Which toolchain a build needs: found tools and the cache key; nothing built yet."""

    cxx: _tools.Tool
    cmake: _tools.Tool
    ninja: _tools.Tool
    build_type: str
    # The modes to try, in order: "auto" tries split, then static if the backend cannot load
    # the probe (a compiler whose C++ ABI differs from the backend's).
    nanobind_modes: tuple[NanobindMode, ...]
    key: caching.CacheKey


@dataclasses.dataclass(frozen=True)
class Toolchain:
    """A set-up toolchain: the recorded commands, ready for module builds."""

    directory: pathlib.Path
    cxx: str
    build_type: str
    nanobind_mode: NanobindMode
    # The probe's compile command without its source, object and -std flag.
    compile_command: tuple[str, ...]
    # The probe's link command with OUTPUT_SLOT and OBJECTS_SLOT in place of its own files.
    link_command: tuple[str, ...]
    # None: the compiler has no OpenMP support (CMake's FindOpenMP probe failed).
    openmp_flags: tuple[str, ...] | None
    extension_suffix: str
    # How the compiler tunes code to the build machine's CPU (``-march=native``); () if it can't.
    host_tuning_flags: tuple[str, ...]

    @classmethod
    def load(cls, directory: pathlib.Path) -> Toolchain:
        try:
            recorded = json.loads((directory / _TOOLCHAIN_FILE).read_text(encoding="utf-8"))
            if recorded["format"] != _TOOLCHAIN_FORMAT:
                raise ValueError(f"format {recorded['format']!r}")

            def here(tokens: Sequence[str]) -> tuple[str, ...]:
                return tuple(token.replace(_HERE, str(directory)) for token in tokens)

            openmp = recorded["openmp_flags"]
            return cls(
                directory=directory,
                cxx=recorded["cxx"],
                build_type=recorded["build_type"],
                nanobind_mode=recorded["nanobind_mode"],
                compile_command=here(recorded["compile_command"]),
                link_command=here(recorded["link_command"]),
                openmp_flags=None if openmp is None else tuple(openmp),
                extension_suffix=recorded["extension_suffix"],
                host_tuning_flags=tuple(recorded["host_tuning_flags"]),
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ToolchainError(
                f"the native toolchain in {directory} is unreadable ({error}); delete that "
                "directory and it will be set up again"
            ) from error


@functools.cache
def python_identity() -> str:
    """The interpreter an extension is built for: version, ABI and headers."""
    return "\n".join(
        (
            sys.version,
            str(sysconfig.get_config_var("EXT_SUFFIX")),
            sysconfig.get_paths()["include"],
        )
    )


def build_environment() -> str:
    """The compiler flags of the environment: CMake folds them into every command."""
    return "\n".join(
        f"{name}={os.environ.get(name, '')}" for name in ("CXXFLAGS", "CPPFLAGS", "LDFLAGS")
    )


def toolchain_spec(build_type: str) -> ToolchainSpec:
    """Find the tools and compute the toolchain key; runs no tool when their identities are cached."""
    cxx = _tools.find_cxx()
    cmake = _tools.find_cmake()
    ninja = _tools.find_ninja()
    nanobind = _tools.nanobind_version()
    modes, backend = _nanobind_modes(nanobind)
    parts: Mapping[str, str] = {
        "format": _TOOLCHAIN_FORMAT,
        "compiler": cxx.identity,
        "cmake": cmake.identity,
        "ninja": ninja.identity,
        "nanobind": nanobind,
        "python": python_identity(),
        "platform": f"{sys.platform} {platform.machine()}",
        "build_type": build_type,
        "nanobind_modes": " then ".join(modes),
        "nanobind_backend": backend or "none",
        "environment": build_environment(),
    }
    return ToolchainSpec(cxx, cmake, ninja, build_type, modes, caching.CacheKey(parts))


def _nanobind_modes(nanobind_version: str) -> tuple[tuple[NanobindMode, ...], str | None]:
    """The nanobind modes to set up a toolchain with (in order) and the backend they use."""
    requested = config.NANOBIND_MODE.get()
    if requested == "static":
        return ("static",), None
    backend = _tools.nanobind_backend_identity()
    major = nanobind_version.split(".", 1)[0]
    problem = (
        "the nanobind-backend package is not installed"
        if backend is None
        else "split mode needs nanobind 3 or newer"
        if not (major.isdigit() and int(major) >= 3)
        else "this interpreter is free-threaded, which split mode does not serve before 3.15"
        if _tools.free_threaded_python()
        else None
    )
    if problem is None:
        return (("split",) if requested == "split" else ("split", "static")), backend
    if requested == "split":
        raise ToolchainError(
            f"nanobind_mode is 'split' (GT4PY_NANOBIND_MODE) but {problem}; install "
            "'gt4py-infra[native]' or set GT4PY_NANOBIND_MODE=static"
        )
    return ("static",), None


def ensure_toolchain(spec: ToolchainSpec) -> Toolchain:
    """The toolchain for ``spec``, set up (once, under the cache lock) if not cached yet.

    Not memoized in memory: only module builds (seconds) need it, and the cache root may
    change between calls (``config.overrides``).
    """
    cache = caching.BuildDirCache("native/toolchains")
    with caching.build_label("the native toolchain"):
        directory = cache.get_or_build(spec.key, lambda build_dir: _set_up_logged(spec, build_dir))
    return Toolchain.load(directory)


def _set_up_logged(spec: ToolchainSpec, entry_dir: pathlib.Path) -> None:
    # One timed line on the gt4py.compile log (a warning when slow, as this usually is).
    what = "the native toolchain (once per machine)"
    with (
        logged_start("native/toolchains", f"setting up {what} … started (a cache miss)"),
        pipeline.CompileEvent(what, verb="setting up"),
    ):
        _set_up(spec, entry_dir)


class _ProbeLoadError(ToolchainError):
    """The probe was built but does not import: the nanobind runtime cannot serve it."""


def _set_up(spec: ToolchainSpec, entry_dir: pathlib.Path) -> None:
    for mode in spec.nanobind_modes:
        mode_dir = entry_dir / mode
        try:
            recorded = _set_up_mode(spec, mode, mode_dir)
        except _ProbeLoadError as error:
            if mode == spec.nanobind_modes[-1]:
                raise
            _logger.warning(
                "nanobind's %s mode cannot serve this toolchain (C++ compiler %s), falling back "
                "to the next mode: %s",
                mode,
                spec.cxx.path,
                error,
            )
            shutil.rmtree(mode_dir, ignore_errors=True)
            continue
        recorded["compile_command"] = _relocatable(recorded["compile_command"], entry_dir)
        recorded["link_command"] = _relocatable(recorded["link_command"], entry_dir)
        recorded["key_parts"] = dict(spec.key.parts)
        (entry_dir / _TOOLCHAIN_FILE).write_text(
            json.dumps(recorded, indent=2) + "\n", encoding="utf-8"
        )
        return


def _set_up_mode(spec: ToolchainSpec, mode: NanobindMode, mode_dir: pathlib.Path) -> dict[str, Any]:
    """Configure the probe for ``mode`` in ``mode_dir``, record its commands, self-test them."""
    probe_dir = mode_dir / "probe"
    build_dir = mode_dir / "build"
    probe_dir.mkdir(parents=True)
    (probe_dir / "CMakeLists.txt").write_text(_probe_cmakelists(mode), encoding="utf-8")
    (probe_dir / "probe.cpp").write_text(_PROBE_SOURCE, encoding="utf-8")

    # Failed attempts are kept per mode: auto's static attempt must not find split's copy.
    attempt_key = caching.CacheKey({**spec.key.parts, "attempted_mode": mode})

    def fail(step: str, completed: subprocess.CompletedProcess[str]) -> ToolchainError:
        raise_if_disk_full(completed.stdout, mode_dir, "setting up the native toolchain")
        kept = keep_failed_build(mode_dir, attempt_key)
        return ToolchainError(
            f"setting up the native toolchain (C++ compiler {spec.cxx.path}, nanobind {mode} "
            f"mode) failed while {step}; the probe project is kept in {kept}\n"
            f"{completed.stdout.strip()}",
            output=completed.stdout,
        )

    configure = _tools.run_tool(
        spec.cmake,
        [
            "-S",
            str(probe_dir),
            "-B",
            str(build_dir),
            "-G",
            "Ninja",
            f"-DCMAKE_MAKE_PROGRAM={spec.ninja.path}",
            f"-DCMAKE_CXX_COMPILER={spec.cxx.path}",
            f"-DCMAKE_BUILD_TYPE={spec.build_type}",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-Dnanobind_DIR={_tools.nanobind_cmake_dir()}",
        ],
    )
    if configure.returncode != 0:
        raise fail("configuring the probe project with CMake", configure)
    module_file = (build_dir / _MODULE_FILE_RECORD).read_text(encoding="utf-8").strip()
    commands = _tools.run_tool(spec.ninja, ["-C", str(build_dir), "-t", "commands", module_file])
    if commands.returncode != 0 or not commands.stdout.strip():
        raise fail("reading the link command from Ninja", commands)
    link_line = commands.stdout.strip().splitlines()[-1]
    libraries = _linked_build_files(link_line)
    if libraries:
        # nanobind's support library (static mode); the probe itself is compiled by the
        # self-test, with the recorded commands.
        jobs = config.BUILD_JOBS.get()
        chunked = (
            _support_library.build_in_chunks(build_dir, libraries[0], jobs)
            if len(libraries) == 1
            else None
        )
        build = chunked or _tools.run_tool(
            spec.ninja, ["-C", str(build_dir), "-j", str(jobs), *libraries]
        )
        if build.returncode != 0:
            raise fail("building nanobind's support library", build)
    compile_command = _recorded_compile_command(build_dir, probe_dir / "probe.cpp")
    link_command = _recorded_link_command(link_line, build_dir)
    _self_test(
        compile_command, link_command, probe_dir / "probe.cpp", module_file, attempt_key, mode_dir
    )

    openmp_found, _, openmp_flags = (
        (build_dir / "openmp.txt").read_text(encoding="utf-8").partition("\n")
    )
    return {
        "format": _TOOLCHAIN_FORMAT,
        "cxx": spec.cxx.path,
        "build_type": spec.build_type,
        "nanobind_mode": mode,
        "compile_command": compile_command,
        "link_command": link_command,
        "openmp_flags": shlex.split(openmp_flags) if _cmake_true(openmp_found) else None,
        "extension_suffix": module_file.removeprefix(_PROBE_MODULE),
        "host_tuning_flags": host_tuning_flags(spec.cxx),
    }


def _cmake_true(value: str) -> bool:
    return value.strip().upper() in {"1", "ON", "YES", "TRUE", "Y"}


def _relocatable(tokens: Sequence[str], entry_dir: pathlib.Path) -> list[str]:
    return [token.replace(str(entry_dir), _HERE) for token in tokens]


def _recorded_compile_command(build_dir: pathlib.Path, probe_source: pathlib.Path) -> list[str]:
    """The probe's compile command, minus what is specific to the probe file and target."""
    entries = json.loads((build_dir / "compile_commands.json").read_text(encoding="utf-8"))
    for entry in entries:
        if os.path.realpath(os.path.join(entry["directory"], entry["file"])) == os.path.realpath(
            probe_source
        ):
            break
    else:
        raise ToolchainError(f"CMake recorded no compile command for {probe_source}")
    tokens: list[str] = (
        entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    )
    compiler, *arguments = tokens
    kept: list[str] = [compiler]
    found_output = found_source = False
    remaining = iter(arguments)
    for token in remaining:
        if token in {"-o", "-c"}:
            value = next(remaining, "")
            found_output |= token == "-o"
            found_source |= token == "-c" and os.path.realpath(
                os.path.join(entry["directory"], value)
            ) == os.path.realpath(probe_source)
        elif token in {"-MT", "-MF"}:  # dependency-file bookkeeping of the CMake build
            next(remaining, None)
        elif token in {"-MD", "-MMD"} or token.startswith("-std="):
            pass  # the standard is chosen per module
        elif token == f"-D{_PROBE_MODULE}_EXPORTS":
            pass
        elif f"{_PROBE_MODULE}.dir" in token:
            raise ToolchainError(
                f"CMake's compile command has a flag tied to the probe's build ({token}) that "
                f"gt4py cannot carry over to other modules: {shlex.join(tokens)}"
            )
        else:
            kept.append(token)
    if not (found_output and found_source):
        raise ToolchainError(
            f"cannot understand CMake's compile command (no '-o'/'-c {probe_source}'): "
            + shlex.join(tokens)
        )
    return kept


def _linked_build_files(line: str) -> list[str]:
    """Files of the probe's build that its link line takes, besides the probe's own object."""
    tokens = shlex.split(line)
    outputs = {tokens[i + 1] for i, token in enumerate(tokens[:-1]) if token == "-o"}
    return [
        token
        for token in tokens
        if not token.startswith("-")
        and not os.path.isabs(token)
        and token not in {"&&", ":"}
        and token not in outputs
        and f"{_PROBE_MODULE}.dir" not in token
    ]


def _recorded_link_command(line: str, build_dir: pathlib.Path) -> list[str]:
    """The probe module's link command, its own object and output replaced by slots.

    Ninja shows it as ``: && <link> && :`` (CMake's command chaining); files in the probe
    build (the nanobind library) are made absolute.
    """
    segments: list[list[str]] = [[]]
    for token in shlex.split(line):
        if token == "&&":
            segments.append([])
        elif token != ":":
            segments[-1].append(token)
    linking = [s for s in segments if "-o" in s]
    if len(linking) != 1:
        raise ToolchainError(f"cannot understand CMake's link command: {line}")
    compiler, *arguments = linking[0]
    result: list[str] = [compiler]
    placed_objects = False
    remaining = iter(arguments)
    for token in remaining:
        if token == "-o":
            next(remaining, None)
            result += ["-o", OUTPUT_SLOT]
        elif token.startswith("-Wl,--dependency-file="):
            pass  # CMake's link-dependency bookkeeping (newer CMake with GNU ld >= 2.35)
        elif token.endswith("/probe.cpp.o"):
            if not placed_objects:
                result.append(OBJECTS_SLOT)
                placed_objects = True
        elif f"{_PROBE_MODULE}.dir" in token:
            raise ToolchainError(
                f"CMake's link command has a flag tied to the probe's build ({token}) that "
                f"gt4py cannot carry over to other modules: {line}"
            )
        elif not token.startswith("-") and not os.path.isabs(token):
            if not (build_dir / token).exists():
                raise ToolchainError(f"CMake's link command names a missing file {token}: {line}")
            result.append(str(build_dir / token))
        else:
            result.append(token)
    if not placed_objects or OUTPUT_SLOT not in result:
        raise ToolchainError(f"cannot find the object and output in CMake's link command: {line}")
    return result


def _self_test(
    compile_command: Sequence[str],
    link_command: Sequence[str],
    probe_source: pathlib.Path,
    module_file: str,
    key: caching.CacheKey,
    entry_dir: pathlib.Path,
) -> None:
    """Build the probe as a module build would and load it in a fresh interpreter.

    The recorded commands are only good if they work away from CMake's build directory: a
    flag that still points into it shows up here, once, rather than in every module build.
    Loading also checks that nanobind's runtime serves the module (split mode: the backend's
    C++ ABI matches the compiler's).
    """
    test_dir = entry_dir / "self-test"
    test_dir.mkdir()
    module_path = test_dir / module_file
    link = [
        {OUTPUT_SLOT: module_path.name, OBJECTS_SLOT: "probe.o"}.get(token, token)
        for token in link_command
    ]
    steps = [
        ("compiling", [*compile_command, "-std=c++17", "-c", str(probe_source), "-o", "probe.o"]),
        ("linking", link),
        (
            "loading",
            python_command(
                "-c",
                _SELF_TEST,
                _PROBE_MODULE,
                str(module_path),
                json.dumps([entry for entry in sys.path if isinstance(entry, str)]),
            ),
        ),
    ]
    for step, command in steps:
        completed = _tools.run_command(command, cwd=test_dir)
        if completed.returncode != 0 or (step == "loading" and completed.stdout.strip() != "42"):
            raise_if_disk_full(completed.stdout, entry_dir, "testing the native toolchain")
            kept = keep_failed_build(entry_dir, key)
            error = _ProbeLoadError if step == "loading" else ToolchainError
            raise error(
                f"the native toolchain fails its self-test while {step} the probe module with "
                f"the commands recorded from CMake; the probe is kept in {kept}\n"
                f"{shlex.join(command)}\n{completed.stdout.strip()}",
                output=completed.stdout,
            )
