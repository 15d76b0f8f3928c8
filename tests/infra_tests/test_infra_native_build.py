"""gt4py.infra.native building real modules: build-once, cache hits, errors, OpenMP, CUDA.

Every test here uses one cache root and one toolchain for the whole session (setting a
toolchain up compiles nanobind: seconds), whose C++ compiler is a wrapper script that logs each
invocation. Each test uses module sources of its own, so tests never hit each other's builds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import logging
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from gt4py.infra import caching, config, native, pipeline
from gt4py.infra.native import _tools
from gt4py.infra.native._module_build import SHIPPED_INCLUDE_DIR


pytestmark = pytest.mark.slow

ADDER = textwrap.dedent(
    """\
    #include <nanobind/nanobind.h>
    #include <nanobind/ndarray.h>
    namespace nb = nanobind;

    // TAG: makes each test's sources (and so its cache key) its own.
    static double total(nb::ndarray<const double, nb::ndim<1>, nb::c_contig> values) {
        double sum = 0.0;
        for (size_t i = 0; i < values.shape(0); ++i) sum += values(i);
        return sum;
    }

    NB_MODULE(NAME, m) {
        m.def("add", [](int a, int b) { return a + b; });
        m.def("total", &total);
    }
    """
)


def adder_sources(name: str, tag: str) -> dict[str, str]:
    return {f"{name}.cpp": ADDER.replace("NAME", name).replace("TAG", tag)}


@dataclasses.dataclass(frozen=True)
class NativeSession:
    cache_dir: pathlib.Path
    compiler: pathlib.Path  # logs "<args>" to `log`, then runs the real compiler
    log: pathlib.Path

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            "GT4PY_BUILD_CACHE_DIR": str(self.cache_dir),
            "GT4PY_BUILD_CACHE_LIFETIME": "persistent",
            "GT4PY_CXX": str(self.compiler),
        }

    @contextlib.contextmanager
    def applied(self) -> Iterator[None]:
        with config.overrides(
            build_cache_dir=self.cache_dir,
            build_cache_lifetime="persistent",
            cxx_compiler=str(self.compiler),
        ):
            yield


@pytest.fixture(scope="session")
def native_session(tmp_path_factory: pytest.TempPathFactory) -> NativeSession:
    for tool in ("nanobind", "cmake", "ninja"):
        pytest.importorskip(tool)
    real = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if real is None:
        pytest.skip("no C++ compiler on PATH")
    root = tmp_path_factory.mktemp("native")
    log = root / "compiler-calls.log"
    wrapper = root / "logging-c++"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    session = NativeSession(cache_dir=root / "cache", compiler=wrapper, log=log)
    with session.applied():
        native.prepare_toolchain()
    return session


@pytest.fixture
def native_env(native_session: NativeSession) -> Iterator[NativeSession]:
    with native_session.applied():
        yield native_session


_CHILD = textwrap.dedent(
    """\
    import json, pathlib, sys, time
    from gt4py.infra import native
    name, sources, barrier = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3:]
    if barrier:  # announce readiness, then start together with the sibling process
        ready, go = map(pathlib.Path, barrier)
        ready.touch()
        while not go.exists():
            time.sleep(0.005)
    module = native.load_extension(native.build_extension(name, sources))
    print(module.add(40, 2))
    """
)


def run_child(session: NativeSession, name: str, sources: dict[str, str]) -> str:
    completed = subprocess.run(
        [sys.executable, "-c", _CHILD, name, json.dumps(sources)],
        env=session.environment(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


def compiles_of(calls: list[str], source: str) -> list[str]:
    return [call for call in calls if f"-c src/{source}" in call]


# -- building and loading -------------------------------------------------------------------------


def test_module_builds_imports_and_computes(native_env: NativeSession) -> None:
    before = len(native_env.calls())
    path = native.build_extension("adder", adder_sources("adder", "basic"))

    # Split mode (the default where nanobind-backend is installed) builds for the stable ABI.
    split = _tools.nanobind_backend_identity() is not None
    suffix = ".abi3.so" if split else str(sysconfig.get_config_var("EXT_SUFFIX"))
    assert path.name == "adder" + suffix
    assert path.is_relative_to(native_env.cache_dir / "native" / "modules")
    module = native.load_extension(path)
    assert module.add(2, 3) == 5
    assert module.total(np.arange(5, dtype=np.float64)) == 10.0
    with pytest.raises(TypeError):  # nanobind's own signature check: 1-D only
        module.total(np.ones((2, 2)))

    # The toolchain was configured before: a new module is one compile and one link.
    new_calls = native_env.calls()[before:]
    assert len(new_calls) == 2, new_calls
    assert len(compiles_of(new_calls, "adder.cpp")) == 1
    assert "-shared" in new_calls[1]


def test_second_build_in_the_same_process_is_a_hit(native_env: NativeSession) -> None:
    sources = adder_sources("adder", "same-process")
    first = native.build_extension("adder", sources)
    before = len(native_env.calls())
    assert native.build_extension("adder", sources) == first
    assert len(native_env.calls()) == before


def test_build_in_a_fresh_process_is_a_hit_running_no_compiler(native_env: NativeSession) -> None:
    sources = adder_sources("adder", "fresh-process")
    native.build_extension("adder", sources)
    before = native_env.calls()

    assert run_child(native_env, "adder", sources) == "42"
    assert native_env.calls() == before  # not even `c++ --version`


def test_changed_sources_are_rebuilt(native_env: NativeSession) -> None:
    first = native.build_extension("adder", adder_sources("adder", "version-1"))
    second = native.build_extension("adder", adder_sources("adder", "version-2"))
    assert first != second
    assert first.is_file() and second.is_file()


def test_two_processes_building_one_module_build_it_once(
    native_env: NativeSession, tmp_path: pathlib.Path
) -> None:
    sources = adder_sources("racer", "two-processes")
    go = tmp_path / "go"
    children: list[tuple[pathlib.Path, subprocess.Popen[str]]] = []
    for index in range(2):
        ready = tmp_path / f"ready-{index}"
        command = [sys.executable, "-c", _CHILD, "racer", json.dumps(sources), str(ready), str(go)]
        child = subprocess.Popen(
            command, env=native_env.environment(), stdout=subprocess.PIPE, text=True
        )
        children.append((ready, child))
    deadline = time.monotonic() + 120
    while not all(ready.exists() for ready, _ in children):
        assert time.monotonic() < deadline, "child processes did not start"
        time.sleep(0.01)
    go.touch()  # both start building now
    outputs = [child.communicate(timeout=300)[0].strip() for _, child in children]

    assert [child.returncode for _, child in children] == [0, 0]
    assert outputs == ["42", "42"]
    assert len(compiles_of(native_env.calls(), "racer.cpp")) == 1


def test_threads_building_one_module_build_it_once(native_env: NativeSession) -> None:
    sources = adder_sources("threaded", "threads")
    results: list[pathlib.Path] = []
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def build() -> None:
        start.wait()
        try:
            results.append(native.build_extension("threaded", sources))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors, errors
    assert len(results) == 4 and len(set(results)) == 1
    assert len(compiles_of(native_env.calls(), "threaded.cpp")) == 1
    assert native.load_extension(results[0]).add(1, 1) == 2


# -- compiler errors ------------------------------------------------------------------------------

BROKEN = textwrap.dedent(
    """\
    #include <nanobind/nanobind.h>
    int broken() {
        return 1 +;
    }
    NB_MODULE(broken, m) { m.def("broken", &broken); }
    """
)


def test_syntax_error_is_one_compilation_error_with_the_message_and_kept_sources(
    native_env: NativeSession,
) -> None:
    with pytest.raises(native.CompilationError) as info:
        native.build_extension("broken", {"broken.cpp": BROKEN})
    error = info.value

    assert error.module_name == "broken"
    assert "broken.cpp:3" in error.compiler_output  # the compiler names the bad line
    assert "return 1 +;" in error.compiler_output
    assert "broken.cpp:3" in str(error)
    assert str(error.source_dir) in str(error)
    assert (error.source_dir / "src" / "broken.cpp").read_text() == BROKEN
    assert (error.source_dir / "build.ninja").is_file()
    # Kept outside the published modules, and nothing was published.
    modules = native_env.cache_dir / "native" / "modules"
    assert not error.source_dir.is_relative_to(modules)
    assert not list((modules / "_dirs").glob("*/broken*"))

    # Not cached as a success: building again fails again.
    with pytest.raises(native.CompilationError):
        native.build_extension("broken", {"broken.cpp": BROKEN})


def test_kept_failed_build_reproduces_the_error_with_ninja(native_env: NativeSession) -> None:
    sources = {"broken.cpp": BROKEN.replace("return 1 +;", "return undeclared_name;")}
    with pytest.raises(native.CompilationError) as info:
        native.build_extension("broken", sources)
    rerun = _tools.run_tool(_tools.find_ninja(), ["-C", str(info.value.source_dir)])
    assert rerun.returncode != 0
    assert "undeclared_name" in rerun.stdout


def test_broken_toolchain_is_a_toolchain_error_with_the_kept_probe(
    native_env: NativeSession, tmp_path: pathlib.Path
) -> None:
    refusing = tmp_path / "refusing-c++"
    refusing.write_text(
        '#!/bin/sh\nif [ "$1" = --version ]; then echo "refusing 1.0"; exit 0; fi\n'
        "echo 'refusing compiler: no' >&2\nexit 1\n"
    )
    refusing.chmod(refusing.stat().st_mode | stat.S_IXUSR)
    with (
        config.overrides(cxx_compiler=str(refusing)),
        pytest.raises(native.ToolchainError, match="setting up the native toolchain") as info,
    ):
        native.build_extension("adder", adder_sources("adder", "refused"))
    assert "kept in" in str(info.value)
    assert info.value.output


# -- options --------------------------------------------------------------------------------------


def test_options_reach_the_compiler(native_env: NativeSession, tmp_path: pathlib.Path) -> None:
    include = tmp_path / "include"
    include.mkdir()
    (include / "scale.hpp").write_text("int scale(int value);\n")
    sources = {
        "scale.cpp": '#include "scale.hpp"\nint scale(int value) { return FACTOR * value; }\n',
        "options_mod.cpp": textwrap.dedent(
            """\
            #include <concepts>  // C++20
            #include <nanobind/nanobind.h>
            #include <scale.hpp>
            #include "local/offset.hpp"
            template <std::integral T> T shifted(T value) { return scale(value) + OFFSET; }
            NB_MODULE(options_mod, m) {
                m.def("shifted", &shifted<int>);
                m.def("label", []() { return LABEL; });
            }
            """
        ),
        "local/offset.hpp": "#define OFFSET 1\n",
    }
    options = native.BuildOptions(
        cxx_standard=20,
        defines={"FACTOR": 3, "LABEL": '"with options"'},
        include_dirs=[include],
        libraries=["m"],
    )
    before = len(native_env.calls())
    module = native.load_extension(native.build_extension("options_mod", sources, options))

    assert module.shifted(5) == 16
    assert module.label() == "with options"
    new_calls = native_env.calls()[before:]
    assert len(new_calls) == 3  # two sources, one link
    assert all("-std=c++20" in call for call in compiles_of(new_calls, ""))


def test_precompiled_prelude_is_made_once_and_force_included(native_env: NativeSession) -> None:
    from gt4py.infra.native import _prelude

    options = native.BuildOptions(precompiled_prelude=True, defines={"PRELUDE_TEST": 1})
    before = len(native_env.calls())
    first = native.build_extension("prelude_a", adder_sources("prelude_a", "prelude"), options)
    second = native.build_extension("prelude_b", adder_sources("prelude_b", "prelude"), options)
    for path in (first, second):
        module = native.load_extension(path)
        assert module.add(40, 2) == 42
        assert module.total(np.arange(4, dtype=np.float64)) == 6.0

    new_calls = native_env.calls()[before:]
    precompiles = [call for call in new_calls if "-x c++-header" in call and ".gch" in call]
    assert len(precompiles) == 1, precompiles  # one per compile command, shared by both
    (entry,) = (native_env.cache_dir / "native" / "preludes" / "_dirs").iterdir()
    header = entry / "extension_prelude.hpp"
    for source in ("prelude_a.cpp", "prelude_b.cpp"):
        (compile_,) = compiles_of(new_calls, source)
        if (entry / "unusable.txt").exists():  # a compiler that does not take it (not GCC)
            assert "-include" not in compile_
        else:
            assert f"-include {header}" in compile_
            assert pathlib.Path(f"{header}.gch").is_file()
    # the prelude is keyed by the compile command: other flags, another precompile
    flags = _prelude.prelude_flags([str(native_env.compiler), "-O1"], SHIPPED_INCLUDE_DIR, "test")
    assert flags == [] or flags[0] == "-include"
    assert len(list((native_env.cache_dir / "native" / "preludes" / "_dirs").iterdir())) == 2


def test_a_compiler_that_cannot_precompile_builds_without_the_prelude(
    native_env: NativeSession, tmp_path: pathlib.Path
) -> None:
    from gt4py.infra.native import _prelude

    refusing = tmp_path / "refusing-c++"
    calls = tmp_path / "calls.log"
    refusing.write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\necho "no headers here" >&2\nexit 1\n')
    refusing.chmod(refusing.stat().st_mode | stat.S_IXUSR)
    command = [str(refusing), "-O2"]
    assert _prelude.prelude_flags(command, SHIPPED_INCLUDE_DIR, "refusing") == []
    assert _prelude.prelude_flags(command, SHIPPED_INCLUDE_DIR, "refusing") == []
    # one listing of the headers (-M), one precompile: the refusal is remembered, not retried
    assert len(calls.read_text().splitlines()) == 2
    reasons = [p.read_text() for p in (native_env.cache_dir / "native").rglob("unusable.txt")]
    assert any("no headers here" in reason for reason in reasons)


def _own_prelude(root: pathlib.Path, version: int) -> pathlib.Path:
    """A shipped include directory whose prelude includes ``<probe_dep.hpp>`` of ``root``."""
    (root / "gt4py").mkdir(parents=True, exist_ok=True)
    (root / "gt4py" / "extension_prelude.hpp").write_text(
        "#pragma once\n#include <probe_dep.hpp>\n"
    )
    _write_dep(root, version)
    return root


def _write_dep(root: pathlib.Path, version: int) -> None:
    (root / "probe_dep.hpp").write_text(
        f"#pragma once\nconstexpr int prelude_version() {{ return {version}; }}\n"
    )


def _compiles_with(
    command: Sequence[str], flags: Sequence[str], version: int, where: pathlib.Path
) -> subprocess.CompletedProcess[str]:
    source = where / f"uses_v{version}.cpp"
    source.write_text(f"#include <probe_dep.hpp>\nstatic_assert(prelude_version() == {version});\n")
    return subprocess.run(
        [*command, *flags, "-c", str(source), "-o", str(where / "uses.o")],
        capture_output=True,
        text=True,
    )


def test_a_header_the_prelude_reads_changed_in_place_makes_a_new_precompile(
    native_env: NativeSession, tmp_path: pathlib.Path
) -> None:
    """Issue 44: the prelude was keyed by the command only, so after a header it includes
    changed in place (a nanobind upgrade, same flags) the stale precompile was loaded by every
    build. The key now holds the content of every header the precompile reads (-M)."""
    from gt4py.infra.native import _prelude

    shipped = _own_prelude(tmp_path / "include", 1)
    command = [str(native_env.compiler), "-std=c++17", "-O0", f"-I{shipped}"]
    first = _prelude.prelude_flags(command, shipped, "in-place")
    if not first:
        pytest.skip("this compiler does not take precompiled headers")
    assert _compiles_with(command, first, 1, tmp_path).returncode == 0
    again = _prelude.prelude_flags(command, shipped, "in-place")
    assert again == first  # unchanged headers: the same entry, no new precompile

    dep = shipped / "probe_dep.hpp"
    before = dep.stat()
    _write_dep(shipped, 2)  # the same file, rewritten
    os.utime(dep, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))
    second = _prelude.prelude_flags(command, shipped, "in-place")
    assert second != first
    built = _compiles_with(command, second, 2, tmp_path)
    assert built.returncode == 0, built.stderr
    # the old precompile is what a build would have loaded: it still says 1
    assert _compiles_with(command, first, 2, tmp_path).returncode != 0


def _flaky_compiler(tmp_path: pathlib.Path, real: pathlib.Path, failure: str) -> pathlib.Path:
    """A compiler whose first precompile fails as ``failure`` says (`kill`: killed by
    SIGKILL; `disk`: GCC's message of a full disk), then works; each call is logged."""
    state, log = tmp_path / "failed-once", tmp_path / "flaky-calls.log"
    fail = (
        "kill -KILL $$"
        if failure == "kill"
        else 'echo "fatal error: cannot write precompiled header: No space left on device" >&2;'
        " exit 1"
    )
    script = tmp_path / f"flaky-{failure}-c++"
    script.write_text(
        "#!/bin/sh\n"
        f'printf "%s\\n" "$*" >> "{log}"\n'
        'case "$*" in *.gch*)\n'
        f'  if [ ! -e "{state}" ]; then touch "{state}"; {fail}; fi;;\n'
        "esac\n"
        f'exec "{real}" "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.mark.parametrize("failure", ["kill", "disk"])
def test_a_failed_precompile_is_tried_again_later_not_disabled_for_good(
    native_env: NativeSession,
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
) -> None:
    """Issue 44: one failed precompile (a killed compiler, a full disk) was recorded as the
    compiler's refusal, and no build used the prelude again. Only a refusal is recorded now;
    a passing failure is tried again after RETRY_AFTER_S (or in the next process)."""
    from gt4py.infra.native import _prelude

    compiler = _flaky_compiler(tmp_path, native_env.compiler, failure)
    command = [str(compiler), "-std=c++17", "-O0", f"-DFLAKY_{failure.upper()}"]
    log = tmp_path / "flaky-calls.log"

    def precompiles() -> int:
        return sum(".gch" in line for line in log.read_text().splitlines())

    entries = native_env.cache_dir / "native" / "preludes" / "_dirs"
    entries.mkdir(parents=True, exist_ok=True)
    others = set(entries.iterdir())

    def recorded() -> set[pathlib.Path]:
        return set(entries.iterdir()) - others

    assert _prelude.prelude_flags(command, SHIPPED_INCLUDE_DIR, "flaky") == []
    assert precompiles() == 1
    assert not recorded()  # nothing published: no refusal recorded
    # within RETRY_AFTER_S: no new attempt, modules build without the prelude
    assert _prelude.prelude_flags(command, SHIPPED_INCLUDE_DIR, "flaky") == []
    assert precompiles() == 1
    # later: tried again, and it works
    later = time.monotonic() + _prelude.RETRY_AFTER_S + 1
    monkeypatch.setattr(_prelude.time, "monotonic", lambda: later)
    flags = _prelude.prelude_flags(command, SHIPPED_INCLUDE_DIR, "flaky")
    assert precompiles() == 2
    (entry,) = recorded()
    # (a compiler that does not take precompiled headers at all: refused, and recorded now)
    assert flags == ["-include", str(entry / "extension_prelude.hpp")] or (
        flags == [] and (entry / "unusable.txt").exists()
    )


def test_entry_point_checks_count_and_types_and_names_the_argument(
    native_env: NativeSession,
) -> None:
    parameters = [
        native.Parameter("nb::ndarray<double, nb::device::cpu>", "out", convert=False),
        native.Parameter("std::int64_t", "n"),
        native.Parameter("double", "value"),
    ]
    source = textwrap.dedent(
        """\
        #include <cstdint>
        #include <nanobind/nanobind.h>
        #include <nanobind/ndarray.h>
        namespace nb = nanobind;
        static int run(nb::ndarray<double, nb::device::cpu> out, std::int64_t n, double value) {
            double* data = static_cast<double*>(out.data());
            for (std::int64_t i = 0; i < n && i < std::int64_t(out.shape(0)); ++i) data[i] = value;
            return int(n);
        }
        """
    )
    sources = {"entry_mod.cpp": source + native.entry_point("entry_mod", parameters)}
    module = native.load_extension(native.build_extension("entry_mod", sources))

    out = np.zeros(4)
    assert module.run(out, 3, 2.5) == 3
    assert out.tolist() == [2.5, 2.5, 2.5, 0.0]
    with pytest.raises(TypeError, match=r"run\(\) takes 3 arguments"):
        module.run(out, 3)
    with pytest.raises(TypeError, match=r"argument 2 \(value\) is not a double"):
        module.run(out, 3, "x")
    # no conversion for `out`: a float32 array would be copied, and the writes lost
    with pytest.raises(TypeError, match=r"argument 0 \(out\) is not a nb::ndarray<double"):
        module.run(np.zeros(4, dtype=np.float32), 3, 1.0)


def test_openmp_module(native_env: NativeSession) -> None:
    toolchain = json.loads((native.prepare_toolchain() / "toolchain.json").read_text())
    sources = {
        "omp_mod.cpp": textwrap.dedent(
            """\
            #include <nanobind/nanobind.h>
            #include <omp.h>
            NB_MODULE(omp_mod, m) {
                m.def("max_threads", []() { return omp_get_max_threads(); });
                m.def("parallel_sum", [](long n) {
                    long sum = 0;
                    #pragma omp parallel for reduction(+ : sum)
                    for (long i = 0; i < n; ++i) sum += i;
                    return sum;
                });
            }
            """
        )
    }
    options = native.BuildOptions(openmp=True)
    if toolchain["openmp_flags"] is None:
        with pytest.raises(native.ToolchainError, match="OpenMP"):
            native.build_extension("omp_mod", sources, options)
        return
    module = native.load_extension(native.build_extension("omp_mod", sources, options))
    assert module.max_threads() >= 1
    assert module.parallel_sum(100_000) == 100_000 * 99_999 // 2
    openmp_flags = " ".join(toolchain["openmp_flags"])
    assert all(openmp_flags in call for call in compiles_of(native_env.calls(), "omp_mod.cpp"))


# -- CUDA -----------------------------------------------------------------------------------------

CUDA_SOURCE = textwrap.dedent(
    """\
    #include <nanobind/nanobind.h>
    #include <cuda_runtime.h>

    __global__ void iota(int* out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = i;
    }

    static int device_count() {
        int count = 0;
        return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
    }

    static long iota_sum(int n) {  // runs a kernel: needs a GPU
        int* device = nullptr;
        cudaMalloc(&device, n * sizeof(int));
        iota<<<(n + 127) / 128, 128>>>(device, n);
        int* host = new int[n];
        cudaMemcpy(host, device, n * sizeof(int), cudaMemcpyDeviceToHost);
        cudaFree(device);
        long sum = 0;
        for (int i = 0; i < n; ++i) sum += host[i];
        delete[] host;
        return sum;
    }

    NB_MODULE(cuda_mod, m) {
    #ifdef __CUDACC__
        m.def("compiled_by_nvcc", []() { return true; });
    #endif
        m.def("device_count", &device_count);
        m.def("iota_sum", &iota_sum);
    }
    """
)


@pytest.fixture
def nvcc_present() -> None:
    try:
        _tools.find_nvcc()
    except native.ToolchainError as error:
        pytest.skip(str(error))


def test_cuda_source_is_compiled_with_nvcc(native_env: NativeSession, nvcc_present: None) -> None:
    path = native.build_extension(
        "cuda_mod", {"cuda_mod.cu": CUDA_SOURCE}, native.BuildOptions(cuda=True)
    )
    assert path.is_file()
    build_ninja = (path.parent / "build.ninja").read_text()
    assert "build obj/cuda_mod.cu.o: cuda src/cuda_mod.cu" in build_ninja
    # nvcc drives the session's compiler as its host compiler.
    assert any("cuda_mod" in call for call in native_env.calls())


@pytest.mark.requires_gpu
def test_cuda_module_runs_a_kernel(native_env: NativeSession, nvcc_present: None) -> None:
    path = native.build_extension(
        "cuda_mod", {"cuda_mod.cu": CUDA_SOURCE}, native.BuildOptions(cuda=True)
    )
    module = native.load_extension(path)  # the CUDA runtime is linked statically
    assert module.compiled_by_nvcc()
    if module.device_count() == 0:
        pytest.skip("no CUDA device")
    assert module.iota_sum(1000) == 999 * 1000 // 2


def test_cache_lists_native_entries(native_env: NativeSession) -> None:
    native.build_extension("adder", adder_sources("adder", "listed"))
    listing = subprocess.run(
        [sys.executable, "-m", "gt4py.infra.cache", "info"],
        env=native_env.environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert listing.returncode == 0, listing.stderr
    assert "native/modules" in listing.stdout
    assert "native/toolchains" in listing.stdout


# -- host-tuned builds (ADR 0023) and the compile log --------------------------------------------


def test_tuned_modules_are_compiled_for_this_cpu_portable_ones_not(
    native_env: NativeSession,
) -> None:
    toolchain = json.loads((native.prepare_toolchain() / "toolchain.json").read_text())
    [flag] = toolchain["host_tuning_flags"]  # what the system compiler takes
    before = len(native_env.calls())
    for tuned in (True, False):
        name = f"tuned_{tuned}".lower()
        options = native.BuildOptions(host_tuned=tuned)
        module = native.load_extension(
            native.build_extension(name, adder_sources(name, "host-tuned"), options)
        )
        assert module.add(1, 2) == 3
    calls = native_env.calls()[before:]
    assert flag in compiles_of(calls, "tuned_true.cpp")[0]
    assert flag not in compiles_of(calls, "tuned_false.cpp")[0]


def test_builds_note_miss_then_hit_on_the_compile_log(native_env: NativeSession) -> None:
    sources = adder_sources("adder", "compile-log")
    with pipeline.CompileEvent("adder", "test") as first:
        native.build_extension("adder", sources)
    with pipeline.CompileEvent("adder", "test") as second:
        native.build_extension("adder", sources)
    assert first.notes == [("build", "miss")]
    assert second.notes == [("build", "hit")]


def test_toolchain_set_up_is_one_line_on_the_compile_log(
    native_env: NativeSession, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    with config.overrides(cmake_build_type="MinSizeRel"):  # a toolchain of its own
        native.prepare_toolchain()
        native.prepare_toolchain()
    lines = [r.getMessage() for r in caplog.records if r.name == "gt4py.compile"]
    # a cold set-up says when it starts and when it ends; the second call says nothing
    assert lines[0] == "setting up the native toolchain (once per machine) … started (a cache miss)"
    assert len(lines) == 2, lines
    assert lines[1].startswith("setting up the native toolchain (once per machine) … ")
    assert not lines[1].endswith("started (a cache miss)")


# -- a warm cache needs no compiler (ADR 0018) ---------------------------------------------------


def test_warm_cache_loads_without_any_compiler(
    native_env: NativeSession, tmp_path: pathlib.Path
) -> None:
    sources = adder_sources("adder", "no-compiler")
    native.build_extension("adder", sources)
    empty = tmp_path / "bin"
    empty.mkdir()
    environment = {**native_env.environment(), "PATH": str(empty), "CXX": "/nonexistent/c++"}
    del environment["GT4PY_CXX"]

    def child(sources: dict[str, str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", _CHILD, "adder", json.dumps(sources)],
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    warm = child(sources)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.strip() == "42"
    cold = child(adder_sources("adder", "no-compiler-miss"))  # a miss still needs one
    assert cold.returncode != 0
    assert "ToolchainError" in cold.stderr
    assert "/nonexistent/c++" in cold.stderr


def test_a_changed_compiler_is_asked_again(
    native_env: NativeSession, tmp_path: pathlib.Path
) -> None:
    sources = adder_sources("adder", "changed-compiler")
    first = native.build_extension("adder", sources)
    log = tmp_path / "other.log"
    other = tmp_path / "other-c++"
    other.write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{native_env.compiler}" "$@"\n'
    )
    other.chmod(other.stat().st_mode | stat.S_IXUSR)
    with config.overrides(cxx_compiler=str(other)):
        second = native.build_extension("adder", sources)
        assert native.build_extension("adder", sources) == second
    assert second != first  # another compiler identity: another module entry
    assert compiles_of(log.read_text().splitlines(), "adder.cpp")
    assert native.build_extension("adder", sources) == first  # the first compiler again


# -- a full disk is a CacheError, and failed builds stay in the cache (ADR 0018) -----------------


@pytest.fixture
def private_tempdir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """The system temp directory for this test, to see that nothing is left there."""
    directory = tmp_path / "system-tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


def test_disk_full_while_writing_a_build_is_a_cache_error(
    native_env: NativeSession, monkeypatch: pytest.MonkeyPatch, private_tempdir: pathlib.Path
) -> None:
    real_write_text = pathlib.Path.write_text

    def write_text(self: pathlib.Path, *args: object, **kwargs: object) -> int:
        if self.suffix == ".cpp":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))
        return real_write_text(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pathlib.Path, "write_text", write_text)
    with pytest.raises(caching.CacheError, match="no space left on the device") as info:
        native.build_extension("adder", adder_sources("adder", "disk-full-write"))
    assert str(native_env.cache_dir / "native" / "modules") in str(info.value)
    assert list(private_tempdir.iterdir()) == []
    assert not [
        p
        for p in (native_env.cache_dir / "native" / "modules" / "_dirs").iterdir()
        if p.name.startswith(".tmp-")
    ]


def test_compiler_reporting_a_full_disk_is_a_cache_error(
    native_env: NativeSession, monkeypatch: pytest.MonkeyPatch, private_tempdir: pathlib.Path
) -> None:
    real_run_tool = _tools.run_tool

    def run_tool(tool: _tools.Tool, args: Sequence[str], **kwargs: Any) -> Any:
        if tool.role == "Ninja" and kwargs.get("cwd") is not None:
            output = "FAILED: obj/adder.cpp.o\nfatal error: cannot write: No space left on device\n"
            return subprocess.CompletedProcess([tool.path, *args], 1, output)
        return real_run_tool(tool, args, **kwargs)

    monkeypatch.setattr(_tools, "run_tool", run_tool)
    with pytest.raises(caching.CacheError, match="no space left on the device") as info:
        native.build_extension("adder", adder_sources("adder", "disk-full-compiler"))
    assert not isinstance(info.value, native.CompilationError)
    assert str(native_env.cache_dir / "native" / "modules") in str(info.value)
    assert list(private_tempdir.iterdir()) == []


def test_toolchain_set_up_on_a_full_disk_is_a_cache_error_not_a_broken_toolchain(
    native_env: NativeSession, tmp_path: pathlib.Path, private_tempdir: pathlib.Path
) -> None:
    full = tmp_path / "full-disk-c++"
    full.write_text(
        '#!/bin/sh\nif [ "$1" = --version ]; then echo "full 1.0"; exit 0; fi\n'
        "echo 'cc1plus: fatal error: /tmp/x.s: No space left on device' >&2\nexit 1\n"
    )
    full.chmod(full.stat().st_mode | stat.S_IXUSR)
    with (
        config.overrides(cxx_compiler=str(full)),
        pytest.raises(caching.CacheError, match="no space left on the device") as info,
    ):
        native.build_extension("adder", adder_sources("adder", "disk-full-toolchain"))
    assert str(native_env.cache_dir / "native" / "toolchains") in str(info.value)
    assert list(private_tempdir.iterdir()) == []


def test_failed_builds_live_in_the_cache_and_clean_removes_them(
    native_env: NativeSession, private_tempdir: pathlib.Path
) -> None:
    sources = {"broken.cpp": BROKEN.replace("return 1 +;", "return 2 +;")}
    with pytest.raises(native.CompilationError) as info:
        native.build_extension("broken", sources)
    failed = native_env.cache_dir / "native" / "failed"
    assert info.value.source_dir.is_relative_to(failed)
    assert list(private_tempdir.iterdir()) == []
    cleaned = subprocess.run(
        [sys.executable, "-m", "gt4py.infra.cache", "clean", "--namespace", "native/failed"],
        env=native_env.environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert cleaned.returncode == 0, cleaned.stderr
    assert not info.value.source_dir.exists()
