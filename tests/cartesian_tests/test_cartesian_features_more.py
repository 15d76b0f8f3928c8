"""More of the GTScript feature suite (loops, regions, computations, indexing, externals,
builtins), run on every registered backend against numpy references."""

from __future__ import annotations

import linecache
import math

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import (
    BACKWARD,
    FORWARD,
    PARALLEL,
    I,
    J,
    computation,
    horizontal,
    interval,
    region,
)


F = gtscript.Field[np.float64]
FI = gtscript.Field[np.int64]
FB = gtscript.Field[np.bool_]
V3 = gtscript.Field[(np.float64, (3,))]
rng = np.random.default_rng(1234)


def rand(*shape):
    return rng.random(shape)


# -- while ------------------------------------------------------------------------------------------
def test_while_on_field_condition(backend):
    @gtscript.stencil(backend=backend)
    def halve(a: F, steps: F):
        with computation(PARALLEL), interval(...):
            steps = 0.0
            while a > 1.0:
                a = a / 2.0
                steps += 1.0

    a = rng.random((4, 3, 2)) * 40.0
    a0 = a.copy()
    steps = np.zeros_like(a)
    halve(a, steps)
    ref_steps = np.where(a0 > 1.0, np.ceil(np.log2(np.maximum(a0, 1.0))), 0.0)
    np.testing.assert_array_equal(steps, ref_steps)
    np.testing.assert_allclose(a, a0 / 2.0**ref_steps)


def test_while_nested_in_if_and_if_in_while(backend):
    @gtscript.stencil(backend=backend)
    def collatz(n: FI, count: FI, odd_seen: FI):
        with computation(PARALLEL), interval(...):
            count = 0
            odd_seen = 0
            if n > 0:
                while n != 1:
                    if n % 2 == 0:
                        n = n // 2
                    else:
                        n = 3 * n + 1
                        odd_seen += 1
                    count += 1
            else:
                count = -1

    start = np.array([[[6, 7, 1, 0, -3, 27]]], dtype=np.int64)
    n, count, odd = start.copy(), np.zeros_like(start), np.zeros_like(start)
    collatz(n, count, odd)

    def ref(x):
        if x <= 0:
            return x, -1, 0
        c = o = 0
        while x != 1:
            if x % 2 == 0:
                x //= 2
            else:
                x, o = 3 * x + 1, o + 1
            c += 1
        return x, c, o

    expected = [ref(int(x)) for x in start[0, 0]]
    np.testing.assert_array_equal(n[0, 0], [e[0] for e in expected])
    np.testing.assert_array_equal(count[0, 0], [e[1] for e in expected])
    np.testing.assert_array_equal(odd[0, 0], [e[2] for e in expected])


def test_while_in_forward_computation_reads_previous_level(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, out: F):
        with computation(FORWARD):
            with interval(0, 1):
                out = a
            with interval(1, None):
                out = out[0, 0, -1]
                while out < a:
                    out = out + 1.0

    a = rng.random((2, 2, 5)) * 4.0
    out = np.zeros_like(a)
    st(a, out)
    ref = a.copy()
    for k in range(1, 5):
        ref[..., k] = ref[..., k - 1] + np.maximum(0.0, np.ceil(a[..., k] - ref[..., k - 1]))
    np.testing.assert_allclose(out, ref)


