"""Reductions the compiled backends once got wrong: over a local field with no table lookup,
and with skip values checked where a shifted neighbour lookup really happens."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import neighbor_sum


Cell = gtx.Dimension("Cell")
Edge = gtx.Dimension("Edge")
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)
C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))
E2C = gtx.FieldOffset("E2C", source=Cell, target=(Edge, E2CDim))

BACKENDS = ["itir_python", pytest.param("gtfn_cpu", marks=pytest.mark.slow)]

# 3 cells, 5 edges; cell 2 has only two edges (-1: no neighbour)
C2E_TABLE = np.array([[0, 1, 2], [2, 3, 4], [4, 0, -1]], dtype=np.int32)
E2C_TABLE = np.array([[0, 2], [0, -1], [1, 0], [1, -1], [2, 1]], dtype=np.int32)


@gtx.field_operator
def sum_of_weights(
    w: gtx.Field[gtx.Dims[Cell, C2EDim], gtx.float64],
) -> gtx.Field[gtx.Dims[Cell], gtx.float64]:
    return neighbor_sum(w, axis=C2EDim)


@gtx.field_operator
def cell_sum(e: gtx.Field[gtx.Dims[Edge], gtx.float64]) -> gtx.Field[gtx.Dims[Cell], gtx.float64]:
    return neighbor_sum(e(C2E), axis=C2EDim)


@gtx.field_operator
def first_cell_sum(
    e: gtx.Field[gtx.Dims[Edge], gtx.float64],
) -> gtx.Field[gtx.Dims[Edge], gtx.float64]:
    # the C2E lookups (and their skip values) happen at the cell E2C[0] of each edge
    return cell_sum(e)(E2C[0])


def _provider() -> dict[str, object]:
    return {
        "C2E": gtx.as_connectivity([Cell, C2EDim], Edge, C2E_TABLE, skip_value=-1),
        "E2C": gtx.as_connectivity([Edge, E2CDim], Cell, E2C_TABLE, skip_value=-1),
    }


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_reduction_over_a_local_field_takes_the_count_from_its_shape(backend_name):
    backend = getattr(gtx, backend_name)
    weights = np.arange(12.0).reshape(3, 4)
    w = gtx.as_field([Cell, C2EDim], weights)
    out = gtx.zeros(gtx.domain({Cell: 3}))
    sum_of_weights.with_backend(backend)(w, out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), weights.sum(axis=1))


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_skip_values_are_checked_at_the_shifted_lookup(backend_name):
    backend = getattr(gtx, backend_name)
    edges = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
    e = gtx.as_field([Edge], edges)
    out = gtx.zeros(gtx.domain({Edge: 5}))
    first_cell_sum.with_backend(backend)(e, out=out, offset_provider=_provider())
    per_cell = [sum(edges[j] for j in row if j >= 0) for row in C2E_TABLE]
    expected = [per_cell[row[0]] for row in E2C_TABLE]
    np.testing.assert_allclose(out.asnumpy(), expected)
    reference = gtx.zeros(gtx.domain({Edge: 5}))
    first_cell_sum.with_backend(gtx.embedded_numpy)(e, out=reference, offset_provider=_provider())
    np.testing.assert_allclose(out.asnumpy(), reference.asnumpy())
