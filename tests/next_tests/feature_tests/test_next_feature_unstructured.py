"""Unstructured grids: neighbour shifts and reductions over connectivities, skip values.

The mesh (``mesh`` fixture, conftest.py) is a 3 x 2 rectangle of quads split into triangles;
its boundary vertices have fewer than six edges and its boundary edges only one cell, so the
V2E and E2C tables contain the skip value -1.
"""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import max_over, min_over, neighbor_sum


Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
Cell = gtx.Dimension("Cell")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))
E2C = gtx.FieldOffset("E2C", source=Cell, target=(Edge, E2CDim))

VertexField = gtx.Field[gtx.Dims[Vertex], gtx.float64]
EdgeField = gtx.Field[gtx.Dims[Edge], gtx.float64]
CellField = gtx.Field[gtx.Dims[Cell], gtx.float64]
EdgeIntField = gtx.Field[gtx.Dims[Edge], gtx.int32]
VertexIntField = gtx.Field[gtx.Dims[Vertex], gtx.int32]
VertexKField = gtx.Field[gtx.Dims[Vertex, K], gtx.float64]
EdgeKField = gtx.Field[gtx.Dims[Edge, K], gtx.float64]
E2VWeights = gtx.Field[gtx.Dims[Edge, E2VDim], gtx.float64]

rng = np.random.default_rng(7)


def masked(values: np.ndarray, table: np.ndarray, fill: float) -> np.ndarray:
    """``values`` gathered through ``table``, skip-value entries replaced by ``fill``."""
    gathered = values[np.where(table >= 0, table, 0)]
    mask = (table >= 0).reshape(table.shape + (1,) * (gathered.ndim - table.ndim))
    return np.where(mask, gathered, fill)


@gtx.field_operator
def edge_difference(v: VertexField) -> EdgeField:
    return v(E2V[1]) - v(E2V[0])


def test_shift_to_one_neighbour(backend, mesh):
    v = gtx.as_field([Vertex], rng.random(mesh.num_vertices), allocator=backend)
    out = gtx.zeros(gtx.domain({Edge: mesh.num_edges}), allocator=backend)
    edge_difference.with_backend(backend)(v, out=out, offset_provider=mesh.offset_provider(backend))
    vn = v.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), vn[mesh.e2v[:, 1]] - vn[mesh.e2v[:, 0]])


@gtx.field_operator
def sum_of_vertex_edges(e: EdgeField) -> VertexField:
    return neighbor_sum(e(V2E), axis=V2EDim)


def test_neighbor_sum_skips_missing_neighbours(backend, mesh):
    assert (mesh.v2e == -1).any()
    e = gtx.as_field([Edge], rng.random(mesh.num_edges), allocator=backend)
    out = gtx.zeros(gtx.domain({Vertex: mesh.num_vertices}), allocator=backend)
    sum_of_vertex_edges.with_backend(backend)(
        e, out=out, offset_provider=mesh.offset_provider(backend)
    )
    expected = masked(e.asnumpy(), mesh.v2e, 0.0).sum(axis=1)
    np.testing.assert_allclose(out.asnumpy(), expected)


@gtx.field_operator
def vertex_extremes(e: EdgeField) -> tuple[VertexField, VertexField]:
    return max_over(e(V2E), axis=V2EDim), min_over(e(V2E), axis=V2EDim)


def test_max_over_and_min_over_ignore_skip_values(backend, mesh):
    # All values negative (for max) and the min positive shift below: a skipped neighbour read
    # as 0 or as the value at index 0 would change the result.
    values = -1.0 - rng.random(mesh.num_edges)
    e = gtx.as_field([Edge], values, allocator=backend)
    out_max = gtx.zeros(gtx.domain({Vertex: mesh.num_vertices}), allocator=backend)
    out_min = gtx.zeros(gtx.domain({Vertex: mesh.num_vertices}), allocator=backend)
    vertex_extremes.with_backend(backend)(
        e, out=(out_max, out_min), offset_provider=mesh.offset_provider(backend)
    )
    np.testing.assert_allclose(out_max.asnumpy(), masked(values, mesh.v2e, -np.inf).max(axis=1))
    np.testing.assert_allclose(out_min.asnumpy(), masked(values, mesh.v2e, np.inf).min(axis=1))


@gtx.field_operator
def vertex_int_range(e: EdgeIntField) -> VertexIntField:
    return max_over(e(V2E), axis=V2EDim) - min_over(e(V2E), axis=V2EDim)


