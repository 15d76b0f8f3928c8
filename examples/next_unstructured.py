"""Divergence on an unstructured triangle mesh with gt4py.next, checked against numpy.

    uv run python examples/next_unstructured.py

The mesh is built here: a unit square cut into n x n quads, each split into two triangles,
with vertices, edges and cells numbered and connected by three tables: E2V (the two ends of an
edge), C2E (the three edges of a cell) and V2E (the edges around a vertex; boundary vertices
have fewer than six, the rest of their row holds the skip value -1).

A velocity given at the vertices is averaged to edge midpoints (``u(E2V[0])``), turned into
a normal flux per edge, and summed around each cell with ``neighbor_sum(flux(C2E) * sign,
axis=C2EDim)``: the finite-volume divergence. For the linear velocity (x, 2y) it is exactly 3
everywhere. The script also counts the edges at each vertex through V2E (skip values are left
out of the sum). Both results are checked against numpy; the script exits non-zero on a
mismatch.
"""

from __future__ import annotations

import sys

import numpy as np

import gt4py.next as gtx
from gt4py.next import neighbor_sum


Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
Cell = gtx.Dimension("Cell")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))

VertexField = gtx.Field[gtx.Dims[Vertex], gtx.float64]
EdgeField = gtx.Field[gtx.Dims[Edge], gtx.float64]
CellField = gtx.Field[gtx.Dims[Cell], gtx.float64]
CellEdgeSigns = gtx.Field[gtx.Dims[Cell, C2EDim], gtx.float64]


@gtx.field_operator
def normal_flux(u: VertexField, v: VertexField, nx: EdgeField, ny: EdgeField) -> EdgeField:
    u_mid = 0.5 * (u(E2V[0]) + u(E2V[1]))
    v_mid = 0.5 * (v(E2V[0]) + v(E2V[1]))
    return u_mid * nx + v_mid * ny


@gtx.field_operator
def divergence(
    u: VertexField,
    v: VertexField,
    nx: EdgeField,
    ny: EdgeField,
    sign: CellEdgeSigns,
    area: CellField,
) -> CellField:
    flux = normal_flux(u, v, nx, ny)
    return neighbor_sum(flux(C2E) * sign, axis=C2EDim) / area


@gtx.field_operator
def edges_per_vertex(ones: EdgeField) -> VertexField:
    return neighbor_sum(ones(V2E), axis=V2EDim)


class TriangleMesh:
    """A triangulated unit square: coordinates, connectivity tables and cell geometry."""

    def __init__(self, n: int) -> None:
        index = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
        coords = np.linspace(0.0, 1.0, n + 1)
        self.x, self.y = (c.ravel() for c in np.meshgrid(coords, coords, indexing="ij"))
        edge_of: dict[tuple[int, int], int] = {}
        e2v: list[tuple[int, int]] = []
        c2e: list[list[int]] = []
        for i in range(n):
            for j in range(n):
                v00, v10 = index[i, j], index[i + 1, j]
                v01, v11 = index[i, j + 1], index[i + 1, j + 1]
                for triangle in ((v00, v10, v11), (v00, v11, v01)):
                    cell_edges = []
                    for a, b in zip(triangle, triangle[1:] + triangle[:1], strict=True):
                        key = (min(a, b), max(a, b))
                        if key not in edge_of:
                            edge_of[key] = len(e2v)
                            e2v.append(key)
                        cell_edges.append(edge_of[key])
                    c2e.append(cell_edges)
        self.e2v = np.array(e2v)
        self.c2e = np.array(c2e)
        self.v2e = np.full((len(self.x), 6), -1)
        for edge, ends in enumerate(self.e2v):
            for vertex in ends:
                row = self.v2e[vertex]
                row[np.argmax(row == -1)] = edge

        # Edge normals scaled by the edge length: (dy, -dx) of the vector from end 0 to end 1.
        dx = self.x[self.e2v[:, 1]] - self.x[self.e2v[:, 0]]
        dy = self.y[self.e2v[:, 1]] - self.y[self.e2v[:, 0]]
        self.nx, self.ny = dy, -dx
        # +1 where the edge normal points out of the cell.
        mid_x = 0.5 * (self.x[self.e2v[:, 0]] + self.x[self.e2v[:, 1]])
        mid_y = 0.5 * (self.y[self.e2v[:, 0]] + self.y[self.e2v[:, 1]])
        corners = self.e2v[self.c2e].reshape(len(c2e), -1)  # each corner appears twice
        centre_x = self.x[corners].mean(axis=1)
        centre_y = self.y[corners].mean(axis=1)
        outward = (mid_x[self.c2e] - centre_x[:, None]) * self.nx[self.c2e] + (
            mid_y[self.c2e] - centre_y[:, None]
        ) * self.ny[self.c2e]
        self.sign = np.sign(outward)
        self.area = np.full(len(c2e), 0.5 / n**2)

    def offset_provider(self) -> dict[str, gtx.Connectivity]:
        return {
            "E2V": gtx.as_connectivity([Edge, E2VDim], Vertex, self.e2v.astype(np.int32)),
            "C2E": gtx.as_connectivity([Cell, C2EDim], Edge, self.c2e.astype(np.int32)),
            "V2E": gtx.as_connectivity(
                [Vertex, V2EDim], Edge, self.v2e.astype(np.int32), skip_value=-1
            ),
        }


def main() -> int:
    mesh = TriangleMesh(8)
    print(
        f"mesh: {len(mesh.x)} vertices, {len(mesh.e2v)} edges, {len(mesh.c2e)} cells "
        f"(V - E + C = {len(mesh.x) - len(mesh.e2v) + len(mesh.c2e)})"
    )
    u_values, v_values = mesh.x.copy(), 2.0 * mesh.y

    def vertex_field(values: np.ndarray) -> gtx.Field:
        return gtx.as_field([Vertex], values)

    def edge_field(values: np.ndarray) -> gtx.Field:
        return gtx.as_field([Edge], values)

    result = gtx.zeros(gtx.domain({Cell: len(mesh.c2e)}))
    divergence(
        vertex_field(u_values),
        vertex_field(v_values),
        edge_field(mesh.nx),
        edge_field(mesh.ny),
        gtx.as_field([Cell, C2EDim], mesh.sign),
        gtx.as_field([Cell], mesh.area),
        out=result,
        offset_provider=mesh.offset_provider(),
    )
    flux = 0.5 * (
        u_values[mesh.e2v].sum(axis=1) * mesh.nx + v_values[mesh.e2v].sum(axis=1) * mesh.ny
    )
    expected = (flux[mesh.c2e] * mesh.sign).sum(axis=1) / mesh.area

    degree = gtx.zeros(gtx.domain({Vertex: len(mesh.x)}))
    edges_per_vertex(
        edge_field(np.ones(len(mesh.e2v))), out=degree, offset_provider=mesh.offset_provider()
    )
    expected_degree = (mesh.v2e >= 0).sum(axis=1)

    divergence_values = result.asnumpy()
    print(
        f"divergence of (x, 2y): min {divergence_values.min():.12f}, "
        f"max {divergence_values.max():.12f} (exact: 3)"
    )
    print(f"edges per vertex: {sorted(set(degree.asnumpy().astype(int).tolist()))}")
    ok = (
        np.allclose(divergence_values, expected, rtol=1e-12)
        and np.allclose(divergence_values, 3.0, rtol=1e-12)
        and np.array_equal(degree.asnumpy(), expected_degree)
    )
    if not ok:
        print("MISMATCH against numpy", file=sys.stderr)
        return 1
    print("OK: matches numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
