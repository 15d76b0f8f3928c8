"""Builtins inside field operators: math functions, where, astype, broadcast, operators."""

from __future__ import annotations

import math

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import (
    abs,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctanh,
    astype,
    broadcast,
    cbrt,
    ceil,
    cos,
    cosh,
    exp,
    floor,
    fmod,
    gamma,
    isfinite,
    isinf,
    isnan,
    log,
    maximum,
    minimum,
    power,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
    where,
)


I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IField = gtx.Field[gtx.Dims[I], gtx.float64]
IBoolField = gtx.Field[gtx.Dims[I], gtx.bool]
IInt32Field = gtx.Field[gtx.Dims[I], gtx.int32]
IInt64Field = gtx.Field[gtx.Dims[I], gtx.int64]
IFloat32Field = gtx.Field[gtx.Dims[I], gtx.float32]
IKField = gtx.Field[gtx.Dims[I, K], gtx.float64]
KIntField = gtx.Field[gtx.Dims[K], gtx.int32]


def run_unary(backend, operator, data, out_dtype=gtx.float64):
    a = gtx.as_field([I], data, allocator=backend)
    out = gtx.zeros(a.domain, dtype=out_dtype, allocator=backend)
    operator.with_backend(backend)(a, out=out, offset_provider={})
    return out.asnumpy()


def run_binary(backend, operator, left, right, out_dtype=gtx.float64):
    a = gtx.as_field([I], left, allocator=backend)
    b = gtx.as_field([I], right, allocator=backend)
    out = gtx.zeros(a.domain, dtype=out_dtype, allocator=backend)
    operator.with_backend(backend)(a, b, out=out, offset_provider={})
    return out.asnumpy()


# One operator per math builtin: the frontend resolves builtins by name at definition.
@gtx.field_operator
def op_sin(a: IField) -> IField:
    return sin(a)


@gtx.field_operator
def op_cos(a: IField) -> IField:
    return cos(a)


@gtx.field_operator
def op_tan(a: IField) -> IField:
    return tan(a)


@gtx.field_operator
def op_arcsin(a: IField) -> IField:
    return arcsin(a)


@gtx.field_operator
def op_arccos(a: IField) -> IField:
    return arccos(a)


@gtx.field_operator
def op_arctan(a: IField) -> IField:
    return arctan(a)


@gtx.field_operator
def op_sinh(a: IField) -> IField:
    return sinh(a)


@gtx.field_operator
def op_cosh(a: IField) -> IField:
    return cosh(a)


@gtx.field_operator
def op_tanh(a: IField) -> IField:
    return tanh(a)


@gtx.field_operator
def op_arcsinh(a: IField) -> IField:
    return arcsinh(a)


@gtx.field_operator
def op_arccosh(a: IField) -> IField:
    return arccosh(a + 1.5)


@gtx.field_operator
def op_arctanh(a: IField) -> IField:
    return arctanh(a)


@gtx.field_operator
def op_sqrt(a: IField) -> IField:
    return sqrt(a)


@gtx.field_operator
def op_cbrt(a: IField) -> IField:
    return cbrt(a - 0.5)


@gtx.field_operator
def op_exp(a: IField) -> IField:
    return exp(a)


@gtx.field_operator
def op_log(a: IField) -> IField:
    return log(a)


@gtx.field_operator
def op_gamma(a: IField) -> IField:
    return gamma(a * 4.0 + 0.25)


@gtx.field_operator
def op_floor(a: IField) -> IField:
    return floor(a * 10.0 - 5.0)


@gtx.field_operator
def op_ceil(a: IField) -> IField:
    return ceil(a * 10.0 - 5.0)


@gtx.field_operator
def op_trunc(a: IField) -> IField:
    return trunc(a * 10.0 - 5.0)


@gtx.field_operator
def op_abs(a: IField) -> IField:
    return abs(a - 0.5)


@gtx.field_operator
def op_negative(a: IField) -> IField:
    return -a


UNARY_CASES = [
    (op_sin, np.sin),
    (op_cos, np.cos),
    (op_tan, np.tan),
    (op_arcsin, np.arcsin),
    (op_arccos, np.arccos),
    (op_arctan, np.arctan),
    (op_sinh, np.sinh),
    (op_cosh, np.cosh),
    (op_tanh, np.tanh),
    (op_arcsinh, np.arcsinh),
    (op_arccosh, lambda x: np.arccosh(x + 1.5)),
    (op_arctanh, np.arctanh),
    (op_sqrt, np.sqrt),
    (op_cbrt, lambda x: np.cbrt(x - 0.5)),
    (op_exp, np.exp),
    (op_log, np.log),
    (op_gamma, np.vectorize(lambda x: math.gamma(x * 4.0 + 0.25))),
    (op_floor, lambda x: np.floor(x * 10.0 - 5.0)),
    (op_ceil, lambda x: np.ceil(x * 10.0 - 5.0)),
    (op_trunc, lambda x: np.trunc(x * 10.0 - 5.0)),
    (op_abs, lambda x: np.abs(x - 0.5)),
    (op_negative, np.negative),
]


