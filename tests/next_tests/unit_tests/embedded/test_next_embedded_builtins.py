"""Math builtins, astype, broadcast, minimum/maximum, dtype constructors, on fields and scalars."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import DomainError, FieldDTypeError, NdArrayField
from gt4py.next.ffront import fbuiltins


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

UNIT_INTERVAL = np.linspace(-0.9, 0.9, 7)
POSITIVE = np.linspace(1.1, 9.0, 7)
MIXED = np.array([-2.5, -1.0, -0.5, 0.0, 0.5, 1.5, 7.25])

MATH_CASES = [
    ("sin", MIXED),
    ("cos", MIXED),
    ("tan", MIXED),
    ("arcsin", UNIT_INTERVAL),
    ("arccos", UNIT_INTERVAL),
    ("arctan", MIXED),
    ("sinh", MIXED),
    ("cosh", MIXED),
    ("tanh", MIXED),
    ("arcsinh", MIXED),
    ("arccosh", POSITIVE),
    ("arctanh", UNIT_INTERVAL),
    ("sqrt", POSITIVE),
    ("cbrt", MIXED),
    ("exp", MIXED),
    ("log", POSITIVE),
    ("floor", MIXED),
    ("ceil", MIXED),
    ("trunc", MIXED),
    ("abs", MIXED),
    ("isfinite", np.array([1.0, np.inf, -np.inf, np.nan])),
    ("isinf", np.array([1.0, np.inf, -np.inf, np.nan])),
    ("isnan", np.array([1.0, np.inf, -np.inf, np.nan])),
]


@pytest.mark.parametrize(("name", "values"), MATH_CASES, ids=[c[0] for c in MATH_CASES])
def test_math_builtins_on_fields_and_scalars(name, values):
    builtin = getattr(gtx, name)
    reference = getattr(np, name)
    f = gtx.as_field([I], values)
    result = builtin(f)
    assert isinstance(result, NdArrayField) and result.domain == f.domain
    np.testing.assert_allclose(result.asnumpy(), reference(values))
    np.testing.assert_allclose(builtin(float(values[1])), reference(values[1]))


def test_math_on_float32_keeps_float32():
    f = gtx.as_field([I], POSITIVE.astype(np.float32))
    assert gtx.sqrt(f).dtype == np.float32
    assert gtx.gamma(f).dtype == np.float32


def test_gamma_matches_math_gamma():
    values = np.array([0.1, 0.5, 1.0, 2.5, 5.0, 10.3, 30.7, 100.5, -0.5, -1.5, -3.7])
    result = gtx.gamma(gtx.as_field([I], values)).asnumpy()
    np.testing.assert_allclose(result, [math.gamma(v) for v in values], rtol=1e-12)
    assert gtx.gamma(4.0) == pytest.approx(6.0, rel=1e-14)


def test_gamma_special_values_follow_c_tgamma():
    values = np.array([0.0, -0.0, -1.0, -2.0, 200.0, np.inf, -np.inf, np.nan])
    result = gtx.gamma(gtx.as_field([I], values)).asnumpy()
    assert result[0] == np.inf and result[1] == -np.inf
    assert np.isnan(result[2]) and np.isnan(result[3])
    assert result[4] == np.inf and result[5] == np.inf
    assert np.isnan(result[6]) and np.isnan(result[7])


@pytest.mark.parametrize(
    ("name", "reference"),
    [
        ("minimum", np.minimum),
        ("maximum", np.maximum),
        ("fmod", np.fmod),
        ("power", np.power),
    ],
)
def test_binary_math_builtins(name, reference):
    a_np = np.array([-3.5, 2.0, 7.5, 1.25])
    b_np = np.array([2.0, -1.5, 2.0, 3.0])
    a = gtx.as_field([I], a_np)
    b = gtx.as_field([I], b_np)
    builtin = getattr(gtx, name)
    np.testing.assert_allclose(builtin(a, b).asnumpy(), reference(a_np, b_np))
    np.testing.assert_allclose(builtin(a, 2.0).asnumpy(), reference(a_np, 2.0))
    np.testing.assert_allclose(builtin(2.0, b).asnumpy(), reference(2.0, b_np))
    np.testing.assert_allclose(builtin(1.5, 2.0), reference(1.5, 2.0))


def test_integer_fmod_truncates_like_c():
    a = gtx.as_field([I], np.array([7, -7, 7, -7], dtype=np.int32))
    b = gtx.as_field([I], np.array([3, 3, -3, -3], dtype=np.int32))
    np.testing.assert_array_equal(gtx.fmod(a, b).asnumpy(), [1, -1, 1, -1])


def test_astype():
    f = gtx.as_field([I], np.array([1.7, -2.2, 3.5]))
    as_int = gtx.astype(f, gtx.int32)
    assert as_int.dtype == np.int32
    np.testing.assert_array_equal(as_int.asnumpy(), [1, -2, 3])
    both = gtx.astype((f, as_int), np.float32)
    assert [x.dtype for x in both] == [np.float32, np.float32]
    assert gtx.astype(2.7, gtx.int64) == 2 and isinstance(gtx.astype(2.7, gtx.int64), np.int64)
    with pytest.raises(TypeError, match="not supported"):
        gtx.astype(f, np.complex128)


def test_scalar_types_are_numpys():
    """Released gt4py's contract (issue 12): gtx.float64 is numpy.float64, gtx.bool is bool."""
    assert gtx.float64 is np.float64 and gtx.int32 is np.int32 and gtx.bool is bool
    value = gtx.float32(2.5)
    assert type(value) is np.float32 and value == 2.5
    assert isinstance(np.float32(1.0), gtx.float32) and not isinstance(1.0, gtx.float32)
    assert np.dtype(gtx.int16) == np.int16 and np.dtype(gtx.bool) == np.bool_
    assert fbuiltins.TYPE_BUILTINS["float64"] is gtx.float64


