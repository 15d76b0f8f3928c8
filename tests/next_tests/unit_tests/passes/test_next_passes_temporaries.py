"""The temporaries pass (keep or inline candidates) and domain inference, on IR text."""

from __future__ import annotations

import pytest

from gt4py.next import ir
from gt4py.next.passes import (
    DomainInferenceError,
    choose_temporaries,
    default_pipeline,
    infer_domains,
)


# lap(lap(a)) as lowering writes it: the inner Laplacian is a candidate temporary
LAP = "plus(plus(plus(plus(multiplies(-4.0:float64, $a), $a(I+1)), $a(I-1)), $a(J+1)), $a(J-1))"
LAP_OF_T = LAP.replace("$a", "$t")
LAP_LAP = f"""program p(a: field[I, J] float64, out: field[I, J] float64, n: int64)
temporaries(t: field[I, J] float64 []) {{
  t <- apply[]({LAP});
  out <- apply[I: 2:int64 .. minus(n, 2:int64), J: 2:int64 .. 6:int64]({LAP_OF_T});
}}
"""


def _texts(program: ir.Program) -> list[str]:
    return [ir.expr_text(v) for s in program.body for v in s.values]


def test_recompute_inlines_the_candidate_with_its_reads_shifts():
    program = choose_temporaries(ir.parse_program(LAP_LAP), "recompute")
    assert program.temporaries == []
    assert len(program.body) == 1
    (value,) = _texts(program)
    assert "$t" not in value
    # the read $t(I+1) became the inner Laplacian moved by I+1: $a(I+1, I+1) among others
    assert "$a(I+1, I+1)" in value and "$a(J-1, I-1)" in value


def test_materialize_keeps_the_candidate_and_inference_extends_its_domain_by_the_shifts():
    program = infer_domains(choose_temporaries(ir.parse_program(LAP_LAP), "materialize"))
    (temporary,) = program.temporaries
    domain = {r.dim: (ir.expr_text(r.start), ir.expr_text(r.stop)) for r in temporary.domain}
    assert domain == {
        "I": ("1:int64", "plus(minus(n, 2:int64), 1:int64)"),
        "J": ("1:int64", "7:int64"),
    }
    assert program.body[0].domain == temporary.domain  # the writer covers the whole box


def test_auto_recomputes_a_cheap_intermediate_and_keeps_an_expensive_one():
    assert choose_temporaries(ir.parse_program(LAP_LAP), "auto").temporaries == []
    cheap = choose_temporaries(ir.parse_program(LAP_LAP), "auto", min_saved_work=4)
    assert [t.name for t in cheap.temporaries] == ["t"]


def test_a_candidate_read_shifted_under_a_data_dependent_branch_or_through_a_table_is_inlined():
    # the box would reach past what the branch reads (a point where only the guard saves it)
    guarded = LAP_LAP.replace(LAP_OF_T, "if_(gt($a, 0.0:float64), $t(I-1), 0.0:float64)")
    assert choose_temporaries(ir.parse_program(guarded), "materialize").temporaries == []
    through_table = LAP_LAP.replace(LAP_OF_T, "$t(E2V[0])")
    assert choose_temporaries(ir.parse_program(through_table), "materialize").temporaries == []


def test_a_read_shifted_under_an_index_condition_keeps_the_candidate_over_the_cut_box():
    # concat_where(I > 0, t(I-1), 0.0): the read needs t only where I - 1 >= 0
    guarded = LAP_LAP.replace(LAP_OF_T, "if_(gt(index<I>, 0:int64), $t(I-1), 0.0:float64)")
    program = infer_domains(choose_temporaries(ir.parse_program(guarded), "materialize"))
    (temporary,) = program.temporaries
    start = ir.expr_text(temporary.domain[0].start)
    assert start == "plus(maximum(2:int64, 1:int64), -1:int64)"
    # the condition bounds the wrong side: reading I+1 under I > 0 could reach past the box
    upward = LAP_LAP.replace(LAP_OF_T, "if_(gt(index<I>, 0:int64), $t(I+1), 0.0:float64)")
    assert choose_temporaries(ir.parse_program(upward), "materialize").temporaries == []


def test_a_candidate_that_may_trap_is_not_computed_where_a_branch_skipped_it():
    trapping = (
        LAP_LAP.replace(LAP, "floordiv(1:int64, $b)")
        .replace("(a: field[I, J] float64,", "(a: field[I, J] float64, b: field[I, J] int64,")
        .replace("t: field[I, J] float64", "t: field[I, J] int64")
    )
    in_branch = trapping.replace(
        LAP_OF_T, "if_(gt($a, 0.0:float64), cast<float64>($t), 0.0:float64)"
    )
    assert choose_temporaries(ir.parse_program(in_branch), "materialize").temporaries == []
    unguarded = trapping.replace(LAP_OF_T, "cast<float64>($t)")
    assert choose_temporaries(ir.parse_program(unguarded), "materialize").temporaries != []


