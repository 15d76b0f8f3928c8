"""Shared values stay shared: lowering binds locals and inlined arguments once (``Let``),
lazily where they may only be evaluated under a guard; the temporaries pass binds a value read
several times once; CSE numbers subexpressions by hash-consing (linear, scoped to lets)."""

from __future__ import annotations

import time

import gt4py.next as gtx
from gt4py.next import ir, lowering
from gt4py.next.passes import choose_temporaries, cse, default_pipeline


K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C = gtx.Dimension("C")
CKField = gtx.Field[gtx.Dims[C, K], gtx.float64]


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def _chain_of_locals(carry: float, a: float) -> float:
    x0 = carry * 0.5 + a
    x1 = x0 * 0.75 + 1.0 / (1.0 + x0)
    x2 = x1 * 0.75 + 1.0 / (1.0 + x1)
    x3 = x2 * 0.75 + 1.0 / (1.0 + x2)
    x4 = x3 * 0.75 + 1.0 / (1.0 + x3)
    x5 = x4 * 0.75 + 1.0 / (1.0 + x4)
    x6 = x5 * 0.75 + 1.0 / (1.0 + x5)
    x7 = x6 * 0.75 + 1.0 / (1.0 + x6)
    x8 = x7 * 0.75 + 1.0 / (1.0 + x7)
    x9 = x8 * 0.75 + 1.0 / (1.0 + x8)
    x10 = x9 * 0.75 + 1.0 / (1.0 + x9)
    x11 = x10 * 0.75 + 1.0 / (1.0 + x10)
    x12 = x11 * 0.75 + 1.0 / (1.0 + x11)
    x13 = x12 * 0.75 + 1.0 / (1.0 + x12)
    x14 = x13 * 0.75 + 1.0 / (1.0 + x13)
    x15 = x14 * 0.75 + 1.0 / (1.0 + x14)
    x16 = x15 * 0.75 + 1.0 / (1.0 + x15)
    x17 = x16 * 0.75 + 1.0 / (1.0 + x16)
    x18 = x17 * 0.75 + 1.0 / (1.0 + x17)
    x19 = x18 * 0.75 + 1.0 / (1.0 + x18)
    x20 = x19 * 0.75 + 1.0 / (1.0 + x19)
    x21 = x20 * 0.75 + 1.0 / (1.0 + x20)
    x22 = x21 * 0.75 + 1.0 / (1.0 + x21)
    x23 = x22 * 0.75 + 1.0 / (1.0 + x22)
    x24 = x23 * 0.75 + 1.0 / (1.0 + x23)
    x25 = x24 * 0.75 + 1.0 / (1.0 + x24)
    x26 = x25 * 0.75 + 1.0 / (1.0 + x25)
    x27 = x26 * 0.75 + 1.0 / (1.0 + x26)
    x28 = x27 * 0.75 + 1.0 / (1.0 + x27)
    x29 = x28 * 0.75 + 1.0 / (1.0 + x28)
    x30 = x29 * 0.75 + 1.0 / (1.0 + x29)
    return x30


@gtx.program
def chain_of_locals(a: CKField, out: CKField):
    _chain_of_locals(a, out=out)


def _size(node: ir.Node) -> int:
    return sum(1 for _ in node.walk_values())


def test_a_scan_with_a_chain_of_locals_each_used_twice_lowers_to_a_linear_ir():
    started = time.perf_counter()
    lowered = lowering.lower_program(chain_of_locals)
    optimized = default_pipeline(lowered)
    assert time.perf_counter() - started < 10
    # each local once: about 10 nodes per local (2**30 copies without binding)
    assert _size(lowered) < 40 * 31
    assert _size(optimized) < 40 * 31
    (scan,) = optimized.body
    assert ir.expr_text(scan.values[0]).count("let ") >= 30


@gtx.field_operator
def _step(x: CKField) -> CKField:
    return x * 0.5 + x * x + 1.0 / x  # its argument used three times


@gtx.field_operator
def _twelve_steps(a: CKField) -> CKField:
    return _step(_step(_step(_step(_step(_step(_step(_step(_step(_step(_step(_step(a))))))))))))


