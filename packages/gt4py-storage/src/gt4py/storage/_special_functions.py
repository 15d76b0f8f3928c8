"""gamma, erf and erfc for arrays of any namespace, with C's ``tgamma``/``erf`` conventions.

Both DSL stacks call these (embedded gt4py.next, its Python backend, GTScript's numpy backend),
so that they agree to the last digit (ADR 0028). On NumPy arrays scipy.special computes them
when it is installed and the ``special_functions_scipy`` setting is on, else the C library's
(``math``) functions elementwise. On cupy and JAX arrays ``erf``/``erfc`` are the namespace's
scipy-like module's, ``gamma`` is our own, from elementwise array operations:

- Stirling's series (Bernoulli terms to B18) at ``y >= 10``, evaluated at an exact
  argument; below 10 the argument is shifted up by an integer and the rounding of that shift
  corrected to first order; negative ``x`` by reflection with an exact ``sin(pi x)`` reduction.
  Within 2e-15 relative of ``math.gamma`` over the float64 range (tests/storage_tests).

Conventions: ``gamma(+-0) = +-inf``, ``nan`` at the poles (negative integers) and at ``-inf``,
``inf`` where gamma exceeds the float64 range, signed zeros (or subnormals) far below zero.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, Final

import numpy as np


def _stirling_coefficients(count: int) -> tuple[float, ...]:
    """``B_2k / (2k (2k - 1))`` for k = 1..count, from the Bernoulli numbers (Akiyama-Tanigawa)."""
    size = 2 * count + 1
    row = [Fraction(0)] * size
    bernoulli = []
    for m in range(size):
        row[m] = Fraction(1, m + 1)
        for j in range(m, 0, -1):
            row[j - 1] = j * (row[j - 1] - row[j])
        bernoulli.append(row[0])
    return tuple(float(bernoulli[2 * k] / (2 * k * (2 * k - 1))) for k in range(1, count + 1))


# At y >= 10 the tenth term is below 2e-18 relative: the series is exact to float64 there.
_STIRLING: Final = _stirling_coefficients(9)
_STIRLING_FROM: Final = 10.0
_SQRT_TWO_PI: Final = math.sqrt(2.0 * math.pi)
# Beyond these the result is inf (gamma(171.63) > 1.8e308) or +-0 (|gamma(-184.5)| < 5e-324).
_OVERFLOW: Final = 172.0
_UNDERFLOW: Final = -190.0


def _namespace(x: Any) -> Any:
    module = type(x).__module__.partition(".")[0]
    if module == "cupy":
        import cupy

        return cupy
    if module in {"jax", "jaxlib"}:
        import jax.numpy

        return jax.numpy
    return np


@functools.cache
def _scipy_special() -> Any:
    try:
        import scipy.special
    except ImportError:
        return None
    return scipy.special


def _scipy_for(x: Any, use_scipy: bool | None) -> Any:
    """scipy.special for a NumPy array when it is wanted and installed, else None."""
    if use_scipy is None:
        from gt4py.infra import config

        use_scipy = config.SPECIAL_FUNCTIONS_SCIPY.get()
    if not use_scipy or not isinstance(x, np.ndarray | np.generic):
        return None
    return _scipy_special()


def _stirling(xp: Any, y: Any) -> tuple[Any, Any]:
    """``(h, rest)`` with ``gamma(y) = h * rest`` for ``y >= 10``, neither overflowing early.

    ``h = y**((y - 0.5) / 2)`` (the exponent is exact), ``rest = sqrt(2 pi) h exp(S(y) - y)``.
    """
    inverse = 1.0 / y
    square = inverse * inverse
    series = _STIRLING[-1]
    for coefficient in reversed(_STIRLING[:-1]):
        series = coefficient + square * series
    h = y ** ((y - 0.5) * 0.5)
    # exp(-y) apart from exp(S): y is exact, y + S would round by up to ulp(y)/2 (1e-14 at 171)
    return h, _SQRT_TWO_PI * h * xp.exp(-y) * xp.exp(series * inverse)


def _positive_gamma(xp: Any, y: Any) -> tuple[Any, Any]:
    """``(h, rest)`` with ``gamma(y) = h * rest`` for finite ``0 < y <= 172``.

    Below 10, ``gamma(y) = gamma(y + 10) / (y (y + 1) ... (y + 9))``; the sums round, and what
    each rounding dropped (exact: ``y - ((y + k) - k)``) is corrected for to first order.
    """
    small = y < _STIRLING_FROM
    shift = xp.where(small, _STIRLING_FROM, 0.0)
    shifted = y + shift
    lost = y - (shifted - shift)
    h, rest = _stirling(xp, shifted)
    # d/dy log gamma(y) = psi(y) ~ log y - 1/(2y) at y >= 10: gamma(y) ~ gamma(fl(y)) (1 + psi d)
    rest = rest * (1.0 + lost * (xp.log(shifted) - 0.5 / shifted))
    base = xp.where(small, y, 1.0)
    product = base
    correction = xp.zeros_like(y)
    for k in range(1, int(_STIRLING_FROM)):
        factor = base + k
        correction = correction + (base - (factor - k)) / factor
        product = product * factor
    return h, xp.where(small, rest / (product * (1.0 + correction)), rest)


def _sin_pi(xp: Any, x: Any) -> Any:
    """``sin(pi x)`` with the period removed exactly (``x - round(x)`` is exact)."""
    nearest = xp.round(x)
    sign = xp.where(nearest - 2.0 * xp.floor(nearest * 0.5) == 0, 1.0, -1.0)
    return sign * xp.sin(math.pi * (x - nearest))


def _own_gamma(xp: Any, x: Any) -> Any:
    """gamma for any array namespace, from its elementwise operations (module docstring)."""
    with np.errstate(all="ignore"):  # overflow and 0/0 are expected in discarded branches
        return _own_gamma_kernel(xp, x)


def _own_gamma_kernel(xp: Any, x: Any) -> Any:
    finite = xp.isfinite(x)
    poles = (x < 0) & (x == xp.floor(x))
    negative = (x < 0) & ~poles & finite
    special = ~finite | poles | (x == 0) | (x > _OVERFLOW) | (x < _UNDERFLOW)
    y = xp.where(special, 1.5, xp.abs(x))  # -x is exact: the reflection uses gamma(-x)
    h, rest = _positive_gamma(xp, y)
    positive = h * rest
    # gamma(x) = pi / (sin(pi x) (-x) gamma(-x)), in an order that underflows only at the end.
    sin_pi = _sin_pi(xp, xp.where(negative, x, 0.5))
    reflected = ((math.pi / (sin_pi * y)) / h) / rest
    result = xp.where(negative, reflected, positive)
    result = xp.where(x > _OVERFLOW, math.inf, result)
    sign_below = xp.where(sin_pi < 0, -0.0, 0.0)
    result = xp.where(negative & (x < _UNDERFLOW), sign_below, result)
    result = xp.where(x == 0, xp.where(xp.signbit(x), -math.inf, math.inf), result)
    result = xp.where(x == math.inf, math.inf, result)
    return xp.where(poles | xp.isnan(x) | (x == -math.inf), math.nan, result)


def _namespace_special(xp: Any) -> Any:
    if xp.__name__ == "cupy":
        import cupyx.scipy.special

        return cupyx.scipy.special
    if xp.__name__ == "jax.numpy":
        import jax.scipy.special

        return jax.scipy.special
    return None


def _tgamma(value: float) -> float:
    """``math.gamma`` with C ``tgamma``'s results where it raises."""
    try:
        return math.gamma(value)
    except OverflowError:
        return math.inf
    except ValueError:  # the poles and -inf
        if value == 0:
            return math.copysign(math.inf, value)
        return math.nan


