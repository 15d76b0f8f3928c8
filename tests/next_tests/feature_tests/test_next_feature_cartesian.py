"""Cartesian stencils: shifts, programs with domains, nested operators, keyword arguments."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))

IJKField = gtx.Field[gtx.Dims[I, J, K], gtx.float64]
IJField = gtx.Field[gtx.Dims[I, J], gtx.float64]
KField = gtx.Field[gtx.Dims[K], gtx.float64]
IKField = gtx.Field[gtx.Dims[I, K], gtx.float64]

rng = np.random.default_rng(42)


def random_field(backend, dims, shape):
    return gtx.as_field(dims, rng.random(shape), allocator=backend)


@gtx.field_operator
def shift_i_plus(a: IJKField) -> IJKField:
    return a(I + 1)


@gtx.field_operator
def shift_i_minus(a: IJKField) -> IJKField:
    return a(I - 1)


@gtx.field_operator
def shift_j_plus_two(a: IJKField) -> IJKField:
    return a(J + 2)


@gtx.field_operator
def shift_k_minus(a: IJKField) -> IJKField:
    return a(K - 1)


@pytest.mark.parametrize(
    ("operator", "out_slices", "in_slices"),
    [
        (shift_i_plus, np.s_[:-1, :, :], np.s_[1:, :, :]),
        (shift_i_minus, np.s_[1:, :, :], np.s_[:-1, :, :]),
        (shift_j_plus_two, np.s_[:, :-2, :], np.s_[:, 2:, :]),
        (shift_k_minus, np.s_[:, :, 1:], np.s_[:, :, :-1]),
    ],
    ids=["I+1", "I-1", "J+2", "K-1"],
)
def test_cartesian_shift(backend, operator, out_slices, in_slices):
    a = random_field(backend, [I, J, K], (5, 6, 4))
    out = gtx.zeros(a.domain, allocator=backend)
    operator.with_backend(backend)(a, out=out[out_slices], offset_provider={})
    expected = np.zeros((5, 6, 4))
    expected[out_slices] = a.asnumpy()[in_slices]
    np.testing.assert_array_equal(out.asnumpy(), expected)


@gtx.field_operator
def laplacian(a: IJKField) -> IJKField:
    return -4.0 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)


@gtx.program
def laplacian_program(a: IJKField, out: IJKField, i_end: gtx.int32, j_end: gtx.int32):
    laplacian(a, out=out, domain={I: (1, i_end), J: (1, j_end), K: (0, 3)})


def numpy_laplacian(a: np.ndarray) -> np.ndarray:
    return -4.0 * a[1:-1, 1:-1] + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2]


def test_laplacian_program_domain_from_scalar_arguments(backend):
    a = random_field(backend, [I, J, K], (7, 6, 3))
    out = gtx.zeros(a.domain, allocator=backend)
    laplacian_program.with_backend(backend)(a, out, 6, 5, offset_provider={})
    expected = np.zeros((7, 6, 3))
    expected[1:-1, 1:-1] = numpy_laplacian(a.asnumpy())
    np.testing.assert_allclose(out.asnumpy(), expected)


@gtx.field_operator
def laplacian_of_laplacian(a: IJKField) -> IJKField:
    return laplacian(laplacian(a))


def test_nested_field_operator_calls(backend):
    a = random_field(backend, [I, J, K], (8, 8, 2))
    out = gtx.zeros(a.domain, allocator=backend)
    laplacian_of_laplacian.with_backend(backend)(
        a, out=out, domain={I: (2, 6), J: (2, 6), K: (0, 2)}, offset_provider={}
    )
    expected = numpy_laplacian(numpy_laplacian(a.asnumpy()))
    np.testing.assert_allclose(out.asnumpy()[2:6, 2:6], expected)
    assert not out.asnumpy()[:2].any() and not out.asnumpy()[6:].any()


@gtx.field_operator
def axpy(alpha: float, x: IJField, y: IJField) -> IJField:
    return alpha * x + y


@gtx.field_operator
def axpy_by_keyword(x: IJField, y: IJField) -> IJField:
    return axpy(y=y, x=x, alpha=2.0)


@gtx.program
def axpy_program(alpha: float, x: IJField, y: IJField, out: IJField):
    axpy(alpha, x, y, out=out)


def test_keyword_arguments(backend):
    x = random_field(backend, [I, J], (4, 5))
    y = random_field(backend, [I, J], (4, 5))
    expected = 2.0 * x.asnumpy() + y.asnumpy()

    out = gtx.zeros(x.domain, allocator=backend)
    axpy_by_keyword.with_backend(backend)(x, y, out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), expected)

    out = gtx.zeros(x.domain, allocator=backend)
    axpy_program.with_backend(backend)(y=y, x=x, out=out, alpha=2.0, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), expected)


@gtx.field_operator
def scale_then_shift(a: IJField, factor: float) -> IJField:
    scaled = a * factor
    return scaled(I + 1) - scaled


def test_scalar_argument_and_local_variables(backend):
    a = random_field(backend, [I, J], (5, 3))
    out = gtx.zeros(gtx.domain({I: 4, J: 3}), allocator=backend)
    scale_then_shift.with_backend(backend)(a, 3.0, out=out, offset_provider={})
    an = a.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), 3.0 * an[1:] - 3.0 * an[:-1])


@gtx.field_operator
def add_column(a: IKField, column: KField) -> IKField:
    return a + column


def test_broadcasting_by_dimension_name(backend):
    a = random_field(backend, [I, K], (3, 4))
    column = random_field(backend, [K], (4,))
    out = gtx.zeros(a.domain, allocator=backend)
    add_column.with_backend(backend)(a, column, out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), a.asnumpy() + column.asnumpy()[np.newaxis, :])


def test_field_with_nonzero_origin(backend):
    """Fields live on their domain: a field starting at I=2 is shifted in index space."""
    data = rng.random((4, 3))
    a = gtx.as_field(gtx.domain({I: (2, 6), J: 3}), data, allocator=backend)
    out = gtx.zeros(gtx.domain({I: (2, 5), J: 3}), allocator=backend)
    shift_by_one = shift_i_plus_2d.with_backend(backend)
    shift_by_one(a, out=out, offset_provider={})
    np.testing.assert_array_equal(out.asnumpy(), data[1:])


@gtx.field_operator
def shift_i_plus_2d(a: IJField) -> IJField:
    return a(I + 1)


@gtx.field_operator
def vertical_difference(a: IKField) -> IKField:
    return a(Koff[1]) - a


@pytest.mark.released_defect("released embedded rejects {'Koff': K} in the offset provider")
def test_vertical_field_offset_with_dimension_in_offset_provider(backend):
    a = random_field(backend, [I, K], (3, 5))
    out = gtx.zeros(gtx.domain({I: 3, K: 4}), allocator=backend)
    vertical_difference.with_backend(backend)(a, out=out, offset_provider={"Koff": K})
    an = a.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), an[:, 1:] - an[:, :-1])


@pytest.mark.released_defect("released embedded needs an offset-provider entry for Koff")
def test_vertical_field_offset_without_offset_provider_entry(backend):
    a = random_field(backend, [I, K], (3, 5))
    out = gtx.zeros(gtx.domain({I: 3, K: 4}), allocator=backend)
    vertical_difference.with_backend(backend)(a, out=out, offset_provider={})
    an = a.asnumpy()
    np.testing.assert_allclose(out.asnumpy(), an[:, 1:] - an[:, :-1])


@gtx.field_operator
def double(a: IJKField) -> IJKField:
    return 2.0 * a


@gtx.program
def double_program(a: IJKField, out: IJKField):
    double(a, out=out)


def test_with_backend_returns_a_new_operator(backend):
    rebound = double_program.with_backend(backend)
    assert rebound is not double_program
    assert rebound.backend is backend
    a = random_field(backend, [I, J, K], (2, 3, 4))
    out = gtx.zeros(a.domain, allocator=backend)
    rebound(a, out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), 2.0 * a.asnumpy())


def test_allocation_with_a_backend_as_allocator(backend):
    field = gtx.zeros(gtx.domain({I: 3, J: (1, 4)}), dtype=gtx.int32, allocator=backend)
    assert field.domain == gtx.domain({I: 3, J: (1, 4)})
    np.testing.assert_array_equal(field.asnumpy(), np.zeros((3, 3), dtype=np.int32))
    assert field.asnumpy().dtype == np.int32
    filled = gtx.full(gtx.domain({K: 4}), 2.5, allocator=backend)
    np.testing.assert_array_equal(filled.asnumpy(), np.full(4, 2.5))
    ones = gtx.ones(gtx.domain({K: 2}), dtype=gtx.float32, allocator=backend)
    np.testing.assert_array_equal(ones.asnumpy(), np.ones(2, dtype=np.float32))
    empty = gtx.empty(gtx.domain({I: 2, K: 2}), allocator=backend)
    assert empty.asnumpy().shape == (2, 2)


@pytest.mark.ours_only
def test_allocation_with_a_program_as_allocator(backend):
    """Released gt4py cannot allocate through a program without a compiled backend."""
    field = gtx.zeros(
        gtx.domain({I: 2, J: 2, K: 2}), allocator=double_program.with_backend(backend)
    )
    np.testing.assert_array_equal(field.asnumpy(), np.zeros((2, 2, 2)))
