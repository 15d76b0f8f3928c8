"""FV3-style GTScript, unchanged, with one semantics on every backend (issue 12).

Each stencil runs on the backend under test and on ``debug`` (plain loops: the reference
semantics); both must agree with each other and with a numpy reference written by hand.
Covered: axis indices as externals and in ``region[...]``, several regions per
``horizontal``, writes to IJ fields, IJ temporaries (ADR 0016), ``K`` as the level index,
boolean stencils on numpy 1.26, GTScript functions and constants from other modules,
``interval(None, n)``, ``a.at(K=...)``, regions in FORWARD computations, and the errors of
bad region specs.
"""

from __future__ import annotations

import importlib
import linecache
import pathlib
import sys

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import (
    BACKWARD,
    FORWARD,
    IJ,
    PARALLEL,
    AxisIndex,
    Field,
    I,
    J,
    K,
    computation,
    horizontal,
    interval,
    region,
)
from gt4py.infra import fingerprinting


# FV3 keeps its GTScript functions and constants in modules of their own, imported as modules.
sys.path.insert(0, str(pathlib.Path(__file__).with_name("fv3_modules")))
consts = importlib.import_module("fv3_consts")
helpers = importlib.import_module("fv3_helpers")

F = Field[np.float64]
FI = Field[np.int64]
FB = Field[np.bool_]
FIJ = Field[IJ, np.float64]
rng = np.random.default_rng(12)


def _run(backend, definition, make_args, *, call=None, **stencil_kwargs):
    """Run ``definition`` on ``backend`` and on debug with equal fresh arguments; check that
    they agree and return the backend's arguments."""
    got, want = make_args(), make_args()
    gtscript.stencil(backend=backend, definition=definition, **stencil_kwargs)(*got, **(call or {}))
    gtscript.stencil(backend="debug", definition=definition, **stencil_kwargs)(
        *want, **(call or {})
    )
    for g, w in zip(got, want, strict=True):
        if isinstance(g, np.ndarray):
            np.testing.assert_array_equal(g, w)
    return got


def _line_of(func, text: str) -> str:
    code = func.__code__
    lines = linecache.getlines(code.co_filename)
    for n in range(code.co_firstlineno - 1, len(lines)):
        if text in lines[n]:
            return f"{code.co_filename}:{n + 1}"
    raise AssertionError(f"{text!r} not found")


# -- 1. axis indices as values ----------------------------------------------------------------------
def test_axis_index_is_a_hashable_shiftable_value():
    assert I[0] == AxisIndex("I", 0)
    assert J[-1] - 1 == AxisIndex("J", -1, -1)
    assert 2 + I[0] == I[0] + 2 == AxisIndex("I", 0, 2)
    assert (I[0] + 1) - 1 == I[0]
    assert I[0] != J[0] and I[0] != I[-1]
    assert len({I[0], I[0] + 0, I[-1], J[-1] - 1}) == 3
    assert repr(J[-1] - 1) == "J[-1] - 1" and repr(I[0] + 2) == "I[0] + 2"
    assert fingerprinting.strict(I[0]) == fingerprinting.strict(AxisIndex("I", 0))
    assert fingerprinting.strict(I[0]) != fingerprinting.strict(I[0] + 1)
    assert fingerprinting.strict(I[0]) != fingerprinting.strict(J[0])
    with pytest.raises(TypeError):
        I[0] + 1.5  # noqa: B018
    with pytest.raises(gtscript.GTScriptError, match=r"I\['x'\]: an axis index is I\[n\]"):
        I["x"]  # type: ignore[index]


def test_axis_index_externals_are_part_of_the_cache_key():
    from gt4py.cartesian._stencil_key import stencil_identity

    def edge(out: F):
        from __externals__ import i_start

        with computation(PARALLEL), interval(...):  # noqa: SIM117 - GTScript nesting
            with horizontal(region[i_start, :]):
                out = 1.0

    def key(value):
        return stencil_identity(
            edge, backend="numpy", externals={"i_start": value}, dtypes={}, name="edge", options={}
        ).key

    assert key(I[0]).digest == key(I[0] + 0).digest
    assert key(I[0]).digest != key(I[0] + 1).digest
    assert key(I[0]).digest != key(I[-1]).digest


FV3_EXTERNALS = {"i_start": I[0], "i_end": I[-1], "j_start": J[0] + 1, "j_end": J[-1] - 1}


