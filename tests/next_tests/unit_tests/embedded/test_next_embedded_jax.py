"""The same embedded code on jax.numpy arrays (runs only where jax is installed)."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import embedded_context
from gt4py.next.experimental import concat_where


jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
jnp = pytest.importorskip("jax.numpy")

I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
V = gtx.Dimension("V")
E = gtx.Dimension("E")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))


def test_laplacian_and_assignment_on_jax():
    data = np.random.default_rng(0).random((10, 9, 2))
    a = gtx.as_field([I, J, K], data, allocator=jnp)
    assert a.array_ns is jnp and a.dtype == np.float64
    lap = -4 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)
    expected = (
        -4 * data[1:-1, 1:-1] + data[2:, 1:-1] + data[:-2, 1:-1] + data[1:-1, 2:] + data[1:-1, :-2]
    )
    np.testing.assert_allclose(lap.asnumpy(), expected)
    out = gtx.zeros({I: 10, J: 9, K: 2}, allocator=jnp)
    out[lap.domain] = lap  # jax arrays are immutable: the field takes the updated array
    np.testing.assert_allclose(out.asnumpy()[1:-1, 1:-1], expected)
    assert out.asnumpy()[0, 0, 0] == 0.0


def test_neighbor_reduction_and_concat_where_on_jax():
    table = np.array([[0, 1], [1, 2], [2, -1]], dtype=np.int32)
    e2v = gtx.as_connectivity([E, E2VDim], codomain=V, data=table, allocator=jnp)
    values = gtx.as_field([V], np.array([1.0, 2.0, 4.0]), allocator=jnp)
    with embedded_context(offset_provider={"E2V": e2v}):
        total = gtx.neighbor_sum(values(E2V), axis=E2VDim)
    np.testing.assert_array_equal(total.asnumpy(), [3.0, 6.0, 4.0])
    k = gtx.as_field([K], np.arange(5.0), allocator=jnp)
    shifted = concat_where(K >= 1, k(K - 1), 0.0)[gtx.domain({K: 5})]
    np.testing.assert_array_equal(shifted.asnumpy(), [0.0, 0.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(gtx.gamma(k + 1.0).asnumpy(), [1.0, 1.0, 2.0, 6.0, 24.0])
