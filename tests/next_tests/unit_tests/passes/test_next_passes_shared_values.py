"""``share_values``: the leading bindings of a statement's values become statement bindings,
one per distinct value, shared by all the outputs (and the IR text round-trips them)."""

from __future__ import annotations

import numpy as np

import gt4py.next as gtx
from gt4py.next import ir
from gt4py.next.passes import share_values


def _program(values: str, kind: str = "apply") -> ir.Program:
    if kind == "apply":
        statement = f"(x, y) <- apply[I: 0:int64 .. 4:int64]({values});"
    else:
        statement = (
            "(x, y) <- scan<I, forward; c0, c1>[I: 0:int64 .. 4:int64]"
            f"(init(0.0:float64, 0.0:float64); {values});"
        )
    return ir.parse_program(
        "program p(a: field[I] float64, x: field[I] float64, y: field[I] float64) {\n"
        f"  {statement}\n}}"
    )


def test_equal_leading_lets_of_two_values_become_one_binding():
    program = _program(
        "let s = sin($a) in (let t = plus(s, $a) in (multiplies(t, t))), "
        "let u = sin($a) in (let v = plus(u, $a) in (minus(v, 1.0:float64)))"
    )
    (statement,) = share_values(program).body
    assert [ir.expr_text(b.value) for b in statement.bindings] == [
        "sin($a)",
        "plus(__shared0, $a)",
    ]
    assert [ir.expr_text(v) for v in statement.values] == [
        "multiplies(__shared1, __shared1)",
        "minus(__shared1, 1.0:float64)",
    ]
    assert ir.parse_program(ir.to_text(share_values(program))) == share_values(program)


def test_lets_inside_a_branch_stay_where_they_are():
    guarded = "if_(gt($a, 0.0:float64), let r = $a(I+1) in (plus(r, r)), 0.0:float64)"
    program = _program(f"{guarded}, {guarded}")
    assert share_values(program) == program  # no leading lets: nothing is evaluated anyway


def test_a_scan_shares_the_values_of_its_carries():
    program = _program(
        "let s = plus(c0, $a) in (s), let t = plus(c0, $a) in (multiplies(t, c1))", kind="scan"
    )
    (statement,) = share_values(program).body
    assert [ir.expr_text(b.value) for b in statement.bindings] == ["plus(c0, $a)"]
    assert [ir.expr_text(v) for v in statement.values] == [
        "__shared0",
        "multiplies(__shared0, c1)",
    ]


I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
F = gtx.Field[gtx.Dims[I, K], gtx.float64]


@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0.0, 0.0))
def three(
    carry: tuple[gtx.float64, gtx.float64, gtx.float64], a: gtx.float64
) -> tuple[gtx.float64, gtx.float64, gtx.float64]:
    s = carry[0] * 0.5 + a
    t = s * s + carry[1]
    return s, t, t - s + carry[2]


def test_shared_scan_values_agree_with_embedded(cache_dir):
    a = gtx.as_field([I, K], np.random.default_rng(3).random((3, 6)))
    results, operators = {}, {}
    for backend in (gtx.embedded_numpy, gtx.itir_python, gtx.gtfn_cpu):
        out = tuple(gtx.zeros({I: 3, K: 6}) for _ in range(3))
        operators[backend.name] = three.with_backend(backend)
        operators[backend.name](a, out=out)
        results[backend.name] = np.stack([o.asnumpy() for o in out])
    np.testing.assert_allclose(results["itir_python"], results["embedded_numpy"], rtol=1e-14)
    np.testing.assert_allclose(results["gtfn_cpu"], results["embedded_numpy"], rtol=1e-14)
    (variant,) = operators["gtfn_cpu"].compiled_variants
    assert variant.stages["ir_optimized"].body[0].bindings  # the carries share `s` and `t`
