"""Neighbour-table layouts (column count, skip values) as part of the gtfn translation input:
constant neighbour counts, no skip checks for tables without skip values, table entries
loaded once per outer point, ``omp simd`` innermost loops."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import fingerprinting as fp
from gt4py.next import ir
from gt4py.next.backends._arguments import table_arguments
from gt4py.next.backends._table_layout import TableLayout
from gt4py.next.backends.gtfn._codegen import CppGenerator


@pytest.mark.parametrize(
    ("layout", "text"),
    [
        (TableLayout("int32", 3, False), "int32[3]"),
        (TableLayout("int64", 6, True), "int64[6]?"),
        (TableLayout("int32"), "int32"),
    ],
)
def test_layout_reads_as_its_fields(layout: TableLayout, text: str) -> None:
    assert str(layout) == text


def test_plain_dtype_means_nothing_known() -> None:
    layout = TableLayout("int32")
    assert (layout.columns, layout.has_skip) == (None, True)


@pytest.mark.parametrize(
    ("columns", "has_skip"), [(-1, True), (True, True), ("3", True), (2.0, False)]
)
def test_impossible_layout_is_rejected(columns: object, has_skip: bool) -> None:
    with pytest.raises(ValueError, match="TableLayout"):
        TableLayout("int32", columns, has_skip)  # type: ignore[arg-type]


def test_layouts_fingerprint_by_value() -> None:
    assert fp.strict(TableLayout("int32", 3, False)) == fp.strict(TableLayout("int32", 3, False))
    assert fp.strict(TableLayout("int32", 3, False)) != fp.strict(TableLayout("int32", 3, True))


Cell = gtx.Dimension("Cell")
Edge = gtx.Dimension("Edge")
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)


def _program() -> ir.Program:
    """out[Cell, K] = sum over C2E of flux[C2E[Cell, n], K]."""
    read = ir.Deref(field="flux", shifts=[ir.NeighbourShift(offset="C2E", index=None)])
    domain = [
        ir.Range(
            dim=d,
            start=ir.FieldBound(field="out", dim=d, upper=False),
            stop=ir.FieldBound(field="out", dim=d, upper=True),
        )
        for d in ("Cell", "K")
    ]
    reduce = ir.Reduce(
        op="plus",
        axis="C2E",
        tables=["C2E"],
        init=ir.Literal(value="0.0", dtype="float64"),
        body=read,
    )
    return ir.Program(
        name="div",
        params=[
            ir.FieldParam(name="flux", dims=["Edge", "K"], dtype="float64"),
            ir.FieldParam(name="out", dims=["Cell", "K"], dtype="float64"),
        ],
        offsets=[ir.OffsetDecl(name="C2E", domain_dim="Cell", local="C2E", codomain="Edge")],
        body=[ir.Apply(outputs=["out"], domain=domain, values=[reduce])],
    )


def test_table_arguments_report_count_and_skip_values() -> None:
    table = np.array([[0, 1, 2], [2, 1, 0]], dtype=np.int32)
    full = {"C2E": gtx.as_connectivity([Cell, C2EDim], Edge, table)}
    _, layouts = table_arguments(_program(), full)
    assert layouts == {"C2E": TableLayout("int32", 3, False)}
    table[1, 2] = -1
    skipping = {"C2E": gtx.as_connectivity([Cell, C2EDim], Edge, table)}
    _, layouts = table_arguments(_program(), skipping)
    assert layouts == {"C2E": TableLayout("int32", 3, True)}


def test_known_layout_without_skip_values_unrolls_and_hoists() -> None:
    source = CppGenerator(_program(), {"C2E": TableLayout("int32", 3, False)}).module("m")
    assert "!= C2E_skip" not in source
    assert "compiled for 3 columns" in source
    assert "#pragma omp simd" in source
    # one table load per neighbour, outside the innermost loop
    assert source.count("= index_t(C2E[i_Cell * C2E_s0 + 0 * C2E_s1]);") == 1
    assert "for (index_t n" not in source


def test_known_layout_with_skip_values_keeps_the_checks() -> None:
    source = CppGenerator(_program(), {"C2E": TableLayout("int32", 3, True)}).module("m")
    assert "!= C2E_skip" in source
    assert "for (index_t n" not in source


def test_unknown_layout_loops_to_the_runtime_count() -> None:
    source = CppGenerator(_program(), {"C2E": TableLayout("int32")}).module("m")
    assert "< C2E_count" in source
    assert "!= C2E_skip" in source