# -- regions ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "ref_slice"),
    [
        ("first_i", np.s_[0:1, :]),
        ("last_i", np.s_[-1:, :]),
        ("first_two_j", np.s_[:, 0:2]),
        ("first_two_i", np.s_[0:2, :]),
        ("corner", np.s_[-2:, 0:1]),
    ],
)
def test_horizontal_region_forms(backend, name, ref_slice):
    def first_i(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a
            with horizontal(region[I[0], :]):
                out = 10.0 * a

    def last_i(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a
            with horizontal(region[I[-1], :]):
                out = 10.0 * a

    def first_two_j(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a
            with horizontal(region[:, J[0] : J[2]]):
                out = 10.0 * a

    def first_two_i(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a
            with horizontal(region[I[0] : I[2], :]):
                out = 10.0 * a

    def corner(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a
            with horizontal(region[I[-2] :, J[0]]):
                out = 10.0 * a

    definitions = {f.__name__: f for f in (first_i, last_i, first_two_j, first_two_i, corner)}
    st = gtscript.stencil(backend=backend)(definitions[name])
    a = rand(5, 4, 2)
    out = np.zeros_like(a)
    st(a, out)
    ref = a.copy()
    ref[ref_slice] *= 10.0
    np.testing.assert_allclose(out, ref)


def test_region_is_relative_to_the_compute_domain(backend):
    # I[0] / J[-1] are the first / last points of the domain, not of the array.
    @gtscript.stencil(backend=backend)
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a[-1, 0, 0]
            with horizontal(region[I[0], :]):
                out = 0.0
            with horizontal(region[:, J[-1]]):
                out = 1.0

    a = rand(8, 6, 2)
    out = np.full_like(a, -5.0)
    st(a, out, origin={"a": (2, 1, 0), "out": (2, 1, 0)}, domain=(4, 3, 2))
    ref = np.full_like(a, -5.0)
    ref[2:6, 1:4] = a[1:5, 1:4]
    ref[2, 1:4] = 0.0
    ref[2:6, 3] = 1.0
    np.testing.assert_allclose(out, ref)


def test_several_regions_in_one_horizontal_run_the_body_once_per_region(backend):
    # As released GTScript: horizontal(r1, r2) is r1's block, then r2's; a point in both
    # regions runs the body twice.
    @gtscript.stencil(backend=backend)
    def st(out: F):
        with computation(PARALLEL), interval(...):  # noqa: SIM117 - GTScript nesting
            with horizontal(region[I[0], :], region[:, J[-1]]):
                out = out + 1.0

    out = np.zeros((4, 3, 2))
    st(out)
    ref = np.zeros_like(out)
    ref[0] += 1.0
    ref[:, -1] += 1.0
    np.testing.assert_array_equal(out, ref)


def test_region_with_temporary_computed_on_halo(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            tmp = 2.0 * a
            with horizontal(region[I[0], :]):
                tmp = 0.0
            out = tmp[1, 0, 0] + tmp[-1, 0, 0]

    a = rand(7, 3, 2)
    out = np.zeros_like(a)
    st(a, out, origin=(1, 0, 0), domain=(5, 3, 2))
    tmp = 2.0 * a
    tmp[1] = 0.0  # I[0] of the domain
    np.testing.assert_allclose(out[1:6], tmp[2:7] + tmp[0:5])


# -- computations, intervals ------------------------------------------------------------------------
def test_several_computations_with_mixed_orders(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, cum: F, rev: F, out: F):
        with computation(PARALLEL), interval(...):
            twice = 2.0 * a
        with computation(FORWARD):
            with interval(0, 1):
                cum = twice
            with interval(1, None):
                cum = cum[0, 0, -1] + twice
        with computation(BACKWARD):
            with interval(-1, None):
                rev = cum
            with interval(0, -1):
                rev = rev[0, 0, 1] - twice
        with computation(PARALLEL), interval(...):
            out = rev - cum

    a = rand(3, 2, 6)
    cum, rev, out = np.zeros_like(a), np.zeros_like(a), np.zeros_like(a)
    st(a, cum, rev, out)
    ref_cum = np.cumsum(2 * a, axis=2)
    ref_rev = np.empty_like(a)
    ref_rev[..., -1] = ref_cum[..., -1]
    for k in range(4, -1, -1):
        ref_rev[..., k] = ref_rev[..., k + 1] - 2 * a[..., k]
    np.testing.assert_allclose(cum, ref_cum)
    np.testing.assert_allclose(rev, ref_rev)
    np.testing.assert_allclose(out, ref_rev - ref_cum)


def test_interval_one_to_minus_one_and_last_level(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, out: F):
        with computation(PARALLEL):
            with interval(0, 1):
                out = -1.0
            with interval(1, -1):
                out = a[0, 0, 1] - a[0, 0, -1]
            with interval(-1, None):
                out = 1.0

    a = rand(2, 2, 6)
    out = np.zeros_like(a)
    st(a, out)
    ref = np.empty_like(a)
    ref[..., 0], ref[..., -1] = -1.0, 1.0
    ref[..., 1:-1] = a[..., 2:] - a[..., :-2]
    np.testing.assert_allclose(out, ref)


# -- indexing ---------------------------------------------------------------------------------------
def test_variable_k_offset_from_field_and_scalar(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, koff: FI, shift: int, by_field: F, by_scalar: F):
        with computation(PARALLEL), interval(0, -1):
            by_field = a[0, 0, koff]
            by_scalar = a[0, 0, shift]

    a = rand(2, 3, 5)
    koff = np.zeros((2, 3, 5), dtype=np.int64)
    koff[..., 1] = -1
    koff[..., 2] = 2
    koff[..., 3] = 1
    by_field, by_scalar = np.zeros_like(a), np.zeros_like(a)
    st(a, koff, 1, by_field, by_scalar)
    np.testing.assert_allclose(by_field[..., :4], a[..., [0, 0, 4, 4]])
    np.testing.assert_allclose(by_scalar[..., :4], a[..., 1:5])
    assert not by_field[..., 4].any()


def test_variable_k_outside_the_field_raises(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, shift: int, out: F):
        with computation(PARALLEL), interval(...):
            out = a[0, 0, shift]

    a, out = rand(2, 2, 3), np.zeros((2, 2, 3))
    with pytest.raises(IndexError, match="K index 3 of field 'a' is outside the field"):
        st(a, 1, out)


def test_data_dimensions_read_and_write(backend):
    @gtscript.stencil(backend=backend)
    def st(v: V3, w: V3, norm: F):
        with computation(PARALLEL), interval(...):
            w[0, 0, 0][0] = v[1, 0, 0][2]
            w[0, 0, 0][1] = v[0, 0, 0][0] + v[0, 0, 0][1]
            w[0, 0, 0][2] = -v[0, 0, 0][2]
            norm = sqrt(w[0, 0, 0][0] ** 2 + w[0, 0, 0][1] ** 2 + w[0, 0, 0][2] ** 2)  # noqa: F821

    v = rand(5, 3, 2, 3)
    w, norm = np.zeros_like(v), np.zeros((5, 3, 2))
    st(v, w, norm, origin=(0, 0, 0), domain=(4, 3, 2))
    ref = np.stack([v[1:5, ..., 2], v[:4, ..., 0] + v[:4, ..., 1], -v[:4, ..., 2]], axis=-1)
    np.testing.assert_allclose(w[:4], ref)
    np.testing.assert_allclose(norm[:4], np.sqrt((ref**2).sum(axis=-1)))


def test_data_dimensions_matrix(backend):
    M = gtscript.Field[(np.float64, (2, 2))]

    @gtscript.stencil(backend=backend)
    def st(m: M, x: V3, out: F):
        with computation(PARALLEL), interval(...):
            out = m[0, 0, 0][0, 1] * x[0, 0, 0][1] + m[0, 0, 0][1, 0]

    m, x = rand(2, 2, 2, 2, 2), rand(2, 2, 2, 3)
    out = np.zeros((2, 2, 2))
    st(m, x, out)
    np.testing.assert_allclose(out, m[..., 0, 1] * x[..., 1] + m[..., 1, 0])


# -- externals --------------------------------------------------------------------------------------
@gtscript.function
def _scaled(x, factor=2.0):
    return factor * x


@gtscript.function
def _other(x, factor=2.0):
    return x + factor


def test_external_gtscript_function(backend):
    def st(a: F, out: F):
        from __externals__ import op

        with computation(PARALLEL), interval(...):
            out = op(a) + op(a, factor=10.0)

    a = rand(2, 2, 2)
    out = np.zeros_like(a)
    gtscript.stencil(backend=backend, externals={"op": _scaled})(st)(a, out)
    np.testing.assert_allclose(out, 2 * a + 10 * a)
    gtscript.stencil(backend=backend, externals={"op": _other})(st)(a, out)
    np.testing.assert_allclose(out, (a + 2) + (a + 10))


def test_compile_time_if_eliminates_branches(backend):
    def st(a: F, out: F):
        from __externals__ import MODE

        with computation(PARALLEL), interval(...):
            if __INLINED(MODE == 1):  # noqa: F821
                out = a + 1.0
            elif MODE == 2:
                out = a * undefined_in_mode_1  # noqa: F821 - never parsed unless MODE == 2
            else:
                out = -a

    a = rand(2, 2, 2)
    out = np.zeros_like(a)
    gtscript.stencil(backend=backend, externals={"MODE": 1})(st)(a, out)
    np.testing.assert_allclose(out, a + 1)
    gtscript.stencil(backend=backend, externals={"MODE": 3})(st)(a, out)
    np.testing.assert_allclose(out, -a)
    with pytest.raises(gtscript.GTScriptSymbolError, match="undefined_in_mode_1"):
        gtscript.stencil(backend=backend, externals={"MODE": 2})(st)


def test_compile_time_if_selects_computations(backend):
    def st(out: F):
        from __externals__ import TOP_ONLY

        if TOP_ONLY:
            with computation(PARALLEL), interval(-1, None):
                out = 1.0
        else:
            with computation(PARALLEL), interval(...):
                out = 2.0

    out = np.zeros((1, 1, 3))
    gtscript.stencil(backend=backend, externals={"TOP_ONLY": True})(st)(out)
    np.testing.assert_array_equal(out[0, 0], [0, 0, 1])
    gtscript.stencil(backend=backend, externals={"TOP_ONLY": False})(st)(out)
    np.testing.assert_array_equal(out[0, 0], [2, 2, 2])


# -- builtins ---------------------------------------------------------------------------------------
UNARY_CASES = {
    "sqrt": (np.sqrt, (0.0, 4.0)),
    "exp": (np.exp, (-2.0, 2.0)),
    "log": (np.log, (0.1, 5.0)),
    "log10": (np.log10, (0.1, 5.0)),
    "sin": (np.sin, (-3.0, 3.0)),
    "cos": (np.cos, (-3.0, 3.0)),
    "tan": (np.tan, (-1.0, 1.0)),
    "asin": (np.arcsin, (-1.0, 1.0)),
    "acos": (np.arccos, (-1.0, 1.0)),
    "atan": (np.arctan, (-5.0, 5.0)),
    "arcsin": (np.arcsin, (-1.0, 1.0)),
    "sinh": (np.sinh, (-2.0, 2.0)),
    "cosh": (np.cosh, (-2.0, 2.0)),
    "tanh": (np.tanh, (-2.0, 2.0)),
    "asinh": (np.arcsinh, (-2.0, 2.0)),
    "acosh": (np.arccosh, (1.0, 4.0)),
    "atanh": (np.arctanh, (-0.9, 0.9)),
    "abs": (np.abs, (-2.0, 2.0)),
    "floor": (np.floor, (-3.0, 3.0)),
    "ceil": (np.ceil, (-3.0, 3.0)),
    "trunc": (np.trunc, (-3.0, 3.0)),
    "cbrt": (np.cbrt, (-8.0, 8.0)),
    "gamma": (np.vectorize(math.gamma), (0.5, 4.0)),
    "erf": (np.vectorize(math.erf), (-2.0, 2.0)),
    "erfc": (np.vectorize(math.erfc), (-2.0, 2.0)),
}


@pytest.mark.parametrize("name", sorted(UNARY_CASES))
def test_unary_math_builtin(backend, name):
    func, (lo, hi) = UNARY_CASES[name]
    namespace = {"F": F, "PARALLEL": PARALLEL, name: getattr(gtscript, name)}
    source = (
        "def st(a: F, out: F):\n"
        "    with computation(PARALLEL), interval(...):\n"
        f"        out = {name}(a)\n"
    )
    # One definition per builtin, generated; linecache lets GTScript read its source.
    path = f"<unary {name}>"
    linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    exec(compile(source, path, "exec"), namespace)
    st = gtscript.stencil(backend=backend)(namespace["st"])
    a = lo + (hi - lo) * rand(3, 2, 4)
    out = np.zeros_like(a)
    st(a, out)
    np.testing.assert_allclose(out, func(a), rtol=1e-12, atol=1e-14)


def test_binary_builtins_and_predicates(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, b: F, lo: F, hi: F, m: F, nan: FB, inf: FB, fin: FB):
        with computation(PARALLEL), interval(...):
            lo = min(a, b)
            hi = max(a, b)
            m = mod(a, b)  # noqa: F821
            nan = isnan(a / b)  # noqa: F821
            inf = isinf(a / b)  # noqa: F821
            fin = isfinite(a / b)  # noqa: F821

    a = np.array([[[1.0, -1.0, 0.0, 3.5, -7.5]]])
    b = np.array([[[0.0, 0.0, 0.0, -2.0, 2.0]]])
    lo, hi, m = np.zeros_like(a), np.zeros_like(a), np.zeros_like(a)
    nan, inf, fin = (np.zeros(a.shape, dtype=bool) for _ in range(3))
    with np.errstate(divide="ignore", invalid="ignore"):
        st(a, b, lo, hi, m, nan, inf, fin)
        q = a / b
        ref_m = np.remainder(a, b)
    np.testing.assert_array_equal(lo, np.minimum(a, b))
    np.testing.assert_array_equal(hi, np.maximum(a, b))
    np.testing.assert_array_equal(m[..., 3:], ref_m[..., 3:])
    np.testing.assert_array_equal(nan, np.isnan(q))
    np.testing.assert_array_equal(inf, np.isinf(q))
    np.testing.assert_array_equal(fin, np.isfinite(q))


def test_round_half_to_even_and_away_from_zero(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, even: F, away: F):
        with computation(PARALLEL), interval(...):
            even = round(a)
            away = round_away_from_zero(a)  # noqa: F821

    a = np.array([[[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6, -2.4]]])
    even, away = np.zeros_like(a), np.zeros_like(a)
    st(a, even, away)
    np.testing.assert_array_equal(even[0, 0], [-2, -2, -0, 0, 2, 2, 3, -2])
    np.testing.assert_array_equal(away[0, 0], [-3, -2, -1, 1, 2, 3, 3, -2])


def test_casts(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, i32: gtscript.Field[np.int32], f32: gtscript.Field[np.float32], i: FI, b: FB):
        with computation(PARALLEL), interval(...):
            i32 = int32(a * 10.0)  # noqa: F821
            f32 = float32(a) + float32(1.0)  # noqa: F821
            i = int(a * 100.0) + int64(1)  # noqa: F821
            b = bool(i32 % 2)

    a = rng.standard_normal((3, 3, 2))
    i32, f32 = np.zeros(a.shape, np.int32), np.zeros(a.shape, np.float32)
    i, b = np.zeros(a.shape, np.int64), np.zeros(a.shape, bool)
    st(a, i32, f32, i, b)
    np.testing.assert_array_equal(i32, (a * 10).astype(np.int32))
    np.testing.assert_array_equal(f32, a.astype(np.float32) + np.float32(1))
    np.testing.assert_array_equal(i, (a * 100).astype(np.int64) + 1)
    np.testing.assert_array_equal(b, ((a * 10).astype(np.int32) % 2).astype(bool))


def test_large_domain_with_halo_temporaries(backend):
    # Large enough that the numpy backend splits each statement into several I chunks.
    @gtscript.stencil(backend=backend)
    def diffuse(a: F, out: F, alpha: float):
        with computation(PARALLEL), interval(...):
            lap = -4.0 * a + a[1, 0, 0] + a[-1, 0, 0] + a[0, 1, 0] + a[0, -1, 0]
            out = a - alpha * (lap[1, 0, 0] + lap[-1, 0, 0] - 2.0 * lap)

    a = rand(44, 34, 40)
    out = np.zeros_like(a)
    diffuse(a, out, 0.1, origin=(2, 1, 0), domain=(40, 32, 40))
    lap = -4 * a[1:-1, 1:-1] + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2]
    ref = a[2:-2, 1:-1] - 0.1 * (lap[2:] + lap[:-2] - 2.0 * lap[1:-1])
    np.testing.assert_allclose(out[2:-2, 1:-1], ref, rtol=1e-13)
    assert not out[:2].any() and not out[-2:].any()
