"""Write a small ICON torus grid file (netCDF) that icon4py's ``GridManager`` reads.

A planar torus (``grid_geometry = 2``) of equilateral triangles of side ``edge_length``:
``nx`` vertices per row, ``ny`` rows (even), alternate rows shifted by half an edge so that
the domain is the rectangle ``nx * edge_length`` by ``ny * edge_length * sqrt(3) / 2``,
periodic in both directions. Everything is derived from the vertex lattice with numpy only:

* connectivities in ICON's layout ``(neighbours, entities)``, 1-based: ``edge_of_cell``,
  ``vertex_of_cell``, ``neighbor_cell_index`` (the cell across ``edge_of_cell`` k),
  ``edge_vertices``, ``adjacent_cell_of_edge``, ``edges_of_vertex`` / ``cells_of_vertex`` /
  ``vertices_of_vertex`` (counter-clockwise from the east, cell k between edges k and k+1);
* refinement control ``refin_{c,e,v}_ctrl`` (all 0: a global grid, no lateral boundary);
* coordinates: cartesian ``x, y`` in metres (``z = 0``) of cell circumcentres, edge midpoints
  and vertices, and ``clon/clat`` etc. (radians; the torus mapped onto a longitude/latitude
  box, which icon4py does not use on a torus);
* geometry: ``cell_area``, ``dual_area``, ``edge_length``, ``dual_edge_length``,
  ``edge_cell_distance``, ``edge_vert_distance``, edge primal/dual normals (cartesian), and the
  orientations with ICON's meaning: the primal normal of an edge points from
  ``adjacent_cell_of_edge`` 1 to 2; ``orientation_of_normal`` is +1 where it points out of the
  cell; ``edge_system_orientation`` s makes ``s * (v2 - v1)`` the dual normal t with
  ``n = z x t`` (icon4py's torus convention); ``edge_orientation`` (per vertex) is +1 where the
  primal normal turns counter-clockwise around the vertex (the sign of the curl);
* the global attributes ``GridManager`` reads (``uuidOfHGrid``, ``grid_root``, ``grid_level``,
  ``grid_geometry``, ``domain_length``, ``domain_height``) and the usual MPI-M ones.

``python torus_gridfile.py OUT.nc [--nx 12 --ny 10 --edge-length 500]``; needs netCDF4.
"""

from __future__ import annotations

import argparse
import pathlib
import uuid

import numpy as np


