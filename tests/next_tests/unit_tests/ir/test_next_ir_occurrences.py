"""ir.Occurrences: the fields and names a subtree mentions, memoized per node object."""

from gt4py.next import ir


def test_fields_and_names_of_nested_expressions():
    expr = ir.parse_expr("let x = $a(I+1) in (if_(gt(x, s), $b(I-1), x))")
    occurrences = ir.Occurrences()
    assert occurrences.fields(expr) == {"a", "b"}
    assert occurrences.names(expr) == {"x", "s"}
    assert occurrences.fields(ir.parse_expr("plus(s, 1.0:float64)")) == frozenset()


def test_dynamic_shift_amounts_count_as_reads():
    expr = ir.parse_expr("$a(K+($k))")
    assert ir.Occurrences().fields(expr) == {"a", "k"}


def test_memo_is_per_object_not_per_value():
    occurrences = ir.Occurrences()
    first = ir.parse_expr("plus($a, $b)")
    assert occurrences.fields(first) == {"a", "b"}
    del first  # a new node may reuse the id: the memo keeps memoized nodes alive
    second = ir.parse_expr("$c")
    assert occurrences.fields(second) == {"c"}
