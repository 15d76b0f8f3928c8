"""itir_python's numpy code for small IR programs given as text: the index arrays, gathers,
reductions and scan loops it must contain.

Snippets, not whole files (``@`` a generator-chosen number, whitespace any whitespace); the
programs and the snippet matching are shared with the gtfn test: ``golden_programs``.
"""

from __future__ import annotations

import re

import pytest
from golden_programs import (
    SHIFT_1D,
    STENCIL,
    WHERE,
    neighbour_reduction,
    scan,
    snippet_assertions,
)

from gt4py.next import ir
from gt4py.next.backends.python_numpy._codegen import generate


assert_snippet, _ = snippet_assertions("Python")


def python(text: str) -> str:
    source = generate(ir.parse_program(text))
    compile(source, "<generated>", "exec")  # valid Python, whatever else it contains
    return source


def test_stencil_index_arrays_and_shifted_gathers():
    source = python(STENCIL)
    assert_snippet(source, "lo@_I = int(np.int64(1)) hi@_I = int(np.subtract(n, np.int64(1)))")
    assert_snippet(source, "lo@_J = int(np.int64(1)) hi@_J = int(np.int64(9))")
    # one index array per dimension, broadcast against each other
    assert_snippet(source, "i@_I = np.arange(lo@_I, hi@_I).reshape(-1, 1,)")
    assert_snippet(source, "i@_J = np.arange(lo@_J, hi@_J).reshape(1, -1,)")
    assert_snippet(
        source,
        "np.subtract(_gather(a, ((i@_I + 1) - a_lo_I, i@_J - a_lo_J,)),"
        " np.multiply(np.float64(2.0), _gather(a, (i@_I - a_lo_I, (i@_J + -1) - a_lo_J,))))",
    )
    assert_snippet(source, "out[i@_I - out_lo_I, i@_J - out_lo_J] = np.broadcast_to(")


def test_one_dimensional_shift_and_python_floor_division():
    source = python(SHIFT_1D)
    assert_snippet(source, "i@_I = np.arange(lo@_I, hi@_I).reshape(-1,)")
    assert_snippet(source, "np.floor_divide(_gather(a, ((i@_I + 2) - a_lo_I,)), np.int32(3))")


@pytest.mark.parametrize(
    ("op", "init", "numpy_reduction", "numpy_init"),
    [
        ("plus", "0.0:float64", "np.sum", "np.float64(0.0)"),
        ("maximum", "-inf:float64", "np.max", "np.float64(float('-inf'))"),
    ],
)
def test_neighbour_reduction_gathers_through_the_table_and_masks_skip_values(
    op, init, numpy_reduction, numpy_init
):
    source = python(neighbour_reduction(op, init))
    neighbours = "V2E[np.asarray(i@_Vertex)[..., None], np.arange(V2E.shape[1])]"
    gathered = f"_gather(a, ({neighbours} - a_lo_Edge, np.asarray(i@_K)[..., None] - a_lo_K,))"
    assert_snippet(source, f"{numpy_reduction}(np.concatenate([np.broadcast_to({numpy_init},")
    # a skipped neighbour contributes the initial value, which changes no reduction
    assert_snippet(source, f"np.where(({neighbours} != V2E_skip), np.broadcast_to({gathered},")
    assert_snippet(source, f"(V2E.shape[1],))), {numpy_init})], axis=-1), axis=-1)")


@pytest.mark.parametrize(
    ("direction", "axis_loop"),
    [
        ("forward", "for level@ in range(lo@_K, hi@_K):"),
        ("backward", "for level@ in range(hi@_K - 1, lo@_K - 1, -1):"),
    ],
)
def test_scan_loops_over_its_axis_vectorized_over_the_others(direction, axis_loop):
    source = python(scan(direction))
    assert_snippet(source, "i@_I = np.arange(lo@_I, hi@_I).reshape(-1, 1,)")
    assert_snippet(source, "c0, = np.float64(0.0),\n" + axis_loop)
    assert_snippet(
        source,
        "new@_@ = np.asarray(np.add(c0, _gather(a, (i@_I - a_lo_I, (level@ + 1) - a_lo_K,))))"
        ".astype(np.float64) c0, = new@_@,",
    )
    assert_snippet(
        source, "out[i@_I - out_lo_I, level@ - out_lo_K] = np.broadcast_to(np.asarray(c0,"
    )
    assert not re.search(r"i\d+_K = np\.arange", source)  # K is the loop, not an index array


def test_where_selects_with_np_where_and_checks_its_branches_first():
    source = python(WHERE)
    read = "_gather(a, (i@_I - a_lo_I,))"
    condition = f"np.less({read}, np.float64(0.0))"
    inside = "np.where(((i@_I) >= a_lo_I) & ((i@_I) < a_hi_I), 0, 1)"
    # the reads in the branches are checked before any value is written
    assert_snippet(
        source, f"status@ = np.max(np.where({condition}, {inside}, {inside}), initial=0)"
    )
    assert_snippet(source, "if status@: return int(status@)")
    assert_snippet(source, f"np.where({condition}, np.negative({read}), {read})")
    assert source.index("if status") < source.index("out[")
