"""The IR's text form: printing and parsing are inverse, bad text is a located error."""

from __future__ import annotations

import pytest

from gt4py.next import ir


PROGRAM = """program p(a: field[Edge, K] float64, out: field[Vertex, K] float64, n: int32)
offsets(V2E: Vertex[V2E] -> Edge, E2V: Edge[E2V] -> Vertex) {
  out <- apply[Vertex: 0:int64 .. n, K: bound<lo>(out, K) .. bound<hi>(out, K)](reduce<plus, V2E; V2E>(0.0:float64, $a(V2E[*], K-1)));
  (out, out) <- scan<K, backward; c0, c1>[K: 0:int64 .. 4:int64](init(0.0:float64, 1:int32); plus(c0, $a(K+(cast<int32>(index<K>)))), let x = neg(-inf:float64) in (if_(lt(x, c1), x, c1)));
}
"""


def test_program_round_trip():
    program = ir.parse_program(PROGRAM)
    assert ir.parse_program(ir.to_text(program)) == program
    assert program.offsets[0] == ir.OffsetDecl(
        name="V2E", domain_dim="Vertex", local="V2E", codomain="Edge"
    )


@pytest.mark.parametrize(
    "text",
    [
        "plus($a(I+1, E2V[0], V2E[*]), 1.5:float64)",
        "if_(True:bool, index<I>, bound<hi>(a, I))",
        "reduce<maximum, C2E>(-inf:float32, $w)",
        "let t = $a(I-2) in (multiplies(t, t))",
    ],
)
def test_expression_round_trip(text):
    expr = ir.parse_expr(text)
    assert ir.expr_text(expr) == text
    assert ir.parse_expr(ir.expr_text(expr)) == expr


def test_parsed_nodes_have_the_meaning_of_the_text():
    expr = ir.parse_expr("$a(I-1, E2V[0])")
    assert expr == ir.Deref(
        field="a",
        shifts=[ir.CartesianShift(dim="I", amount=-1), ir.NeighbourShift(offset="E2V", index=0)],
    )


def test_bad_text_is_a_located_error():
    with pytest.raises(ir.IRParseError, match="line 1, column"):
        ir.parse_expr("plus($a(I+), 1:int32)")
