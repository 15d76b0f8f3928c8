"""``gtx.experimental``: ``concat_where`` with domain conditions, and ``as_offset``."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.experimental import as_offset, concat_where


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))
IField = gtx.Field[gtx.Dims[I], gtx.float64]
KField = gtx.Field[gtx.Dims[K], gtx.float64]
IJField = gtx.Field[gtx.Dims[I, J], gtx.float64]
IKField = gtx.Field[gtx.Dims[I, K], gtx.float64]
IKIntField = gtx.Field[gtx.Dims[I, K], gtx.int32]

rng = np.random.default_rng(11)


def as_fields(backend, dims, *arrays):
    return [gtx.as_field(dims, x, allocator=backend) for x in arrays]


@gtx.field_operator
def level_below_or_surface(a: KField, surface: KField) -> KField:
    return concat_where(K >= 1, a(K - 1), surface)


def test_concat_where_with_shifted_field_branch(backend):
    a, surface = as_fields(backend, [K], rng.random(6), rng.random(6))
    out = gtx.zeros(a.domain, allocator=backend)
    level_below_or_surface.with_backend(backend)(a, surface, out=out, offset_provider={})
    expected = np.concatenate([surface.asnumpy()[:1], a.asnumpy()[:-1]])
    np.testing.assert_array_equal(out.asnumpy(), expected)


@gtx.field_operator
def swap_below_two(a: KField, b: KField) -> tuple[KField, KField]:
    return concat_where(K < 2, (b, a), (a, b))


def test_concat_where_with_tuples(backend):
    a, b = as_fields(backend, [K], rng.random(5), rng.random(5))
    first = gtx.zeros(a.domain, allocator=backend)
    second = gtx.zeros(a.domain, allocator=backend)
    swap_below_two.with_backend(backend)(a, b, out=(first, second), offset_provider={})
    an, bn = a.asnumpy(), b.asnumpy()
    np.testing.assert_array_equal(first.asnumpy(), np.concatenate([bn[:2], an[2:]]))
    np.testing.assert_array_equal(second.asnumpy(), np.concatenate([an[:2], bn[2:]]))


@gtx.field_operator
def nested_boundaries(interior: IField, west: IField, east: IField, n: gtx.int32) -> IField:
    return concat_where(I == 0, west, concat_where(I == n - 1, east, interior))  # noqa: SIM300


@gtx.program
def nested_boundaries_program(
    interior: IField, west: IField, east: IField, n: gtx.int32, out: IField
):
    nested_boundaries(interior, west, east, n, out=out, domain={I: (0, n)})


def test_nested_concat_where_in_program(backend):
    interior, west, east = as_fields(backend, [I], *(rng.random(6) for _ in range(3)))
    out = gtx.zeros(interior.domain, allocator=backend)
    nested_boundaries_program.with_backend(backend)(
        interior, west, east, 6, out, offset_provider={}
    )
    expected = interior.asnumpy().copy()
    expected[0] = west.asnumpy()[0]
    expected[-1] = east.asnumpy()[-1]
    np.testing.assert_array_equal(out.asnumpy(), expected)


@pytest.mark.released_defect("released: 'Cannot compute length of open UnitRange'")
def test_concat_where_open_ended_condition_with_scalar_branch(backend):
    @gtx.field_operator
    def level_below_or_zero(a: IKField) -> IKField:
        return concat_where(K >= 1, a(K - 1), 0.0)

    (a,) = as_fields(backend, [I, K], rng.random((2, 5)))
    out = gtx.zeros(a.domain, allocator=backend)
    level_below_or_zero.with_backend(backend)(a, out=out, offset_provider={})
    expected = np.concatenate([np.zeros((2, 1)), a.asnumpy()[:, :-1]], axis=1)
    np.testing.assert_array_equal(out.asnumpy(), expected)


@pytest.mark.released_defect("released: 'Union of disjoint domains ... is not supported'")
def test_concat_where_union_of_disjoint_conditions(backend):
    @gtx.field_operator
    def boundary_or_interior(boundary: IField, interior: IField, n: gtx.int32) -> IField:
        return concat_where((I == 0) | (I == n - 1), boundary, interior)  # noqa: SIM300

    boundary, interior = as_fields(backend, [I], rng.random(6), rng.random(6))
    out = gtx.zeros(boundary.domain, allocator=backend)
    boundary_or_interior.with_backend(backend)(boundary, interior, 6, out=out, offset_provider={})
    expected = interior.asnumpy().copy()
    expected[[0, -1]] = boundary.asnumpy()[[0, -1]]
    np.testing.assert_array_equal(out.asnumpy(), expected)


@pytest.mark.released_defect("released: 'Can only concatenate fields with a 1-dimensional domain'")
def test_concat_where_condition_over_two_dimensions(backend):
    @gtx.field_operator
    def corner(a: IJField, b: IJField) -> IJField:
        return concat_where((I >= 1) & (J < 2), a, b)

    a, b = as_fields(backend, [I, J], rng.random((4, 3)), rng.random((4, 3)))
    out = gtx.zeros(a.domain, allocator=backend)
    corner.with_backend(backend)(a, b, out=out, offset_provider={})
    ii, jj = np.meshgrid(np.arange(4), np.arange(3), indexing="ij")
    expected = np.where((ii >= 1) & (jj < 2), a.asnumpy(), b.asnumpy())
    np.testing.assert_array_equal(out.asnumpy(), expected)


@gtx.field_operator
def read_at_level_offset(a: IKField, offset: IKIntField) -> IKField:
    return a(as_offset(Koff, offset))


def test_as_offset(backend):
    data = rng.random((3, 5))
    offsets = rng.integers(-2, 3, (3, 5)).astype(np.int32)
    levels = np.arange(5)[None, :] + offsets
    offsets = np.where((levels >= 0) & (levels < 5), offsets, 0).astype(np.int32)
    a = gtx.as_field([I, K], data, allocator=backend)
    offset = gtx.as_field([I, K], offsets, allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    read_at_level_offset.with_backend(backend)(a, offset, out=out, offset_provider={"Koff": K})
    expected = np.take_along_axis(data, np.arange(5)[None, :] + offsets, axis=1)
    np.testing.assert_array_equal(out.asnumpy(), expected)


@gtx.field_operator
def _step_above(x: KField) -> KField:
    return x * 0.5 + x * x  # its argument used twice


@gtx.field_operator
def guarded_chain_of_reads_above(a: KField, n: gtx.int32) -> KField:
    # locals with a shifted read, each used twice (bound once, where the branch that uses
    # them is evaluated), and chained calls on them
    up = a(K + 1)
    y = up * up + up
    z = y * 0.5 + y
    w = _step_above(_step_above(_step_above(z)))
    return concat_where(K < n - 1, w * w + w, a)  # noqa: SIM300


def test_concat_where_with_a_guarded_chain_of_shifted_locals(backend):
    data = rng.random(7)
    (a,) = as_fields(backend, [K], data)
    out = gtx.zeros({K: 6}, allocator=backend)
    guarded_chain_of_reads_above.with_backend(backend)(a, 6, out=out, offset_provider={})
    up = data[1:6]
    y = up * up + up
    w = y * 0.5 + y
    for _ in range(3):
        w = w * 0.5 + w * w
    expected = np.concatenate([w * w + w, data[5:6]])
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-10)
