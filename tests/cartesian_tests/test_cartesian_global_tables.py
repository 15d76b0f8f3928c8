"""GlobalTable parameters: arrays with data dimensions only, read at compile-time indices
as ``table.A[i, ...]`` (released GTScript's spelling; NDSL exports the name)."""

from __future__ import annotations

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import FORWARD, PARALLEL, Field, GlobalTable, computation, interval


@gtscript.function
def _fourth(table):
    return table.A[3]


def _tables(
    steps: GlobalTable[np.int32, (5,)],
    weights: GlobalTable[(np.float64, (2, 3))],
    out: Field[np.float64],
):
    with computation(PARALLEL), interval(0, -1):
        out[0, 0, 0] = steps.A[1] + weights.A[1, 2]
    with computation(FORWARD), interval(-1, None):
        out[0, 0, 0] = steps.A[1] + _fourth(steps)


BACKENDS = [
    "numpy",
    "debug",
    pytest.param("gt:cpu_ifirst", marks=pytest.mark.slow),
    pytest.param("gt:gpu_emulated", marks=pytest.mark.slow),  # the gt:gpu code, on the host
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_table_reads_at_constant_indices(backend):
    stencil = gtscript.stencil(backend=backend, definition=_tables)
    steps = np.arange(5, dtype=np.int32) * 10
    weights = np.arange(6.0).reshape(2, 3)
    out = np.zeros((3, 3, 4))
    stencil(steps, weights, out)
    np.testing.assert_array_equal(out[1, 1, :], [15.0, 15.0, 15.0, 40.0])
    with pytest.raises(
        gtscript.StencilArgumentError, match=r"'steps' data dimensions must be \(5,\)"
    ):
        stencil(np.arange(4, dtype=np.int32), weights, out)


def _bare(t: GlobalTable[np.int32, (5,)], out: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        out = t


def _written(t: GlobalTable[np.int32, (5,)], out: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        t.A[1] = out


def _offset(t: GlobalTable[np.int32, (5,)], out: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        out = t[1, 0, 0]


def _out_of_range(t: GlobalTable[np.int32, (5,)], out: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        out = t.A[7]


def _dot_a_on_field(t: Field[(np.float64, (5,))], out: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        out = t.A[1]


@pytest.mark.parametrize(
    ("definition", "message", "line"),
    [
        (_bare, r"'t' is a GlobalTable: read one element as t.A\[i, ...\]", "out = t"),
        (_written, r"cannot assign to 't.A\[1\]': a GlobalTable is read-only", "t.A[1] = out"),
        (_offset, r"'t' is a GlobalTable \(no grid axes\)", "out = t[1, 0, 0]"),
        (_out_of_range, r"data index 7 is out of range for 't' \(size 5\)", "out = t.A[7]"),
        (_dot_a_on_field, r"index its data dimensions as t\[0, 0, 0\]\[i\]", "out = t.A[1]"),
    ],
)
def test_table_errors_name_the_line(definition, message, line):
    import inspect

    source, first = inspect.getsourcelines(definition)
    lineno = first + next(n for n, text in enumerate(source) if line in text)
    with pytest.raises(gtscript.GTScriptDefinitionError, match=message) as info:
        gtscript.stencil(backend="numpy", definition=definition)
    assert f"{__file__}:{lineno}:" in str(info.value)


def test_table_spellings():
    assert GlobalTable[(np.float64, (4))] == GlobalTable[np.float64, (4,)]
    assert repr(GlobalTable[np.float64, (2, 3)]) == "GlobalTable[(float64, (2, 3))]"
    with pytest.raises(gtscript.GTScriptDefinitionError, match="expected GlobalTable"):
        GlobalTable[np.float64]
