"""Python's arithmetic on every backend where C++'s differs, beyond test_cartesian_semantics:
the C++ and CUDA backends get it from the shared header <gt4py/python_semantics.hpp>."""

from __future__ import annotations

import warnings

import numpy as np

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