def fv3_edges(a: F, out: F):
    from __externals__ import i_end, i_start, j_end, j_start

    with computation(PARALLEL), interval(...):
        out = a
        with horizontal(region[i_start, :], region[:, j_end]):
            out = out + 10.0
        with horizontal(region[i_start : i_end + 1, j_start]):
            out = out * 2.0
        with horizontal(region[i_end, j_start:None]):
            out = -out


def test_axis_indices_from_externals_in_regions(backend):
    a0 = rng.random((7, 6, 3))

    def args():
        return [a0.copy(), np.full_like(a0, -7.0)]

    _, out = _run(
        backend,
        fv3_edges,
        args,
        externals=FV3_EXTERNALS,
        call={"origin": (1, 1, 0), "domain": (5, 4, 3)},
    )
    ref = np.full_like(a0, -7.0)
    d = a0[1:6, 1:5].copy()  # the compute domain: i_start 0, i_end 4, j_start 1, j_end 2
    d[0, :] += 10.0
    d[:, 2] += 10.0  # the corner (0, 2) is in both regions: +20
    d[0:5, 1] *= 2.0
    d[4, 1:] = -d[4, 1:]
    ref[1:6, 1:5] = d
    np.testing.assert_array_equal(out, ref)


def written_axis_indices(out: F):
    with computation(PARALLEL), interval(...):  # noqa: SIM117 - GTScript nesting
        with horizontal(region[I[0] : I[2], :]):
            out = 1.0
        with horizontal(region[I[0], J[0]]):
            out = 2.0
        with horizontal(region[-2:None, J[-1]]):  # plain integers and None bound regions too
            out = 3.0
        with horizontal(region[I[1] + 1 : I[-1] - 1, 1:3]):
            out = out + 0.5


def test_axis_indices_written_in_regions(backend):
    (out,) = _run(backend, written_axis_indices, lambda: [np.zeros((6, 5, 2))])
    ref = np.zeros((6, 5, 2))
    ref[0:2, :] = 1.0
    ref[0, 0] = 2.0
    ref[4:6, 4] = 3.0
    ref[2:4, 1:3] += 0.5
    np.testing.assert_array_equal(out, ref)


def test_region_edges_inside_a_forward_computation(backend):
    def column(a: F, out: F):
        from __externals__ import i_start, j_end

        with computation(FORWARD):
            with interval(0, 1):
                out = a
            with interval(1, None):
                out = out[0, 0, -1] + a
                with horizontal(region[i_start, :]):
                    out = a
                with horizontal(region[:, j_end]):
                    out = out * 0.5

    a0 = rng.random((5, 4, 4))
    _, out = _run(backend, column, lambda: [a0.copy(), np.zeros_like(a0)], externals=FV3_EXTERNALS)
    ref = np.zeros_like(a0)
    ref[:, :, 0] = a0[:, :, 0]
    for k in range(1, 4):
        ref[:, :, k] = ref[:, :, k - 1] + a0[:, :, k]
        ref[0, :, k] = a0[0, :, k]
        ref[:, 2, k] *= 0.5  # j_end = J[-1] - 1
    np.testing.assert_allclose(out, ref)


# -- 2. IJ fields written; K as a value -------------------------------------------------------------
def surface_and_column_sum(a: F, top: FIJ, total: FIJ, weighted: FIJ):
    with computation(FORWARD), interval(-1, None):
        top = a
    with computation(FORWARD):
        with interval(0, 1):
            total = a
        with interval(1, None):
            total = total + a  # read-modify-write of an IJ field at every level
    with computation(BACKWARD), interval(...):
        weighted = weighted * 0.5 + a


def test_ij_fields_written_in_sequential_computations(backend):
    a0 = rng.random((4, 3, 5))
    w0 = rng.random((4, 3))

    def args():
        return [a0.copy(), np.zeros((4, 3)), np.zeros((4, 3)), w0.copy()]

    _, top, total, weighted = _run(backend, surface_and_column_sum, args)
    np.testing.assert_array_equal(top, a0[:, :, -1])
    np.testing.assert_allclose(total, a0.sum(axis=2))
    ref = w0.copy()
    for k in range(4, -1, -1):
        ref = ref * 0.5 + a0[:, :, k]
    np.testing.assert_allclose(weighted, ref)


