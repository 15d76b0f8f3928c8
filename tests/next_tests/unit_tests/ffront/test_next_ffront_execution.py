"""Embedded execution of decorated operators and programs."""

from __future__ import annotations

import numpy as np

import gt4py.next as gtx
from gt4py.next import Dims, Field, float64


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
V = gtx.Dimension("V")
E = gtx.Dimension("E")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))

IJField = Field[Dims[I, J], float64]


@gtx.field_operator
def laplacian(a: IJField) -> IJField:
    return -4.0 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)


@gtx.program
def laplacian_program(a: IJField, out: IJField, n: int, m: int):
    laplacian(a, out=out, domain={I: (1, n - 1), J: (1, m - 1)})


def test_program_with_scalar_domain_bounds() -> None:
    data = np.random.default_rng(0).random((6, 7))
    out = gtx.zeros({I: 6, J: 7})
    laplacian_program(gtx.as_field([I, J], data), out, 6, 7)
    expected = np.zeros((6, 7))
    expected[1:-1, 1:-1] = (
        -4 * data[1:-1, 1:-1] + data[2:, 1:-1] + data[:-2, 1:-1] + data[1:-1, 2:] + data[1:-1, :-2]
    )
    np.testing.assert_allclose(out.asnumpy(), expected)


def test_direct_call_returns_a_field() -> None:
    data = np.arange(20.0).reshape(4, 5)
    result = laplacian(gtx.as_field([I, J], data))
    assert result.domain == gtx.domain({I: (1, 3), J: (1, 4)})


def test_scan_with_tuple_carry_forward_and_backward() -> None:
    @gtx.scan_operator(axis=K, forward=True, init=(0.0, 1.0))
    def sums(carry: tuple[float, float], x: float) -> tuple[float, float]:
        return carry[0] + x, carry[1] * 2.0

    @gtx.scan_operator(axis=K, forward=False, init=0.0)
    def from_top(carry: float, x: float) -> float:
        return carry + x

    x = gtx.as_field([I, K], np.tile(np.arange(4.0), (2, 1)))
    total, powers = gtx.zeros({I: 2, K: 4}), gtx.zeros({I: 2, K: 4})
    sums(x, out=(total, powers))
    assert total.asnumpy()[1].tolist() == [0.0, 1.0, 3.0, 6.0]
    assert powers.asnumpy()[0].tolist() == [2.0, 4.0, 8.0, 16.0]
    down = gtx.zeros({I: 2, K: 4})
    from_top(x, out=down)
    assert down.asnumpy()[0].tolist() == [6.0, 6.0, 5.0, 3.0]


def test_scan_called_from_field_operator_in_program() -> None:
    @gtx.scan_operator(axis=K, forward=True, init=0.0)
    def cumulative(carry: float, x: float) -> float:
        return carry + x

    @gtx.field_operator
    def doubled_cumulative(x: Field[[I, K], float64]) -> Field[[I, K], float64]:
        return 2.0 * cumulative(x)

    @gtx.program
    def run(x: Field[[I, K], float64], out: Field[[I, K], float64]):
        doubled_cumulative(x, out=out)

    out = gtx.zeros({I: 1, K: 3})
    run(gtx.as_field([I, K], np.ones((1, 3))), out)
    assert out.asnumpy().tolist() == [[2.0, 4.0, 6.0]]


def test_unstructured_neighbor_sum_with_offset_provider() -> None:
    table = np.array([[0, 1], [1, 2], [2, 0]], dtype=np.int32)
    e2v = gtx.as_connectivity([E, E2VDim], codomain=V, data=table)

    @gtx.field_operator
    def edge_sum(v: Field[[V], float64]) -> Field[[E], float64]:
        return gtx.neighbor_sum(v(E2V), axis=E2VDim)

    @gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
    def edge_sum_program(v: Field[[V], float64], out: Field[[E], float64]):
        edge_sum(v, out=out)

    out = gtx.zeros({E: 3})
    edge_sum_program(
        gtx.as_field([V], np.array([1.0, 2.0, 4.0])), out, offset_provider={"E2V": e2v}
    )
    assert out.asnumpy().tolist() == [3.0, 6.0, 5.0]


def test_tuple_out_in_program() -> None:
    @gtx.field_operator
    def split(a: Field[[I], float64]) -> tuple[Field[[I], float64], Field[[I], float64]]:
        return a + 1.0, a - 1.0

    @gtx.program
    def run(a: Field[[I], float64], b: Field[[I], float64], c: Field[[I], float64]):
        split(a, out=(b, c))

    b, c = gtx.zeros({I: 2}), gtx.zeros({I: 2})
    run(gtx.as_field([I], np.array([1.0, 2.0])), b, c)
    assert b.asnumpy().tolist() == [2.0, 3.0] and c.asnumpy().tolist() == [0.0, 1.0]
