"""Scan operators: forward and backward sweeps, scalar and tuple carries, inside programs."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import where


I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IKField = gtx.Field[gtx.Dims[I, K], gtx.float64]
IKIntField = gtx.Field[gtx.Dims[I, K], gtx.int32]
KIntField = gtx.Field[gtx.Dims[K], gtx.int32]

rng = np.random.default_rng(3)


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def running_sum(carry: float, a: float) -> float:
    return carry + a


@gtx.scan_operator(axis=K, forward=False, init=1.0)
def product_from_top(carry: float, a: float) -> float:
    return carry * a


def test_forward_scan(backend):
    data = rng.random((3, 6))
    a = gtx.as_field([I, K], data, allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    running_sum.with_backend(backend)(a, out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), np.cumsum(data, axis=1))


def test_backward_scan(backend):
    data = 0.5 + rng.random((2, 5))
    a = gtx.as_field([I, K], data, allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    product_from_top.with_backend(backend)(a, out=out, offset_provider={})
    expected = np.cumprod(data[:, ::-1], axis=1)[:, ::-1]
    np.testing.assert_allclose(out.asnumpy(), expected)


@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0.0))
def sum_and_decaying_sum(carry: tuple[float, float], a: float, decay: float) -> tuple[float, float]:
    total, decaying = carry
    return total + a, decaying * decay + a


def test_scan_with_tuple_carry_and_tuple_output(backend):
    data = rng.random((2, 5))
    a = gtx.as_field([I, K], data, allocator=backend)
    total = gtx.zeros(a.domain, allocator=backend)
    decaying = gtx.zeros(a.domain, allocator=backend)
    sum_and_decaying_sum.with_backend(backend)(a, 0.5, out=(total, decaying), offset_provider={})
    expected_decaying = np.zeros_like(data)
    previous = np.zeros(2)
    for k in range(5):
        previous = previous * 0.5 + data[:, k]
        expected_decaying[:, k] = previous
    np.testing.assert_allclose(total.asnumpy(), np.cumsum(data, axis=1))
    np.testing.assert_allclose(decaying.asnumpy(), expected_decaying)


@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0))
def sum_and_count_positive(carry: tuple[float, gtx.int32], a: float) -> tuple[float, gtx.int32]:
    total, count = carry
    return total + a, count + (1 if a > 0.0 else 0)


def test_scan_with_mixed_dtype_tuple_carry(backend):
    data = rng.random((2, 6)) - 0.5
    a = gtx.as_field([I, K], data, allocator=backend)
    total = gtx.zeros(a.domain, allocator=backend)
    count = gtx.zeros(a.domain, dtype=gtx.int32, allocator=backend)
    sum_and_count_positive.with_backend(backend)(a, out=(total, count), offset_provider={})
    np.testing.assert_allclose(total.asnumpy(), np.cumsum(data, axis=1))
    np.testing.assert_array_equal(count.asnumpy(), np.cumsum(data > 0, axis=1))


@gtx.field_operator
def scaled_running_sum(a: IKField, factor: float) -> IKField:
    return running_sum(a * factor) + 1.0


@gtx.program
def scaled_running_sum_program(a: IKField, factor: float, out: IKField, k_start: gtx.int32):
    scaled_running_sum(a, factor, out=out, domain={I: (0, 2), K: (k_start, 5)})


def test_scan_called_from_field_operator_in_program_with_domain(backend):
    data = rng.random((2, 5))
    a = gtx.as_field([I, K], data, allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    scaled_running_sum_program.with_backend(backend)(a, 2.0, out, 2, offset_provider={})
    expected = np.zeros_like(data)
    expected[:, 2:] = np.cumsum(2.0 * data[:, 2:], axis=1) + 1.0
    np.testing.assert_allclose(out.asnumpy(), expected)


@gtx.field_operator
def running_sum_of_level_below(a: IKField, k: KIntField) -> IKField:
    # At k == 0 the shifted read a(K - 1) falls outside the field; ``where`` discards it.
    return running_sum(where(k > 0, a(K - 1), 0.0))


@pytest.mark.released_defect("released embedded shrinks the domain of a where-guarded read")
def test_scan_over_where_guarded_out_of_field_read(backend):
    data = rng.random((2, 5))
    a = gtx.as_field([I, K], data, allocator=backend)
    k = gtx.as_field([K], np.arange(5, dtype=np.int32), allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    running_sum_of_level_below.with_backend(backend)(a, k, out=out, offset_provider={})
    shifted = np.concatenate([np.zeros((2, 1)), data[:, :-1]], axis=1)
    np.testing.assert_allclose(out.asnumpy(), np.cumsum(shifted, axis=1))


@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0.0))
def thomas_forward(
    carry: tuple[float, float], a: float, b: float, c: float, d: float
) -> tuple[float, float]:
    c_prev, d_prev = carry
    denominator = b - a * c_prev
    return c / denominator, (d - a * d_prev) / denominator


@gtx.scan_operator(axis=K, forward=False, init=0.0)
def thomas_backward(x_above: float, c_star: float, d_star: float) -> float:
    return d_star - c_star * x_above


@gtx.field_operator
def tridiagonal_solve(a: IKField, b: IKField, c: IKField, d: IKField) -> IKField:
    c_star, d_star = thomas_forward(a, b, c, d)
    return thomas_backward(c_star, d_star)


def test_tridiagonal_solve_with_two_scans(backend):
    n_columns, n_levels = 3, 7
    a = -rng.random((n_columns, n_levels))
    c = -rng.random((n_columns, n_levels))
    a[:, 0] = 0.0
    c[:, -1] = 0.0
    b = 2.5 + rng.random((n_columns, n_levels))  # diagonally dominant: Thomas is stable
    d = rng.random((n_columns, n_levels))
    fields = [gtx.as_field([I, K], x, allocator=backend) for x in (a, b, c, d)]
    out = gtx.zeros(fields[0].domain, allocator=backend)
    tridiagonal_solve.with_backend(backend)(*fields, out=out, offset_provider={})
    for column in range(n_columns):
        matrix = np.diag(b[column]) + np.diag(a[column, 1:], -1) + np.diag(c[column, :-1], 1)
        np.testing.assert_allclose(out.asnumpy()[column], np.linalg.solve(matrix, d[column]))


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def chain_of_locals(carry: float, a: float) -> float:
    # 30 locals, each used twice: copied into each use, the value is a tree of 2**30 nodes
    x0 = carry * 0.5 + a
    x1 = x0 * 0.75 + 1.0 / (1.0 + x0)
    x2 = x1 * 0.75 + 1.0 / (1.0 + x1)
    x3 = x2 * 0.75 + 1.0 / (1.0 + x2)
    x4 = x3 * 0.75 + 1.0 / (1.0 + x3)
    x5 = x4 * 0.75 + 1.0 / (1.0 + x4)
    x6 = x5 * 0.75 + 1.0 / (1.0 + x5)
    x7 = x6 * 0.75 + 1.0 / (1.0 + x6)
    x8 = x7 * 0.75 + 1.0 / (1.0 + x7)
    x9 = x8 * 0.75 + 1.0 / (1.0 + x8)
    x10 = x9 * 0.75 + 1.0 / (1.0 + x9)
    x11 = x10 * 0.75 + 1.0 / (1.0 + x10)
    x12 = x11 * 0.75 + 1.0 / (1.0 + x11)
    x13 = x12 * 0.75 + 1.0 / (1.0 + x12)
    x14 = x13 * 0.75 + 1.0 / (1.0 + x13)
    x15 = x14 * 0.75 + 1.0 / (1.0 + x14)
    x16 = x15 * 0.75 + 1.0 / (1.0 + x15)
    x17 = x16 * 0.75 + 1.0 / (1.0 + x16)
    x18 = x17 * 0.75 + 1.0 / (1.0 + x17)
    x19 = x18 * 0.75 + 1.0 / (1.0 + x18)
    x20 = x19 * 0.75 + 1.0 / (1.0 + x19)
    x21 = x20 * 0.75 + 1.0 / (1.0 + x20)
    x22 = x21 * 0.75 + 1.0 / (1.0 + x21)
    x23 = x22 * 0.75 + 1.0 / (1.0 + x22)
    x24 = x23 * 0.75 + 1.0 / (1.0 + x23)
    x25 = x24 * 0.75 + 1.0 / (1.0 + x24)
    x26 = x25 * 0.75 + 1.0 / (1.0 + x25)
    x27 = x26 * 0.75 + 1.0 / (1.0 + x26)
    x28 = x27 * 0.75 + 1.0 / (1.0 + x27)
    x29 = x28 * 0.75 + 1.0 / (1.0 + x28)
    x30 = x29 * 0.75 + 1.0 / (1.0 + x29)
    return x30


def _chain_of_locals_reference(data: np.ndarray) -> np.ndarray:
    out = np.zeros_like(data)
    carry = np.zeros(data.shape[0])
    for k in range(data.shape[1]):
        x = carry * 0.5 + data[:, k]
        for _ in range(30):
            x = x * 0.75 + 1.0 / (1.0 + x)
        out[:, k] = carry = x
    return out


def test_scan_with_a_chain_of_locals_each_used_twice(backend):
    data = rng.random((3, 5))
    a = gtx.as_field([I, K], data, allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    chain_of_locals.with_backend(backend)(a, out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), _chain_of_locals_reference(data), rtol=1e-10)
