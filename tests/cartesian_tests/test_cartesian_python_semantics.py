"""Python's arithmetic on every backend where C++'s differs, beyond test_cartesian_semantics:
the C++ and CUDA backends get it from the shared header <gt4py/python_semantics.hpp>."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval


F = gtscript.Field[np.float64]
FI = gtscript.Field[np.int64]


def test_min_and_max_propagate_nan_in_either_position(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, b: F, lo: F, hi: F):
        with computation(PARALLEL), interval(...):
            lo = min(a, b)
            hi = max(a, b)

    a = np.array([[[np.nan, 1.0, 2.0, np.nan, -0.5]]])
    b = np.array([[[1.0, np.nan, 3.0, np.nan, -1.5]]])
    lo, hi = np.zeros_like(a), np.zeros_like(a)
    st(a, b, lo, hi)
    # std::min(1.0, nan) is 1.0: the order of the operands decided
    np.testing.assert_array_equal(lo, np.minimum(a, b))
    np.testing.assert_array_equal(hi, np.maximum(a, b))


def test_float_floor_division_is_numpys(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, b: F, q: F):
        with computation(PARALLEL), interval(...):
            q = a // b

    a = np.array([[[1.0, -1.0, 7.0, -7.5, 0.3]]])
    b = np.array([[[0.1, 0.1, -2.0, np.inf, 0.1]]])
    q = np.zeros_like(a)
    st(a, b, q)
    # floor(1.0 / 0.1) would be 10.0: the quotient rounds up to an integer
    assert q[0, 0].tolist() == [9.0, -10.0, -4.0, -1.0, 2.0]
    np.testing.assert_array_equal(q, np.floor_divide(a, b))


def test_integer_extremes_wrap_as_numpy(backend):
    @gtscript.stencil(backend=backend)
    def st(a: FI, b: FI, q: FI, m: FI, p: FI):
        with computation(PARALLEL), interval(...):
            q = a // b
            m = a % b
            p = a**3

    low = np.iinfo(np.int64).min
    a = np.array([[[low, low, 2**40, -7]]], dtype=np.int64)
    b = np.array([[[-1, 3, -1, -1]]], dtype=np.int64)
    q, m, p = (np.zeros_like(a) for _ in range(3))
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy warns of the overflow
        st(a, b, q, m, p)
        expected = (np.floor_divide(a, b), np.remainder(a, b), np.power(a, 3))
    # x // -1 traps on x86 for the minimum in plain C++; power overflows (undefined in C++)
    np.testing.assert_array_equal(q, expected[0])
    np.testing.assert_array_equal(m, expected[1])
    np.testing.assert_array_equal(p, expected[2])


FI32 = gtscript.Field[np.int32]
FU32 = gtscript.Field[np.uint32]
FI8 = gtscript.Field[np.int8]


def test_integer_division_and_modulo_by_zero_give_numpys_zero(backend):
    """x // 0 and x % 0 on integers: numpy's 0 on every backend (C++'s is undefined: SIGFPE on
    x86 killed the process on gt:cpu_ifirst / gt:cpu_kfirst)."""

    @gtscript.stencil(backend=backend)
    def st(a: FI32, b: FI32, q: FI32, m: FI32, n: FI32):
        with computation(PARALLEL), interval(...):
            q = a // b
            m = a % b
            n = mod(a, b)  # noqa: F821

    low, high = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    a = np.array([[[7, -7, 0, low, high, low, low, 7]]], dtype=np.int32)
    b = np.array([[[0, 0, 0, 0, 0, -1, 1, -2]]], dtype=np.int32)
    q, m, n = (np.full_like(a, 5) for _ in range(3))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy warns of the zero divisor
        st(a, b, q, m, n)
        expected_q, expected_m = np.floor_divide(a, b), np.remainder(a, b)
    assert expected_q[0, 0, :5].tolist() == [0] * 5 == expected_m[0, 0, :5].tolist()
    np.testing.assert_array_equal(q, expected_q)
    np.testing.assert_array_equal(m, expected_m)
    np.testing.assert_array_equal(n, expected_m)


def _saturated(values: np.ndarray, to) -> np.ndarray:
    info = np.iinfo(to)
    wide = np.nan_to_num(values.astype(np.float64), nan=0.0)
    result = np.full(values.shape, info.min, dtype=to)
    result[wide > 0] = info.max
    inside = (wide > float(info.min) - 1) & (wide < float(info.max) + 1)
    result[inside] = np.trunc(wide[inside]).astype(to)
    return result


def test_casts_of_nan_infinities_and_out_of_range_values(backend):
    """int32(x) and friends: numpy's result where it is defined; beyond the range (undefined in
    C++, platform-dependent in numpy) the C++ backends saturate (ADR 0036)."""

    @gtscript.stencil(backend=backend)
    def st(a: F, i: FI32, u: FU32, s: FI8, w: FI):
        with computation(PARALLEL), interval(...):
            i = int32(a)  # noqa: F821
            u = a  # stored into a uint32 field: the same conversion
            s = int8(a)  # noqa: F821
            w = int64(a)  # noqa: F821

    inside = [0.0, -0.0, 1.5, 0.99, 100.0, 126.9]
    outside = [np.nan, np.inf, -np.inf, 1e30, -1e30, 3e9, -3e9, 5e9, -1.5, 300.0]
    values = np.array([[inside + outside]])
    outs = [np.zeros(values.shape, t) for t in (np.int32, np.uint32, np.int8, np.int64)]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy warns of the invalid casts
        st(values, *outs)
        numpys = [values.astype(out.dtype) for out in outs]
    n = len(inside)
    for out, numpy_result in zip(outs, numpys, strict=True):
        np.testing.assert_array_equal(out[..., :n], numpy_result[..., :n])
        # beyond, numpy's own result varies even with the code path (x86: astype and a store
        # into a uint32 array differ); the C++ backends saturate
        if backend not in ("numpy", "debug"):
            np.testing.assert_array_equal(out, _saturated(values, out.dtype.type))


FB = gtscript.Field[np.bool_]


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_signed_overflow_wraps_as_numpy(backend, dtype):
    """int max + 1 and friends wrap modulo 2^n as numpy's on every backend: undefined behaviour
    in C++ without -fwrapv (ADR 0044); ``a + b > a`` is what GCC rewrites to ``b > 0`` when it
    may assume that no signed sum overflows."""
    G = gtscript.Field[dtype]

    @gtscript.stencil(backend=backend, name=f"overflow_{np.dtype(dtype).name}")
    def st(a: G, b: G, s: G, d: G, p: G, n: G, g: FB):  # type: ignore[valid-type]
        with computation(PARALLEL), interval(...):
            s = a + b
            d = a - b
            p = a * b
            n = -a
            g = a + b > a

    info = np.iinfo(dtype)
    a = np.array([[[info.max, info.min, info.max, info.min, info.max // 2 + 1, 7]]], dtype)
    b = np.array([[[1, -1, -1, 1, 2, -3]]], dtype)
    outs = [np.zeros_like(a) for _ in range(4)]
    g = np.zeros(a.shape, np.bool_)
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        st(a, b, *outs, g)
        expected = (a + b, a - b, a * b, -a, a + b > a)
    assert expected[0][0, 0, 0] == info.min  # int max + 1: numpy wraps
    for out, want in zip([*outs, g], expected, strict=True):
        np.testing.assert_array_equal(out, want)


_CRASH_SCRIPT = """\
import json, warnings
import numpy as np
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval

