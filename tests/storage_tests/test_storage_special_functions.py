"""gamma/erf/erfc against Python's math over their whole float64 domain, on every path (ADR 0028).

Paths: scipy.special (NumPy arrays, scipy installed, setting on), the C library's elementwise
(NumPy arrays otherwise) and our own array-operations gamma (cupy, JAX and other namespaces;
run here on NumPy arrays through its namespace-generic kernel).
"""

from __future__ import annotations

import math
import types

import numpy as np
import pytest

from gt4py.infra import config
from gt4py.storage import _special_functions, special_functions


def _points() -> np.ndarray:
    rng = np.random.default_rng(7)
    ranges = [
        (1e-300, 1e-5),
        (1e-5, 0.5),
        (0.5, 10.0),
        (10.0, 171.6),
        (-0.5, -1e-5),
        (-10.0, -0.5),
        (-171.0, -10.0),
        (-190.0, -171.0),  # subnormal results
    ]
    values = np.concatenate([rng.uniform(lo, hi, 4000) for lo, hi in ranges])
    # around the poles and the integers, where reductions lose digits if they are not exact
    near = np.arange(-170.0, 171.0)
    values = np.concatenate([values, near + 1e-9, near - 1e-9, np.nextafter(near, 1e9)])
    return values[values != np.round(values)]


def _math_gamma(value: float) -> float:
    try:
        return math.gamma(value)
    except OverflowError:
        return math.inf


POINTS = _points()
REFERENCE = np.array([_math_gamma(v) for v in POINTS.tolist()])


def _check_gamma(result: np.ndarray, tolerance: float) -> None:
    normal = np.isfinite(REFERENCE) & (np.abs(REFERENCE) >= np.finfo(np.float64).tiny)
    relative = np.abs(result[normal] - REFERENCE[normal]) / np.abs(REFERENCE[normal])
    assert relative.max() < tolerance, POINTS[normal][np.argmax(relative)]
    # subnormal and underflowed values: to the subnormal spacing, with the right sign
    tiny = ~normal & np.isfinite(REFERENCE)
    assert np.abs(result[tiny] - REFERENCE[tiny]).max() <= 1e-313
    assert np.array_equal(np.signbit(result[tiny]), np.signbit(REFERENCE[tiny]))
    assert np.array_equal(result[np.isinf(REFERENCE)], REFERENCE[np.isinf(REFERENCE)])


def test_our_own_gamma_is_within_a_few_ulps_of_math_gamma_everywhere():
    # the previous Lanczos kernel: 2.6e-10 at -20 < x < 0, 1e-13 at x > 20
    _check_gamma(_special_functions._own_gamma(np, POINTS), tolerance=3e-15)


def test_gamma_without_scipy_is_the_c_librarys():
    assert np.array_equal(special_functions.gamma(POINTS, use_scipy=False), REFERENCE)


def test_gamma_through_scipy_agrees_with_math_gamma():
    pytest.importorskip("scipy")
    _check_gamma(special_functions.gamma(POINTS, use_scipy=True), tolerance=3e-15)


SPECIAL = [
    (0.0, math.inf),
    (-0.0, -math.inf),
    (-1.0, math.nan),
    (-170.0, math.nan),
    (-1e300, math.nan),
    (math.inf, math.inf),
    (-math.inf, math.nan),
    (math.nan, math.nan),
    (171.7, math.inf),
    (1e300, math.inf),
    (5e-324, math.inf),
    (-200.5, -0.0),
    (-201.5, 0.0),
    (1.0, 1.0),
    (5.0, 24.0),
    (0.5, math.sqrt(math.pi)),
]


@pytest.mark.parametrize("path", ["own", "libm", "scipy"])
def test_gamma_follows_c_tgamma_at_its_special_values(path):
    x = np.array([value for value, _ in SPECIAL])
    expected = np.array([result for _, result in SPECIAL])
    if path == "own":
        result = _special_functions._own_gamma(np, x)
    else:
        if path == "scipy":
            pytest.importorskip("scipy")
        result = special_functions.gamma(x, use_scipy=path == "scipy")
    np.testing.assert_allclose(result, expected, rtol=3e-15, atol=0)
    assert np.array_equal(np.signbit(result), np.signbit(expected))
    assert np.array_equal(np.isnan(result), np.isnan(expected))


@pytest.mark.parametrize("name", ["erf", "erfc"])
@pytest.mark.parametrize("use_scipy", [False, True])
def test_erf_and_erfc_agree_with_math(name, use_scipy):
    if use_scipy:
        pytest.importorskip("scipy")
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-6, 6, 20000), rng.uniform(6, 27, 2000), [0.0, -0.0]])
    x = np.concatenate([x, [math.inf, -math.inf, math.nan]])
    reference = np.array([getattr(math, name)(v) for v in x.tolist()])
    result = getattr(special_functions, name)(x, use_scipy=use_scipy)
    # Without scipy: the C library's, exactly. scipy's erfc is off by up to 6e-14 at x > 10
    # (its exp(-x*x) rounds x*x) and flushes erfc's subnormals (x > 26.5) to 0.
    rtol = 1e-13 if name == "erfc" else 1e-15
    tolerance = {"rtol": rtol, "atol": 1e-300} if use_scipy else {"rtol": 0.0, "atol": 0.0}
    np.testing.assert_allclose(result, reference, **tolerance, equal_nan=True)


def test_the_setting_turns_scipy_off(monkeypatch):
    def no_scipy_wanted() -> None:
        raise AssertionError("scipy was used with special_functions_scipy=False")

    monkeypatch.setattr(_special_functions, "_scipy_special", no_scipy_wanted)
    with config.overrides(special_functions_scipy=False):
        assert special_functions.gamma(np.array([4.0]))[0] == 6.0
        assert special_functions.erf(np.array([0.0]))[0] == 0.0


def test_without_scipy_installed_the_fallback_runs(monkeypatch):
    monkeypatch.setattr(_special_functions, "_scipy_special", lambda: None)
    x = np.array([0.5, -0.5, 3.0])
    assert np.array_equal(special_functions.gamma(x), [_math_gamma(v) for v in x.tolist()])
    assert special_functions.erfc(np.array([10.0]))[0] == math.erfc(10.0)


@pytest.mark.parametrize("function", [special_functions.gamma, special_functions.erf])
def test_dtypes_and_shapes_are_kept(function):
    x = np.linspace(0.5, 4.0, 12).reshape(3, 4)
    for dtype in (np.float32, np.float64):
        result = function(x.astype(dtype))
        assert result.dtype == dtype and result.shape == (3, 4)
    assert function(np.arange(1, 4)).dtype == np.float64  # integers: float64
    assert np.ndim(function(np.float64(2.0))) == 0


def test_a_namespace_without_erf_is_refused_by_name():
    namespace = types.ModuleType("other_arrays")
    namespace.asarray = np.asarray  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="erf: no implementation for arrays of 'other_arrays'"):
        special_functions.erf(np.array([1.0]), xp=namespace)
