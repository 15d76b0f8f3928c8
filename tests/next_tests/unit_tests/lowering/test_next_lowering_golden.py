"""Golden tests of lowering: a field operator or program source -> its IR text (``ir.to_text``).

Each case lowers a small program and compares the whole printed program with the expected
text, so any change in the lowered IR (a wrong shift, a lost cast, a domain bound) shows up
as a diff here before it shows up as wrong numbers in a compiled backend.
"""

from __future__ import annotations

import textwrap

import pytest

import gt4py.next as gtx
from gt4py.next import ir, lowering


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))

IJField = gtx.Field[gtx.Dims[I, J], gtx.float64]
IKField = gtx.Field[gtx.Dims[I, K], gtx.float64]
VField = gtx.Field[gtx.Dims[Vertex], gtx.float64]
EField = gtx.Field[gtx.Dims[Edge], gtx.float64]

SCALE = 0.5  # a module constant: lowered as a literal of the operand's dtype


@gtx.field_operator
def _copy(a: IJField) -> IJField:
    return a


@gtx.program
def copy(a: IJField, out: IJField):
    _copy(a, out=out)


@gtx.field_operator
def _east_minus_west(a: IJField) -> IJField:
    return SCALE * (a(I + 1) - a(I - 1))


@gtx.program
def east_minus_west(a: IJField, out: IJField):
    _east_minus_west(a, out=out)


@gtx.field_operator
def _edge_sum(e: EField) -> VField:
    return gtx.neighbor_sum(e(V2E), axis=V2EDim)


@gtx.program
def edge_sum(e: EField, out: VField):
    _edge_sum(e, out=out)


@gtx.field_operator
def _clipped(a: IJField, limit: gtx.float64) -> IJField:
    return gtx.where(a > limit, limit, a)


@gtx.program
def clipped(a: IJField, limit: gtx.float64, out: IJField):
    _clipped(a, limit, out=out)


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def _running_sum(carry: float, a: float) -> float:
    return carry + a


@gtx.program
def running_sum(a: IKField, out: IKField):
    _running_sum(a, out=out)


@gtx.field_operator
def _sum_and_difference(a: IJField, b: IJField) -> tuple[IJField, IJField]:
    return a + b, a - b


@gtx.program
def sum_and_difference(a: IJField, b: IJField, out_sum: IJField, out_difference: IJField):
    _sum_and_difference(a, b, out=(out_sum, out_difference))


@gtx.program
def interior_copy(a: IJField, out: IJField, n: gtx.int32):
    _copy(a, out=out, domain={I: (1, n - 1), J: (0, n)})


@gtx.program
def sliced_copy(a: IJField, out: IJField):
    _copy(a, out=out[1:-1, :])


_FULL_OUT = "I: bound<lo>(out, I) .. bound<hi>(out, I), J: bound<lo>(out, J) .. bound<hi>(out, J)"

GOLDEN = {
    copy: f"""
        program copy(a: field[I, J] float64, out: field[I, J] float64) {{
          out <- apply[{_FULL_OUT}]($a);
        }}
    """,
    east_minus_west: f"""
        program east_minus_west(a: field[I, J] float64, out: field[I, J] float64) {{
          out <- apply[{_FULL_OUT}](multiplies(0.5:float64, minus($a(I+1), $a(I-1))));
        }}
    """,
    edge_sum: """
        program edge_sum(e: field[Edge] float64, out: field[Vertex] float64)
        offsets(V2E: Vertex[V2E] -> Edge) {
          out <- apply[Vertex: bound<lo>(out, Vertex) .. bound<hi>(out, Vertex)](reduce<plus, V2E; V2E>(0.0:float64, $e(V2E[*])));
        }
    """,
    clipped: f"""
        program clipped(a: field[I, J] float64, limit: float64, out: field[I, J] float64) {{
          out <- apply[{_FULL_OUT}](if_(gt($a, limit), limit, $a));
        }}
    """,
    running_sum: """
        program running_sum(a: field[I, K] float64, out: field[I, K] float64) {
          out <- scan<K, forward; __carry>[I: bound<lo>(out, I) .. bound<hi>(out, I), K: bound<lo>(out, K) .. bound<hi>(out, K)](init(0.0:float64); plus(__carry, $a));
        }
    """,
    sum_and_difference: """
        program sum_and_difference(a: field[I, J] float64, b: field[I, J] float64, out_sum: field[I, J] float64, out_difference: field[I, J] float64) {
          out_sum <- apply[I: bound<lo>(out_sum, I) .. bound<hi>(out_sum, I), J: bound<lo>(out_sum, J) .. bound<hi>(out_sum, J)](plus($a, $b));
          out_difference <- apply[I: bound<lo>(out_difference, I) .. bound<hi>(out_difference, I), J: bound<lo>(out_difference, J) .. bound<hi>(out_difference, J)](minus($a, $b));
        }
    """,
    interior_copy: """
        program interior_copy(a: field[I, J] float64, out: field[I, J] float64, n: int32) {
          out <- apply[I: 1:int64 .. minus(n, 1:int64), J: 0:int64 .. n]($a);
        }
    """,
    sliced_copy: """
        program sliced_copy(a: field[I, J] float64, out: field[I, J] float64) {
          out <- apply[I: plus(bound<lo>(out, I), 1:int64) .. plus(bound<hi>(out, I), -1:int64), J: bound<lo>(out, J) .. bound<hi>(out, J)]($a);
        }
    """,
}


def _normalized(text: str) -> str:
    return "\n".join(line.rstrip() for line in textwrap.dedent(text).strip().splitlines())


@pytest.mark.parametrize("program", list(GOLDEN), ids=lambda p: p.__name__)
def test_lowered_program_text(program):
    assert _normalized(ir.to_text(lowering.lower_program(program))) == _normalized(GOLDEN[program])


@pytest.mark.parametrize("program", list(GOLDEN), ids=lambda p: p.__name__)
def test_golden_text_is_valid_ir(program):
    """The expected texts are IR programs themselves (parse and print back unchanged)."""
    expected = _normalized(GOLDEN[program])
    assert _normalized(ir.to_text(ir.parse_program(expected))) == expected
