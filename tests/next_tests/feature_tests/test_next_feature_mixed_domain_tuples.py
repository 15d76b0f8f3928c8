"""Tuple results whose elements live on different domains: each output is written over its
own dims and bounds (those of its own ``out`` field, or its own entry of ``domain=``).

Embedded execution is the oracle: every case runs once on ``gtx.embedded_numpy`` (``None`` on
released gt4py) and once on the backend under test, and the outputs must agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import broadcast, neighbor_sum


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
Cell = gtx.Dimension("Cell")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))

IJField = gtx.Field[gtx.Dims[I, J], gtx.float64]
IJKField = gtx.Field[gtx.Dims[I, J, K], gtx.float64]
KField = gtx.Field[gtx.Dims[K], gtx.float64]
VertexField = gtx.Field[gtx.Dims[Vertex], gtx.float64]
EdgeField = gtx.Field[gtx.Dims[Edge], gtx.float64]
CellField = gtx.Field[gtx.Dims[Cell], gtx.float64]
VertexKField = gtx.Field[gtx.Dims[Vertex, K], gtx.float64]

NI, NJ, NK = 5, 4, 3


def _embedded() -> Any:
    return gtx.embedded_numpy if hasattr(gtx, "embedded_numpy") else None


def _numpy(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_numpy(v) for v in value)
    return value.asnumpy()


def _assert_same(actual: Any, expected: Any) -> None:
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            _assert_same(a, e)
        return
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=0)


def against_embedded(backend: Any, run: Callable[[Any], Any]) -> Any:
    """``run(backend)`` (which returns the filled outputs) compared to ``run(embedded)``;
    returns the embedded outputs (as numpy arrays) for further checks."""
    expected = _numpy(run(_embedded()))
    _assert_same(_numpy(run(backend)), expected)
    return expected


def seeded(backend: Any, dims: list[gtx.Dimension], shape: tuple[int, ...], seed: int) -> Any:
    data = np.random.default_rng(seed).random(shape)
    return gtx.as_field(dims, data, allocator=backend)


def zeros(backend: Any, sizes: dict[gtx.Dimension, int]) -> Any:
    return gtx.zeros(gtx.domain(sizes), allocator=backend)


# ---------------------------------------------------------------------------------------------
# Cartesian: (IJ, IJK)
# ---------------------------------------------------------------------------------------------


@gtx.field_operator
def surface_and_volume(a: IJField, b: IJKField) -> tuple[IJField, IJKField]:
    return a * 2.0, b + a


@gtx.program
def surface_and_volume_program(a: IJField, b: IJKField, r0: IJField, r1: IJKField):
    surface_and_volume(a, b, out=(r0, r1))


def _cartesian_inputs(backend: Any) -> tuple[Any, Any]:
    return seeded(backend, [I, J], (NI, NJ), 1), seeded(backend, [I, J, K], (NI, NJ, NK), 2)


def test_program_ij_and_ijk_outputs(backend):
    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ, K: NK})
        surface_and_volume_program.with_backend(be)(a, b, r0, r1, offset_provider={})
        return r0, r1

    r0, r1 = against_embedded(backend, run)
    a, b = _numpy(_cartesian_inputs(_embedded()))
    np.testing.assert_allclose(r0, a * 2.0, rtol=1e-12)
    np.testing.assert_allclose(r1, b + a[:, :, None], rtol=1e-12)


def test_direct_call_ij_and_ijk_outputs(backend):
    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ, K: NK})
        surface_and_volume.with_backend(be)(a, b, out=(r0, r1), offset_provider={})
        return r0, r1

    against_embedded(backend, run)


def test_direct_call_one_domain_for_outputs_of_different_dims(backend):
    """``domain={I: ..., J: ...}`` restricts both outputs; the IJK one keeps its own K."""

    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ, K: NK})
        surface_and_volume.with_backend(be)(
            a, b, out=(r0, r1), domain={I: (1, 3), J: (0, 2)}, offset_provider={}
        )
        return r0, r1

    r0, r1 = against_embedded(backend, run)
    assert (r0[1:3, 0:2] != 0).all() and (r0[0] == 0).all() and (r0[3:] == 0).all()
    assert (r1[1:3, 0:2, :] != 0).all() and (r1[:, 2:, :] == 0).all()


@pytest.mark.ours_only
def test_direct_call_one_domain_naming_a_dim_only_some_outputs_have(backend):
    """``domain={I, J, K}`` for an (IJ, IJK) result: each output takes the dims it has (the IJ
    one ignores K), on every backend (released's embedded rejects it, its gtfn accepts it)."""

    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ, K: NK})
        surface_and_volume.with_backend(be)(
            a, b, out=(r0, r1), domain={I: (1, 3), J: (0, 2), K: (1, 2)}, offset_provider={}
        )
        return r0, r1

    r0, r1 = against_embedded(backend, run)
    assert (r0[1:3, 0:2] != 0).all() and (r0[0] == 0).all() and (r0[3:] == 0).all()
    assert (r1[1:3, 0:2, 1] != 0).all() and (r1[:, :, 0] == 0).all() and (r1[:, :, 2:] == 0).all()


