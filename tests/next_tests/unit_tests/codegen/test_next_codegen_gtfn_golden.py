"""gtfn's C++ for small IR programs given as text: the loop headers, index expressions and
reduction updates it must contain.

Snippets, not whole files (``@`` a generator-chosen number, whitespace any whitespace); the
programs and the snippet matching are shared with the itir_python test: ``golden_programs``.
"""

from __future__ import annotations

import re

import pytest
from golden_programs import (
    NEIGHBOUR_MAX,
    NEIGHBOUR_SUM,
    SHIFT_1D,
    STENCIL,
    WHERE,
    scan,
    snippet_assertions,
)

from gt4py.next import ir
from gt4py.next.backends._table_layout import TableLayout
from gt4py.next.backends.gtfn._codegen import PARALLEL_THRESHOLD, CppGenerator


assert_snippet, assert_no_snippet = snippet_assertions("C++")


def cpp(text: str, tables: dict[str, TableLayout] | None = None, **options: object) -> str:
    """The ``run`` function generated for the IR program ``text`` (no includes or prelude)."""
    source = CppGenerator(ir.parse_program(text), tables or {}, **options).module("m")  # type: ignore[arg-type]
    return source[source.index("// program") :]


def test_stencil_loop_nest_and_shifted_reads():
    source = cpp(STENCIL)
    assert_snippet(
        source,
        "const index_t lo@ = index_t(std::int64_t(1)), hi@ = index_t((n - std::int64_t(1)));",
    )
    assert_snippet(
        source, "const index_t lo@ = index_t(std::int64_t(1)), hi@ = index_t(std::int64_t(9));"
    )
    # the outer dimension in parallel, the last one the innermost (simd) loop
    assert_snippet(
        source,
        "#pragma omp parallel for if(points@ > 32768) for (index_t i_I = lo@; i_I < hi@; ++i_I) {",
    )
    assert_snippet(source, "#pragma omp simd for (index_t i_J = lo@; i_J < hi@; ++i_J) {", count=2)
    # general strides, and the copy for arrays contiguous along J
    assert_snippet(source, "const bool contiguous@ = a_s_J == 1 && out_s_J == 1;")
    assert_snippet(
        source,
        "(a[(i_I + 1) * a_s_I + i_J * a_s_J] - (double(2.0) * a[i_I * a_s_I + (i_J + -1) * a_s_J]))",
    )
    assert_snippet(
        source,
        "(a[(i_I + 1) * a_s_I + i_J * index_t(1)] - (double(2.0) * a[i_I * a_s_I + (i_J + -1) * index_t(1)]))",
    )
    assert_snippet(source, "out[i_I * out_s_I + i_J * out_s_J] = static_cast<double>(v@);")
    assert_snippet(source, "out[i_I * out_s_I + i_J * index_t(1)] = static_cast<double>(v@);")


def test_one_dimensional_shift_and_python_floor_division():
    source = cpp(SHIFT_1D)
    assert_snippet(
        source,
        "#pragma omp parallel for collapse(1) if(points@ > 32768) for (index_t i_I = lo@; i_I < hi@; ++i_I) {",
    )
    assert_snippet(source, "gt4py::floordiv(a[(i_I + 2) * a_s_I], std::int32_t(3))")
    assert_snippet(source, "out[i_I * out_s_I] = static_cast<std::int32_t>(v@);")


def test_the_module_includes_the_shared_python_semantics_header():
    source = CppGenerator(ir.parse_program(SHIFT_1D), {}).module("m")
    assert "#include <gt4py/python_semantics.hpp>" in source
    assert "gt_floordiv" not in source  # no private copy of the helpers


def test_neighbour_sum_over_known_columns_with_skip_values():
    source = cpp(NEIGHBOUR_SUM, {"V2E": TableLayout("int32", 3, True)})
    assert_snippet(
        source,
        'if (index_t(V2E_table.shape(1)) != 3) throw std::invalid_argument("neighbour table V2E: compiled for 3 columns");',
    )
    assert_snippet(source, "constexpr index_t V2E_count = 3;")
    assert_no_snippet(source, "for (index_t n@")  # three columns: unrolled
    for column in range(3):
        # the entry loaded once per Vertex (outside the K loop), skipped neighbours left out
        entry = re.search(
            rf"const index_t (h\d+) = index_t\(V2E\[i_Vertex \* V2E_s0 \+ {column} \* V2E_s1\]\);",
            source,
        )
        assert entry, f"column {column} is not loaded once per outer point"
        h = entry.group(1)
        assert source.index(entry.group(0)) < source.index("for (index_t i_K")
        assert_snippet(
            source,
            f"if ({h} != V2E_skip) {{ acc@ = acc@ + a[index_t({h}) * a_s_Edge + i_K * a_s_K]; }}",
        )
    assert_snippet(source, "auto acc@ = double(0.0);", count=2)  # contiguous and general copy


