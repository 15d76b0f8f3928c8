"""Embedded names a read-only output before anything runs, in the compiled backends' words."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx


I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IField = gtx.Field[gtx.Dims[I], gtx.float64]
KField = gtx.Field[gtx.Dims[K], gtx.float64]


@gtx.field_operator
def plus_one(a: IField) -> IField:
    return a + 1.0


@gtx.field_operator
def both(a: IField) -> tuple[IField, IField]:
    return a + 1.0, a * 2.0


@gtx.program
def first_then_second(a: IField, b: IField, out: tuple[IField, IField]):
    plus_one(a, out=b)  # runs before the bad output is reached: must not
    both(b, out=out)


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def running(state: float, x: float) -> float:
    return state + x


def _read_only(n: int, dim: gtx.Dimension = I) -> gtx.Field:
    field = gtx.as_field([dim], np.zeros(n))
    field.ndarray.setflags(write=False)
    return field


def test_a_program_names_the_read_only_output_before_any_call_runs():
    a, b = gtx.as_field([I], np.ones(4)), gtx.as_field([I], np.zeros(4))
    out = (gtx.as_field([I], np.zeros(4)), _read_only(4))
    with pytest.raises(
        TypeError, match=r"program 'first_then_second': argument 'out\[1\]' must be writable"
    ):
        first_then_second(a, b, out, offset_provider={})
    assert not b.asnumpy().any()  # the first call did not run


def test_read_only_inputs_are_fine():
    a, b = _read_only(4), gtx.as_field([I], np.zeros(4))
    out = (gtx.as_field([I], np.zeros(4)), gtx.as_field([I], np.zeros(4)))
    first_then_second(a, b, out, offset_provider={})
    np.testing.assert_array_equal(out[1].asnumpy(), np.full(4, 2.0))


def test_direct_operator_and_scan_calls_name_out():
    with pytest.raises(TypeError, match="field operator 'plus_one': argument 'out' must be"):
        plus_one(gtx.as_field([I], np.ones(4)), out=_read_only(4), offset_provider={})
    with pytest.raises(TypeError, match="scan operator 'running': argument 'out' must be"):
        running(gtx.as_field([K], np.ones(3)), out=_read_only(3, K), offset_provider={})
