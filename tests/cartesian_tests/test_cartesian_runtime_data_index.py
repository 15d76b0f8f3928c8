"""Data-dimension indices computed at run time (issue 42, ADR 0046): a temporary, a scalar
parameter, a loop counter or arithmetic on them index a field's data dimensions, for reads and
for assignment targets, with the same meaning on every backend (debug is the oracle);
negative ones count from the end as in Python; one outside ``[-size, size)`` raises an
IndexError naming the field, the index and the size, and never touches memory outside the
field."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian._errors import GTScriptDefinitionError
from gt4py.cartesian.gtscript import FORWARD, IJK, PARALLEL, Field, computation, interval


DATADIM_SIZE = 8
DDIM = Field[IJK, (np.float64, 8)]  # the form NDSL writes: Field[IJK, (Float, (8))]
V4 = Field[IJK, (np.float64, (4,))]
M34 = Field[IJK, (np.float64, (3, 4))]
FI = Field[np.int64]
F = Field[np.float64]
rng = np.random.default_rng(46)


def stencil_with_ddim(in_field: DDIM, out_field: DDIM) -> None:  # NDSL's test_transient_refine
    with computation(PARALLEL), interval(...):
        n = 0
        while n < DATADIM_SIZE:
            out_field[0, 0, 0][n] = in_field[0, 0, 0][n] + 4
            n = n + 1


def test_ndsl_while_loop_over_the_data_dimension(backend):
    stencil = gtscript.stencil(backend=backend, definition=stencil_with_ddim)
    a = rng.random((3, 3, 4, DATADIM_SIZE))
    out = np.zeros_like(a)
    stencil(a, out)
    np.testing.assert_array_equal(out, a + 4)


def _indexed(a: V4, m: M34, idx: FI, n: int, b: F, c: V4, d: M34):
    with computation(PARALLEL), interval(...):
        t = idx - 1  # a temporary index, different at each point
        b = a[0, 0, 0][t] + 10.0 * a[0, 0, 0][n] + 100.0 * m[0, 0, 0][1, t + n]
        c[0, 0, 0][t] = b
        c[0, 0, 0][-1 - n] = a[0, 0, 0][-n - 1]  # negative: from the end
        if t > 1:
            d[0, 0, 0][n, t] = -1.0
    with computation(FORWARD), interval(1, None):
        d[0, 0, 0][2, t] = d[0, 0, -1][2, t] + 1.0  # written level by level


def _reference(a, m, idx, n):
    t = idx - 1
    ii, jj, kk = np.indices(idx.shape)
    b = a[ii, jj, kk, t] + 10.0 * a[..., n] + 100.0 * m[ii, jj, kk, 1, t + n]
    c = np.zeros_like(a)
    c[ii, jj, kk, t] = b
    c[..., -1 - n] = a[..., -n - 1]
    d = np.zeros_like(m)
    sel = t > 1
    d[ii[sel], jj[sel], kk[sel], n, t[sel]] = -1.0
    for i, j, k in np.ndindex(*idx.shape):
        if k >= 1:
            d[i, j, k, 2, t[i, j, k]] = d[i, j, k - 1, 2, t[i, j, k]] + 1.0
    return b, c, d


def _arguments(n):
    shape = (4, 3, 5)
    a = rng.random((*shape, 4))
    m = rng.random((*shape, 3, 4))
    idx = rng.integers(-2, 4, size=shape)  # t = idx - 1 in [-3, 2]; t + n < 4 - n for m
    idx = np.minimum(idx, 3 - n)
    return a, m, idx


@pytest.mark.parametrize("n", [0, 1])
def test_temporary_and_scalar_indices_read_and_write(backend, n):
    stencil = gtscript.stencil(backend=backend, definition=_indexed)
    a, m, idx = _arguments(n)
    b, c, d = np.zeros(idx.shape), np.zeros_like(a), np.zeros_like(m)
    stencil(a, m, idx, n, b, c, d)
    ref_b, ref_c, ref_d = _reference(a, m, idx, n)
    np.testing.assert_allclose(b, ref_b, rtol=1e-15)
    np.testing.assert_allclose(c, ref_c, rtol=1e-15)
    np.testing.assert_allclose(d, ref_d, rtol=1e-15)
    if backend != "debug":  # the oracle: the same on every backend
        oracle = gtscript.stencil(backend="debug", definition=_indexed)
        b2, c2, d2 = np.zeros(idx.shape), np.zeros_like(a), np.zeros_like(m)
        oracle(a, m, idx, n, b2, c2, d2)
        np.testing.assert_array_equal(b, b2)
        np.testing.assert_array_equal(c, c2)
        np.testing.assert_array_equal(d, d2)


_OUT_OF_RANGE = """
import json, sys
import numpy as np
from gt4py import storage
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, Field, IJK, computation, interval