@pytest.mark.parametrize(
    ("operator", "reference"), UNARY_CASES, ids=[op.__name__ for op, _ in UNARY_CASES]
)
def test_unary_math_builtin(backend, operator, reference):
    data = np.linspace(0.05, 0.95, 11)  # inside every function's domain
    np.testing.assert_allclose(run_unary(backend, operator, data), reference(data), rtol=1e-12)


@gtx.field_operator
def op_minimum(a: IField, b: IField) -> IField:
    return minimum(a, b)


@gtx.field_operator
def op_maximum(a: IField, b: IField) -> IField:
    return maximum(a, b)


@gtx.field_operator
def op_fmod(a: IField, b: IField) -> IField:
    return fmod(a, b)


@gtx.field_operator
def op_power(a: IField, b: IField) -> IField:
    return power(a, b)


@gtx.field_operator
def op_arithmetic(a: IField, b: IField) -> IField:
    return (a * b - a / b + 2.0) ** 2.0


BINARY_CASES = [
    (op_minimum, np.minimum),
    (op_maximum, np.maximum),
    (op_fmod, np.fmod),
    (op_power, np.power),
    (op_arithmetic, lambda a, b: (a * b - a / b + 2.0) ** 2.0),
]


@pytest.mark.parametrize(
    ("operator", "reference"), BINARY_CASES, ids=[op.__name__ for op, _ in BINARY_CASES]
)
def test_binary_builtin(backend, operator, reference):
    left = np.array([-3.5, -1.0, 0.5, 2.0, 7.25])
    right = np.array([2.0, 0.75, 1.5, 3.0, -2.5])
    if operator is op_power:
        left = np.abs(left)
    np.testing.assert_allclose(
        run_binary(backend, operator, left, right), reference(left, right), rtol=1e-12
    )


@gtx.field_operator
def op_isfinite(a: IField) -> IBoolField:
    return isfinite(a)


@gtx.field_operator
def op_isinf(a: IField) -> IBoolField:
    return isinf(a)


@gtx.field_operator
def op_isnan(a: IField) -> IBoolField:
    return isnan(a)


@pytest.mark.parametrize(
    ("operator", "reference"),
    [(op_isfinite, np.isfinite), (op_isinf, np.isinf), (op_isnan, np.isnan)],
    ids=["isfinite", "isinf", "isnan"],
)
def test_classification_builtins(backend, operator, reference):
    data = np.array([1.0, np.inf, -np.inf, np.nan, 0.0])
    result = run_unary(backend, operator, data, out_dtype=gtx.bool)
    np.testing.assert_array_equal(result, reference(data))


@gtx.field_operator
def op_where_scalar(a: IField) -> IField:
    return where(a > 0.5, a, -1.0)


@gtx.field_operator
def op_where_tuple(a: IField, b: IField) -> tuple[IField, IField]:
    return where(a < b, (a, b), (b, a))


@gtx.field_operator
def op_logic(a: IField, b: IField) -> IBoolField:
    return ((a > 0.0) & (b > 0.0)) | ~(a < b) ^ (a == b)


def test_where_with_scalar_branch(backend):
    data = np.linspace(0.0, 1.0, 9)
    np.testing.assert_array_equal(
        run_unary(backend, op_where_scalar, data), np.where(data > 0.5, data, -1.0)
    )


