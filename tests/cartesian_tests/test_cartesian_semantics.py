"""One semantics for every backend (DESIGN §7): the cases where released backends disagree,
each pinned on every registered backend."""

from __future__ import annotations

import numpy as np

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import FORWARD, PARALLEL, computation, interval


F = gtscript.Field[np.float64]
FI = gtscript.Field[np.int64]
FI32 = gtscript.Field[np.int32]


def test_integer_modulo_floors_like_python(backend):
    @gtscript.stencil(backend=backend)
    def st(a: FI, b: FI, m: FI, lit: FI):
        with computation(PARALLEL), interval(...):
            m = a % b
            lit = a % -3

    a = np.array([[[-7, 7, -7, 7, 0, -1]]], dtype=np.int64)
    b = np.array([[[2, -2, -2, 3, 5, 4]]], dtype=np.int64)
    m, lit = np.zeros_like(a), np.zeros_like(a)
    st(a, b, m, lit)
    # C++'s % would give -1, 1, -1, 1, 0, -1 (truncation).
    assert m[0, 0].tolist() == [
        x % y for x, y in zip(a[0, 0].tolist(), b[0, 0].tolist(), strict=True)
    ]
    assert m[0, 0].tolist() == [1, -1, -1, 1, 0, 3]
    assert lit[0, 0].tolist() == [x % -3 for x in a[0, 0].tolist()]


def test_float_modulo_floors_like_python(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, b: F, m: F):
        with computation(PARALLEL), interval(...):
            m = a % b

    a = np.array([[[-7.5, 7.5, -7.5, 2.0]]])
    b = np.array([[[2.0, -2.0, -2.0, 0.75]]])
    m = np.zeros_like(a)
    st(a, b, m)
    # fmod (C++) would give -1.5, 1.5, -1.5, 0.5.
    assert m[0, 0].tolist() == [0.5, -0.5, -1.5, 0.5]


def test_int_true_division_is_float64(backend):
    @gtscript.stencil(backend=backend)
    def st(a: FI32, b: FI32, q: F):
        with computation(PARALLEL), interval(...):
            tmp = a / b  # a temporary: its inferred type must be float64 too
            q = tmp

    a = np.array([[[1, 2, 16777217, -7]]], dtype=np.int32)
    b = np.array([[[3, 3, 1, 2]]], dtype=np.int32)
    q = np.zeros(a.shape)
    st(a, b, q)
    # float32 arithmetic would give 0.33333334 and round 16777217 to 16777216.
    assert q[0, 0].tolist() == [1 / 3, 2 / 3, 16777217.0, -3.5]


def test_while_condition_is_checked_only_at_loop_head(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, n: F, after: F):
        with computation(PARALLEL), interval(...):
            while a < 3.0:
                a = a + 2.0  # may make the condition false ...
                n = n + 1.0  # ... yet the rest of the body still runs this iteration
                after = a

    a = np.array([[[0.0, 2.5, 5.0]]])
    n, after = np.zeros_like(a), np.full_like(a, -1.0)
    st(a, n, after)
    assert a[0, 0].tolist() == [4.0, 4.5, 5.0]
    assert n[0, 0].tolist() == [2.0, 1.0, 0.0]
    assert after[0, 0].tolist() == [4.0, 4.5, -1.0]


def test_while_in_forward_checks_only_at_loop_head(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, n: F):
        with computation(FORWARD), interval(...):
            while a < 1.0:
                a = a + 0.75
                if a >= 1.0:
                    n = n + 10.0
                n = n + 1.0

    a = np.array([[[0.0, 0.5, 2.0]]])
    n = np.zeros_like(a)
    st(a, n)
    assert a[0, 0].tolist() == [1.5, 1.25, 2.0]
    assert n[0, 0].tolist() == [12.0, 11.0, 0.0]


def test_fields_named_like_generator_internals(backend):
    @gtscript.stencil(backend=backend)
    def st(i: F, j: F, k: F, np: F, rt: F, run: F):
        with computation(PARALLEL), interval(...):
            run = i[1, 0, 0] + j + k + np + rt

    shape = (4, 3, 2)
    arrays = [np.random.default_rng(n).random(shape) for n in range(5)]
    out = np.zeros(shape)
    st(*arrays, out, origin=(0, 0, 0), domain=(3, 3, 2))
    i, j, k, n, r = arrays
    np.testing.assert_allclose(out[:3], i[1:4] + j[:3] + k[:3] + n[:3] + r[:3])


def test_temporary_named_i_in_sequential_computation(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, out: F):
        with computation(FORWARD):
            with interval(0, 1):
                i = a
            with interval(1, None):
                i = i[0, 0, -1] + a
        with computation(PARALLEL), interval(...):
            out = i

    a = np.random.default_rng(3).random((2, 2, 4))
    out = np.zeros_like(a)
    st(a, out)
    np.testing.assert_allclose(out, np.cumsum(a, axis=2))
