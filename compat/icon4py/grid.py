"""A small periodic triangular mesh with every neighbour table ICON's Python port uses.

The mesh is a torus: ``nx * ny`` vertices on a triangular lattice (lattice vectors
``a1 = (1, 0)`` and ``a2 = (1/2, sqrt(3)/2)``), each lattice parallelogram split into two
triangles. Every vertex has six edges and six cells, every edge two vertices and two cells,
every cell three edges, three vertices and three neighbours, so no table needs a skip value.

The tables are built with numpy only, from the cell-to-vertex table and the lattice geometry;
:func:`offset_provider` turns them into connectivities with the public API of whichever
``gt4py.next`` is imported, so that every implementation receives the same tables.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np


__all__ = ["TABLE_SPECS", "TorusGrid", "build_grid", "offset_provider"]

# offset name -> (dimension it is defined on, local dimension, dimension it points into).
# Offset names and dimension names follow icon4py.model.common.dimension.
TABLE_SPECS: dict[str, tuple[str, str, str]] = {
    "C2E": ("Cell", "C2E", "Edge"),
    "C2V": ("Cell", "C2V", "Vertex"),
    "C2E2C": ("Cell", "C2E2C", "Cell"),
    "C2E2CO": ("Cell", "C2E2CO", "Cell"),
    "C2E2C2E": ("Cell", "C2E2C2E", "Edge"),
    "C2E2C2E2C": ("Cell", "C2E2C2E2C", "Cell"),
    "E2C": ("Edge", "E2C", "Cell"),
    "E2V": ("Edge", "E2V", "Vertex"),
    "E2C2V": ("Edge", "E2C2V", "Vertex"),
    "E2C2E": ("Edge", "E2C2E", "Edge"),
    "E2C2EO": ("Edge", "E2C2EO", "Edge"),
    "V2C": ("Vertex", "V2C", "Cell"),
    "V2E": ("Vertex", "V2E", "Edge"),
    "V2E2V": ("Vertex", "V2E2V", "Vertex"),
}


@dataclasses.dataclass(frozen=True)
class TorusGrid:
    nx: int
    ny: int
    nlev: int
    vertex_xy: np.ndarray  # (n_vertices, 2) positions inside the periodic box
    tables: dict[str, np.ndarray]  # offset name -> int32 table (n_from, width)

    @property
    def sizes(self) -> dict[str, int]:
        """Horizontal sizes by dimension name, the number of levels under ``K``, and the
        width of every local dimension under its name."""
        sizes = {
            "Vertex": self.nx * self.ny,
            "Edge": 3 * self.nx * self.ny,
            "Cell": 2 * self.nx * self.ny,
            "K": self.nlev,
        }
        for name, table in self.tables.items():
            sizes[TABLE_SPECS[name][1]] = table.shape[1]
        return sizes


def _periodic_delta(d: np.ndarray, n: int) -> np.ndarray:
    """Lattice offset ``d`` folded into ``[-n/2, n/2)`` (the nearest periodic image)."""
    return (d + n // 2) % n - n // 2


def build_grid(nx: int = 12, ny: int = 10, nlev: int = 8) -> TorusGrid:
    if nx < 4 or ny < 4:
        raise ValueError("the torus needs at least 4 x 4 vertices (else neighbours coincide)")
    n_v = nx * ny
    ii, jj = np.meshgrid(np.arange(nx), np.arange(ny), indexing="xy")
    ii, jj = ii.ravel(), jj.ravel()  # vertex v = j * nx + i

    def vid(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return (j % ny) * nx + (i % nx)

    # Cells: per vertex (i, j) an "up" triangle (i,j) (i+1,j) (i,j+1) and a "down" triangle
    # (i+1,j) (i+1,j+1) (i,j+1); both listed counter-clockwise. Cell c = 2 * v + {0, 1}.
    up = np.stack([vid(ii, jj), vid(ii + 1, jj), vid(ii, jj + 1)], axis=1)
    down = np.stack([vid(ii + 1, jj), vid(ii + 1, jj + 1), vid(ii, jj + 1)], axis=1)
    c2v = np.empty((2 * n_v, 3), dtype=np.int64)
    c2v[0::2], c2v[1::2] = up, down
    n_c = c2v.shape[0]

    # Edges: the distinct vertex pairs of the cells' sides, numbered in order of first use.
    # Cell side k joins c2v[c, k] and c2v[c, (k + 1) % 3].
    sides = np.stack([c2v, np.roll(c2v, -1, axis=1)], axis=2).reshape(-1, 2)  # (3*n_c, 2)
    keys = np.sort(sides, axis=1) @ np.array([n_v, 1])
    uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)  # edge numbers by first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    c2e = rank[inverse].reshape(n_c, 3)
    n_e = uniq.size
    assert n_e == 3 * n_v, n_e

    # E2V: the vertices of the side where the edge first appears (the lower cell number).
    e2v = np.empty((n_e, 2), dtype=np.int64)
    e2v[rank[inverse]] = sides  # later writes of the same edge come from the other cell...
    e2v[rank[inverse[first]]] = sides[first]  # ...so keep the first cell's orientation

    # E2C: the cell that lists the edge first (its side runs e2v[0] -> e2v[1]), then the other.
    e2c = np.full((n_e, 2), -1, dtype=np.int64)
    for k in range(3):
        e = c2e[:, k]
        same = (c2v[:, k] == e2v[e, 0]) & (np.roll(c2v, -1, axis=1)[:, k] == e2v[e, 1])
        cells = np.arange(n_c)
        e2c[e[same], 0] = cells[same]
        e2c[e[~same], 1] = cells[~same]
    assert (e2c >= 0).all()

    # C2E2C: the neighbour across side k.
    other = np.where(e2c[c2e, 0] == np.arange(n_c)[:, None], e2c[c2e, 1], e2c[c2e, 0])
    c2e2c = other

    # Geometry for angular ordering around a vertex: lattice offsets to the nearest image.
    pos = np.stack([ii + 0.5 * jj, jj * (np.sqrt(3) / 2)], axis=1)

    def lattice_vector(v_from: np.ndarray, v_to: np.ndarray) -> np.ndarray:
        di = _periodic_delta(ii[v_to] - ii[v_from], nx)
        dj = _periodic_delta(jj[v_to] - jj[v_from], ny)
        return np.stack([di + 0.5 * dj, dj * (np.sqrt(3) / 2)], axis=-1)

    # V2E / V2C: the six edges / cells around a vertex, counter-clockwise from the east.
    def around_vertex(owner_vertices: np.ndarray, width: int) -> np.ndarray:
        n_items, per_item = owner_vertices.shape
        vs = owner_vertices.ravel()
        items = np.repeat(np.arange(n_items), per_item)
        # direction from the vertex to the item's centre (mean of its vertices' nearest images)
        centre = np.zeros((vs.size, 2))
        for k in range(per_item):
            centre += lattice_vector(vs, owner_vertices[items, k])
        angle = np.mod(np.arctan2(centre[:, 1], centre[:, 0]), 2 * np.pi)
        sort = np.lexsort((angle, vs))
        table = items[sort].reshape(n_v, width)
        assert (vs[sort].reshape(n_v, width) == np.arange(n_v)[:, None]).all()
        return table

    v2e = around_vertex(e2v, 6)
    v2c = around_vertex(c2v, 6)
    v2e2v = np.where(e2v[v2e, 0] == np.arange(n_v)[:, None], e2v[v2e, 1], e2v[v2e, 0])

    # E2C2V: the edge's two vertices, then the vertex of each adjacent cell opposite the edge.
    def far_vertex(cells: np.ndarray) -> np.ndarray:
        verts = c2v[cells]  # (n_e, 3)
        mask = (verts != e2v[:, :1]) & (verts != e2v[:, 1:])
        assert (mask.sum(axis=1) == 1).all()
        return verts[mask]

    e2c2v = np.stack([e2v[:, 0], e2v[:, 1], far_vertex(e2c[:, 0]), far_vertex(e2c[:, 1])], 1)

    # E2C2E: for each adjacent cell, its two other edges in its C2E order after this edge.
    def other_edges(cells: np.ndarray) -> np.ndarray:
        edges = c2e[cells]  # (n_e, 3)
        k = np.argmax(edges == np.arange(n_e)[:, None], axis=1)
        rows = np.arange(n_e)
        return np.stack([edges[rows, (k + 1) % 3], edges[rows, (k + 2) % 3]], axis=1)

    e2c2e = np.concatenate([other_edges(e2c[:, 0]), other_edges(e2c[:, 1])], axis=1)
    e2c2eo = np.concatenate([np.arange(n_e)[:, None], e2c2e], axis=1)
    c2e2co = np.concatenate([np.arange(n_c)[:, None], c2e2c], axis=1)
    c2e2c2e = c2e[c2e2c].reshape(n_c, 9)

    # C2E2C2E2C: for each neighbour (C2E2C order) the neighbour itself, then its two
    # neighbours other than the centre cell, in the neighbour's C2E2C order.
    rings = []
    cells = np.arange(n_c)
    for k in range(3):
        nb = c2e2c[:, k]
        second = c2e2c[nb]  # (n_c, 3)
        keep = second != cells[:, None]
        assert (keep.sum(axis=1) == 2).all()
        rings.append(np.concatenate([nb[:, None], second[keep].reshape(n_c, 2)], axis=1))
    c2e2c2e2c = np.concatenate(rings, axis=1)

    tables = {
        "C2E": c2e,
        "C2V": c2v,
        "C2E2C": c2e2c,
        "C2E2CO": c2e2co,
        "C2E2C2E": c2e2c2e,
        "C2E2C2E2C": c2e2c2e2c,
        "E2C": e2c,
        "E2V": e2v,
        "E2C2V": e2c2v,
        "E2C2E": e2c2e,
        "E2C2EO": e2c2eo,
        "V2C": v2c,
        "V2E": v2e,
        "V2E2V": v2e2v,
    }
    tables = {k: np.ascontiguousarray(v, dtype=np.int32) for k, v in tables.items()}
    return TorusGrid(nx=nx, ny=ny, nlev=nlev, vertex_xy=pos, tables=tables)


def offset_provider(
    grid: TorusGrid,
    field_offsets: dict[str, Any],
    gtx: Any,
    errors: dict[str, BaseException] | None = None,
) -> dict[str, Any]:
    """Connectivities for every horizontal ``FieldOffset`` in ``field_offsets`` (name ->
    offset object, e.g. the ``FieldOffset``s of ``icon4py.model.common.dimension``) built
    with ``gtx.as_connectivity`` of the given ``gt4py.next`` module.

    Vertical offsets (``Koff``, ``KHalfOff``) get no entry: icon4py passes none, and both
    implementations treat an offset without an entry on a vertical dimension as a shift.
    """
    provider = {}
    for name, offset in field_offsets.items():
        if name not in grid.tables:
            continue
        origin_dim, local_dim = offset.target
        spec = TABLE_SPECS[name]
        if (origin_dim.value, local_dim.value, offset.source.value) != spec:
            raise ValueError(f"offset {name} does not match the table spec {spec}")
        try:
            provider[name] = gtx.as_connectivity(
                [origin_dim, local_dim], offset.source, data=grid.tables[name], skip_value=None
            )
        except Exception as exc:
            if errors is None:
                raise
            errors[name] = exc
    return provider
