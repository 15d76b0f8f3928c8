"""Constant folding and common subexpression elimination on small IR programs."""

from __future__ import annotations

from gt4py.next import ir
from gt4py.next.passes import cse, fold_constants


def _program(value: str) -> ir.Program:
    return ir.parse_program(
        "program p(a: field[I] float64, out: field[I] float64) {\n"
        f"  out <- apply[I: 0:int64 .. 4:int64]({value});\n}}"
    )


def _value(program: ir.Program) -> str:
    return ir.expr_text(program.body[0].values[0])


def test_constant_folding_computes_literal_arithmetic():
    folded = fold_constants(_program("multiplies($a, plus(1.5:float64, 2.0:float64))"))
    assert _value(folded) == "multiplies($a, 3.5:float64)"


def test_constant_folding_picks_the_branch_of_a_literal_condition():
    folded = fold_constants(_program("if_(lt(1:int32, 2:int32), $a, $a(I+1))"))
    assert _value(folded) == "$a"


def test_constant_folding_keeps_mixed_dtypes_alone():
    text = "plus(1:int32, 2:int64)"
    assert _value(fold_constants(_program(text))) == text


def test_cse_binds_a_repeated_read_once():
    shared = cse(_program("plus(multiplies($a(I+1), $a(I+1)), $a(I+1))"))
    assert _value(shared) == "let __cse0 = $a(I+1) in (plus(multiplies(__cse0, __cse0), __cse0))"


def test_cse_binds_the_largest_repeated_subexpression_first():
    shared = cse(_program("plus(sin(plus($a, $a(I+1))), cos(plus($a, $a(I+1))))"))
    assert _value(shared).startswith("let __cse0 = plus($a, $a(I+1)) in")


def test_cse_shares_inside_a_guarded_branch_without_hoisting_out_of_it():
    text = "if_(gt(index<I>, 0:int64), plus($a(I-1), $a(I-1)), 0.0:float64)"
    assert _value(cse(_program(text))) == (
        "if_(gt(index<I>, 0:int64), let __cse0 = $a(I-1) in (plus(__cse0, __cse0)), 0.0:float64)"
    )


def test_cse_leaves_a_copy_per_sibling_branch():
    text = "if_(gt(index<I>, 0:int64), $a(I-1), minus(0.0:float64, $a(I-1)))"
    assert _value(cse(_program(text))) == text
    text = "and_(gt($a, 0.0:float64), lt(sqrt($a(I-1)), sqrt($a(I-1))))"
    assert _value(cse(_program(text))).startswith("and_(gt($a, 0.0:float64), let __cse0 = sqrt(")


def test_cse_serves_copies_in_nested_branches_from_the_enclosing_scope():
    # a copy evaluated anyway at the top reaches the guarded one; the guarded copies of the
    # inner read stay in the branch that guards them
    text = (
        "plus(sin($b), if_(gt(index<I>, 0:int64), "
        "plus(sin($b), if_(lt($b, 1.0:float64), plus($a(I-1), $a(I-1)), $a(I-1))), 0.0:float64))"
    )
    assert _value(cse(_program(text))) == (
        "let __cse0 = sin($b) in (plus(__cse0, if_(gt(index<I>, 0:int64), plus(__cse0, "
        "if_(lt($b, 1.0:float64), let __cse1 = $a(I-1) in (plus(__cse1, __cse1)), $a(I-1))), "
        "0.0:float64)))"
    )


def test_cse_never_moves_a_guarded_copy_to_where_its_guard_does_not_hold():
    text = "plus(if_(gt(index<I>, 0:int64), $a(I-1), 0.0:float64), if_(gt(index<I>, 1:int64), $a(I-1), 1.0:float64))"
    assert _value(cse(_program(text))) == text
