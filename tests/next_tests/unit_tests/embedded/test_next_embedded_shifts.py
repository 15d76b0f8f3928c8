"""Cartesian, vertical (Koff), neighbour-table and dynamic shifts."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import DomainError, OffsetProviderError, embedded_context
from gt4py.next.experimental import as_offset


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))


def test_cartesian_shift_moves_the_domain_without_copying():
    data = np.arange(12.0).reshape(3, 4)
    a = gtx.as_field([I, J], data)
    shifted = a(I + 1)
    assert shifted.domain == gtx.domain({I: (-1, 2), J: 4})
    assert np.shares_memory(shifted.ndarray, a.ndarray)
    assert a(J - 2).domain == gtx.domain({I: 3, J: (2, 6)})
    assert a(I + 1, J + 1).domain == gtx.domain({I: (-1, 2), J: (-1, 3)})
    assert a.premap(I + 1).domain == shifted.domain


def test_laplacian_matches_numpy_slicing():
    data = np.random.default_rng(0).random((6, 7, 2))
    a = gtx.as_field([I, J, K], data)
    lap = -4 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)
    assert lap.domain == gtx.domain({I: (1, 5), J: (1, 6), K: 2})
    expected = (
        -4 * data[1:-1, 1:-1] + data[2:, 1:-1] + data[:-2, 1:-1] + data[1:-1, 2:] + data[1:-1, :-2]
    )
    np.testing.assert_allclose(lap.asnumpy(), expected)


def test_shift_along_a_missing_dimension_changes_nothing():
    a = gtx.as_field([I], np.arange(3.0))
    assert a(K + 1) is a


@pytest.mark.parametrize("provider", [{}, {"Koff": K}], ids=["no-entry", "entry-is-K"])
def test_vertical_offset_with_and_without_provider_entry(provider):
    """DESIGN §9: `a(Koff[1])` works with {"Koff": K} and without an entry."""
    data = np.arange(10.0).reshape(2, 5)
    a = gtx.as_field([I, K], data)
    with embedded_context(offset_provider=provider):
        up = a(Koff[1])
        diff = a(Koff[1]) - a
        down = a(Koff[-1])
    assert up.domain == gtx.domain({I: 2, K: (-1, 4)})
    assert down.domain == gtx.domain({I: 2, K: (1, 6)})
    assert diff.domain == gtx.domain({I: 2, K: (0, 4)})
    np.testing.assert_array_equal(diff.asnumpy(), data[:, 1:] - data[:, :-1])


def test_cartesian_offset_needs_an_index():
    a = gtx.as_field([K], np.arange(3.0))
    with pytest.raises(TypeError, match=r"say how far to shift, e.g. f\(Koff\[1\]\)"):
        a(Koff)


def test_provider_entry_must_match_the_offset():
    a = gtx.as_field([I, K], np.zeros((2, 3)))
    with (
        embedded_context(offset_provider={"Koff": I}),
        pytest.raises(OffsetProviderError, match="maps 'Koff' to the dimension I"),
    ):
        a(Koff[1])
    with (
        embedded_context(offset_provider={"Koff": "K"}),
        pytest.raises(OffsetProviderError, match="must be a Connectivity"),
    ):
        a(Koff[1])


def test_staggered_relocation():
    khalf = gtx.Dimension("KHalf", kind=gtx.DimensionKind.VERTICAL)
    to_half = gtx.FieldOffset("KtoHalf", source=K, target=(khalf,))
    a = gtx.as_field([I, K], np.arange(6.0).reshape(2, 3))
    with embedded_context(offset_provider={"KtoHalf": K}):
        b = a(to_half[1])
    assert b.domain == gtx.domain({I: 2, khalf: (-1, 2)})
    np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())


def test_neighbor_shift_adds_the_local_dimension(mesh):
    data = np.arange(10.0).reshape(5, 2)
    vertex_field = gtx.as_field([mesh.V, mesh.K], data)
    with embedded_context(offset_provider=mesh.offset_provider):
        on_edges = vertex_field(mesh.E2V)
    assert on_edges.domain == gtx.domain({mesh.E: 6, mesh.E2VDim: 2, mesh.K: 2})
    valid = mesh.e2v_table != -1
    expected = data[mesh.e2v_table]
    np.testing.assert_array_equal(on_edges.asnumpy()[valid], expected[valid])


def test_single_neighbor_shift(mesh):
    data = np.array([10.0, 11.0, 12.0, 13.0, 14.0])
    vertex_field = gtx.as_field([mesh.V], data)
    with embedded_context(offset_provider=mesh.offset_provider):
        first = vertex_field(mesh.E2V[0])
        second = vertex_field(mesh.E2V[1])
    assert first.domain == gtx.domain({mesh.E: 6})
    np.testing.assert_array_equal(first.asnumpy(), data[mesh.e2v_table[:, 0]])
    np.testing.assert_array_equal(second.asnumpy()[:5], data[mesh.e2v_table[:5, 1]])


def test_shift_through_a_connectivity_object(mesh):
    data = np.arange(5.0)
    vertex_field = gtx.as_field([mesh.V], data)
    np.testing.assert_array_equal(vertex_field(mesh.e2v).asnumpy()[:5], data[mesh.e2v_table[:5]])


def test_chained_neighbor_shifts(mesh):
    data = np.arange(6.0)
    edge_field = gtx.as_field([mesh.E], data)
    with embedded_context(offset_provider=mesh.offset_provider):
        first_edge_of_first_vertex = edge_field(mesh.V2E[0])(mesh.E2V[0])
    expected = data[mesh.v2e_table[mesh.e2v_table[:, 0], 0]]
    np.testing.assert_array_equal(first_edge_of_first_vertex.asnumpy(), expected)


def test_missing_provider_entry_names_the_offset(mesh):
    vertex_field = gtx.as_field([mesh.V], np.arange(5.0))
    with pytest.raises(OffsetProviderError, match="no offset provider entry for 'E2V'"):
        vertex_field(mesh.E2V)
    with pytest.raises(OffsetProviderError, match="'E2V'"):
        vertex_field(mesh.E2V[0])


def test_wrong_provider_entries(mesh):
    vertex_field = gtx.as_field([mesh.V], np.arange(5.0))
    with (
        embedded_context(offset_provider={"E2V": mesh.v2e}),
        pytest.raises(OffsetProviderError, match="points into E, but E2V reads fields over V"),
    ):
        vertex_field(mesh.E2V)


def test_neighbor_shift_errors(mesh):
    edge_field = gtx.as_field([mesh.E], np.arange(6.0))
    with embedded_context(offset_provider=mesh.offset_provider):
        with pytest.raises(DomainError, match="has no dimension V"):
            edge_field(mesh.E2V)
        vertex_field = gtx.as_field([mesh.V], np.arange(5.0))
        with pytest.raises(DomainError, match="neighbour index 2 is out of range"):
            vertex_field(mesh.E2V[2])


def test_neighbor_shift_of_a_partial_field_cuts_the_table(mesh):
    # Vertices 0..2 only: edges 0 and 1 can be read, edges 2 and 3 reach vertices 3 and 4.
    table = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])
    e2v = gtx.as_connectivity([mesh.E, mesh.E2VDim], codomain=mesh.V, data=table)
    partial = gtx.as_field(gtx.domain({mesh.V: 3}), np.arange(3.0))
    with embedded_context(offset_provider={"E2V": e2v}):
        result = partial(mesh.E2V)
    assert result.domain == gtx.domain({mesh.E: 2, mesh.E2VDim: 2})
    np.testing.assert_array_equal(result.asnumpy(), [[0.0, 1.0], [1.0, 2.0]])


def test_neighbor_shift_with_a_hole_in_the_readable_rows(mesh):
    table = np.array([[0, 1], [3, 4], [1, 0]])
    e2v = gtx.as_connectivity([mesh.E, mesh.E2VDim], codomain=mesh.V, data=table)
    partial = gtx.as_field(gtx.domain({mesh.V: 2}), np.arange(2.0))
    with (
        embedded_context(offset_provider={"E2V": e2v}),
        pytest.raises(
            DomainError, match=r"in the middle of the table; the field must cover \[0, 5\)"
        ),
    ):
        partial(mesh.E2V)


def test_as_offset_gathers_per_point():
    data = np.arange(10.0).reshape(2, 5)
    a = gtx.as_field([I, K], data)
    offsets_np = np.array([[1, 1, 0, -1, -2], [0, 0, 0, 0, 0]], dtype=np.int32)
    offsets = gtx.as_field([I, K], offsets_np)
    result = a(as_offset(Koff, offsets))
    assert result.domain == a.domain
    k = np.arange(5)
    expected = np.stack([data[i, k + offsets_np[i]] for i in range(2)])
    np.testing.assert_array_equal(result.asnumpy(), expected)


def test_as_offset_reads_outside_are_clamped_for_guarded_use():
    a = gtx.as_field([K], np.arange(5.0))
    offsets = gtx.as_field([K], np.array([-1, 0, 0, 0, 1], dtype=np.int32))
    k = gtx.as_field([K], np.arange(5))
    guarded = gtx.where((k > 0) & (k < 4), a(as_offset(Koff, offsets)), -1.0)
    np.testing.assert_array_equal(guarded.asnumpy(), [-1.0, 1.0, 2.0, 3.0, -1.0])


def test_as_offset_errors(mesh):
    a = gtx.as_field([K], np.arange(3.0))
    with pytest.raises(TypeError, match="integer field of offsets"):
        a(as_offset(Koff, gtx.as_field([K], np.zeros(3))))
    with pytest.raises(OffsetProviderError, match="Cartesian offset"):
        a(as_offset(mesh.E2V, gtx.as_field([K], np.zeros(3, dtype=np.int32))))


def test_bad_shift_argument():
    a = gtx.as_field([I], np.arange(3.0))
    with pytest.raises(TypeError, match="cannot shift a field by 'x'"):
        a("x")
    with pytest.raises(TypeError, match="needs a shift"):
        a()
