"""Both DSL stacks compute gamma with one implementation: bitwise equal results (ADR 0028).

Before, gt4py.next had its own Lanczos kernel and GTScript's numpy backend ``math.gamma``
elementwise (which raised at the poles); they disagreed in the last digits.
"""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from gt4py.infra import config


F = gtscript.Field[np.float64]


def _cartesian_gamma(a: F, out: F):  # type: ignore[valid-type]
    with computation(PARALLEL), interval(...):
        out = gtscript.gamma(a)  # noqa: F841


@pytest.mark.parametrize("use_scipy", [True, False])
def test_embedded_next_and_gtscript_numpy_agree_to_the_bit(use_scipy):
    if use_scipy:
        pytest.importorskip("scipy")
    values = np.random.default_rng(1).uniform(-30.0, 30.0, 997)
    values = np.concatenate([values, [-3.0, 0.0, -0.0, 171.7, -180.5]])  # poles, +-0, beyond
    with config.overrides(special_functions_scipy=use_scipy):
        stencil = gtscript.stencil(backend="numpy", definition=_cartesian_gamma)
        a = values.reshape(1, 1, -1).copy()
        out = np.zeros_like(a)
        stencil(a, out)
        K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
        embedded = gtx.gamma(gtx.as_field([K], values)).asnumpy()
    np.testing.assert_array_equal(out.ravel(), embedded)  # nan == nan here
    assert np.isnan(embedded[-5]) and np.signbit(embedded[-3]) and np.isinf(embedded[-2])