def test_ij_field_with_origin_and_domain(backend):
    a0 = rng.random((6, 5, 4))
    _, top, total, _ = _run(
        backend,
        surface_and_column_sum,
        lambda: [a0.copy(), np.zeros((6, 5)), np.zeros((6, 5)), np.zeros((6, 5))],
        call={"origin": (1, 2, 1), "domain": (3, 2, 2)},
    )
    ref_top, ref_total = np.zeros((6, 5)), np.zeros((6, 5))
    ref_top[1:4, 2:4] = a0[1:4, 2:4, 2]
    ref_total[1:4, 2:4] = a0[1:4, 2:4, 1:3].sum(axis=2)
    np.testing.assert_array_equal(top, ref_top)
    np.testing.assert_allclose(total, ref_total)


def level_index(a: F, out: F, outi: FI, depth: F):
    with computation(PARALLEL), interval(...):
        outi = K + 1
        out = a * K
        if K >= 2:
            out = -out
    with computation(FORWARD):
        with interval(0, 1):
            depth = 0.5
        with interval(1, None):
            depth = depth[0, 0, -1] + gtscript.K


def test_k_is_the_level_index_in_the_compute_domain(backend):
    a0 = rng.random((3, 2, 6))

    def args():
        return [a0.copy(), np.zeros_like(a0), np.zeros(a0.shape, np.int64), np.zeros_like(a0)]

    _, out, outi, depth = _run(
        backend, level_index, args, call={"origin": (0, 0, 1), "domain": (3, 2, 4)}
    )
    k = np.arange(4)  # the level index counts from the domain's first level (origin K = 1)
    ref_out = np.zeros_like(a0)
    ref_out[:, :, 1:5] = a0[:, :, 1:5] * np.where(k >= 2, -k, k)
    np.testing.assert_allclose(out, ref_out)
    assert outi[0, 0].tolist() == [0, 1, 2, 3, 4, 0]
    assert depth[0, 0].tolist() == [0.0, 0.5, 1.5, 3.5, 6.5, 0.0]


def test_absolute_k_read_with_the_level_index(backend):
    def flip(a: F, out: F):
        from __externals__ import NK

        with computation(PARALLEL), interval(...):
            out = a.at(K=NK - 1 - K)

    a0 = rng.random((3, 2, 5))
    _, out = _run(backend, flip, lambda: [a0.copy(), np.zeros_like(a0)], externals={"NK": 5})
    np.testing.assert_array_equal(out, a0[:, :, ::-1])


# -- 3. IJ temporaries (item 8; ADR 0016) -----------------------------------------------------------
# The input and outputs of released gt4py 1.2.3 (numpy and debug backends agree), run on the
# same definitions: the IJ temporary holds one value per column, carried from level to level.
X_ITEM8 = (np.arange(2 * 3 * 4.0) % 7 + 1).reshape(2, 3, 4)
RELEASED_CUMULATIVE = [
    [[0.0, 3.0, 6.0, 10.0], [0.0, 11.0, 18.0, 19.0], [0.0, 5.0, 9.0, 14.0]],
    [[0.0, 13.0, 14.0, 16.0], [0.0, 7.0, 12.0, 18.0], [0.0, 8.0, 10.0, 13.0]],
]
RELEASED_BACKWARD = [
    [[3.25, 4.5, 5.0, 0.0], [9.875, 9.75, 7.5, 0.0], [5.125, 6.25, 6.5, 0.0]],
    [[10.0, 8.0, 2.0, 0.0], [7.0, 8.0, 8.0, 0.0], [8.375, 2.75, 3.5, 0.0]],
]


def ij_cumulative(a: F, out: F):
    with computation(FORWARD), interval(0, 1):
        tmp: Field[IJ, np.float64] = a
    with computation(FORWARD), interval(1, None):
        tmp = tmp + a
        out = tmp


def ij_backward(a: F, out: F):
    with computation(BACKWARD), interval(-1, None):
        tmp: Field[IJ, np.float64] = a
    with computation(BACKWARD), interval(0, -1):
        tmp = tmp * 0.5 + a
        out = tmp


def test_ij_temporary_carries_its_value_across_levels(backend):
    # Before ADR 0016 the annotation was ignored and tmp was an IJK temporary: every backend
    # gave out[0, 0] == [0, 2, 3, 4] (tmp read 0 at each new level), released gave the sums.
    (_, out) = _run(backend, ij_cumulative, lambda: [X_ITEM8.copy(), np.zeros_like(X_ITEM8)])
    assert out.tolist() == RELEASED_CUMULATIVE
    ref = np.cumsum(X_ITEM8, axis=2)
    ref[:, :, 0] = 0.0
    np.testing.assert_array_equal(out, ref)
    (_, out) = _run(backend, ij_backward, lambda: [X_ITEM8.copy(), np.zeros_like(X_ITEM8)])
    assert out.tolist() == RELEASED_BACKWARD