warnings.simplefilter("ignore", RuntimeWarning)
F = gtscript.Field[np.int32]
G = gtscript.Field[np.float64]

@gtscript.stencil(backend={backend!r})
def st(a: F, b: F, q: F, m: F, x: G, c: F):
    with computation(PARALLEL), interval(...):
        q = a // b
        m = a % b
        c = int32(x)

a = np.array([[[7, -7, -2**31]]], np.int32)
b = np.array([[[0, 0, -1]]], np.int32)
x = np.array([[[np.nan, np.inf, -1e300]]])
q, m, c = np.zeros_like(a), np.zeros_like(a), np.zeros_like(a)
st(a, b, q, m, x, c)
print(json.dumps([q.ravel().tolist(), m.ravel().tolist(), c.ravel().tolist()]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["numpy", "gt:cpu_ifirst", "gt:cpu_kfirst"])
def test_integer_division_by_zero_does_not_kill_the_process(name, tmp_path):
    """The reported crash, in a subprocess (SIGFPE would kill the test run itself)."""
    script = tmp_path / "crash.py"
    script.write_text(_CRASH_SCRIPT.format(backend=name))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    q, m, c = json.loads(done.stdout.strip().splitlines()[-1])
    assert (q, m) == ([0, 0, -(2**31)], [0, 0, 0])
    if name != "numpy":  # saturated (ADR 0036); numpy's NaN cast depends on the platform
        assert c == [0, 2**31 - 1, -(2**31)]


_OVERFLOW_SCRIPT = """\
import json, warnings
import numpy as np
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval

warnings.simplefilter("ignore", RuntimeWarning)
F = gtscript.Field[np.int32]

@gtscript.stencil(backend={backend!r})
def st(a: F, b: F, s: F, g: gtscript.Field[np.bool_]):
    with computation(PARALLEL), interval(...):
        s = a + b
        g = a + b > a

a = np.array([[[2**31 - 1, 5]]], np.int32)
b = np.ones_like(a)
s, g = np.zeros_like(a), np.zeros(a.shape, np.bool_)
with np.errstate(over="ignore"):
    st(a, b, s, g)
print(json.dumps([s.ravel().tolist(), g.ravel().tolist()]))
"""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["numpy", "gt:cpu_ifirst", "gt:cpu_kfirst"])
def test_int32_max_plus_one_in_a_subprocess(name, tmp_path):
    """int32 max + 1 in a fresh process: numpy's wrapped minimum, and the comparison an
    optimiser assuming no signed overflow folds to True."""
    script = tmp_path / "overflow.py"
    script.write_text(_OVERFLOW_SCRIPT.format(backend=name))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [[-(2**31), 6], [False, True]]