def build(nx: int = 12, ny: int = 10, edge_length: float = 500.0) -> dict:
    """The grid as arrays (0-based tables, ``(entities, neighbours)``) and attributes."""
    if nx < 4 or ny < 4 or ny % 2:
        raise ValueError(f"the torus needs nx >= 4 and an even ny >= 4, got nx={nx}, ny={ny}")
    if not edge_length > 0:
        raise ValueError(f"edge_length must be positive, got {edge_length}")
    L = float(edge_length)
    h = L * np.sqrt(3.0) / 2.0
    lx, ly = nx * L, ny * h
    n_v = nx * ny
    jj, ii = np.divmod(np.arange(n_v), nx)
    vxy = np.stack([(ii + 0.5 * (jj % 2)) * L, jj * h], axis=1)

    def vid(i, j):
        return (np.asarray(j) % ny) * nx + (np.asarray(i) % nx)

    def up_right(i, j):
        return vid(np.where(j % 2 == 0, i, i + 1), j + 1)

    def wrap(d):  # nearest periodic image of a displacement
        d = np.array(d, dtype=np.float64)
        d[..., 0] -= lx * np.round(d[..., 0] / lx)
        d[..., 1] -= ly * np.round(d[..., 1] / ly)
        return d

    def into_box(p):
        p = np.array(p, dtype=np.float64)
        p[..., 0] = np.mod(p[..., 0], lx)
        p[..., 1] = np.mod(p[..., 1], ly)
        return p

    # cells: per vertex an "up" and a "down" triangle, counter-clockwise
    up = np.stack([vid(ii, jj), vid(ii + 1, jj), up_right(ii, jj)], axis=1)
    down = np.stack([vid(ii + 1, jj), up_right(ii + 1, jj), up_right(ii, jj)], axis=1)
    c2v = np.empty((2 * n_v, 3), dtype=np.int64)
    c2v[0::2], c2v[1::2] = up, down
    n_c = c2v.shape[0]
    d1 = wrap(vxy[c2v[:, 1]] - vxy[c2v[:, 0]])
    d2 = wrap(vxy[c2v[:, 2]] - vxy[c2v[:, 0]])
    assert np.all(d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0] > 0), "cells not counter-clockwise"
    cxy = into_box(vxy[c2v[:, 0]] + (d1 + d2) / 3.0)

    # edges: distinct vertex pairs of the cells' sides (side k: vertex k+1 -> k+2, the side
    # opposite vertex k, as ICON numbers them), numbered by first use
    sides = np.stack([np.roll(c2v, -1, axis=1), np.roll(c2v, -2, axis=1)], axis=2).reshape(-1, 2)
    keys = np.sort(sides, axis=1) @ np.array([n_v, 1])
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    c2e = rank[inverse].reshape(n_c, 3)
    n_e = first.size
    assert n_e == 3 * n_v
    e2v = np.empty((n_e, 2), dtype=np.int64)
    e2v[rank[inverse[first]]] = sides[first]
    e2c = np.full((n_e, 2), -1, dtype=np.int64)
    owner = np.repeat(np.arange(n_c), 3)
    flat_e = c2e.ravel()
    is_first = np.zeros(flat_e.size, dtype=bool)
    is_first[first] = True
    e2c[flat_e[is_first], 0] = owner[is_first]
    e2c[flat_e[~is_first], 1] = owner[~is_first]
    assert (e2c >= 0).all()
    c2e2c = np.where(e2c[c2e, 0] == np.arange(n_c)[:, None], e2c[c2e, 1], e2c[c2e, 0])

    # edge geometry
    dv = wrap(vxy[e2v[:, 1]] - vxy[e2v[:, 0]])
    exy = into_box(vxy[e2v[:, 0]] + dv / 2.0)
    dc = wrap(cxy[e2c[:, 1]] - cxy[e2c[:, 0]])
    normal = dc / np.linalg.norm(dc, axis=1)[:, None]  # from cell 1 to cell 2
    rot_dv = np.stack([-dv[:, 1], dv[:, 0]], axis=1)
    system_orientation = np.sign(np.einsum("ij,ij->i", rot_dv, normal))
    assert np.all(system_orientation != 0)
    tangent = system_orientation[:, None] * dv / np.linalg.norm(dv, axis=1)[:, None]
    assert np.allclose(np.stack([-tangent[:, 1], tangent[:, 0]], axis=1), normal)
    orientation_of_normal = np.where(e2c[c2e, 0] == np.arange(n_c)[:, None], 1.0, -1.0)

    # around a vertex: edges and cells counter-clockwise from the east
    def around(items_xy, owners):
        n_items, width = owners.shape
        vs = owners.ravel()
        items = np.repeat(np.arange(n_items), width)
        r = wrap(items_xy[items] - vxy[vs])
        angle = np.mod(np.arctan2(r[:, 1], r[:, 0]) + 1e-9, 2 * np.pi)
        order = np.lexsort((angle, vs))
        assert (vs[order].reshape(n_v, 6) == np.arange(n_v)[:, None]).all()
        return items[order].reshape(n_v, 6)

    v2e = around(exy, e2v)
    v2c = around(cxy, c2v)
    v2e2v = np.where(e2v[v2e, 0] == np.arange(n_v)[:, None], e2v[v2e, 1], e2v[v2e, 0])
    r = wrap(exy[v2e] - vxy[:, None, :])
    n_ve = normal[v2e]
    edge_orientation = np.sign(r[..., 0] * n_ve[..., 1] - r[..., 1] * n_ve[..., 0])
    assert np.all(edge_orientation != 0)

    def lonlat(xy):
        return (xy[:, 0] / lx - 0.5) * 2 * np.pi, (xy[:, 1] / ly - 0.5) * np.pi / 2

    clon, clat = lonlat(cxy)
    elon, elat = lonlat(exy)
    vlon, vlat = lonlat(vxy)
    cell_area = np.sqrt(3.0) / 4.0 * L**2
    return {
        "sizes": {"cell": n_c, "edge": n_e, "vertex": n_v},
        "tables": {
            "edge_of_cell": c2e,
            "vertex_of_cell": c2v,
            "neighbor_cell_index": c2e2c,
            "edge_vertices": e2v,
            "adjacent_cell_of_edge": e2c,
            "edges_of_vertex": v2e,
            "cells_of_vertex": v2c,
            "vertices_of_vertex": v2e2v,
        },
        "fields": {
            ("cell",): {
                "clon": clon,
                "clat": clat,
                "cell_circumcenter_cartesian_x": cxy[:, 0],
                "cell_circumcenter_cartesian_y": cxy[:, 1],
                "cell_circumcenter_cartesian_z": np.zeros(n_c),
                "cell_area": np.full(n_c, cell_area),
            },
            ("edge",): {
                "elon": elon,
                "elat": elat,
                "edge_middle_cartesian_x": exy[:, 0],
                "edge_middle_cartesian_y": exy[:, 1],
                "edge_middle_cartesian_z": np.zeros(n_e),
                "edge_length": np.full(n_e, L),
                "dual_edge_length": np.full(n_e, L / np.sqrt(3.0)),
                "edge_system_orientation": system_orientation.astype(np.float64),
                "edge_primal_normal_cartesian_x": normal[:, 0],
                "edge_primal_normal_cartesian_y": normal[:, 1],
                "edge_primal_normal_cartesian_z": np.zeros(n_e),
                "edge_dual_normal_cartesian_x": tangent[:, 0],
                "edge_dual_normal_cartesian_y": tangent[:, 1],
                "edge_dual_normal_cartesian_z": np.zeros(n_e),
            },
            ("vertex",): {
                "vlon": vlon,
                "vlat": vlat,
                "cartesian_x_vertices": vxy[:, 0],
                "cartesian_y_vertices": vxy[:, 1],
                "cartesian_z_vertices": np.zeros(n_v),
                "dual_area": np.full(n_v, 2.0 * cell_area),
            },
            ("nv", "cell"): {"orientation_of_normal": orientation_of_normal.T},
            ("nc", "edge"): {
                "edge_cell_distance": np.full((2, n_e), L / (2.0 * np.sqrt(3.0))),
                "edge_vert_distance": np.full((2, n_e), L / 2.0),
            },
            ("ne", "vertex"): {"edge_orientation": edge_orientation.T.astype(np.int32)},
        },
        "refinement": {"refin_c_ctrl": n_c, "refin_e_ctrl": n_e, "refin_v_ctrl": n_v},
        "attributes": {
            "title": f"ICON torus grid {nx} x {ny}, edge length {L} m (gt4py compat)",
            "institution": "gt4py compat suite",
            "source": "compat/icon4py/torus_gridfile.py",
            "uuidOfHGrid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"torus/{nx}/{ny}/{L}")),
            "uuidOfParHGrid": "00000000-0000-0000-0000-000000000000",
            "number_of_grid_used": 0,
            "grid_root": 1,
            "grid_level": 0,
            "grid_geometry": 2,
            "grid_cell_type": 3,
            "domain_length": lx,
            "domain_height": ly,
            "domain_cartesian_center": np.zeros(3),
            "mean_edge_length": L,
            "mean_dual_edge_length": L / np.sqrt(3.0),
            "mean_cell_area": cell_area,
            "mean_dual_cell_area": 2.0 * cell_area,
            "sphere_radius": 6371229.0,
        },
    }