def ij_column_max_and_total(a: F, total: F, running_max: F, shifted: F):
    with computation(FORWARD):
        with interval(0, 1):
            acc: Field[IJ, np.float64] = a
        with interval(1, None):
            acc = acc + a
    with computation(FORWARD), interval(...):
        m: Col = 0.0  # noqa: F821 - the name comes from dtypes=
    with computation(FORWARD), interval(...):
        if a > m:  # noqa: PLR1730 - a field if, as FV3 writes it
            m = a
        running_max = m
    with computation(PARALLEL), interval(...):
        total = acc  # the column total, read at every level
        shifted = acc[1, 0] - acc[-1, 0]  # computed on a halo of the IJ temporary


def test_ij_temporaries_read_in_parallel_with_offsets(backend):
    a0 = rng.random((6, 3, 4))

    def args():
        return [a0.copy(), np.zeros_like(a0), np.zeros_like(a0), np.zeros_like(a0)]

    _, total, running_max, shifted = _run(
        backend,
        ij_column_max_and_total,
        args,
        dtypes={"Col": Field[IJ, np.float64]},
        call={"origin": (1, 0, 0), "domain": (4, 3, 4)},
    )
    col = a0.sum(axis=2)
    ref_total, ref_max, ref_shifted = (np.zeros_like(a0) for _ in range(3))
    ref_total[1:5] = col[1:5, :, None]
    ref_max[1:5] = np.maximum.accumulate(a0[1:5], axis=2)
    ref_shifted[1:5] = (col[2:6] - col[0:4])[:, :, None]
    np.testing.assert_allclose(total, ref_total)
    np.testing.assert_array_equal(running_max, ref_max)
    np.testing.assert_allclose(shifted, ref_shifted)


def test_ij_temporary_written_in_parallel_is_an_error(backend):
    def st(a: F, out: F):
        with computation(FORWARD), interval(0, 1):
            tmp: Field[IJ, np.float64] = a
        with computation(PARALLEL), interval(...):
            tmp = a * 2.0
            out = tmp

    with pytest.raises(
        gtscript.GTScriptDefinitionError, match=r"cannot write to 'tmp' \(axes IJ\) in a PARALLEL"
    ) as info:
        gtscript.stencil(backend=backend, definition=st)
    assert _line_of(st, "tmp = a * 2.0") in str(info.value)


def test_annotated_scalar_type_declares_the_temporary_dtype(backend):
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            tmp: np.float32 = a * 3.0
            out = tmp

    a0 = np.full((2, 2, 2), 0.1)
    _, out = _run(backend, st, lambda: [a0.copy(), np.zeros_like(a0)])
    np.testing.assert_array_equal(out, np.float64(np.float32(0.1 * 3.0)))


def test_conflicting_temporary_declarations_are_an_error(backend):
    def st(a: F, out: F):
        with computation(FORWARD), interval(...):
            tmp: Field[IJ, np.float64] = a
            tmp: Field[np.float64] = a  # noqa: F842
            out = tmp

    with pytest.raises(gtscript.GTScriptDefinitionError, match="a temporary has one type") as info:
        gtscript.stencil(backend=backend, definition=st)
    assert _line_of(st, "tmp: Field[np.float64] = a") in str(info.value)


# -- 4. booleans on numpy 1.26 ----------------------------------------------------------------------
def booleans(a: F, flag: FB, out: F, mask: FB, any_big: FB):
    with computation(PARALLEL), interval(...):
        big = a > 0.5  # a bool temporary
        both = big and flag
        mask = both or not big
        if both:
            out = a
        else:
            out = -a
    with computation(FORWARD):
        with interval(0, 1):
            seen: Field[IJ, np.bool_] = big
        with interval(1, None):
            seen = seen or big
    with computation(PARALLEL), interval(...):
        any_big = seen


