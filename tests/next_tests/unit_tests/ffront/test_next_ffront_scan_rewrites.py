"""Scans: Python conditionals in scan bodies, and the requested output range of embedded scans."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int32
from gt4py.next.ffront import _scan_conditionals
from gt4py.next.ffront._source import SourceDefinition


I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IKField = Field[Dims[I, K], float64]
rng = np.random.default_rng(7)
THRESHOLD = 0.25


def reference_scan(function, init, *columns):
    """Run a scan body point by point with Python scalars (the semantics being matched)."""
    shape = columns[0].shape
    outputs = []
    for i in range(shape[0]):
        carry = init
        row = []
        for k in range(shape[1]):
            carry = function(carry, *(float(c[i, k]) for c in columns))
            row.append(carry)
        outputs.append(row)
    return np.array(outputs)


def clipped_sum_body(carry: float, a: float) -> float:
    total = carry + a
    if total > THRESHOLD:
        total = THRESHOLD
    elif total < -THRESHOLD:
        total = -THRESHOLD
    return total


def early_return_body(carry: float, a: float) -> float:
    if a < 0.0:
        return carry * 0.5
    doubled = 2.0 * a
    return carry + doubled


def ternary_body(carry: float, a: float) -> float:
    step = a if a > 0.0 else -a
    return carry + (step if carry < 1.0 else 0.0)


@pytest.mark.parametrize("body", [clipped_sum_body, early_return_body, ternary_body])
def test_scan_bodies_with_conditionals_run_on_whole_levels(body):
    scan = gtx.scan_operator(axis=K, forward=True, init=0.0)(body)
    assert scan.__gt_signature__.level_function is not body  # rewritten, vectorized
    data = rng.random((3, 6)) - 0.5
    a = gtx.as_field([I, K], data)
    out = gtx.zeros(a.domain)
    scan(a, out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), reference_scan(body, 0.0, data))


def counted_body(carry: tuple[float, int32], a: float) -> tuple[float, int32]:
    total, count = carry
    increment = 1 if a > 0.0 else 0
    return total + a, count + increment


def test_weak_literal_ternaries_keep_the_carry_dtype():
    scan = gtx.scan_operator(axis=K, forward=True, init=(0.0, 0))(counted_body)
    data = rng.random((2, 5)) - 0.5
    a = gtx.as_field([I, K], data)
    total = gtx.zeros(a.domain)
    count = gtx.zeros(a.domain, dtype=gtx.int32)
    scan(a, out=(total, count), offset_provider={})
    assert count.dtype == np.dtype(np.int32)
    np.testing.assert_array_equal(count.asnumpy(), np.cumsum(data > 0, axis=1))


def chained_returns_body(carry: float, a: float) -> float:
    if a > 0.0:
        return carry + a
    if a <= -0.25:
        return carry - a
    return carry


def test_code_after_a_returning_if_becomes_its_else_branch():
    scan = gtx.scan_operator(axis=K, forward=False, init=0.0)(chained_returns_body)
    data = rng.random((2, 4)) - 0.5
    a = gtx.as_field([I, K], data)
    out = gtx.zeros(a.domain)
    scan(a, out=out, offset_provider={})
    expected = reference_scan(chained_returns_body, 0.0, data[:, ::-1])[:, ::-1]
    np.testing.assert_allclose(out.asnumpy(), expected)


def test_a_body_that_may_fall_off_its_end_is_not_linearized():
    def falls_through(carry: float, a: float) -> float:
        if a > 0.0:
            return carry + a

    source = SourceDefinition.from_function(falls_through)
    assert _scan_conditionals.level_function(source, {}) is None


def test_point_by_point_scans_run_python_conditionals_on_scalars():
    from gt4py.next.ffront import _embedded_run

    data = rng.random((2, 4)) - 0.5
    a = gtx.as_field([I, K], data)
    out = gtx.zeros(a.domain)
    _embedded_run.run_scan(
        clipped_sum_body, K, True, 0.0, [a], out, None, {}, np.dtype(np.float64), pointwise=True
    )
    np.testing.assert_allclose(out.asnumpy(), reference_scan(clipped_sum_body, 0.0, data))


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def running_sum(carry: float, a: float) -> float:
    return carry + a


@gtx.field_operator
def sum_unshifted(a: IKField) -> IKField:
    return running_sum(a)


@gtx.field_operator
def sum_shifted(a: IKField) -> IKField:
    summed = running_sum(a)
    return summed(K - 1)


@gtx.field_operator
def sum_shifted_helper(a: IKField) -> IKField:
    return a(K - 1)


def test_scans_in_operators_start_at_the_requested_level():
    data = rng.random((2, 6))
    a = gtx.as_field([I, K], data)
    out = gtx.zeros(a.domain)
    sum_unshifted(a, out=out, domain={I: (0, 2), K: (2, 6)}, offset_provider={})
    expected = np.zeros_like(data)
    expected[:, 2:] = np.cumsum(data[:, 2:], axis=1)
    np.testing.assert_allclose(out.asnumpy(), expected)


def test_shifted_scan_results_keep_the_arguments_range():
    assert not sum_shifted.__gt_signature__.forwards_requested_domain
    assert sum_unshifted.__gt_signature__.forwards_requested_domain
    assert not sum_shifted_helper.__gt_signature__.forwards_requested_domain  # calls nothing
    data = rng.random((2, 6))
    a = gtx.as_field([I, K], data)
    out = gtx.zeros(a.domain)
    sum_shifted(a, out=out, domain={I: (0, 2), K: (2, 6)}, offset_provider={})
    expected = np.zeros_like(data)
    expected[:, 2:] = np.cumsum(data, axis=1)[:, 1:5]
    np.testing.assert_allclose(out.asnumpy(), expected)