@gtx.field_operator
def shifted_pair(a: IJField, b: IJKField) -> tuple[IJField, IJKField]:
    corner = a(I + 1)(J + 1)  # chained shifts
    return corner - a, b(I + 1) + corner


@gtx.program
def shifted_pair_program(a: IJField, b: IJKField, r0: IJField, r1: IJKField):
    shifted_pair(
        a,
        b,
        out=(r0, r1),
        domain=({I: (0, NI - 1), J: (0, NJ - 1)}, {I: (1, NI - 1), J: (0, NJ - 1), K: (1, NK)}),
    )


def test_program_chained_shifts_per_output_domain(backend):
    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ, K: NK})
        shifted_pair_program.with_backend(be)(a, b, r0, r1, offset_provider={})
        return r0, r1

    _, r1 = against_embedded(backend, run)
    assert (r1[0] == 0).all() and (r1[:, :, 0] == 0).all() and (r1[1:-1, :-1, 1:] != 0).all()


@gtx.program
def sliced_pair_program(a: IJField, b: IJKField, r0: IJField, r1: IJKField):
    shifted_pair(a, b, out=(r0[:-1, :-1], r1[:-1, :-1]))


def test_program_sliced_outputs_of_different_dims(backend):
    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ, K: NK})
        sliced_pair_program.with_backend(be)(a, b, r0, r1, offset_provider={})
        return r0, r1

    against_embedded(backend, run)


@gtx.field_operator
def same_dims_pair(a: IJField) -> tuple[IJField, IJField]:
    return a + 1.0, a * 3.0


@pytest.mark.ours_only
def test_direct_call_same_dims_different_sizes(backend):
    """Outputs over the same dims but different bounds: each is filled over its own (as
    released gt4py's compiled backends do; its embedded execution writes both over the
    first output's domain)."""

    def run(be: Any) -> Any:
        a = seeded(be, [I, J], (NI, NJ), 3)
        small = gtx.zeros(gtx.domain({I: (1, 3), J: (0, 2)}), allocator=be)
        big = zeros(be, {I: NI, J: NJ})
        same_dims_pair.with_backend(be)(a, out=(small, big), offset_provider={})
        return small, big

    small, big = against_embedded(backend, run)
    assert small.shape == (2, 2) and (big != 0).all()


@gtx.field_operator
def nested(a: IJField, b: IJKField, c: KField) -> tuple[IJField, tuple[KField, IJKField]]:
    return a - 1.0, (c * 2.0, b * c)


@gtx.program
def nested_program(a: IJField, b: IJKField, c: KField, r0: IJField, r1: KField, r2: IJKField):
    nested(a, b, c, out=(r0, (r1, r2)))


def test_program_nested_tuple_outputs(backend):
    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        c = seeded(be, [K], (NK,), 4)
        r0, r1, r2 = zeros(be, {I: NI, J: NJ}), zeros(be, {K: NK}), zeros(be, {I: NI, J: NJ, K: NK})
        nested_program.with_backend(be)(a, b, c, r0, r1, r2, offset_provider={})
        return r0, (r1, r2)

    against_embedded(backend, run)


def test_direct_call_nested_tuple_outputs(backend):
    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        c = seeded(be, [K], (NK,), 4)
        r0, r1, r2 = zeros(be, {I: NI, J: NJ}), zeros(be, {K: NK}), zeros(be, {I: NI, J: NJ, K: NK})
        nested.with_backend(be)(a, b, c, out=(r0, (r1, r2)), offset_provider={})
        return r0, (r1, r2)

    against_embedded(backend, run)


