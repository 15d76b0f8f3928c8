"""Static values keyed bit for bit, fields sharing memory, and the index-space check of the
compiled call path (issue 25, ADR 0027)."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import ir
from gt4py.next.backends import _aliasing, _index_checks, _variant_keys
from gt4py.next.embedded import DomainError


I = gtx.Dimension("I")
Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))
IField = gtx.Field[gtx.Dims[I], gtx.float64]
NAN_1 = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000001))[0]


@gtx.field_operator
def divided(a: IField, s: gtx.float64) -> IField:
    return a / s


@gtx.program
def divide(a: IField, s: gtx.float64, out: IField):
    divided(a, s, out=out)


@gtx.field_operator
def around(a: IField) -> IField:
    return a(Ioff[-1]) + 2.0 * a(Ioff[1])


@gtx.program
def two(a: IField, out: IField):
    around(a, out=out[1:-1])


def pool_of(entry):
    (pool,) = entry.__dict__["__gt_compiled_pools__"].values()
    return pool


def ones():
    return gtx.as_field([I], np.ones(3))


# -- static values ------------------------------------------------------------------------------


def test_static_token_tells_zeros_and_nans_apart():
    token = _variant_keys.static_token
    assert token(0.0) != token(-0.0)
    assert token(math.nan) == token(float("nan"))
    assert token(math.nan) != token(NAN_1)
    assert token(np.float32(-0.0)) != token(np.float32(0.0))
    assert token(1) != token(1.0) and token(True) != token(1)
    assert _variant_keys.static_text(NAN_1) == "nan(0x7ff8000000000001)"
    assert _variant_keys.static_text(math.nan) == "nan"


def _divide(backend):
    return divide.with_backend(backend).with_compilation_options(static_params=("s",))


@pytest.mark.parametrize(
    "backend",
    [
        pytest.param(gtx.itir_python, id="itir_python"),
        pytest.param(gtx.gtfn_cpu, id="gtfn_cpu", marks=pytest.mark.slow),
    ],
)
def test_static_zero_signs_and_nans(backend):
    program = _divide(backend)
    a, out = ones(), ones()
    results = []
    for s in [0.0, -0.0, 0.0, -0.0, math.nan, float("nan"), NAN_1, NAN_1, 2.0]:
        program(a, s, out, offset_provider={})
        results.append(out.asnumpy()[0])
    assert results[:4] == [math.inf, -math.inf, math.inf, -math.inf]
    assert all(math.isnan(r) for r in results[4:8]) and results[8] == 0.5
    variants = pool_of(program).variants
    # 0.0, -0.0, the default NaN (reused: no variant per call), the other NaN, 2.0
    assert len(variants) == 5
    described = sorted(str(dict(k.static)["s"]) for k in variants)
    assert described == ["-0.0", "0.0", "2.0", "nan", "nan"]


def test_static_keys_of_ahead_of_time_variants_are_bitwise():
    program = _divide(gtx.itir_python)
    program.compile(offset_provider={}, s=[0.0, -0.0, math.nan])
    pool = pool_of(program)
    assert len(pool.variants) + len(pool.pending) == 3
    a, out = ones(), ones()
    for s, expected in [(-0.0, -math.inf), (0.0, math.inf), (math.nan, math.nan)]:
        program(a, s, out, offset_provider={}, enable_jit=False)  # found, not compiled
        np.testing.assert_equal(out.asnumpy()[0], expected)
    assert len(pool.variants) == 3


# -- fields sharing memory -----------------------------------------------------------------------


def test_a_statement_reading_what_it_writes_elsewhere_is_staged():
    program = ir.parse_program(
        """
        program p(a: field[I] float64, b: field[I] float64) {
          a <- apply[I: 1:int64 .. 3:int64](plus($a(I-1), $b));
          b <- apply[I: 1:int64 .. 3:int64](plus($b, $a));
        }
        """
    )
    staged, origin = _aliasing.stage_self_writes(program)
    assert origin == [0, 0, 1]
    first, copy, second = staged.body
    assert first.outputs == ["__staged_a_0"] and copy.outputs == ["a"]
    assert ir.expr_text(copy.values[0]) == "$__staged_a_0"
    assert second == program.body[1]  # reads `b` only at its point: left as it is
    assert [t.name for t in staged.temporaries] == ["__staged_a_0"]
    assert _aliasing.stage_self_writes(staged.replace(body=[second]))[0].body == [second]


def test_distinct_fields_never_compare_addresses(monkeypatch):
    """The cost for fields that share no memory: one ``is`` per (written, read) pair."""
    calls = []
    original = _aliasing.AliasPlan.resolve

    def spy(self, fields, datas):
        calls.append(len(fields))
        return original(self, fields, datas)

    monkeypatch.setattr(_aliasing.AliasPlan, "resolve", spy)
    program = two.with_backend(gtx.itir_python)
    a, out = gtx.as_field([I], np.arange(6.0)), gtx.as_field([I], np.zeros(6))
    for _ in range(3):
        program(a, out, offset_provider={"Ioff": I})
    assert calls == []
    program(a, a, offset_provider={"Ioff": I})  # the same field twice: compared, copied
    assert calls == [2]
    source = pool_of(program)._last_stub.source
    assert "r0 is r1" in source or "r1 is r0" in source


def test_call_groups_follow_the_operator_calls():
    @gtx.program
    def calls(a: IField, b: IField, c: IField):
        around(a, out=b[1:-1])
        around(b, out=c[1:-1])
        around(c, out=a[1:-1])

    from gt4py.next import lowering

    program = lowering.lower_program(calls)
    assert _aliasing.call_groups(calls, program, True) == [0, 1, 2]
    assert _aliasing.call_groups(calls, program.replace(body=program.body[:2]), True) is None


def test_shared_memory_verdicts():
    program = ir.parse_program(
        """
        program p(a: field[I] float64, b: field[I] float64, c: field[I] float64) {
          b <- apply[I: 1:int64 .. 3:int64]($a(I+1));
          c <- apply[I: 1:int64 .. 3:int64]($b(I-1));
        }
        """
    )
    plan = _aliasing.AliasPlan(program, lambda: [0, 1], fuses=False)
    assert plan.verdict("a", [("b", False)]) == "copy"  # read shifted while written
    assert plan.verdict("a", [("b", True)]) == "copy"
    # the same, but `b` is written too: no copy can stand in for it
    assert plan.verdict("b", [("c", True)]) == "embedded"
    assert _aliasing.AliasPlan(program, lambda: None).verdict("a", [("b", True)]) == "embedded"
    chain = ir.parse_program(
        """
        program p(a: field[I] float64, b: field[I] float64, c: field[I] float64,
                  d: field[I] float64) {
          b <- apply[I: 1:int64 .. 3:int64]($a(I+1));
          d <- apply[I: 1:int64 .. 3:int64]($c(I-1));
        }
        """
    )
    # call 1 reads `c`, which call 0 wrote as `b`: in place, unless both run in one nest
    assert (
        _aliasing.AliasPlan(chain, lambda: [0, 1], fuses=False).verdict("c", [("b", True)])
        == "in place"
    )
    fused = _aliasing.AliasPlan(chain, lambda: [0, 1], fuses=True)
    assert fused.nests == (0, 0)
    assert fused.verdict("c", [("b", True)]) == "embedded"
    # one call (a tuple result's outputs): `c` must not see `b`'s writes: a copy
    assert (
        _aliasing.AliasPlan(chain, lambda: [0, 0], fuses=True).verdict("c", [("b", True)]) == "copy"
    )


# -- the 64-bit index space --------------------------------------------------------------------


def test_index_checks_skip_ranges_that_always_fit():
    program = ir.parse_program(
        """
        program p(out: field[I] float64, n: int32, lo: int64, hi: int64) {
          out <- apply[I: 0:int64 .. n](1.0:float64);
          out <- apply[I: lo .. hi](1.0:float64);
          out <- apply[I: plus(bound<lo>(out, I), 1:int64) .. bound<hi>(out, I)](1.0:float64);
        }
        """
    )
    checks = _index_checks.index_checks(program)
    assert [(c.statement, c.start, c.stop) for c in checks] == [
        (1, "s_lo", "s_hi"),
        (2, "(f_out_lo_I + 1)", "f_out_hi_I"),
    ]
    assert all(c.covered for c in checks)


def test_direct_call_domain_outside_int64_is_a_domain_error():
    out = gtx.as_field([I], np.zeros(4))
    with pytest.raises(DomainError, match="does not fit in 64-bit indices"):
        around.with_backend(gtx.itir_python)(
            out, out=out, domain={I: (1, 2**63)}, offset_provider={"Ioff": I}
        )
    with pytest.raises(DomainError, match=r"I=\[2, -9223372036854775808\)"):
        gtx.domain({I: (2, -(2**63))})