def test_boolean_stencil(backend):
    a0 = rng.random((4, 3, 3))
    f0 = rng.random((4, 3, 3)) > 0.4

    def args():
        return [a0.copy(), f0.copy(), np.zeros_like(a0), np.zeros_like(f0), np.zeros_like(f0)]

    _, _, out, mask, any_big = _run(backend, booleans, args)
    big = a0 > 0.5
    np.testing.assert_array_equal(out, np.where(big & f0, a0, -a0))
    np.testing.assert_array_equal(mask, (big & f0) | ~big)
    np.testing.assert_array_equal(any_big, np.broadcast_to(big.any(axis=2)[:, :, None], a0.shape))


def test_generated_numpy_code_never_uses_np_bool():
    from gt4py.cartesian import _codegen_common, _debug_codegen, _numpy_codegen
    from gt4py.cartesian._analysis import analyse
    from gt4py.cartesian._frontend import DefinitionParser

    analysed = analyse(DefinitionParser(booleans, externals={}, dtypes={}, name="b").parse())
    for generator in (_numpy_codegen, _debug_codegen):
        code = generator.generate(analysed)
        assert "np.bool_" in code
        assert "np.bool(" not in code and "np.bool)" not in code and "np.bool," not in code
    assert _codegen_common.numpy_dtype("bool") == "np.bool_"


# -- 5. functions and constants from other modules; intervals ---------------------------------------
@gtscript.function
def flux_difference(q, c):
    # a local function calling functions of another module (which call each other)
    return helpers.upwind(q[1, 0, 0], c) - helpers.upwind(q, c)


def uses_module_helpers(q: F, c: F, out: F, damped: F):
    with computation(PARALLEL), interval(...):
        out = flux_difference(q, c) + consts.ALPHA
        damped = helpers.damp(q, c)


def test_functions_and_constants_from_other_modules(backend):
    q0 = rng.random((6, 3, 2))
    c0 = rng.random((6, 3, 2)) - 0.5

    def args():
        return [q0.copy(), c0.copy(), np.zeros_like(q0), np.zeros_like(q0)]

    _, _, out, damped = _run(
        backend, uses_module_helpers, args, call={"origin": (1, 0, 0), "domain": (4, 3, 2)}
    )

    def upwind(i):  # helpers.upwind at the domain points shifted by i
        s = slice(1 + i, 5 + i)
        return np.where(c0[1:5] > 0.0, q0[slice(i, 4 + i)], q0[s])

    ref = np.zeros_like(q0)
    ref[1:5] = upwind(1) - upwind(0) + consts.ALPHA
    np.testing.assert_allclose(out, ref)
    ref_damped = np.zeros_like(q0)
    ref_damped[1:5] = q0[1:5] * consts.ALPHA + c0[1:5] * consts.ALPHA / consts.GRAV
    np.testing.assert_allclose(damped, ref_damped)


def test_module_constants_are_part_of_the_cache_key(monkeypatch):
    from gt4py.cartesian._stencil_key import stencil_identity

    def key():
        return stencil_identity(
            uses_module_helpers, backend="numpy", externals={}, dtypes={}, name="m", options={}
        ).key

    before = key()
    assert "global.consts.ALPHA" in before.parts and "global.helpers.damp" in before.parts
    monkeypatch.setattr(consts, "GRAV", 9.81)  # read inside helpers.damp
    assert key().digest != before.digest


def intervals(a: F, out: F):
    with computation(PARALLEL):
        with interval(None, 2):
            out = a + 1.0
        with interval(2, -1):
            out = a
        with interval(-1, None):
            out = a - 1.0
    with computation(FORWARD), interval(K[0] + 1, K[-1]):  # axis indices bound intervals too
        out = out + out[0, 0, -1]


def test_interval_none_and_axis_index_bounds(backend):
    a0 = rng.random((2, 2, 6))
    _, out = _run(backend, intervals, lambda: [a0.copy(), np.zeros_like(a0)])
    ref = a0.copy()
    ref[:, :, :2] += 1.0
    ref[:, :, -1] -= 1.0
    for k in range(1, 5):
        ref[:, :, k] += ref[:, :, k - 1]
    np.testing.assert_allclose(out, ref)