@gtx.field_operator
def with_broadcast(s: gtx.float64, b: IJKField) -> tuple[IJField, IJKField]:
    return broadcast(s, (I, J)), b * s


@gtx.program
def with_broadcast_program(s: gtx.float64, b: IJKField, r0: IJField, r1: IJKField):
    with_broadcast(s, b, out=(r0, r1))


def test_program_scalar_broadcast_element(backend):
    def run(be: Any) -> Any:
        b = seeded(be, [I, J, K], (NI, NJ, NK), 5)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ, K: NK})
        with_broadcast_program.with_backend(be)(2.5, b, r0, r1, offset_provider={})
        return r0, r1

    r0, _ = against_embedded(backend, run)
    assert (r0 == 2.5).all()


@gtx.field_operator
def laplacian_ij(a: IJField) -> IJField:
    return a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1) - 4.0 * a


@gtx.field_operator
def shared_intermediate(a: IJField, b: IJKField) -> tuple[IJField, IJKField]:
    lap = laplacian_ij(a)  # read by both outputs, at several points
    return lap(I + 1) + lap(I - 1), b * lap(J + 1) + lap(J - 1)


@gtx.program
def shared_intermediate_program(a: IJField, b: IJKField, r0: IJField, r1: IJKField):
    shared_intermediate(a, b, out=(r0[2:-2, 2:-2], r1[2:-2, 2:-2]))


def test_program_intermediate_shared_by_outputs_of_different_dims(backend):
    def run(be: Any) -> Any:
        a = seeded(be, [I, J], (7, 7), 6)
        b = seeded(be, [I, J, K], (7, 7, NK), 7)
        r0, r1 = zeros(be, {I: 7, J: 7}), zeros(be, {I: 7, J: 7, K: NK})
        shared_intermediate_program.with_backend(be)(a, b, r0, r1, offset_provider={})
        return r0, r1

    against_embedded(backend, run)


# ---------------------------------------------------------------------------------------------
# Unstructured: (Edge, Cell, Vertex)
# ---------------------------------------------------------------------------------------------


@gtx.field_operator
def three_locations(
    v: VertexField, e: EdgeField, c: CellField
) -> tuple[EdgeField, CellField, VertexField]:
    on_edges = neighbor_sum(v(E2V), axis=E2VDim) - e
    on_cells = neighbor_sum(e(C2E), axis=C2EDim) + v(E2V[0])(C2E[1])  # chained shifts
    on_vertices = neighbor_sum(e(V2E), axis=V2EDim)  # V2E has skip values
    return on_edges, on_cells + c, on_vertices


@gtx.program
def three_locations_program(
    v: VertexField, e: EdgeField, c: CellField, re: EdgeField, rc: CellField, rv: VertexField
):
    three_locations(v, e, c, out=(re, rc, rv))


def _mesh_inputs(backend: Any, mesh: Any) -> tuple[Any, Any, Any]:
    return (
        seeded(backend, [Vertex], (mesh.num_vertices,), 11),
        seeded(backend, [Edge], (mesh.num_edges,), 12),
        seeded(backend, [Cell], (mesh.num_cells,), 13),
    )


def _mesh_outputs(backend: Any, mesh: Any) -> tuple[Any, Any, Any]:
    return (
        zeros(backend, {Edge: mesh.num_edges}),
        zeros(backend, {Cell: mesh.num_cells}),
        zeros(backend, {Vertex: mesh.num_vertices}),
    )


def test_program_edge_cell_vertex_outputs(backend, mesh):
    def run(be: Any) -> Any:
        outs = _mesh_outputs(be, mesh)
        three_locations_program.with_backend(be)(
            *_mesh_inputs(be, mesh), *outs, offset_provider=mesh.offset_provider(be)
        )
        return outs

    re, rc, rv = against_embedded(backend, run)
    v, e, c = _numpy(_mesh_inputs(_embedded(), mesh))
    np.testing.assert_allclose(re, v[mesh.e2v].sum(axis=1) - e, rtol=1e-12)
    expected_c = e[mesh.c2e].sum(axis=1) + v[mesh.e2v[mesh.c2e[:, 1], 0]] + c
    np.testing.assert_allclose(rc, expected_c, rtol=1e-12)
    expected_v = np.where(mesh.v2e >= 0, e[np.maximum(mesh.v2e, 0)], 0.0).sum(axis=1)
    np.testing.assert_allclose(rv, expected_v, rtol=1e-12)


