"""Error paths: each message says what is wrong and points at the user's file:line."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval


F = gtscript.Field[np.float64]


def _line_of(func, text: str) -> str:
    lines, first = inspect.getsourcelines(func)
    offset = next(n for n, line in enumerate(lines) if text in line)
    return f"{__file__}:{first + offset}"


def test_undefined_symbol(backend):
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a + undefined_thing  # noqa: F821

    with pytest.raises(
        gtscript.GTScriptSymbolError, match="undefined symbol 'undefined_thing'"
    ) as info:
        gtscript.stencil(backend=backend)(st)
    assert _line_of(st, "undefined_thing") in str(info.value)


def test_write_to_scalar_parameter(backend):
    def st(a: F, alpha: float):
        with computation(PARALLEL), interval(...):
            alpha = a

    with pytest.raises(
        gtscript.GTScriptDefinitionError, match="scalar parameters are read-only"
    ) as info:
        gtscript.stencil(backend=backend)(st)
    assert _line_of(st, "alpha = a") in str(info.value)


def test_offset_write(backend):
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out[1, 0, 0] = a

    with pytest.raises(gtscript.GTScriptDefinitionError, match="offset") as info:
        gtscript.stencil(backend=backend)(st)
    assert _line_of(st, "out[1, 0, 0] = a") in str(info.value)


def test_illegal_parallel_dependency(backend):
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a[1, 0, 0]
            a = out

    with pytest.raises(gtscript.GTScriptDefinitionError, match="illegal dependency") as info:
        gtscript.stencil(backend=backend)(st)
    assert _line_of(st, "out = a[1, 0, 0]") in str(info.value)


def test_unsupported_statement(backend):
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            for _ in range(3):
                out = a

    with pytest.raises(gtscript.GTScriptSyntaxError, match="For statements") as info:
        gtscript.stencil(backend=backend)(st)
    assert _line_of(st, "for _ in range") in str(info.value)


def test_unknown_backend():
    with pytest.raises(
        ValueError, match=r"unknown GTScript backend 'nope'; available: .*debug.*numpy"
    ):
        gtscript.stencil(backend="nope")(lambda a: None)


def test_field_too_small_names_field_axis_and_amount(backend):
    @gtscript.stencil(backend=backend)
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a[0, 1, 0]

    a, out = np.zeros((4, 4, 2)), np.zeros((4, 4, 2))
    with pytest.raises(
        gtscript.StencilArgumentError, match=r"field 'a' is too small along axis J by 1 point"
    ):
        st(a, out, origin=(0, 0, 0), domain=(4, 4, 2))
    with pytest.raises(gtscript.StencilArgumentError, match=r"field 'a' must have dtype float64"):
        st(a.astype(np.float32), out, domain=(4, 3, 2))


@pytest.mark.parametrize(
    ("axes", "reason"),
    [("IJ", r"\(axes IJ\) in a PARALLEL computation"), ("K", "a field with axes K lacks")],
)
def test_write_to_lower_dimensional_field(backend, axes, reason):
    # IJ fields are written in FORWARD/BACKWARD only; K fields never (test_cartesian_fv3_idioms).
    G = gtscript.Field[getattr(gtscript, axes), np.float64]

    def st(a: F, low: G):
        with computation(PARALLEL), interval(...):
            low = a

    with pytest.raises(
        gtscript.GTScriptDefinitionError, match=f"cannot write to 'low'.*{reason}"
    ) as info:
        gtscript.stencil(backend=backend)(st)
    assert _line_of(st, "low = a") in str(info.value)


def test_compile_assert(backend):
    def st(a: F, out: F):
        from __externals__ import N

        compile_assert(N > 2)  # noqa: F821
        with computation(PARALLEL), interval(...):
            out = a * N

    ok = gtscript.stencil(backend=backend, externals={"N": 3})(st)
    a, out = np.ones((2, 2, 2)), np.zeros((2, 2, 2))
    ok(a, out)
    assert (out == 3).all()
    with pytest.raises(
        gtscript.GTScriptDefinitionError, match=r"compile_assert\(N > 2\) failed"
    ) as info:
        gtscript.stencil(backend=backend, externals={"N": 1})(st)
    assert _line_of(st, "compile_assert(N > 2)") in str(info.value)


def test_region_inside_if_runs_where_both_hold(backend):
    # Formerly refused (regions only at an interval's top level); released accepts it, and
    # FV3 (delnflux, vorticity differencing) writes it: the body runs where both hold.
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            if a > 0.0:
                with horizontal(region[I[0], :]):  # noqa: F821
                    out = a

    a = np.full((3, 3, 2), -1.0)
    a[:, 1, :] = 2.0
    out = np.zeros_like(a)
    gtscript.stencil(backend=backend)(st)(a, out)
    expected = np.zeros_like(a)
    expected[0, 1, :] = 2.0
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(
    "spec",
    [(np.float64, 3), (np.float64, (3,)), np.dtype((np.float64, (3,))), ("float64", 3)],
    ids=["int", "tuple", "subarray-dtype", "name-int"],
)
def test_data_dimensions_are_given_as_numpy_subarray_dtypes_are(spec):
    # released's forms: NDSL writes Field[IJK, (Float, (8))], where (8) is the int 8
    assert gtscript.Field[gtscript.IJK, spec] == gtscript.Field[gtscript.IJK, (np.float64, (3,))]


@pytest.mark.parametrize("dims", [0, (True,), (2.0,), (3, -1)])
def test_invalid_data_dimensions_are_named(dims):
    with pytest.raises(gtscript.GTScriptDefinitionError, match="invalid data dimensions"):
        gtscript.Field[gtscript.IJK, (np.float64, dims)]


def test_a_float_data_index_is_rejected(backend):
    # a run-time data index is an integer expression (ADR 0046; tests in
    # test_cartesian_runtime_data_index.py); a float one is a located error
    V = gtscript.Field[(np.float64, (3,))]

    def st(v: V, x: float, out: F):
        with computation(PARALLEL), interval(...):
            out = v[0, 0, 0][x]

    with pytest.raises(
        gtscript.GTScriptDefinitionError, match="a data index is an integer"
    ) as info:
        gtscript.stencil(backend=backend)(st)
    assert _line_of(st, "v[0, 0, 0][x]") in str(info.value)


def test_data_index_out_of_range(backend):
    V = gtscript.Field[(np.float64, (3,))]

    def st(v: V, out: F):
        with computation(PARALLEL), interval(...):
            out = v[0, 0, 0][3]

    with pytest.raises(
        gtscript.GTScriptDefinitionError, match=r"data index 3 is out of range for 'v' \(size 3\)"
    ):
        gtscript.stencil(backend=backend)(st)


def _float_if(inp: F, out: F):
    with computation(PARALLEL), interval(...):
        if inp:  # a float field as a condition
            out = 1.0


def _float_while(inp: F, out: F):
    with computation(PARALLEL), interval(...):
        while out + inp:
            out = out - 1.0


def _float_conditional(inp: F, out: F):
    with computation(PARALLEL), interval(...):
        out = 1.0 if inp * 2.0 else 0.0


@pytest.mark.parametrize(
    ("definition", "what", "text"),
    [
        (_float_if, "'if'", "if inp:"),
        (_float_while, "'while'", "while out + inp:"),
        (_float_conditional, "'... if ... else ...'", "1.0 if inp"),
    ],
)
def test_a_non_boolean_condition_is_refused_where_it_is(definition, what, text):
    # released gt4py refuses it too; numpy would take a float's truth value silently
    with pytest.raises(
        gtscript.GTScriptSyntaxError,
        match=f"the condition of {what} must be boolean, got a float64",
    ) as info:
        gtscript.stencil(backend="numpy")(definition)
    assert _line_of(definition, text) in str(info.value)


def test_boolean_conditions_of_every_form_are_fine():
    def st(inp: F, mask: gtscript.Field[np.bool_], out: F):
        with computation(PARALLEL), interval(...):
            if mask and inp > 0.0:
                out = 1.0 if not mask else 2.0
            elif inp != 0.0:
                out = 3.0

    stencil = gtscript.stencil(backend="numpy")(st)
    inp, out = np.array([1.0, -1.0, 0.0]).reshape(3, 1, 1), np.zeros((3, 1, 1))
    stencil(inp, np.array([True, False, False]).reshape(3, 1, 1), out)
    assert out.ravel().tolist() == [2.0, 3.0, 0.0]


def test_a_misspelled_builtin_or_name_gets_a_did_you_mean(backend):
    """Python's "did you mean" over GTScript's builtins and the stencil's own names."""

    def misspelled_builtin(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = sqr(a)  # noqa: F821

    with pytest.raises(gtscript.GTScriptSyntaxError, match="'sqr' is not a callable") as info:
        gtscript.stencil(backend=backend, definition=misspelled_builtin)
    assert (
        "did you mean 'sqrt'? (a GTScript builtin: `from gt4py.cartesian.gtscript import sqrt`)"
        in str(info.value)
    )

    def misspelled_parameter(field_a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = field_b + 1.0  # noqa: F821

    with pytest.raises(gtscript.GTScriptSymbolError, match="did you mean 'field_a'\\?"):
        gtscript.stencil(backend=backend, definition=misspelled_parameter)

    def far_from_anything(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = zzzzzz(a)  # noqa: F821

    with pytest.raises(gtscript.GTScriptSyntaxError) as info:
        gtscript.stencil(backend=backend, definition=far_from_anything)
    assert "did you mean" not in str(info.value)
