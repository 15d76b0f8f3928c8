"""Neighbour-table layouts (column count, skip values) as part of the gtfn translation input:
constant neighbour counts, no skip checks for tables without skip values, table entries
loaded once per outer point, ``omp simd`` innermost loops."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import ir
from gt4py.next.backends._arguments import parse_table_layout, table_arguments, table_layout
from gt4py.next.backends.gtfn._codegen import CppGenerator


@pytest.mark.parametrize(
    ("dtype", "count", "has_skip", "text"),
    [
        ("int32", 3, False, "int32[3]"),
        ("int64", 6, True, "int64[6]?"),
    ],
)
def test_layout_round_trip(dtype: str, count: int, has_skip: bool, text: str) -> None:
    assert table_layout(dtype, count, has_skip) == text
    assert parse_table_layout(text) == (dtype, count, has_skip)


def test_plain_dtype_means_nothing_known() -> None:
    assert table_layout("int32", None, False) == "int32"
    assert parse_table_layout("int32") == ("int32", None, True)


@pytest.mark.parametrize("text", ["int32[", "int32[x]", "int32[3]!", "int32[]"])
def test_malformed_layout_is_rejected(text: str) -> None:
    with pytest.raises(ValueError, match="malformed neighbour table layout"):
        parse_table_layout(text)


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
    assert layouts == {"C2E": "int32[3]"}
    table[1, 2] = -1
    skipping = {"C2E": gtx.as_connectivity([Cell, C2EDim], Edge, table)}
    _, layouts = table_arguments(_program(), skipping)
    assert layouts == {"C2E": "int32[3]?"}


def test_known_layout_without_skip_values_unrolls_and_hoists() -> None:
    source = CppGenerator(_program(), {"C2E": "int32[3]"}).module("m")
    assert "!= C2E_skip" not in source
    assert "compiled for 3 columns" in source
    assert "#pragma omp simd" in source
    # one table load per neighbour, outside the innermost loop
    assert source.count("= index_t(C2E[i_Cell * C2E_s0 + 0 * C2E_s1]);") == 1
    assert "for (index_t n" not in source


def test_known_layout_with_skip_values_keeps_the_checks() -> None:
    source = CppGenerator(_program(), {"C2E": "int32[3]?"}).module("m")
    assert "!= C2E_skip" in source
    assert "for (index_t n" not in source


def test_unknown_layout_loops_to_the_runtime_count() -> None:
    source = CppGenerator(_program(), {"C2E": "int32"}).module("m")
    assert "< C2E_count" in source
    assert "!= C2E_skip" in source
