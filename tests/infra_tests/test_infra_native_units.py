"""gt4py.infra.native without compiling: options, validation, errors, command recording."""

from __future__ import annotations

import json
import os
import pathlib
import pickle
import stat
import sysconfig

import pytest

from gt4py.infra import config, native
from gt4py.infra.native import _module_build, _toolchain, _tools


ADDER = (
    '#include <nanobind/nanobind.h>\nNB_MODULE(adder, m) { m.def("one", []() { return 1; }); }\n'
)


# -- BuildOptions ---------------------------------------------------------------------------------


def test_options_defaults_leave_build_type_to_the_setting() -> None:
    options = native.BuildOptions()
    assert options.cxx_standard == 17
    assert options.build_type is None
    assert not options.openmp and not options.cuda
    assert options.with_build_type("Debug").build_type == "Debug"


def test_options_normalize_collections_so_equal_options_are_equal() -> None:
    from_mapping = native.BuildOptions(defines={"B": 2, "A": None}, libraries=["m"])
    from_pairs = native.BuildOptions(defines=[("A", None), ("B", "2")], libraries=("m",))
    assert from_mapping == from_pairs
    assert hash(from_mapping) == hash(from_pairs)
    assert from_mapping.defines == (("A", None), ("B", "2"))
    assert from_mapping.define_flags() == ["-DA", "-DB=2"]