def test_scalar_types_can_be_subclassed_as_enums():
    import enum

    class Constants(gtx.float64, enum.Enum):
        ALPHA = 0.5

    assert Constants.ALPHA * 2 == 1.0 and isinstance(Constants.ALPHA, gtx.float64)


def test_broadcast():
    k_np = np.arange(3.0)
    k = gtx.as_field([K], k_np)
    b = gtx.broadcast(k, (I, K))
    assert b.domain.dims == (I, K) and not b.domain.is_finite()
    a = gtx.as_field([I, K], np.ones((2, 3)))
    np.testing.assert_array_equal((a + b).asnumpy(), 1 + np.tile(k_np, (2, 1)))
    scalar = gtx.broadcast(5.0, (I, J))
    assert scalar.domain.dims == (I, J) and scalar.dtype == np.float64
    np.testing.assert_array_equal(scalar[gtx.domain({I: 2, J: 2})].asnumpy(), np.full((2, 2), 5.0))
    pair = gtx.broadcast((k, 1.0), (I, K))
    assert all(isinstance(p, NdArrayField) for p in pair)
    with pytest.raises(DomainError, match="would drop K"):
        gtx.broadcast(k, (I,))
    with pytest.raises(ValueError, match="twice"):
        gtx.broadcast(k, (K, K))


def test_builtins_are_attributes_and_named():
    """DESIGN §9: `gtx.where` and the imported `where` are the same object."""
    from gt4py.next import where

    assert gtx.where is where is fbuiltins.where
    assert gtx.neighbor_sum.name == "neighbor_sum"
    assert set(fbuiltins.MATH_BUILTIN_NAMES) <= set(fbuiltins.BUILTINS)
    assert "gamma" in fbuiltins.UNARY_MATH_FP_BUILTIN_NAMES
    assert repr(gtx.sin) == "<builtin sin>"


def test_math_builtin_dtype_errors():
    flags = gtx.as_field([I], np.array([True, False]))
    with pytest.raises(FieldDTypeError, match="sqrt needs numeric operands, got bool"):
        gtx.sqrt(flags)
    with pytest.raises(FieldDTypeError, match="different dtypes"):
        gtx.minimum(gtx.as_field([I], np.ones(2, np.float32)), gtx.as_field([I], np.ones(2)))
