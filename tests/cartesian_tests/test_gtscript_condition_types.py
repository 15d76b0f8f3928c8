"""The condition of ``if``, ``while`` and ``a if c else b`` must be boolean (issue 30.9).

Released gt4py refuses a float or int field as a condition; here each refused form is a
``GTScriptSyntaxError`` naming the problem at the user's ``file:line``, and every boolean form
(boolean fields and scalars, comparisons, ``and``/``or``/``not`` of booleans, boolean externals)
still compiles and computes what Python would.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import FORWARD, PARALLEL, computation, interval


F = gtscript.Field[np.float64]
I64 = gtscript.Field[np.int64]
B = gtscript.Field[np.bool_]


def _line_of(func, text: str) -> str:
    lines, first = inspect.getsourcelines(func)
    offset = next(n for n, line in enumerate(lines) if text in line)
    return f"{__file__}:{first + offset}"


# -- refused ----------------------------------------------------------------------------------


def _if_float_field(inp: F, out: F):
    with computation(PARALLEL), interval(...):
        if inp:
            out = 1.0


def _if_int_field(inp: I64, out: F):
    with computation(PARALLEL), interval(...):
        if inp:
            out = 1.0


def _if_float_scalar(inp: F, out: F, s: float):
    with computation(PARALLEL), interval(...):
        if s:
            out = inp


def _elif_float_expression(inp: F, out: F):
    with computation(PARALLEL), interval(...):
        if inp > 1.0:
            out = 1.0
        elif inp * 2.0:
            out = 2.0


def _while_float_field(inp: F, out: F):
    with computation(FORWARD), interval(...):
        while inp:
            out = out + 1.0


def _while_int_field(inp: I64, out: F):
    with computation(FORWARD), interval(...):
        while inp - 1:
            out = out + 1.0


def _ternary_float_field(inp: F, out: F):
    with computation(PARALLEL), interval(...):
        out = 1.0 if inp else 0.0


def _ternary_int_field(inp: I64, out: F):
    with computation(PARALLEL), interval(...):
        out = 1.0 if inp else 0.0


REFUSED = [
    (_if_float_field, "'if'", "float64", "if inp:"),
    (_if_int_field, "'if'", "int64", "if inp:"),
    (_if_float_scalar, "'if'", "float64", "if s:"),
    (_elif_float_expression, "'if'", "float64", "elif inp * 2.0:"),
    (_while_float_field, "'while'", "float64", "while inp:"),
    (_while_int_field, "'while'", "int64", "while inp - 1:"),
    (_ternary_float_field, "'... if ... else ...'", "float64", "1.0 if inp"),
    (_ternary_int_field, "'... if ... else ...'", "int64", "1.0 if inp"),
]


@pytest.mark.parametrize(
    ("definition", "what", "dtype", "text"), REFUSED, ids=[r[0].__name__ for r in REFUSED]
)
def test_a_non_boolean_condition_is_refused_at_its_line(definition, what, dtype, text):
    with pytest.raises(
        gtscript.GTScriptSyntaxError,
        match=f"the condition of {what} must be boolean, got a {dtype} expression",
    ) as info:
        gtscript.stencil(backend="numpy")(definition)
    assert _line_of(definition, text) in str(info.value)
    assert text.strip() in str(info.value)  # the source line is quoted


def _not_of_a_float(inp: F, out: F):
    with computation(PARALLEL), interval(...):
        if not inp:
            out = 1.0


def _and_with_a_float(inp: F, mask: B, out: F):
    with computation(PARALLEL), interval(...):
        if mask and inp:
            out = 1.0


def _or_with_an_int_in_a_while(inp: I64, mask: B, out: F):
    with computation(FORWARD), interval(...):
        while mask or (inp + 1):
            out = out + 1.0


def _nested_in_a_ternary(inp: F, mask: B, out: F):
    with computation(PARALLEL), interval(...):
        out = 1.0 if not (mask or inp) else 0.0


OPERANDS = [
    (_not_of_a_float, "'if'", "inp", "not", "float64", "if not inp:"),
    (_and_with_a_float, "'if'", "inp", "and", "float64", "if mask and inp:"),
    (_or_with_an_int_in_a_while, "'while'", "inp + 1", "or", "int64", "while mask or"),
    (_nested_in_a_ternary, "'... if ... else ...'", "inp", "or", "float64", "1.0 if not"),
]


@pytest.mark.parametrize(
    ("definition", "what", "operand", "op", "dtype", "text"),
    OPERANDS,
    ids=[o[0].__name__ for o in OPERANDS],
)
def test_a_non_boolean_operand_of_and_or_not_is_refused(definition, what, operand, op, dtype, text):
    with pytest.raises(gtscript.GTScriptSyntaxError) as info:
        gtscript.stencil(backend="numpy")(definition)
    message = str(info.value)
    assert (
        f"the condition of {what} must be boolean: the operand `{operand}` of '{op}' is a "
        f"{dtype} expression" in message
    )
    assert _line_of(definition, text) in message


@gtscript.function
def _truthy(x):
    if x:  # a float argument: refused where the function is written
        x = 1.0
    return x


def _calls_truthy(inp: F, out: F):
    with computation(PARALLEL), interval(...):
        out = _truthy(inp)


def test_an_inlined_functions_condition_is_refused_in_the_functions_file():
    with pytest.raises(
        gtscript.GTScriptSyntaxError, match="the condition of 'if' must be boolean"
    ) as info:
        gtscript.stencil(backend="numpy")(_calls_truthy)
    with open(__file__) as f:
        line = next(n for n, text in enumerate(f, 1) if "if x:  # a float argument" in text)
    assert f"{__file__}:{line}" in str(info.value)


# -- accepted ---------------------------------------------------------------------------------


def _column(*values):
    return np.array(values).reshape(len(values), 1, 1)


def test_a_boolean_field_with_and_or_not():
    def st(inp: F, mask: B, other: B, out: F):
        with computation(PARALLEL), interval(...):
            if mask:
                out = 1.0
            if not mask and other:
                out = 2.0
            if not (mask or other):
                out = 3.0 if inp > 0.0 else 4.0

    stencil = gtscript.stencil(backend="numpy")(st)
    inp, out = _column(1.0, 1.0, 1.0, -1.0), np.zeros((4, 1, 1))
    mask = _column(True, False, False, False)
    other = _column(True, True, False, False)
    stencil(inp, mask, other, out)
    assert out.ravel().tolist() == [1.0, 2.0, 3.0, 4.0]


def test_comparisons_chained_and_combined():
    def st(inp: F, n: I64, out: F):
        with computation(PARALLEL), interval(...):
            if 0.0 < inp < 2.0 or n == 3:
                out = 1.0
            elif inp != 0.0 and not n > 5:
                out = 2.0
            else:
                out = 3.0

    stencil = gtscript.stencil(backend="numpy")(st)
    inp, n, out = _column(1.0, 5.0, 5.0, 0.0), _column(0, 3, 9, 0), np.zeros((4, 1, 1))
    stencil(inp, n, out)
    assert out.ravel().tolist() == [1.0, 1.0, 3.0, 3.0]


def test_a_while_on_a_comparison():
    def st(inp: F, out: F):
        with computation(FORWARD), interval(...):
            out = 0.0
            while out < inp:
                out = out + 1.0

    stencil = gtscript.stencil(backend="numpy")(st)
    inp, out = _column(0.0, 2.0, 3.5), np.zeros((3, 1, 1))
    stencil(inp, out)
    assert out.ravel().tolist() == [0.0, 2.0, 4.0]


def test_a_ternary_on_a_boolean_field():
    def st(mask: B, out: F):
        with computation(PARALLEL), interval(...):
            out = 1.0 if mask else -1.0

    stencil = gtscript.stencil(backend="numpy")(st)
    out = np.zeros((2, 1, 1))
    stencil(_column(True, False), out)
    assert out.ravel().tolist() == [1.0, -1.0]


def test_a_boolean_scalar_parameter():
    def st(inp: F, out: F, flag: bool):
        with computation(PARALLEL), interval(...):
            if flag:
                out = inp
            else:
                out = -inp
            out = out * 2.0 if flag and inp > 0.0 else out

    stencil = gtscript.stencil(backend="numpy")(st)
    inp = _column(1.0, -1.0)
    out = np.zeros((2, 1, 1))
    stencil(inp, out, flag=True)
    assert out.ravel().tolist() == [2.0, -1.0]
    stencil(inp, out, flag=False)
    assert out.ravel().tolist() == [-1.0, 1.0]


@pytest.mark.parametrize("flag", [True, False])
def test_boolean_externals(flag):
    def st(inp: F, out: F):
        from __externals__ import FLAG

        with computation(PARALLEL), interval(...):
            if FLAG:
                out = inp
            else:
                out = -inp
            out = out + 1.0 if not FLAG else out

    stencil = gtscript.stencil(backend="numpy", externals={"FLAG": flag})(st)
    out = np.zeros((2, 1, 1))
    stencil(_column(1.0, 2.0), out)
    assert out.ravel().tolist() == ([1.0, 2.0] if flag else [0.0, -1.0])


def test_a_boolean_cast_is_a_condition():
    def st(inp: F, out: F):
        with computation(PARALLEL), interval(...):
            if bool(inp):
                out = 1.0
            else:
                out = 0.0

    stencil = gtscript.stencil(backend="numpy")(st)
    out = np.ones((2, 1, 1))
    stencil(_column(0.0, 3.0), out)
    assert out.ravel().tolist() == [0.0, 1.0]