def test_options_make_directories_absolute(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    options = native.BuildOptions(include_dirs=["inc", tmp_path / "abs"])
    assert options.include_dirs == (str(tmp_path / "inc"), str(tmp_path / "abs"))


def test_options_library_flags_tell_names_from_paths() -> None:
    options = native.BuildOptions(library_dirs=["/opt/x"], libraries=["m", "/opt/x/libfoo.a"])
    assert options.library_flags() == ["-L/opt/x", "-lm", "/opt/x/libfoo.a"]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"cxx_standard": 14}, ValueError, "cxx_standard=14"),
        ({"build_type": "Fast"}, ValueError, "build_type='Fast'"),
        ({"defines": {"1BAD": 1}}, ValueError, "'1BAD' is not a valid macro name"),
        ({"defines": {"FLAG": True}}, TypeError, "define FLAG"),
        ({"defines": {"X": "a\nb"}}, ValueError, "newline"),
        ({"extra_compile_flags": "-O2"}, TypeError, "not the string '-O2'"),
        ({"extra_link_flags": [""]}, ValueError, "extra_link_flags"),
        ({"libraries": [3]}, TypeError, "libraries must hold strings"),
        ({"include_dirs": "/usr/include"}, TypeError, "include_dirs"),
        ({"openmp": 1}, TypeError, "openmp must be a bool"),
    ],
)
def test_options_reject_bad_values_naming_them(
    kwargs: dict[str, object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        native.BuildOptions(**kwargs)  # type: ignore[arg-type]


def test_options_fingerprint_differs_when_an_option_differs() -> None:
    from gt4py.infra import fingerprinting

    base = native.BuildOptions(defines={"N": 1})
    assert fingerprinting.strict(base) == fingerprinting.strict(
        native.BuildOptions(defines={"N": 1})
    )
    assert fingerprinting.strict(base) != fingerprinting.strict(
        native.BuildOptions(defines={"N": 2})
    )
    assert fingerprinting.strict(base) != fingerprinting.strict(base.with_build_type("Debug"))


# -- source validation ----------------------------------------------------------------------------


def test_sources_are_sorted_into_cxx_cuda_and_other_files() -> None:
    module = _module_build.ModuleSources.validate(
        "adder",
        {"b.cpp": ADDER, "a.cc": "", "k.cu": "", "inc/h.hpp": "", "data.inc": ""},
        cuda=True,
    )
    assert module.cxx == ("a.cc", "b.cpp")
    assert module.cuda == ("k.cu",)
    assert set(module.files) == {"b.cpp", "a.cc", "k.cu", "inc/h.hpp", "data.inc"}


@pytest.mark.parametrize(
    ("name", "sources", "error", "match"),
    [
        ("my-mod", {"a.cpp": ""}, ValueError, "not an ASCII identifier"),
        ("modé", {"a.cpp": ""}, ValueError, "not an ASCII identifier"),
        ("adder", {}, ValueError, "non-empty mapping"),
        ("adder", {"/abs/a.cpp": ""}, ValueError, "must be a relative path"),
        ("adder", {"has space.cpp": ""}, ValueError, "must be a relative path"),
        ("adder", {"../a.cpp": ""}, ValueError, "leaves src/"),
        ("adder", {"a.cpp": b"code"}, TypeError, "must be a str, got bytes"),
        ("adder", {"k.cu": ""}, ValueError, "BuildOptions\\(cuda=True\\)"),
        ("adder", {"a.h": ""}, ValueError, "no source to compile"),
        ("other", {"a.cpp": ADDER}, ValueError, "does not match NB_MODULE\\(adder, m\\)"),
    ],
)
def test_bad_sources_are_refused_before_any_tool_runs(
    name: str, sources: dict[str, object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        native.build_extension(name, sources)  # type: ignore[arg-type]


# -- errors ---------------------------------------------------------------------------------------


def test_compilation_error_carries_output_and_path_and_pickles(tmp_path: pathlib.Path) -> None:
    error = native.CompilationError("adder", "src/a.cpp:3:1: error: boom\n", tmp_path)
    assert isinstance(error, native.NativeBuildError)
    assert isinstance(error, RuntimeError)
    assert str(tmp_path) in str(error)
    assert "src/a.cpp:3:1: error: boom" in str(error)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.module_name, copy.compiler_output, copy.source_dir) == (
        "adder",
        error.compiler_output,
        tmp_path,
    )
    assert str(copy) == str(error)


def test_compilation_error_message_elides_huge_output(tmp_path: pathlib.Path) -> None:
    output = "".join(f"line {i}\n" for i in range(1000))
    error = native.CompilationError("adder", output, tmp_path)
    assert "line 199" in str(error)
    assert "line 200" not in str(error)
    assert "800 more lines" in str(error)
    assert error.compiler_output == output


def test_toolchain_error_pickles_with_its_output() -> None:
    error = native.ToolchainError("cmake failed", output="CMake Error at ...")
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.output) == ("cmake failed", "CMake Error at ...")


# -- finding tools --------------------------------------------------------------------------------


def test_missing_configured_compiler_is_a_toolchain_error_naming_the_setting(
    cache_dir: pathlib.Path,
) -> None:
    with (
        config.overrides(cxx_compiler="/nonexistent/g++"),
        pytest.raises(native.ToolchainError, match=r"'/nonexistent/g\+\+'.*GT4PY_CXX"),
    ):
        native.build_extension("adder", {"adder.cpp": ADDER})


def test_missing_compiler_from_cxx_variable_is_named(
    cache_dir: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GT4PY_CXX", raising=False)
    monkeypatch.setenv("CXX", "no-such-compiler-anywhere")
    with pytest.raises(native.ToolchainError, match=r"'no-such-compiler-anywhere' given by \$CXX"):
        native.build_extension("adder", {"adder.cpp": ADDER})


def test_no_compiler_on_path_is_a_toolchain_error(
    cache_dir: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GT4PY_CXX", raising=False)
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(native.ToolchainError, match=r"no C\+\+ compiler found.*GT4PY_CXX"):
        native.build_extension("adder", {"adder.cpp": ADDER})


def test_missing_nvcc_is_a_toolchain_error_naming_cudacxx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUDACXX", "/nonexistent/nvcc")
    with pytest.raises(native.ToolchainError, match=r"'/nonexistent/nvcc' given by \$CUDACXX"):
        _tools.find_nvcc()


def _script(path: pathlib.Path, body: str) -> pathlib.Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_compiler_version_is_probed_once_then_read_from_the_cache(
    cache_dir: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = tmp_path / "calls"
    fake = _script(tmp_path / "fake-c++", f'echo "$@" >> {calls}\necho "fake c++ 1.0"\n')
    monkeypatch.setattr(_tools, "_identity_memo", {})  # as a fresh process would start
    with config.overrides(cxx_compiler=str(fake)):
        first = _tools.find_cxx()
        monkeypatch.setattr(_tools, "_identity_memo", {})
        assert _tools.find_cxx() == first
        assert calls.read_text().splitlines() == ["--version"]
        assert first.identity == f"{fake}\nfake c++ 1.0"

        # A changed executable is probed again.
        _script(fake, f'echo "$@" >> {calls}\necho "fake c++ 2.0 (longer)"\n')
        monkeypatch.setattr(_tools, "_identity_memo", {})
        assert _tools.find_cxx().identity.endswith("fake c++ 2.0 (longer)")
        assert len(calls.read_text().splitlines()) == 2


def test_compiler_failing_its_version_probe_is_a_toolchain_error(
    cache_dir: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    broken = _script(tmp_path / "broken-c++", "echo 'cannot start' >&2\nexit 3\n")
    with (
        config.overrides(cxx_compiler=str(broken)),
        pytest.raises(native.ToolchainError, match=r"does not work.*exited with 3") as info,
    ):
        _tools.find_cxx()
    assert "cannot start" in info.value.output


# -- recording CMake's commands -------------------------------------------------------------------


def _compile_commands(build_dir: pathlib.Path, source: pathlib.Path, command: str) -> None:
    build_dir.mkdir(exist_ok=True)
    entry = {"directory": str(build_dir), "command": command, "file": str(source)}
    (build_dir / "compile_commands.json").write_text(json.dumps([entry]))


def test_recorded_compile_command_drops_what_belongs_to_the_probe(tmp_path: pathlib.Path) -> None:
    source = tmp_path / "probe.cpp"
    _compile_commands(
        tmp_path / "build",
        source,
        "/usr/bin/c++ -Dgt4py_native_probe_EXPORTS -isystem /py/include -O3 -std=gnu++17 -fPIC "
        f"-MD -MT x.o -MF x.o.d -o CMakeFiles/p.dir/probe.cpp.o -c {source}",
    )
    recorded = _toolchain._recorded_compile_command(tmp_path / "build", source)
    assert recorded == ["/usr/bin/c++", "-isystem", "/py/include", "-O3", "-fPIC"]


def test_recorded_compile_command_must_compile_the_probe(tmp_path: pathlib.Path) -> None:
    source = tmp_path / "probe.cpp"
    _compile_commands(tmp_path / "build", source, f"/usr/bin/c++ -O3 {source}")
    with pytest.raises(native.ToolchainError, match="cannot understand CMake's compile command"):
        _toolchain._recorded_compile_command(tmp_path / "build", source)
    _compile_commands(
        tmp_path / "build",
        source,
        f"/usr/bin/c++ @CMakeFiles/gt4py_native_probe.dir/flags.rsp -o x.o -c {source}",
    )
    with pytest.raises(native.ToolchainError, match="tied to the probe's build"):
        _toolchain._recorded_compile_command(tmp_path / "build", source)
    _compile_commands(tmp_path / "build", tmp_path / "other.cpp", "/usr/bin/c++ -c other.cpp")
    with pytest.raises(native.ToolchainError, match="no compile command"):
        _toolchain._recorded_compile_command(tmp_path / "build", source)


def test_recorded_link_command_has_slots_and_absolute_library(tmp_path: pathlib.Path) -> None:
    (tmp_path / "libnanobind-static.a").write_text("")
    line = (
        ": && /usr/bin/c++ -fPIC -O3 -shared -o gt4py_native_probe.so "
        "CMakeFiles/gt4py_native_probe.dir/probe.cpp.o libnanobind-static.a && :"
    )
    recorded = _toolchain._recorded_link_command(line, tmp_path)
    assert recorded == [
        "/usr/bin/c++",
        "-fPIC",
        "-O3",
        "-shared",
        "-o",
        _toolchain.OUTPUT_SLOT,
        _toolchain.OBJECTS_SLOT,
        str(tmp_path / "libnanobind-static.a"),
    ]


def test_only_the_support_library_is_built_before_the_self_test() -> None:
    static = (
        ": && /usr/bin/c++ -fPIC -O3 -shared -o gt4py_native_probe.so "
        "CMakeFiles/gt4py_native_probe.dir/probe.cpp.o libnanobind-static.a && :"
    )
    split = ": && /usr/bin/c++ -shared -o gt4py_native_probe.abi3.so CMakeFiles/gt4py_native_probe.dir/probe.cpp.o && :"
    assert _toolchain._linked_build_files(static) == ["libnanobind-static.a"]
    assert _toolchain._linked_build_files(split) == []  # split mode: CMake builds nothing


def test_support_library_chunks_are_balanced(tmp_path: pathlib.Path) -> None:
    from gt4py.infra.native import _support_library

    sizes = {"a.cpp": 90, "b.cpp": 60, "c.cpp": 50, "d.cpp": 40, "e.cpp": 5}
    for name, size in sizes.items():
        (tmp_path / name).write_text("x" * size)
    chunks = _support_library._balanced([tmp_path / n for n in sizes], 2)
    totals = sorted(sum(sizes[p.name] for p in chunk) for chunk in chunks)
    assert totals == [115, 130]  # largest first, each to the lighter chunk
    assert _support_library._balanced([tmp_path / "a.cpp"], 2) == [[tmp_path / "a.cpp"]]


def test_recorded_link_command_drops_cmakes_link_dependency_file(tmp_path: pathlib.Path) -> None:
    # Newer CMake with GNU ld >= 2.35 adds it; it points into the probe's build directory.
    line = (
        ": && /usr/bin/c++ -shared "
        "-Wl,--dependency-file=CMakeFiles/gt4py_native_probe.dir/link.d -o p.so "
        "CMakeFiles/gt4py_native_probe.dir/probe.cpp.o && :"
    )
    recorded = _toolchain._recorded_link_command(line, tmp_path)
    assert recorded == [
        "/usr/bin/c++",
        "-shared",
        "-o",
        _toolchain.OUTPUT_SLOT,
        _toolchain.OBJECTS_SLOT,
    ]


@pytest.mark.parametrize(
    ("line", "match"),
    [
        (": && /usr/bin/c++ -shared CMakeFiles/p.dir/probe.cpp.o && :", "cannot understand"),
        (
            ": && /usr/bin/c++ -Wl,@CMakeFiles/gt4py_native_probe.dir/x.rsp -o p.so "
            "CMakeFiles/gt4py_native_probe.dir/probe.cpp.o && :",
            "tied to the probe's build",
        ),
        (": && /usr/bin/c++ -shared -o p.so libmissing.a && :", "missing file libmissing.a"),
        (": && /usr/bin/c++ -shared -o p.so && :", "cannot find the object"),
    ],
)
def test_unexpected_link_commands_are_refused(
    tmp_path: pathlib.Path, line: str, match: str
) -> None:
    with pytest.raises(native.ToolchainError, match=match):
        _toolchain._recorded_link_command(line, tmp_path)


def test_ninja_commands_are_quoted_and_escaped() -> None:
    assert _module_build._command(["c++", "-DX=a b", "-DY=$HOME", "$in", "$out"]) == (
        "c++ '-DX=a b' '-DY=$$HOME' $in $out"
    )


def test_unreadable_toolchain_directory_is_a_toolchain_error(tmp_path: pathlib.Path) -> None:
    (tmp_path / "toolchain.json").write_text("{not json")
    with pytest.raises(native.ToolchainError, match=r"unreadable.*delete that directory"):
        _toolchain.Toolchain.load(tmp_path)


# -- loading --------------------------------------------------------------------------------------


def test_load_extension_of_a_missing_file(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError, match="no native extension module"):
        native.load_extension(tmp_path / "absent.so")


def test_load_extension_of_a_file_that_is_no_extension(tmp_path: pathlib.Path) -> None:
    not_a_library = tmp_path / f"adder{sysconfig.get_config_var('EXT_SUFFIX')}"
    not_a_library.write_text("plain text")
    with pytest.raises(ImportError, match=r"cannot load native extension.*NB_MODULE"):
        native.load_extension(os.fspath(not_a_library))


def test_host_tuned_builds_are_keyed_on_the_cpu():
    from gt4py.infra.native._host import host_cpu_identity, targets_build_host

    assert targets_build_host(["-O3", "-march=native"])
    assert not targets_build_host(["-O3", "-march=x86-64-v3"])
    identity = host_cpu_identity()
    assert identity and identity == host_cpu_identity()


def test_host_cpu_is_a_key_part_only_for_host_tuned_builds(monkeypatch, tmp_path):
    from gt4py.infra import caching
    from gt4py.infra.native import _build

    seen: list[caching.CacheKey] = []

    class Recorder:
        def __init__(self, namespace):
            pass

        def get_or_build(self, key, build):
            seen.append(key)
            raise RuntimeError("stop here")

    monkeypatch.setattr(_build.caching, "BuildDirCache", Recorder)
    source = {"m.cpp": "#include <nanobind/nanobind.h>\nNB_MODULE(m, m) {}\n"}
    for flags in ((), ("-march=native",)):
        options = native.BuildOptions(extra_compile_flags=flags, host_tuned=False)
        with pytest.raises(RuntimeError, match="stop here"):
            _build.build_extension("m", source, options)
    plain, tuned = (key.parts["host_cpu"] for key in seen)
    assert plain == "any"
    assert tuned != "any"
    monkeypatch.setattr(_build, "host_cpu_identity", lambda: "another cpu")
    with pytest.raises(RuntimeError, match="stop here"):
        _build.build_extension(
            "m", source, native.BuildOptions(extra_compile_flags=("-march=native",))
        )
    assert seen[-1].parts["host_cpu"] != tuned


def test_declared_module_names_are_found_at_word_starts_only() -> None:
    from gt4py.infra.native._module_build import _declared_modules

    code = "NB_MODULE(first, m) {}\nXNB_MODULE(not_this, m)\n  NB_MODULE ( second ,m)\nfoo_NB_MODULE(no, m)"
    assert _declared_modules(code) == {"first", "second"}
    assert _declared_modules("// none here") == set()