def test_integer_max_over_min_over_with_skip_values(backend, mesh):
    """DESIGN §9: fails to compile in released gtfn; embedded is the reference here."""
    values = rng.integers(-50, 50, mesh.num_edges).astype(np.int32)
    e = gtx.as_field([Edge], values, allocator=backend)
    out = gtx.zeros(gtx.domain({Vertex: mesh.num_vertices}), dtype=gtx.int32, allocator=backend)
    vertex_int_range.with_backend(backend)(
        e, out=out, offset_provider=mesh.offset_provider(backend)
    )
    big = np.iinfo(np.int32)
    expected = masked(values, mesh.v2e, big.min).max(axis=1) - masked(
        values, mesh.v2e, big.max
    ).min(axis=1)
    np.testing.assert_array_equal(out.asnumpy(), expected)
    assert out.asnumpy().dtype == np.int32


@gtx.field_operator
def cell_sum_of_edge_means(v: VertexField) -> CellField:
    edge_mean = 0.5 * (v(E2V[0]) + v(E2V[1]))
    return neighbor_sum(edge_mean(C2E), axis=C2EDim)


def test_chained_connectivities(backend, mesh):
    v = gtx.as_field([Vertex], rng.random(mesh.num_vertices), allocator=backend)
    out = gtx.zeros(gtx.domain({Cell: mesh.num_cells}), allocator=backend)
    cell_sum_of_edge_means.with_backend(backend)(
        v, out=out, offset_provider=mesh.offset_provider(backend)
    )
    vn = v.asnumpy()
    edge_mean = 0.5 * (vn[mesh.e2v[:, 0]] + vn[mesh.e2v[:, 1]])
    np.testing.assert_allclose(out.asnumpy(), edge_mean[mesh.c2e].sum(axis=1))


@gtx.field_operator
def weighted_vertex_sum(v: VertexField, w: E2VWeights) -> EdgeField:
    return neighbor_sum(w * v(E2V), axis=E2VDim)


def test_local_dimension_field_times_neighbours(backend, mesh):
    v = gtx.as_field([Vertex], rng.random(mesh.num_vertices), allocator=backend)
    w = gtx.as_field([Edge, E2VDim], rng.random((mesh.num_edges, 2)), allocator=backend)
    out = gtx.zeros(gtx.domain({Edge: mesh.num_edges}), allocator=backend)
    weighted_vertex_sum.with_backend(backend)(
        v, w, out=out, offset_provider=mesh.offset_provider(backend)
    )
    expected = (w.asnumpy() * v.asnumpy()[mesh.e2v]).sum(axis=1)
    np.testing.assert_allclose(out.asnumpy(), expected)


@gtx.field_operator
def edge_mean_of_cells(c: CellField) -> EdgeField:
    return neighbor_sum(c(E2C), axis=E2CDim)


def test_boundary_edges_have_one_cell(backend, mesh):
    assert (mesh.e2c == -1).any()
    c = gtx.as_field([Cell], rng.random(mesh.num_cells), allocator=backend)
    out = gtx.zeros(gtx.domain({Edge: mesh.num_edges}), allocator=backend)
    edge_mean_of_cells.with_backend(backend)(
        c, out=out, offset_provider=mesh.offset_provider(backend)
    )
    np.testing.assert_allclose(out.asnumpy(), masked(c.asnumpy(), mesh.e2c, 0.0).sum(axis=1))


@gtx.field_operator
def vertex_gradient_sum(v: VertexKField) -> VertexKField:
    gradient = v(E2V[1]) - v(E2V[0])
    return neighbor_sum(gradient(V2E), axis=V2EDim)


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def vertex_gradient_program(v: VertexKField, out: VertexKField):
    vertex_gradient_sum(v, out=out)


def test_unstructured_program_with_vertical_dimension(backend, mesh):
    v = gtx.as_field([Vertex, K], rng.random((mesh.num_vertices, 3)), allocator=backend)
    out = gtx.zeros(v.domain, allocator=backend)
    vertex_gradient_program.with_backend(backend)(
        v, out, offset_provider=mesh.offset_provider(backend)
    )
    vn = v.asnumpy()
    gradient = vn[mesh.e2v[:, 1]] - vn[mesh.e2v[:, 0]]
    np.testing.assert_allclose(out.asnumpy(), masked(gradient, mesh.v2e, 0.0).sum(axis=1))


@pytest.mark.parametrize("nx, ny", [(1, 1), (4, 3)])
def test_mesh_is_consistent(build_mesh, nx, ny):
    """The test mesh itself: Euler's formula and table shapes (guards the references above)."""
    mesh = build_mesh(nx, ny)
    assert mesh.num_vertices - mesh.num_edges + mesh.num_cells == 1  # planar, one outer face
    assert ((mesh.v2e >= 0).sum(axis=1) >= 2).all()
    assert ((mesh.e2c >= 0).sum(axis=1) >= 1).all()
    np.testing.assert_array_equal(np.bincount(mesh.c2e.ravel()), (mesh.e2c >= 0).sum(axis=1))
