"""The same embedded code on cupy arrays (runs only where a GPU and cupy are present)."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra.definitions import Device, DeviceType
from gt4py.next.embedded import embedded_context
from gt4py.next.experimental import concat_where


cp = pytest.importorskip("cupy")
pytestmark = pytest.mark.requires_gpu

I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
V = gtx.Dimension("V")
E = gtx.Dimension("E")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))
GPU = Device(DeviceType.CUDA, 0)


def test_laplacian_on_gpu():
    data = np.random.default_rng(0).random((16, 12, 3))
    a = gtx.as_field([I, J, K], data, device=GPU)
    assert a.array_ns is cp and isinstance(a.ndarray, cp.ndarray)
    lap = -4 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)
    expected = (
        -4 * data[1:-1, 1:-1] + data[2:, 1:-1] + data[:-2, 1:-1] + data[1:-1, 2:] + data[1:-1, :-2]
    )
    assert isinstance(lap.ndarray, cp.ndarray)
    np.testing.assert_allclose(lap.asnumpy(), expected)


def test_neighbor_reduction_on_gpu():
    table = np.array([[0, 1], [1, 2], [2, -1]], dtype=np.int32)
    e2v = gtx.as_connectivity([E, E2VDim], codomain=V, data=table, device=GPU)
    values = gtx.as_field([V], np.array([1.0, 2.0, 4.0]), allocator=cp)
    with embedded_context(offset_provider={"E2V": e2v}):
        total = gtx.neighbor_sum(values(E2V), axis=E2VDim)
        largest = gtx.max_over(gtx.astype(values, gtx.int32)(E2V), axis=E2VDim)
    np.testing.assert_array_equal(total.asnumpy(), [3.0, 6.0, 4.0])
    np.testing.assert_array_equal(largest.asnumpy(), [2, 4, 4])


def test_concat_where_and_where_on_gpu():
    a = gtx.as_field([K], np.arange(6.0), device=GPU)
    result = concat_where(K >= 1, a(K - 1), 0.0)[gtx.domain({K: 6})]
    np.testing.assert_array_equal(result.asnumpy(), [0.0, 0.0, 1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(gtx.where(a > 2.0, a, 0.0).asnumpy(), [0, 0, 0, 3, 4, 5])
    assert isinstance(gtx.gamma(a + 1.0).ndarray, cp.ndarray)