# -- an FV3-shaped stencil: all of the above at once --------------------------------------------------
def fv3_like(q: F, c: F, delp: F, q_new: F, column_mass: FIJ):
    from __externals__ import i_end, i_start, j_end, j_start

    with computation(PARALLEL), interval(...):
        flux = flux_difference(q, c)
        with horizontal(region[i_start, :], region[i_end, :]):
            flux = 0.0  # no flux through the west and east edges
        with horizontal(region[i_start : i_end + 1, j_start - 1], region[:, j_end + 1]):
            flux = flux * consts.ALPHA
        q_new = q - flux
    with computation(FORWARD):
        with interval(0, 1):
            mass: Field[IJ, np.float64] = delp * q_new
        with interval(1, None):
            mass = mass + delp * q_new
    with computation(FORWARD), interval(-1, None):
        column_mass = mass / (K + 1)


def test_fv3_shaped_stencil(backend):
    shape = (8, 6, 4)
    q0, c0, d0 = rng.random(shape), rng.random(shape) - 0.5, rng.random(shape) + 1.0

    def args():
        return [q0.copy(), c0.copy(), d0.copy(), np.zeros(shape), np.zeros(shape[:2])]

    *_, q_new, column_mass = _run(
        backend,
        fv3_like,
        args,
        externals=FV3_EXTERNALS,
        call={"origin": (1, 0, 0), "domain": (6, 6, 4)},
    )
    dom = (slice(1, 7), slice(0, 6))
    up = np.where(c0[dom] > 0.0, q0[0:6], q0[dom])
    up1 = np.where(c0[dom] > 0.0, q0[dom], q0[2:8])
    flux = up1 - up
    flux[0] = flux[-1] = 0.0
    flux[:, 0] *= consts.ALPHA  # j_start - 1 = J[0]
    flux[:, 5] *= consts.ALPHA  # j_end + 1 = J[-1]
    ref_q = np.zeros(shape)
    ref_q[dom] = q0[dom] - flux
    np.testing.assert_allclose(q_new, ref_q)
    ref_mass = np.zeros(shape[:2])
    ref_mass[dom] = (d0[dom] * ref_q[dom]).sum(axis=2) / 4
    np.testing.assert_allclose(column_mass, ref_mass)


# -- errors: the user's file:line -------------------------------------------------------------------
def test_region_bound_on_the_wrong_axis_names_the_line(backend):
    def st(out: F):
        with computation(PARALLEL), interval(...):  # noqa: SIM117 - GTScript nesting
            with horizontal(region[J[0], :]):
                out = 1.0

    with pytest.raises(
        gtscript.GTScriptDefinitionError, match=r"J\[0\], an index on axis J, where a bound on I"
    ) as info:
        gtscript.stencil(backend=backend, definition=st)
    assert _line_of(st, "region[J[0], :]") in str(info.value)


@pytest.mark.parametrize(
    ("external", "message"),
    [(1.5, r"is 1.5: expected I\[n\] \+ k, an integer or None"), ("x", "is a str")],
)
def test_bad_region_external_names_the_line(backend, external, message):
    def st(out: F):
        from __externals__ import i_start

        with computation(PARALLEL), interval(...):  # noqa: SIM117 - GTScript nesting
            with horizontal(region[i_start, :]):
                out = 1.0

    with pytest.raises(gtscript.GTScriptDefinitionError, match=message) as info:
        gtscript.stencil(backend=backend, definition=st, externals={"i_start": external})
    assert _line_of(st, "region[i_start, :]") in str(info.value)


def test_axis_index_used_as_a_value_names_the_line(backend):
    def st(out: F):
        from __externals__ import i_start

        with computation(PARALLEL), interval(...):
            out = i_start

    with pytest.raises(gtscript.GTScriptDefinitionError, match="they are not values") as info:
        gtscript.stencil(backend=backend, definition=st, externals={"i_start": I[0]})
    assert _line_of(st, "out = i_start") in str(info.value)


def test_axis_index_arithmetic_other_than_shifts_names_the_line(backend):
    def st(out: F):
        with computation(PARALLEL), interval(...):  # noqa: SIM117 - GTScript nesting
            with horizontal(region[I[0] * 2, :]):
                out = 1.0

    with pytest.raises(
        gtscript.GTScriptDefinitionError, match="only be shifted by an integer"
    ) as info:
        gtscript.stencil(backend=backend, definition=st)
    assert _line_of(st, "region[I[0] * 2, :]") in str(info.value)


def test_i_as_a_value_names_the_line(backend):
    def st(out: F):
        with computation(PARALLEL), interval(...):
            out = I + 1

    with pytest.raises(gtscript.GTScriptDefinitionError, match="only K is") as info:
        gtscript.stencil(backend=backend, definition=st)
    assert _line_of(st, "out = I + 1") in str(info.value)