def test_direct_call_edge_cell_vertex_outputs(backend, mesh):
    def run(be: Any) -> Any:
        outs = _mesh_outputs(be, mesh)
        three_locations.with_backend(be)(
            *_mesh_inputs(be, mesh), out=outs, offset_provider=mesh.offset_provider(be)
        )
        return outs

    against_embedded(backend, run)


@gtx.field_operator
def edges_and_vertex_levels(v: VertexKField, e: EdgeField) -> tuple[EdgeField, VertexKField]:
    return neighbor_sum(e(V2E), axis=V2EDim)(E2V[1]) * e, v * 2.0


@gtx.program
def edges_and_vertex_levels_program(v: VertexKField, e: EdgeField, re: EdgeField, rv: VertexKField):
    edges_and_vertex_levels(
        v, e, out=(re, rv), domain=({Edge: (1, 5)}, {Vertex: (2, 7), K: (0, NK - 1)})
    )


def test_program_unstructured_per_output_domain(backend, mesh):
    def run(be: Any) -> Any:
        v = seeded(be, [Vertex, K], (mesh.num_vertices, NK), 14)
        e = seeded(be, [Edge], (mesh.num_edges,), 15)
        re, rv = zeros(be, {Edge: mesh.num_edges}), zeros(be, {Vertex: mesh.num_vertices, K: NK})
        edges_and_vertex_levels_program.with_backend(be)(
            v, e, re, rv, offset_provider=mesh.offset_provider(be)
        )
        return re, rv

    re, rv = against_embedded(backend, run)
    assert (re[:1] == 0).all() and (re[5:] == 0).all() and (re[1:5] != 0).all()
    assert (rv[2:7, : NK - 1] != 0).all() and (rv[:, NK - 1] == 0).all()


# ---------------------------------------------------------------------------------------------
# A mismatched ``out`` tuple
# ---------------------------------------------------------------------------------------------


def test_program_out_element_of_wrong_dims_is_the_same_error_everywhere(backend):
    def message(be: Any) -> str:
        a, b = _cartesian_inputs(be)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ})
        with pytest.raises(gtx.errors.DSLError) as info:  # (released checks on definition)

            @gtx.program(backend=be)
            def wrong(a: IJField, b: IJKField, r0: IJField, r1: IJField):
                surface_and_volume(a, b, out=(r0, r1))

            wrong(a, b, r0, r1, offset_provider={})
        return str(info.value)

    text = message(backend)
    assert "surface_and_volume" in text and "'out'" in text and "K" in text
    assert text == message(_embedded())


def test_direct_call_out_element_of_wrong_dims_is_an_error_everywhere(backend, is_released):
    a, b = _cartesian_inputs(backend)
    r0, r1 = zeros(backend, {I: NI, J: NJ}), zeros(backend, {I: NI, J: NJ})
    with pytest.raises(Exception, match=r"\bK\b") as info:
        surface_and_volume.with_backend(backend)(a, b, out=(r0, r1), offset_provider={})
    if not is_released:  # (released: a ValueError)
        assert type(info.value).__name__ == "DomainError"


def test_direct_call_one_domain_per_output(backend):
    """``domain=({...}, {...})`` in a direct call: each output over its own domain."""

    def run(be: Any) -> Any:
        a, b = _cartesian_inputs(be)
        r0, r1 = zeros(be, {I: NI, J: NJ}), zeros(be, {I: NI, J: NJ, K: NK})
        surface_and_volume.with_backend(be)(
            a,
            b,
            out=(r0, r1),
            domain=({I: (1, 3), J: (0, 2)}, {I: (0, 2), J: (1, 4), K: (1, 3)}),
            offset_provider={},
        )
        return r0, r1

    _, r1 = against_embedded(backend, run)
    assert (r1[:, :, 0] == 0).all() and (r1[0:2, 1:4, 1:3] != 0).all()
