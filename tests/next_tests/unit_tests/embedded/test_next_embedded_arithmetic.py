"""Operators on embedded fields: broadcasting by dimension name, domains, dtype rules."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import DomainError, FieldDTypeError, NdArrayField


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

rng = np.random.default_rng(42)


def field(dims, shape, dtype=np.float64, start=None):
    data = (rng.random(shape) * 10 + 1).astype(dtype)
    origin = None if start is None else {d: -s for d, s in zip(dims, start, strict=True)}
    return gtx.as_field(dims, data, origin=origin), data


ARITHMETIC = [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow]
COMPARISONS = [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]


@pytest.mark.parametrize("op", ARITHMETIC + COMPARISONS)
def test_same_domain(op):
    a, a_np = field([I, J], (4, 5))
    b, b_np = field([I, J], (4, 5))
    result = op(a, b)
    assert result.domain == a.domain
    np.testing.assert_allclose(result.asnumpy(), op(a_np, b_np))


@pytest.mark.parametrize("op", ARITHMETIC + COMPARISONS)
def test_literals_both_sides(op):
    a, a_np = field([I], (6,))
    np.testing.assert_allclose(op(a, 2.5).asnumpy(), op(a_np, 2.5))
    np.testing.assert_allclose(op(3, a).asnumpy(), op(3, a_np))


def test_unary_operators():
    a, a_np = field([I], (6,))
    np.testing.assert_array_equal((-a).asnumpy(), -a_np)
    np.testing.assert_array_equal((+a).asnumpy(), a_np)
    np.testing.assert_array_equal(abs(-a).asnumpy(), a_np)


def test_overlapping_domains_intersect():
    a, a_np = field([I, J], (6, 4))
    b, b_np = field([I, J], (6, 4), start=(2, 1))
    result = a + b
    assert result.domain == gtx.domain({I: (2, 6), J: (1, 4)})
    np.testing.assert_allclose(result.asnumpy(), a_np[2:, 1:] + b_np[:4, :3])


def test_broadcast_by_dimension_name():
    a, a_np = field([I, J, K], (3, 4, 5))
    k, k_np = field([K], (5,))
    j, j_np = field([J], (4,))
    np.testing.assert_allclose((a * k).asnumpy(), a_np * k_np[None, None, :])
    np.testing.assert_allclose((k * a).asnumpy(), a_np * k_np[None, None, :])
    outer = j + k
    assert outer.domain.dims == (J, K)
    np.testing.assert_allclose(outer.asnumpy(), j_np[:, None] + k_np[None, :])


def test_transposed_operands_align_by_name():
    a, a_np = field([I, K], (3, 5))
    b, b_np = field([K, I], (5, 3))
    result = a - b
    assert result.domain.dims == (I, K)
    np.testing.assert_allclose(result.asnumpy(), a_np - b_np.T)


def test_disjoint_domains_give_empty_result():
    a, _ = field([I], (3,))
    b, _ = field([I], (3,), start=(10,))
    result = a + b
    assert result.domain.is_empty()
    assert result.asnumpy().shape == (0,)


def test_integer_literals_keep_the_field_dtype():
    """DESIGN §9: `int64_field + 7` is fine, and `int32_field + 7` stays int32 (numpy 2 rules)."""
    i64 = gtx.as_field([I], np.arange(5, dtype=np.int64))
    i32 = gtx.as_field([I], np.arange(5, dtype=np.int32))
    i8 = gtx.as_field([I], np.arange(5, dtype=np.int8))
    f32 = gtx.as_field([I], np.arange(5, dtype=np.float32))
    assert (i64 + 7).dtype == np.int64
    assert (7 + i32).dtype == np.int32
    assert (i8 * 3).dtype == np.int8
    assert (f32 + 1).dtype == np.float32
    assert (f32 * 0.5).dtype == np.float32
    assert (i32 + True).dtype == np.int32
    np.testing.assert_array_equal((i32 + 7).asnumpy(), np.arange(5) + 7)


def test_literal_out_of_range_and_kind_mismatch():
    i8 = gtx.as_field([I], np.arange(5, dtype=np.int8))
    with pytest.raises(OverflowError, match="does not fit in int8"):
        i8 + 300
    with pytest.raises(FieldDTypeError, match=r"float literal 0\.5 with a int32"):
        gtx.as_field([I], np.arange(5, dtype=np.int32)) * 0.5


def test_integer_floor_division_and_modulo():
    """DESIGN §9: `//` on integers."""
    a_np = np.array([7, -7, 9, 0, -1], dtype=np.int32)
    b_np = np.array([2, 2, -4, 3, 5], dtype=np.int32)
    a = gtx.as_field([I], a_np)
    b = gtx.as_field([I], b_np)
    assert (a // b).dtype == np.int32
    np.testing.assert_array_equal((a // b).asnumpy(), a_np // b_np)
    np.testing.assert_array_equal((a // 2).asnumpy(), a_np // 2)
    np.testing.assert_array_equal((a % b).asnumpy(), a_np % b_np)
    np.testing.assert_array_equal((20 // b).asnumpy(), 20 // b_np)


def test_logical_operators_on_bool_fields():
    p_np = np.array([True, False, True, False])
    q_np = np.array([True, True, False, False])
    p = gtx.as_field([I], p_np)
    q = gtx.as_field([I], q_np)
    np.testing.assert_array_equal((p & q).asnumpy(), p_np & q_np)
    np.testing.assert_array_equal((p | q).asnumpy(), p_np | q_np)
    np.testing.assert_array_equal((p ^ q).asnumpy(), p_np ^ q_np)
    np.testing.assert_array_equal((~p).asnumpy(), ~p_np)
    np.testing.assert_array_equal((p & True).asnumpy(), p_np)


def test_mismatched_dtypes_are_refused():
    f32 = gtx.as_field([I], np.ones(3, dtype=np.float32))
    f64 = gtx.as_field([I], np.ones(3))
    with pytest.raises(FieldDTypeError, match=r"different dtypes \(float32 and float64\)"):
        f32 + f64
    with pytest.raises(FieldDTypeError, match="astype"):
        _ = f64 < gtx.float32(1.0)


def test_operators_check_operand_kinds():
    ints = gtx.as_field([I], np.arange(3))
    flags = gtx.as_field([I], np.array([True, False, True]))
    with pytest.raises(FieldDTypeError, match="'&' needs bool operands, got int64"):
        ints & ints
    with pytest.raises(FieldDTypeError, match="'\\+' needs numeric operands, got bool"):
        flags + flags


def test_raw_arrays_are_refused():
    a, _ = field([I], (3,))
    with pytest.raises(TypeError, match=r"wrap it with gtx\.as_field"):
        a + np.ones(3)
    with pytest.raises(TypeError, match=r"wrap it with gtx\.as_field"):
        np.ones(3) + a


def test_truth_value_is_ambiguous():
    a, _ = field([I], (3,))
    with pytest.raises(TypeError, match="use where"):
        bool(a > 1)
    with pytest.raises(TypeError, match="not iterable"):
        list(a)


def test_numpy_ufuncs_and_numpy_scalars_give_fields():
    a, a_np = field([I, J], (2, 3))
    result = np.sin(a)
    assert isinstance(result, NdArrayField)
    np.testing.assert_allclose(result.asnumpy(), np.sin(a_np))
    scaled = np.float64(2.0) * a
    assert isinstance(scaled, NdArrayField)
    np.testing.assert_allclose(scaled.asnumpy(), 2 * a_np)
    assert isinstance(gtx.float64(3.0) - a, NdArrayField)
    np.testing.assert_allclose(np.asarray(a), a_np)


def test_zero_dimensional_fields():
    s = gtx.as_field([], np.array(2.5))
    a, a_np = field([I], (3,))
    assert (s + s).as_scalar() == 5.0
    np.testing.assert_allclose((a * s).asnumpy(), a_np * 2.5)
    with pytest.raises(ValueError, match="0-dimensional"):
        a.as_scalar()


def test_shape_mismatch_in_constructor():
    with pytest.raises(DomainError, match=r"shape \(3,\) does not fit"):
        NdArrayField(gtx.domain({I: 4}), np.zeros(3))