backend = sys.argv[1]
if backend.endswith("_emulated") and backend not in storage.registered_backends():
    gpu = storage.backend_layout(backend.replace("_emulated", ""))
    storage.register_backend(backend, layout=gpu.layout, alignment=gpu.alignment)

V4 = Field[IJK, (np.float64, (4,))]

@gtscript.stencil(backend=backend)
def st(a: V4, idx: Field[np.int64], n: int, b: Field[np.float64], c: V4):
    with computation(PARALLEL), interval(...):
        b = a[0, 0, 0][n]
        if idx < 4:  # masked out where the index is bad: no error there
            b = b + a[0, 0, 0][idx]
        c[0, 0, 0][idx - 1] = 1.0

def call(n, bad=None):
    a = np.arange(4.0)[None, None, None, :] * np.ones((3, 3, 2, 1))
    idx = np.full((3, 3, 2), 2, dtype=np.int64)
    if bad is not None:
        idx[1, 2, 1] = bad
    b, c = np.zeros((3, 3, 2)), np.zeros((3, 3, 2, 4))
    try:
        st(a, idx, n, b, c)
    except IndexError as e:
        return ["IndexError", str(e)]
    return ["ok", float(b.sum()), float(c.sum())]

print(json.dumps({
    "good": call(-4),
    "masked": call(0, bad=4),
    "read": call(4),
    "read_negative": call(-5),
    "write": call(0, bad=-4),
    "write_high": call(0, bad=9),
}))
"""


def test_an_index_out_of_range_raises_on_every_backend(backend, _isolated_cache, tmp_path):
    # In a child process: were a compiled backend to index outside the field, the crash
    # would not take the test session with it.
    env = dict(os.environ, GT4PY_BUILD_CACHE_DIR=str(_isolated_cache))
    script = tmp_path / "out_of_range.py"
    script.write_text(textwrap.dedent(_OUT_OF_RANGE))
    done = subprocess.run(
        [sys.executable, str(script), backend],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    # a[..., -4] is a[..., 0] == 0; b = 0 + a[..., 2] = 2 at 18 points; c: 1 at 18 points
    assert results["good"] == ["ok", 36.0, 18.0]
    # the bad point's read is masked out (idx < 4 is false there); its write goes to 4 - 1 = 3
    assert results["masked"] == ["ok", 34.0, 18.0]
    message = "data index {} of field '{}' is outside the field (data dimension 0 has size 4)"
    assert results["read"] == ["IndexError", message.format(4, "a")]
    assert results["read_negative"] == ["IndexError", message.format(-5, "a")]
    assert results["write"] == ["IndexError", message.format(-5, "c")]
    assert results["write_high"] == ["IndexError", message.format(8, "c")]


def _definition_error(definition) -> GTScriptDefinitionError:
    with pytest.raises(GTScriptDefinitionError) as info:
        gtscript.stencil(backend="debug", definition=definition)
    return info.value


def test_a_float_or_bool_index_is_a_located_error():
    def float_index(a: V4, b: F):
        with computation(PARALLEL), interval(...):
            b = a[0, 0, 0][b]

    def bool_index(a: V4, b: F):
        with computation(PARALLEL), interval(...):
            b = a[0, 0, 0][b > 0.0]

    def float_target(a: V4, b: F):
        with computation(PARALLEL), interval(...):
            a[0, 0, 0][b * 2] = 1.0

    for definition, text, dtype in [
        (float_index, "'b'", "float64"),
        (bool_index, "'b > 0.0'", "bool"),
        (float_target, "'b * 2'", "float64"),
    ]:
        error = _definition_error(definition)
        assert f"the data index {text} is of type {dtype}: a data index is an integer" in str(error)
        assert error.loc is not None and error.loc.line > 0


def test_compile_time_indices_are_still_checked_when_defined():
    def out_of_range(a: V4, b: F):
        with computation(PARALLEL), interval(...):
            b = a[0, 0, 0][4]

    def too_many(a: V4, b: F, n: int):
        with computation(PARALLEL), interval(...):
            b = a[0, 0, 0][n, 0]

    assert "data index 4 is out of range for 'a' (size 4)" in str(_definition_error(out_of_range))
    assert "index it with 1 data index(es), got 2" in str(_definition_error(too_many))


def test_offsets_stay_compile_time_integers():
    def variable_offset(a: V4, b: F, n: int):
        with computation(PARALLEL), interval(...):
            a[0, n, 0][1] = b

    assert "this index must be a compile-time integer" in str(_definition_error(variable_offset))
