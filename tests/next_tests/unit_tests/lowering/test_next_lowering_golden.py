"""Golden tests of lowering: a field operator or program source -> its IR text (``ir.to_text``).

Each case lowers a small program and compares the whole printed program with the expected
text, so any change in the lowered IR (a wrong shift, a lost cast, a domain bound) shows up
as a diff here before it shows up as wrong numbers in a compiled backend. The expected texts
are in ``golden_programs`` (by program name), with the generator tests' IR programs.
"""

from __future__ import annotations

import pytest
from golden_programs import LOWERED, normalized

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


# each program -> the IR text it lowers to
GOLDEN = {
    program: LOWERED[program.__name__]
    for program in (
        copy,
        east_minus_west,
        edge_sum,
        clipped,
        running_sum,
        sum_and_difference,
        interior_copy,
        sliced_copy,
    )
}


@pytest.mark.parametrize("program", list(GOLDEN), ids=lambda p: p.__name__)
def test_lowered_program_text(program):
    assert normalized(ir.to_text(lowering.lower_program(program))) == normalized(GOLDEN[program])


@pytest.mark.parametrize("program", list(GOLDEN), ids=lambda p: p.__name__)
def test_golden_text_is_valid_ir(program):
    """The expected texts are IR programs themselves (parse and print back unchanged)."""
    expected = normalized(GOLDEN[program])
    assert normalized(ir.to_text(ir.parse_program(expected))) == expected