@pytest.mark.released_defect("released embedded: the result shrinks to the shifted field's domain")
def test_where_guarding_an_out_of_field_read(backend):
    """``where(k > 0, a(K - 1), 0.0)`` is defined on every level, as on compiled backends."""

    @gtx.field_operator
    def level_below_or_zero(a: IKField, k: KIntField) -> IKField:
        return where(k > 0, a(K - 1), 0.0)

    data = np.arange(10.0).reshape(2, 5)
    a = gtx.as_field([I, K], data, allocator=backend)
    k = gtx.as_field([K], np.arange(5, dtype=np.int32), allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    level_below_or_zero.with_backend(backend)(a, k, out=out, offset_provider={})
    expected = np.concatenate([np.zeros((2, 1)), data[:, :-1]], axis=1)
    np.testing.assert_array_equal(out.asnumpy(), expected)


def test_where_with_tuples(backend):
    left = rng_values(6)
    right = rng_values(6)
    a = gtx.as_field([I], left, allocator=backend)
    b = gtx.as_field([I], right, allocator=backend)
    low = gtx.zeros(a.domain, allocator=backend)
    high = gtx.zeros(a.domain, allocator=backend)
    op_where_tuple.with_backend(backend)(a, b, out=(low, high), offset_provider={})
    np.testing.assert_array_equal(low.asnumpy(), np.minimum(left, right))
    np.testing.assert_array_equal(high.asnumpy(), np.maximum(left, right))


def test_comparison_and_logical_operators(backend):
    left = np.array([-1.0, 1.0, 2.0, 3.0, -4.0])
    right = np.array([1.0, 1.0, -2.0, 5.0, -5.0])
    expected = ((left > 0.0) & (right > 0.0)) | ~(left < right) ^ (left == right)
    result = run_binary(backend, op_logic, left, right, out_dtype=gtx.bool)
    np.testing.assert_array_equal(result, expected)


def rng_values(n):
    return np.random.default_rng(n).random(n)


@gtx.field_operator
def op_astype(a: IField) -> IInt32Field:
    return astype(a * 10.0, gtx.int32)


@gtx.field_operator
def op_astype_float32(a: IField) -> IFloat32Field:
    return astype(a, gtx.float32)


def test_astype(backend):
    data = np.array([0.15, 0.99, -0.57, 0.0])
    result = run_unary(backend, op_astype, data, out_dtype=gtx.int32)
    np.testing.assert_array_equal(result, (data * 10.0).astype(np.int32))
    assert result.dtype == np.int32
    result32 = run_unary(backend, op_astype_float32, data, out_dtype=gtx.float32)
    np.testing.assert_array_equal(result32, data.astype(np.float32))


@gtx.field_operator
def op_broadcast(a: IField) -> IKField:
    return broadcast(a, (I, K)) + broadcast(1.0, (I, K))


def test_broadcast(backend):
    data = np.arange(4.0)
    a = gtx.as_field([I], data, allocator=backend)
    out = gtx.zeros(gtx.domain({I: 4, K: 3}), allocator=backend)
    op_broadcast.with_backend(backend)(a, out=out, offset_provider={})
    np.testing.assert_array_equal(out.asnumpy(), np.repeat(data[:, None] + 1.0, 3, axis=1))


@gtx.field_operator
def op_integer_arithmetic(a: IInt32Field, b: IInt32Field) -> IInt32Field:
    return a // b + a % b * 100


def test_integer_floor_division_and_modulo(backend):
    """DESIGN §9: integer ``//`` fails to compile in released gtfn; embedded is the reference."""
    left = np.array([7, -7, 7, -7, 0], dtype=np.int32)
    right = np.array([2, 2, -2, -2, 3], dtype=np.int32)
    result = run_binary(backend, op_integer_arithmetic, left, right, out_dtype=gtx.int32)
    np.testing.assert_array_equal(result, left // right + left % right * 100)


@pytest.mark.released_defect("released frontend: 'Functions can only be called directly'")
def test_where_used_as_attribute(backend):
    @gtx.field_operator
    def clip_negative(a: IField) -> IField:
        return gtx.where(a > 0.0, a, 0.0)

    data = np.array([-1.0, 2.0, -3.0, 4.0])
    np.testing.assert_array_equal(run_unary(backend, clip_negative, data), np.maximum(data, 0.0))


@pytest.mark.released_defect("released frontend: 'Functions can only be called directly'")
def test_dtype_constructor_used_as_attribute(backend):
    @gtx.field_operator
    def double(a: IFloat32Field) -> IFloat32Field:
        return a * gtx.float32(2.0) + gtx.astype(a, gtx.float32)

    data = np.array([0.5, -1.25], dtype=np.float32)
    result = run_unary(backend, double, data, out_dtype=gtx.float32)
    np.testing.assert_array_equal(result, data * np.float32(3.0))
    assert result.dtype == np.float32


@pytest.mark.released_defect("released frontend: cannot promote 'int64' field and int literal")
def test_integer_literal_adapts_to_int64_field(backend):
    @gtx.field_operator
    def add_seven(a: IInt64Field) -> IInt64Field:
        return a + 7

    data = np.array([1, -2, 2**40], dtype=np.int64)
    result = run_unary(backend, add_seven, data, out_dtype=gtx.int64)
    np.testing.assert_array_equal(result, data + 7)
    assert result.dtype == np.int64


@pytest.mark.released_defect("released frontend: cannot promote 'float32' field and float literal")
def test_float_literal_adapts_to_float32_field(backend):
    """Python literals adapt to the field's dtype like numpy (NEP 50), as ``int64 + 7`` does."""

    @gtx.field_operator
    def scale_and_shift(a: IFloat32Field) -> IFloat32Field:
        return a * 2.0 + 1.0

    data = np.array([0.1, 0.2, 0.3], dtype=np.float32)
    result = run_unary(backend, scale_and_shift, data, out_dtype=gtx.float32)
    assert result.dtype == np.float32
    np.testing.assert_allclose(result, data * np.float32(2.0) + np.float32(1.0), rtol=1e-6)