@gtx.program
def twelve_steps(a: CKField, out: CKField):
    _twelve_steps(a, out=out)


def test_inlined_chained_calls_bind_each_result_once():
    # each call is a candidate temporary; inlining them again (recompute) binds a value read
    # three times once instead of copying it (3**12 copies of the first step)
    lowered = lowering.lower_program(twelve_steps)
    inlined = choose_temporaries(lowered, "recompute")
    assert inlined.temporaries == []
    assert _size(inlined) < 40 * 13
    assert _size(default_pipeline(lowered)) < 40 * 13


def _bind(text: str, value: str) -> str:
    return ir.expr_text(ir.bind_lazily(ir.parse_expr(text), "x", ir.parse_expr(value)))


def test_lazy_binding_stays_inside_the_branch_that_uses_it():
    bound = _bind("if_(gt(index<K>, 0:int32), plus(x, x), 0.0:float64)", "$a(K-1)")
    assert bound == "if_(gt(index<K>, 0:int32), let x = $a(K-1) in (plus(x, x)), 0.0:float64)"


def test_lazy_binding_goes_around_a_where_whose_branches_both_use_it():
    bound = _bind("plus(if_($c, x, multiplies(x, 2.0:float64)), 1.0:float64)", "$a(K-1)")
    assert bound.startswith("let x = $a(K-1) in (plus(if_(")


def test_lazy_binding_keeps_the_second_operand_of_and_lazy():
    bound = _bind("and_($c, gt(x, 0.0:float64))", "$a(K-1)")
    assert bound == "and_($c, let x = $a(K-1) in (gt(x, 0.0:float64)))"


def test_lazy_binding_leaves_a_reduction_body_alone_if_the_init_is_strict():
    bound = _bind("reduce<plus, E2V; E2V>(x, x)", "$a(K-1)")
    assert bound == "let x = $a(K-1) in (reduce<plus, E2V; E2V>(x, x))"
    bound = _bind("reduce<plus, E2V; E2V>(0.0:float64, x)", "$a(K-1)")
    assert bound == "reduce<plus, E2V; E2V>(0.0:float64, let x = $a(K-1) in (x))"


def _cse(value: str) -> str:
    program = ir.parse_program(
        "program p(a: field[I] float64, out: field[I] float64) {\n"
        f"  out <- apply[I: 0:int64 .. 4:int64]({value});\n}}"
    )
    return ir.expr_text(cse(program).body[0].values[0])


def test_cse_shares_a_subexpression_using_a_let_inside_that_let():
    shared = _cse("let y = sin($a) in (plus(multiplies(y, $a(I+1)), multiplies(y, $a(I+1))))")
    assert shared == (
        "let y = sin($a) in (let __cse0 = multiplies(y, $a(I+1)) in (plus(__cse0, __cse0)))"
    )


def test_cse_does_not_mix_up_two_lets_of_the_same_name():
    text = "plus(let y = $a(I+1) in (sin(y)), let y = $a(I-1) in (sin(y)))"
    assert _cse(text) == text


def test_cse_of_a_long_chain_is_fast():
    # 300 lets, each value repeating a shifted read of the previous one's
    value: ir.Expr = ir.parse_expr("$a")
    for i in range(300):
        name = f"x{i}"
        read = ir.parse_expr("multiplies($a(I+1), 0.5:float64)")
        twice = ir.Call(fun="plus", args=[ir.SymRef(name=name), read])
        value = ir.Let(name=name, value=ir.Call(fun="plus", args=[value, read]), body=twice)
    program = ir.parse_program(
        "program p(a: field[I] float64, out: field[I] float64) {\n"
        "  out <- apply[I: 0:int64 .. 4:int64]($a);\n}"
    )
    program.body[0].values[0] = value
    started = time.perf_counter()
    shared = cse(program).body[0].values[0]
    assert time.perf_counter() - started < 5
    assert ir.expr_text(shared).startswith("let __cse0 = multiplies($a(I+1), 0.5:float64) in")
