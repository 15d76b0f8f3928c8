"""`with_call_options(...)`: the keywords a call adds, given once (ADR 0045): the same run as the
call with the keywords, on the embedded backend."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))


@gtx.field_operator
def shifted_sum(a: IField, factor: float) -> IField:
    return a(Ioff[1]) * factor + a


@gtx.program
def run(a: IField, factor: float, out: IField) -> None:
    shifted_sum(a, factor, out=out, domain={I: (0, 4)})


def _fields() -> tuple[IField, IField]:
    return gtx.as_field([I], np.arange(5.0)), gtx.as_field([I], np.zeros(5))


def test_a_program_with_its_offset_provider_given_once():
    a, out = _fields()
    expected = np.zeros(5)
    expected[:4] = np.arange(1.0, 5.0) * 2.0 + np.arange(4.0)
    run.with_call_options(offset_provider={"Ioff": I})(a, 2.0, out)
    np.testing.assert_array_equal(out.asnumpy(), expected)
    again = gtx.as_field([I], np.zeros(5))
    run(a, 2.0, again, offset_provider={"Ioff": I})
    np.testing.assert_array_equal(again.asnumpy(), out.asnumpy())
    run.with_call_options(offset_provider={"Ioff": I}, enable_jit=False)(a, factor=2.0, out=again)
    np.testing.assert_array_equal(again.asnumpy(), out.asnumpy())


def test_a_field_operator_with_out_and_domain_given_once():
    a, out = _fields()
    shifted_sum.with_call_options(out=out, domain={I: (0, 4)}, offset_provider={"Ioff": I})(a, 3.0)
    np.testing.assert_array_equal(out.asnumpy()[:4], np.arange(1.0, 5.0) * 3.0 + np.arange(4.0))


def test_the_bound_call_still_checks_its_arguments():
    a, _ = _fields()
    with pytest.raises(TypeError, match="out"):
        run.with_call_options(offset_provider={"Ioff": I})(a, 2.0)  # type: ignore[call-arg]
