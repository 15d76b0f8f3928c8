"""The C++ backends gt:cpu_ifirst / gt:cpu_kfirst: what the shared feature suite does not pin.

Python arithmetic in C++ (against the debug backend), any memory layout, K bounds checks from
inside OpenMP loops, compile errors, and a warm cache in a new process needing no compiler.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gt4py.storage as gts
from gt4py.cartesian import _cpp_codegen, gtscript
from gt4py.cartesian.gtscript import (
    FORWARD,
    PARALLEL,
    StencilCompilationError,
    computation,
    interval,
)
from gt4py.infra import config


pytestmark = pytest.mark.slow
# gt:gpu_emulated: the gt:gpu CUDA source on the host (conftest), with the same bindings.
CPP = ["gt:cpu_ifirst", "gt:cpu_kfirst", "gt:gpu_emulated"]
F = gtscript.Field[np.float64]
FI = gtscript.Field[np.int64]
FI32 = gtscript.Field[np.int32]


def arithmetic(
    a: FI,
    b: FI,
    x: F,
    y: F,
    n: FI32,
    o_mod: FI,
    o_div: FI,
    o_pow: FI,
    o_true: F,
    o_fmod: F,
    o_fdiv: F,
    o_small: FI32,
):  # noqa: E501
    with computation(PARALLEL), interval(...):
        o_mod = a % b
        o_div = a // b
        o_pow = b**2 + a ** (b * 0 + 3)
        o_true = a / b
        o_fmod = x % y
        o_fdiv = x // y
        o_small = n + 1  # a Python int keeps int32 arithmetic int32


def _arithmetic_args():
    rng = np.random.default_rng(1)
    shape = (5, 4, 3)
    a = rng.integers(-20, 20, shape)
    b = rng.integers(1, 7, shape) * rng.choice([-1, 1], shape)
    x = rng.uniform(-9, 9, shape)
    y = rng.uniform(0.5, 3, shape) * rng.choice([-1, 1], shape)
    n = rng.integers(-5, 5, shape).astype(np.int32)
    outs = [np.zeros(shape, np.int64) for _ in range(3)] + [np.zeros(shape) for _ in range(3)]
    return [a, b, x, y, n, *outs, np.zeros(shape, np.int32)]


@pytest.mark.parametrize("backend", CPP)
def test_python_arithmetic_matches_debug(backend):
    cpp = gtscript.stencil(backend=backend)(arithmetic)
    debug = gtscript.stencil(backend="debug")(arithmetic)
    got, want = _arithmetic_args(), _arithmetic_args()
    cpp(*got)
    debug(*want)
    for g, w in zip(got[5:], want[5:], strict=True):
        np.testing.assert_array_equal(g, w)
    a, b, x, y = want[:4]
    np.testing.assert_array_equal(got[5], a % b)  # floors, unlike C++'s %
    np.testing.assert_array_equal(got[6], a // b)
    np.testing.assert_array_equal(got[7], b**2 + a**3)
    np.testing.assert_allclose(got[8], a / b)  # int / int in double
    np.testing.assert_allclose(got[9], x % y)
    np.testing.assert_array_equal(got[10], x // y)


@pytest.mark.parametrize("backend", CPP)
def test_any_memory_layout(backend):
    """Strides come from the arguments: C order, Fortran order, views, backend storages."""

    @gtscript.stencil(backend=backend)
    def smooth(a: F, out: F):
        with computation(FORWARD), interval(0, 1):
            out = a[1, 0, 0] - a[-1, 0, 1]
        with computation(FORWARD), interval(1, None):
            out = out[0, 0, -1] + 0.5 * (a[0, 1, 0] + a[0, -1, 0])

    rng = np.random.default_rng(2)
    base = rng.random((9, 8, 5))
    want = np.zeros_like(base)
    _reference_smooth(base, want)
    layouts = {
        "C": np.ascontiguousarray(base),
        "F": np.asfortranarray(base),
        "view": np.ascontiguousarray(np.pad(base, 1)[1:-1, 1:-1, 1:-1]),
        "storage": gts.from_array(base, backend=backend, aligned_index=(1, 1, 0)),
        "strided": np.repeat(base, 2, axis=0)[::2],
    }
    for label, a in layouts.items():
        out = np.zeros_like(base) if label != "storage" else gts.zeros(base.shape, backend=backend)
        smooth(a, out, origin=(1, 1, 0), domain=(7, 6, 4))
        np.testing.assert_allclose(np.asarray(out), want, err_msg=label)


def _reference_smooth(a, out):
    s = (slice(1, 8), slice(1, 7))
    out[s[0], s[1], 0] = a[2:9, 1:7, 0] - a[0:7, 1:7, 1]
    for k in range(1, 4):
        out[s[0], s[1], k] = out[s[0], s[1], k - 1] + 0.5 * (a[1:8, 2:8, k] + a[1:8, 0:6, k])


@pytest.mark.parametrize("backend", CPP)
def test_k_index_outside_the_field_raises_index_error(backend):
    @gtscript.stencil(backend=backend)
    def shifted(a: F, out: F, shift: int):
        with computation(PARALLEL), interval(...):
            out = a.at(K=shift) + a[0, 0, shift]

    a, out = np.ones((64, 64, 4)), np.zeros((64, 64, 4))  # big enough to run threaded
    shifted(a, out, 0)
    np.testing.assert_array_equal(out, 2.0)
    with pytest.raises(IndexError, match="K index 4 of field 'a' is outside the field"):
        shifted(a, out, 4)


@pytest.mark.parametrize("backend", CPP)
def test_exec_info_and_unchecked_run(backend):
    @gtscript.stencil(backend=backend)
    def scale(a: F, out: F, alpha: float):
        with computation(PARALLEL), interval(...):
            out = alpha * a

    a, out = np.arange(24.0).reshape(2, 3, 4), np.zeros((2, 3, 4))
    info: dict = {}
    scale(a, out, 3.0, exec_info=info)
    assert info["call_start_time"] <= info["run_start_time"] <= info["run_end_time"]
    np.testing.assert_array_equal(out, 3 * a)
    scale.run(
        (2, 3, 4), {"a": (0, 0, 0), "out": (0, 0, 0)}, a=a, out=out, alpha=-1.0, exec_info=info
    )
    np.testing.assert_array_equal(out, -a)
    with pytest.raises(TypeError):  # nanobind checks the dtype even on the unchecked path
        scale.run((2, 3, 4), {"a": (0, 0, 0), "out": (0, 0, 0)}, a=a.astype(np.float32),
                  out=out, alpha=1.0)  # fmt: skip


def test_integer_constant_beyond_64_bits_is_a_clear_error():
    with pytest.raises(
        gtscript.GTScriptDefinitionError, match="1" + "0" * 30 + " does not fit in int64"
    ):

        @gtscript.stencil(backend="gt:cpu_kfirst", externals={"HUGE": 10**30})
        def add_huge(a: FI, out: FI):
            from __externals__ import HUGE

            with computation(PARALLEL), interval(...):
                out = a + HUGE


@pytest.fixture
def shared_cpp_cache(_shared_native_cache):
    """The C++ tests' cache root (its toolchain is set up once per run) for tests that do not
    take the ``backend`` parameter."""
    with config.overrides(build_cache_dir=_shared_native_cache):
        yield _shared_native_cache


@pytest.mark.usefixtures("shared_cpp_cache")
def test_compile_error_names_stencil_compiler_message_and_sources(monkeypatch):
    monkeypatch.setattr(_cpp_codegen, "PRELUDE", _cpp_codegen.PRELUDE + "\nthis is not C++;\n")

    with pytest.raises(StencilCompilationError) as caught:

        @gtscript.stencil(backend="gt:cpu_ifirst", name="broken")
        def broken(a: F, out: F):
            with computation(PARALLEL), interval(...):
                out = a

    message = str(caught.value)
    assert "stencil 'broken'" in message and "'gt:cpu_ifirst'" in message
    assert "error" in caught.value.compiler_output
    assert any(caught.value.source_dir.rglob("*.cpp"))


_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, computation, interval

    @gtscript.stencil(backend="gt:cpu_kfirst")
    def twice(a: gtscript.Field[np.float64], out: gtscript.Field[np.float64]):
        with computation(PARALLEL), interval(...):
            out = 2.0 * a

    a = np.arange(8.0).reshape(2, 2, 2)
    out = np.zeros_like(a)
    twice(a, out)
    print("RESULT", out.sum())
    """
)