def test_signed_arithmetic_wraps_in_the_code_not_through_a_compiler_flag(monkeypatch):
    """The generated C++/CUDA calls the wrapping helpers for +, -, * and unary - (ADR 0044,
    amended): no build passes -fwrapv, which slowed loops with int indices (DaCe's: 2.1x in
    an NDSL-orchestrated program), and nvcc's device code wraps as well."""
    from gt4py.cartesian import _cpp_backend, _cpp_codegen

    monkeypatch.setattr(_cpp_backend, "cuda_arch", lambda: None)
    options = [
        _cpp_backend._build_options("gt:cpu_ifirst").extra_compile_flags,
        _cpp_backend._emulated_build_options("gt:gpu").extra_compile_flags,
        _cpp_backend.cuda_build_options("gt:gpu").extra_cuda_flags,
    ]
    assert not any("wrapv" in flag for flags in options for flag in flags)

    def ops(a: gtscript.Field[np.int32], b: gtscript.Field[np.int32]):  # type: ignore[valid-type]
        with computation(PARALLEL), interval(...):
            b = -(a * a + a - b)

    from gt4py.cartesian._analysis import analyse
    from gt4py.cartesian._frontend import DefinitionParser

    parser = DefinitionParser(ops, externals={}, dtypes={}, name="ops", annotation_locals=None)
    code = _cpp_codegen.generate_cpp(
        analyse(parser.parse()), backend="gt:cpu_ifirst", module_name="m"
    )
    for helper in ("gt4py::neg(", "gt4py::sub(", "gt4py::add(", "gt4py::mul("):
        assert helper in code


def test_integer_power_with_a_negative_exponent(backend):
    """numpy rejects a negative integer exponent (ValueError), and so do numpy and debug; a
    compiled stencil cannot raise per point and gives 1 / a^-b truncated towards zero: 1 for
    1, +-1 for -1 (the parity), otherwise 0, also for 0 (ADR 0044)."""

    @gtscript.stencil(backend=backend)
    def st(a: FI, b: FI, p: FI):
        with computation(PARALLEL), interval(...):
            p = a**b

    a = np.array([[[2, 1, -1, -1, 0, -3, 3]]], np.int64)
    b = np.array([[[-1, -5, -3, -2, -1, -2, 2]]], np.int64)
    p = np.zeros_like(a)
    if backend in ("numpy", "debug"):
        with pytest.raises(ValueError, match="negative integer powers"):
            st(a, b, p)
        return
    st(a, b, p)
    assert p.ravel().tolist() == [0, 1, -1, 1, 0, 0, 9]
