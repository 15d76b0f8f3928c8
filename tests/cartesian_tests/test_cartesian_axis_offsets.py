"""Field offsets by axis name, as released GTScript reads them: ``a[K - 1]`` is ``a[0, 0, -1]``,
``a[I + 1, J - 1]`` is ``a[1, -1, 0]``, ``a[K]`` is ``a[0, 0, 0]`` (NDSL's own tests write
``buffer[K - 1]``). Same results as the positional form on every backend; the mixed and wrong
forms are errors at the user's line."""

from __future__ import annotations

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import IJ, PARALLEL, I, J, K, computation, interval


F = gtscript.Field[np.float64]
F2 = gtscript.Field[IJ, np.float64]


def by_axis(a: F, b: F2, out: F):
    with computation(PARALLEL), interval(1, None):
        out = a[K - 1] + 10.0 * a[I + 1] + 100.0 * a[J - 1, K - 1] + 1000.0 * b[I - 1, J] + a[K]


def by_position(a: F, b: F2, out: F):
    with computation(PARALLEL), interval(1, None):
        out = a[0, 0, -1] + 10.0 * a[1, 0, 0] + 100.0 * a[0, -1, -1] + 1000.0 * b[-1, 0] + a


def test_axis_offsets_equal_positional_offsets(backend):
    rng = np.random.default_rng(3)
    a, b = rng.random((6, 7, 5)), rng.random((6, 7))
    results = []
    for definition in (by_axis, by_position):
        out = np.zeros((6, 7, 5))
        gtscript.stencil(backend, definition)(a, b, out, origin=(1, 1, 0), domain=(4, 5, 5))
        results.append(out)
    expected = np.zeros((6, 7, 5))
    c = (slice(1, 5), slice(1, 6))
    expected[c[0], c[1], 1:] = (
        a[1:5, 1:6, :-1]
        + 10.0 * a[2:6, 1:6, 1:]
        + 100.0 * a[1:5, 0:5, :-1]
        + 1000.0 * b[0:4, 1:6, None]
        + a[1:5, 1:6, 1:]
    )
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[0], expected, rtol=1e-14)


def _mixed(a: F, out: F):
    with computation(PARALLEL), interval(...):
        out = a[0, 0, K - 1]


def _no_such_axis(b: F2, out: F2):
    with computation(PARALLEL), interval(...):
        out = b[K - 1]


def _twice(a: F, out: F):
    with computation(PARALLEL), interval(...):
        out = a[I + 1, I - 1]


SHIFT = 1.5


def _not_an_integer(a: F, out: F):
    with computation(PARALLEL), interval(...):
        out = a[I + SHIFT]


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        (_mixed, r"either by position \(a\[0, 0, -1\]\) or by axis \(a\[K - 1\]\)"),
        (_no_such_axis, r"'b' has axes IJ: it has no K to offset"),
        (_twice, r"'a' is offset along I twice"),
        (_not_an_integer, r"'I \+ SHIFT': an offset along I is a compile-time integer"),
    ],
)
def test_wrong_axis_offsets_are_located_errors(definition, message):
    with pytest.raises(gtscript.GTScriptDefinitionError, match=message) as info:
        gtscript.stencil("numpy", definition)
    assert "test_cartesian_axis_offsets.py" in str(info.value)
