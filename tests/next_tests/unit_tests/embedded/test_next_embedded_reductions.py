"""neighbor_sum / max_over / min_over, with skip values excluded."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import DomainError, FieldDTypeError, OffsetProviderError, embedded_context


def _reference(values, table, reduce, neutral):
    gathered = np.where(table[..., None] != -1, values[table], neutral)
    return reduce(gathered, axis=1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int64])
def test_reductions_skip_missing_neighbours(mesh, dtype):
    """DESIGN §9: integer max_over/min_over with skip values work."""
    values_np = (np.arange(10).reshape(5, 2) * 3 - 7).astype(dtype)
    values = gtx.as_field([mesh.V, mesh.K], values_np)
    with embedded_context(offset_provider=mesh.offset_provider):
        total = gtx.neighbor_sum(values(mesh.E2V), axis=mesh.E2VDim)
        largest = gtx.max_over(values(mesh.E2V), axis=mesh.E2VDim)
        smallest = gtx.min_over(values(mesh.E2V), axis=mesh.E2VDim)
    assert total.domain == gtx.domain({mesh.E: 6, mesh.K: 2})
    assert total.dtype == largest.dtype == smallest.dtype == dtype
    table = mesh.e2v_table
    np.testing.assert_allclose(total.asnumpy(), _reference(values_np, table, np.sum, 0))
    np.testing.assert_array_equal(
        largest.asnumpy(), _reference(values_np, table, np.max, values_np.min())
    )
    np.testing.assert_array_equal(
        smallest.asnumpy(), _reference(values_np, table, np.min, values_np.max())
    )
    # edge 5 has a single vertex (2): its max and min are that vertex's value
    np.testing.assert_array_equal(largest.asnumpy()[5], values_np[2])
    np.testing.assert_array_equal(smallest.asnumpy()[5], values_np[2])


def test_all_neighbours_missing_gives_the_neutral_element(mesh):
    table = np.array([[0, -1], [-1, -1]], dtype=np.int32)
    conn = gtx.as_connectivity([mesh.E, mesh.E2VDim], codomain=mesh.V, data=table)
    values = gtx.as_field([mesh.V], np.array([5, 6], dtype=np.int32))
    with embedded_context(offset_provider={"E2V": conn}):
        assert gtx.neighbor_sum(values(mesh.E2V), axis=mesh.E2VDim).asnumpy().tolist() == [5, 0]
        assert (
            gtx.max_over(values(mesh.E2V), axis=mesh.E2VDim).asnumpy()[1] == np.iinfo(np.int32).min
        )


def test_weighted_sum_of_sparse_field(mesh):
    rng = np.random.default_rng(1)
    edge_values_np = rng.random(6)
    weights_np = rng.random((5, 3))
    edge_values = gtx.as_field([mesh.E], edge_values_np)
    weights = gtx.as_field([mesh.V, mesh.V2EDim], weights_np)
    with embedded_context(offset_provider=mesh.offset_provider):
        result = gtx.neighbor_sum(edge_values(mesh.V2E) * weights, axis=mesh.V2EDim)
    table = mesh.v2e_table
    expected = np.where(table != -1, edge_values_np[table] * weights_np, 0).sum(axis=1)
    np.testing.assert_allclose(result.asnumpy(), expected)


def test_reduction_of_a_sparse_field_alone_uses_the_provider_mask(mesh):
    weights_np = np.arange(15.0).reshape(5, 3)
    weights = gtx.as_field([mesh.V, mesh.V2EDim], weights_np)
    with embedded_context(offset_provider=mesh.offset_provider):
        result = gtx.neighbor_sum(weights, axis=mesh.V2EDim)
    expected = np.where(mesh.v2e_table != -1, weights_np, 0).sum(axis=1)
    np.testing.assert_array_equal(result.asnumpy(), expected)


def test_reduction_of_a_broadcast_uses_the_neighbour_count(mesh):
    with embedded_context(offset_provider=mesh.offset_provider):
        counts = gtx.neighbor_sum(gtx.broadcast(1, (mesh.V, mesh.V2EDim)), axis=mesh.V2EDim)
    assert counts[gtx.domain({mesh.V: 5})].asnumpy().tolist() == [2, 2, 3, 2, 2]


def test_reduction_errors(mesh):
    values = gtx.as_field([mesh.V], np.arange(5.0))
    flags = gtx.as_field([mesh.V, mesh.V2EDim], np.ones((5, 3), dtype=bool))
    with embedded_context(offset_provider=mesh.offset_provider):
        with pytest.raises(DomainError, match="must be a local dimension"):
            gtx.neighbor_sum(values, axis=mesh.V)
        with pytest.raises(DomainError, match="has no dimension E2V to reduce"):
            gtx.neighbor_sum(values, axis=mesh.E2VDim)
        with pytest.raises(FieldDTypeError, match="numeric field, got bool"):
            gtx.neighbor_sum(flags, axis=mesh.V2EDim)
    with pytest.raises(TypeError, match="needs a field argument"):
        gtx.neighbor_sum(1.0, axis=mesh.V2EDim)


def test_ambiguous_local_dimension(mesh):
    other = gtx.as_connectivity(
        [mesh.E, mesh.E2VDim], codomain=mesh.V, data=np.array([[1, -1]] * 6)
    )
    sparse = gtx.as_field([mesh.E, mesh.E2VDim], np.ones((6, 2)))
    with (
        embedded_context(offset_provider={"A": mesh.e2v, "B": other}),
        pytest.raises(OffsetProviderError, match="name the offset like the local dimension"),
    ):
        gtx.neighbor_sum(sparse, axis=mesh.E2VDim)
    with embedded_context(offset_provider={"E2V": mesh.e2v, "B": other}):
        assert gtx.neighbor_sum(sparse, axis=mesh.E2VDim).asnumpy().tolist() == [2, 2, 2, 2, 2, 1]