def _elementwise(kernel: Any, x: Any) -> Any:
    """``kernel`` of every element of a float64 NumPy array (the C library's accuracy)."""
    results = list(map(kernel, x.ravel().tolist()))
    return np.asarray(results, dtype=np.float64).reshape(x.shape)


def _in_float64(xp: Any, x: Any) -> tuple[Any, Any]:
    """``x`` as a float64 array, and the dtype of the result (float32 stays float32)."""
    x = xp.asarray(x)
    dtype = x.dtype if np.dtype(x.dtype).kind == "f" else np.float64
    return xp.asarray(x, dtype=np.float64), dtype


def gamma(x: Any, *, xp: Any = None, use_scipy: bool | None = None) -> Any:
    """The gamma function of a floating-point array, elementwise (C ``tgamma`` conventions).

    Args:
        x: a NumPy, cupy or JAX array (or anything ``numpy.asarray`` takes).
        xp: its array namespace; found from ``x`` when omitted.
        use_scipy: use scipy.special on NumPy arrays; None: the ``special_functions_scipy``
            setting (on by default), when scipy is installed. Without it NumPy arrays go
            through ``math.gamma``, other namespaces through gt4py's own array implementation.
    """
    xp = _namespace(x) if xp is None else xp
    x, dtype = _in_float64(xp, x)
    return _gamma(xp, x, use_scipy).astype(dtype, copy=False)


def _gamma(xp: Any, x: Any, use_scipy: bool | None) -> Any:
    with np.errstate(all="ignore"):
        if xp is not np:
            return _own_gamma(xp, x)
        special = _scipy_for(x, use_scipy)
        if special is None:
            return _elementwise(_tgamma, x)
        result = np.asarray(special.gamma(x))
        # Far below zero scipy flushes gamma's subnormal values to zero; older releases give
        # inf at the poles, where tgamma gives nan (only +-0 are infinite at x <= 0).
        own = (x < -170.0) | (np.isinf(result) & (x <= 0))
        if np.any(own):
            result = np.where(own, _own_gamma(np, x), result)
        return result


def _erf_like(name: str, x: Any, xp: Any, use_scipy: bool | None) -> Any:
    xp = _namespace(x) if xp is None else xp
    x, dtype = _in_float64(xp, x)
    return _erf_kernel(name, xp, x, use_scipy).astype(dtype, copy=False)


def _erf_kernel(name: str, xp: Any, x: Any, use_scipy: bool | None) -> Any:
    if xp is not np:
        namespace_special = _namespace_special(xp)
        if namespace_special is None:
            raise TypeError(f"{name}: no implementation for arrays of {xp.__name__!r}")
        return getattr(namespace_special, name)(x)
    special = _scipy_for(x, use_scipy)
    if special is not None:
        return np.asarray(getattr(special, name)(x))
    return _elementwise(getattr(math, name), x)


def erf(x: Any, *, xp: Any = None, use_scipy: bool | None = None) -> Any:
    """The error function, elementwise; the arguments as for :func:`gamma`."""
    return _erf_like("erf", x, xp, use_scipy)


def erfc(x: Any, *, xp: Any = None, use_scipy: bool | None = None) -> Any:
    """The complementary error function ``1 - erf(x)``, elementwise, accurate for large x."""
    return _erf_like("erfc", x, xp, use_scipy)


__all__ = ["erf", "erfc", "gamma"]