def test_new_process_loads_without_a_compiler(tmp_path, shared_cpp_cache):
    script = tmp_path / "twice.py"
    script.write_text(_SCRIPT)
    root = pathlib.Path(shared_cpp_cache)
    env = {**os.environ, "GT4PY_BUILD_CACHE_DIR": str(root)}

    def run(**extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script)], env={**env, **extra}, capture_output=True, text=True
        )

    first = run()
    assert "RESULT 56.0" in first.stdout, first.stderr
    no_compiler = run(GT4PY_CXX="/nonexistent/c++")
    assert "RESULT 56.0" in no_compiler.stdout, no_compiler.stderr

    # The native-module cache cleaned out: the stencil's entry holds its own extension.
    (extension,) = root.glob("native/modules/_dirs/*/gtcpp_twice.*")
    shutil.rmtree(extension.parent)
    cleaned = run(GT4PY_CXX="/nonexistent/c++")
    assert "RESULT 56.0" in cleaned.stdout, cleaned.stderr

    # The stencil entry's extension gone: the entry is corrupt and is rebuilt, which needs
    # the compiler (a clear error without one).
    (extension,) = root.glob("cartesian/stencils/_dirs/*/gtcpp_twice.*so")  # not the .cpp
    extension.unlink()
    missing = run(GT4PY_CXX="/nonexistent/c++")
    assert missing.returncode != 0 and "/nonexistent/c++" in missing.stderr
    rebuilt = run()
    assert "RESULT 56.0" in rebuilt.stdout, rebuilt.stderr


@pytest.mark.parametrize("backend", CPP)
def test_read_only_inputs_and_wrong_dtype(backend):
    @gtscript.stencil(backend=backend)
    def shift(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a[0, 0, 0] + 1.0

    a = np.broadcast_to(np.arange(3.0)[None, None, :], (4, 4, 3))  # read-only, strides 0
    out = np.zeros((4, 4, 3))
    shift(a, out)
    np.testing.assert_array_equal(out, a + 1.0)
    with pytest.raises(Exception, match="dtype float64"):
        shift(a, np.zeros((4, 4, 3), np.float32))
    # Unchecked, nanobind itself refuses the float32 array (it never writes to a copy).
    with pytest.raises(TypeError):
        shift.run((4, 4, 3), {"a": (0, 0, 0), "out": (0, 0, 0)}, a=a, out=out.astype(np.float32))
