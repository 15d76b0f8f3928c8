"""Two unstructured gt4py.next programs on a periodic triangular mesh (public API only).

    python next_unstructured.py BACKEND [NX] [NK]

The mesh has 2*NX*NX cells and 3*NX*NX edges (NX=100: 20 000 cells) and NK levels.
``div``: sum over a cell's three edges of flux * geofac (cell -> edge table);
``grad``: difference of an edge's two cells times a per-edge factor (edge -> cell table).
One JSON line: first call and steady median of each, and ``correct`` (checked with numpy).
"""

import json
import statistics
import sys
import time

import numpy as np

import gt4py.next as gtx
from gt4py.next import neighbor_sum


CellDim = gtx.Dimension("Cell")
EdgeDim = gtx.Dimension("Edge")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)
C2E = gtx.FieldOffset("C2E", source=EdgeDim, target=(CellDim, C2EDim))
E2C = gtx.FieldOffset("E2C", source=CellDim, target=(EdgeDim, E2CDim))
CellK = gtx.Field[gtx.Dims[CellDim, KDim], gtx.float64]
EdgeK = gtx.Field[gtx.Dims[EdgeDim, KDim], gtx.float64]


@gtx.field_operator
def divergence(flux: EdgeK, geofac: gtx.Field[gtx.Dims[CellDim, C2EDim], gtx.float64]) -> CellK:
    return neighbor_sum(flux(C2E) * geofac, axis=C2EDim)


@gtx.program
def divergence_program(
    flux: EdgeK, geofac: gtx.Field[gtx.Dims[CellDim, C2EDim], gtx.float64], out: CellK
):
    divergence(flux, geofac, out=out)


@gtx.field_operator
def gradient(values: CellK, inverse_length: gtx.Field[gtx.Dims[EdgeDim], gtx.float64]) -> EdgeK:
    return (values(E2C[1]) - values(E2C[0])) * inverse_length


@gtx.program
def gradient_program(
    values: CellK, inverse_length: gtx.Field[gtx.Dims[EdgeDim], gtx.float64], out: EdgeK
):
    gradient(values, inverse_length, out=out)


def triangular_mesh(nx):
    """Each quad (i, j) of a periodic nx x nx grid is split into two triangles; quad q owns
    edges 3q (bottom), 3q+1 (left) and 3q+2 (diagonal)."""
    quad = lambda i, j: (i % nx) * nx + (j % nx)  # noqa: E731
    cell_edges = np.empty((2 * nx * nx, 3), dtype=np.int32)
    for i in range(nx):
        for j in range(nx):
            q = quad(i, j)
            cell_edges[2 * q] = (3 * q, 3 * q + 2, 3 * q + 1)
            cell_edges[2 * q + 1] = (3 * quad(i + 1, j) + 1, 3 * quad(i, j + 1), 3 * q + 2)
    edge_cells = np.empty((3 * nx * nx, 2), dtype=np.int32)
    seen = np.zeros(3 * nx * nx, dtype=np.int32)
    for cell, edges in enumerate(cell_edges):
        for edge in edges:
            edge_cells[edge, seen[edge]] = cell
            seen[edge] += 1
    assert (seen == 2).all(), "every edge has two cells"
    return cell_edges, edge_cells


def first_and_steady(call, repeats=15):
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return first, statistics.median(samples)


def main():
    name = sys.argv[1]
    nx = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    nk = int(sys.argv[3]) if len(sys.argv) > 3 else 80
    backend = getattr(gtx, "embedded_numpy", None) if name == "embedded" else getattr(gtx, name)
    cell_edges, edge_cells = triangular_mesh(nx)
    n_cells, n_edges = len(cell_edges), len(edge_cells)
    provider = {
        "C2E": gtx.as_connectivity([CellDim, C2EDim], EdgeDim, cell_edges),
        "E2C": gtx.as_connectivity([EdgeDim, E2CDim], CellDim, edge_cells),
    }
    rng = np.random.default_rng(42)
    flux = gtx.as_field([EdgeDim, KDim], rng.random((n_edges, nk)))
    geofac = gtx.as_field([CellDim, C2EDim], rng.random((n_cells, 3)))
    values = gtx.as_field([CellDim, KDim], rng.random((n_cells, nk)))
    inverse_length = gtx.as_field([EdgeDim], rng.random(n_edges))
    div_out = gtx.zeros(gtx.domain({CellDim: n_cells, KDim: nk}), dtype=gtx.float64)
    grad_out = gtx.zeros(gtx.domain({EdgeDim: n_edges, KDim: nk}), dtype=gtx.float64)
    div = divergence_program.with_backend(backend)
    grad = gradient_program.with_backend(backend)
    div_first, div_steady = first_and_steady(
        lambda: div(flux, geofac, div_out, offset_provider=provider)
    )
    grad_first, grad_steady = first_and_steady(
        lambda: grad(values, inverse_length, grad_out, offset_provider=provider)
    )
    f, g, v = flux.asnumpy(), geofac.asnumpy(), values.asnumpy()
    expected_div = np.einsum("cnk,cn->ck", f[cell_edges], g)
    expected_grad = (v[edge_cells[:, 1]] - v[edge_cells[:, 0]]) * inverse_length.asnumpy()[:, None]
    correct = bool(
        np.allclose(div_out.asnumpy(), expected_div)
        and np.allclose(grad_out.asnumpy(), expected_grad)
    )
    print(
        json.dumps(
            {
                "backend": name,
                "div_first_s": round(div_first, 4),
                "div_steady_s": round(div_steady, 6),
                "grad_first_s": round(grad_first, 4),
                "grad_steady_s": round(grad_steady, 6),
                "correct": correct,
            }
        )
    )


if __name__ == "__main__":
    main()