def test_neighbour_sum_without_skip_values_has_no_skip_checks():
    source = cpp(NEIGHBOUR_SUM, {"V2E": TableLayout("int32", 3, False)})
    assert_no_snippet(source, "!= V2E_skip")
    assert_snippet(source, "acc@ = acc@ + a[index_t(h@) * a_s_Edge + i_K * a_s_K];", count=3)


def test_neighbour_sum_over_run_time_columns_loops_and_checks_skip_values():
    source = cpp(NEIGHBOUR_SUM, {"V2E": TableLayout("int32")})
    assert_snippet(source, "const index_t V2E_count = index_t(V2E_table.shape(1));")
    assert_snippet(
        source,
        "for (index_t n@ = 0; n@ < V2E_count; ++n@) { if (V2E[i_Vertex * V2E_s0 + n@ * V2E_s1] != V2E_skip)"
        " { acc@ = acc@ + a[index_t(V2E[i_Vertex * V2E_s0 + n@ * V2E_s1]) * a_s_Edge + i_K * a_s_K]; } }",
    )


def test_neighbour_max_combines_with_python_maximum():
    source = cpp(NEIGHBOUR_MAX, {"V2E": TableLayout("int32", 4, False)})
    assert_snippet(source, "auto acc@ = (-std::numeric_limits<double>::infinity());")
    for column in range(4):
        read = f"a[index_t(V2E[i_Vertex * V2E_s0 + {column} * V2E_s1]) * a_s_Edge]"
        assert_snippet(source, f"acc@ = gt4py::maximum(acc@, {read});")


@pytest.mark.parametrize(
    ("direction", "axis_loop"),
    [
        ("forward", "for (index_t i_K = lo@; i_K < hi@; ++i_K) {"),
        ("backward", "for (index_t i_K = hi@ - 1; i_K >= lo@; --i_K) {"),
    ],
)
def test_scan_is_sequential_in_its_axis_inside_a_parallel_loop(direction, axis_loop):
    source = cpp(scan(direction))
    assert_snippet(
        source,
        "#pragma omp parallel for collapse(1) if(points@ > 32768)"
        " for (index_t i_I = lo@; i_I < hi@; ++i_I) { double c0 = double(0.0); " + axis_loop,
    )
    assert_snippet(source, "const double v@ = (c0 + a[i_I * a_s_I + (i_K + 1) * a_s_K]); c0 = v@;")
    assert_snippet(source, "out[i_I * out_s_I + i_K * out_s_K] = static_cast<double>(c0);")


def test_where_reads_its_branches_lazily_and_checks_them_per_point():
    source = cpp(WHERE)
    checked = (
        "(((i_I) >= a_lo_I && (i_I) < a_hi_I) ? a[i_I * a_s_I] : gt_outside<double>(gt_status, 1))"
    )
    assert_snippet(source, f"((a[i_I * a_s_I] < double(0.0)) ? (-{checked}) : {checked})")


@pytest.mark.parametrize("program", [STENCIL, SHIFT_1D, scan("forward")])
def test_without_openmp_there_is_no_pragma_but_the_same_loops(program):
    with_openmp = cpp(program)
    without = cpp(program, openmp=False)
    assert "#pragma omp parallel for" in with_openmp
    assert "#pragma" not in without
    loops = re.findall(r"for \(index_t i_\w+ = [^)]*\)", with_openmp)
    assert loops and loops == re.findall(r"for \(index_t i_\w+ = [^)]*\)", without)


@pytest.mark.parametrize("program", [STENCIL, SHIFT_1D])
def test_the_parallel_threshold_is_the_generators_argument(program):
    source = cpp(program, parallel_threshold=1000)
    assert_snippet(source, "if(points@ > 1000)")
    assert str(PARALLEL_THRESHOLD) not in source