def write(path: str | pathlib.Path, nx: int = 12, ny: int = 10, edge_length: float = 500.0):
    """Write the grid file; returns ``build``'s dictionary."""
    import netCDF4

    grid = build(nx, ny, edge_length)
    sizes = grid["sizes"]
    with netCDF4.Dataset(str(path), "w", format="NETCDF4") as ds:
        for name, size in {**sizes, "nv": 3, "ne": 6, "nc": 2, "no": 4, "max_chdom": 1}.items():
            ds.createDimension(name, size)
        for name, table in grid["tables"].items():
            dims = ("nv" if table.shape[1] == 3 else "ne" if table.shape[1] == 6 else "nc",)
            owner = {"edge_of_cell": "cell", "vertex_of_cell": "cell",
                     "neighbor_cell_index": "cell", "edge_vertices": "edge",
                     "adjacent_cell_of_edge": "edge"}.get(name, "vertex")  # fmt: skip
            var = ds.createVariable(name, "i4", (*dims, owner))
            var[:] = (table + 1).T.astype(np.int32)  # Fortran: 1-based, neighbours first
        for dims, fields in grid["fields"].items():
            for name, values in fields.items():
                kind = "i4" if np.asarray(values).dtype.kind == "i" else "f8"
                ds.createVariable(name, kind, dims)[:] = values
        for name, n in grid["refinement"].items():
            owner = {"refin_c_ctrl": "cell", "refin_e_ctrl": "edge"}.get(name, "vertex")
            ds.createVariable(name, "i4", (owner,))[:] = np.zeros(n, dtype=np.int32)
        for name, value in grid["attributes"].items():
            ds.setncattr(name, value)
    return grid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--nx", type=int, default=12)
    parser.add_argument("--ny", type=int, default=10)
    parser.add_argument("--edge-length", type=float, default=500.0)
    args = parser.parse_args()
    grid = write(args.out, args.nx, args.ny, args.edge_length)
    print(f"wrote {args.out}: {grid['sizes']}")


if __name__ == "__main__":
    main()