def test_unknown_policy_is_rejected_by_name():
    with pytest.raises(ValueError, match=r"'sometimes'.*auto, materialize, recompute"):
        choose_temporaries(ir.parse_program(LAP_LAP), "sometimes")  # type: ignore[arg-type]


SCAN = """program p(a: field[I, K] float64, out: field[I, K] float64)
temporaries(s: field[I, K] float64 []) {
  s <- scan<K, forward; c>[](init(0.0:float64); plus(c, $a));
  out <- apply[I: 0:int64 .. 3:int64, K: 1:int64 .. 5:int64](plus($s, $s(K-1)));
}
"""


def test_a_scan_temporary_is_always_kept_and_its_domain_covers_the_shifted_reads():
    program = default_pipeline(ir.parse_program(SCAN), temporaries="recompute")
    (temporary,) = program.temporaries
    assert [(r.dim, ir.expr_text(r.start), ir.expr_text(r.stop)) for r in temporary.domain] == [
        ("I", "0:int64", "3:int64"),
        ("K", "0:int64", "5:int64"),
    ]
    assert isinstance(program.body[0], ir.Scan)
    assert ir.parse_program(ir.to_text(program)) == program


def test_reads_over_different_base_ranges_combine_with_minimum_and_maximum():
    text = SCAN.replace(
        "  out <- apply",
        "  out <- apply[I: 0:int64 .. 3:int64, K: 0:int64 .. n](plus($s, 1.0:float64));\n"
        "  out <- apply",
    ).replace("out: field[I, K] float64)", "out: field[I, K] float64, n: int64)")
    (temporary,) = infer_domains(ir.parse_program(text)).temporaries
    k = next(r for r in temporary.domain if r.dim == "K")
    assert ir.expr_text(k.start) == "minimum(0:int64, 0:int64)"
    assert ir.expr_text(k.stop) == "maximum(5:int64, n)"


def test_an_unread_temporary_is_dropped():
    text = SCAN.replace("plus($s, $s(K-1))", "$a")
    program = infer_domains(ir.parse_program(text))
    assert program.temporaries == [] and len(program.body) == 1


def test_a_scan_read_through_a_neighbour_table_is_a_clear_error():
    text = SCAN.replace("plus($s, $s(K-1))", "$s(C2E[0])")
    with pytest.raises(DomainInferenceError, match=r"temporary s .* neighbour table .*\$s\(C2E"):
        infer_domains(ir.parse_program(text))


def test_a_temporary_over_a_dimension_its_reader_lacks_is_a_clear_error():
    text = SCAN.replace("K: 1:int64 .. 5:int64", "J: 1:int64 .. 5:int64")
    with pytest.raises(DomainInferenceError, match="dimension K"):
        infer_domains(ir.parse_program(text))


# muphys' graupel: a scan reads an update at K and, under concat_where(K < n - 1), at K + 1
SCAN_OF_UPDATE = """program p(a: field[I, K] float64, out: field[I, K] float64, n: int32)
temporaries(t: field[I, K] float64 [], s: field[I, K] float64 []) {
  t <- apply[](plus(multiplies($a, $a), 1.0:float64));
  s <- scan<K, forward; c>[](init(0.0:float64); plus(c, multiplies($t, if_(lt(index<K>, \
minus(n, 1:int32)), $t(K+1), $t))));
  out <- apply[I: 0:int64 .. 3:int64, K: 0:int64 .. n]($s);
}
"""


def test_a_scan_reading_an_update_one_level_up_under_an_index_condition_keeps_it():
    program = choose_temporaries(ir.parse_program(SCAN_OF_UPDATE), "auto", min_saved_work=2)
    assert [t.name for t in program.temporaries] == ["t", "s"]
    (scan_value,) = _texts(infer_domains(program))[1:2]
    assert "$t(K+1)" in scan_value  # read, not recomputed
    t_domain = infer_domains(program).temporaries[0].domain
    (stop,) = [ir.expr_text(r.stop) for r in t_domain if r.dim == "K"]
    # up to the level the branch reads (n - 1 + 1), not one past the scan's domain (n + 1)
    assert "plus(minimum(n, minus(n, 1:int32)), 1:int64)" in stop and "plus(n," not in stop
