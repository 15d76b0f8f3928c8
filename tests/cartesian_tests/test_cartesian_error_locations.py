"""GTScript errors carry eve's SourceLocation, as gt4py.next's do: file:line:column of the
offending node in the user's file, also for definitions indented in a class or a function."""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from gt4py.eve import SourceLocation


F = gtscript.Field[np.float64]


def _position(func, text: str) -> tuple[int, int]:
    """1-based file line and column of ``text`` in ``func``'s source, found by reading it."""
    lines, first = inspect.getsourcelines(func)
    for number, line in enumerate(lines, start=first):
        if text in line:
            return number, line.index(text) + 1
    raise AssertionError(f"{text!r} is not in {func.__name__}")


def _assert_points_at(error: Exception, func, text: str) -> None:
    line, column = _position(func, text)
    loc = error.loc  # type: ignore[attr-defined]
    assert isinstance(loc, SourceLocation)
    assert (loc.filename, loc.line, loc.column) == (__file__, line, column)
    # The message ends like gt4py.next's: file:line:column, the line, a caret under the column.
    where, source_line, caret = str(error).splitlines()[-3:]
    assert where.strip() == f"at {__file__}:{line}:{column}"
    assert text in source_line
    assert caret.index("^") == source_line.index(text)


class Stencils:
    """Definitions indented twice (a method of a class): columns carry the indentation."""

    def undefined(a: F, out: F):  # noqa: N805 (a stencil definition, not a method)
        with computation(PARALLEL), interval(...):
            out = a + undefined_name  # noqa: F821

    def scalar_write(a: F, alpha: float):  # noqa: N805
        with computation(PARALLEL), interval(...):
            alpha = a  # noqa: F841


def test_error_in_a_method_points_at_the_column() -> None:
    with pytest.raises(gtscript.GTScriptSymbolError) as info:
        gtscript.stencil(backend="numpy")(Stencils.undefined)
    _assert_points_at(info.value, Stencils.undefined, "undefined_name")


def test_error_in_a_nested_definition_points_at_the_target() -> None:
    def outer():
        def st(a: F, out: F):
            with computation(PARALLEL), interval(...):
                out[1, 0, 0] = a

        return st

    st = outer()
    with pytest.raises(gtscript.GTScriptDefinitionError, match="offset") as info:
        gtscript.stencil(backend="numpy")(st)
    _assert_points_at(info.value, st, "out[1, 0, 0]")


def test_syntax_error_is_a_located_syntax_error() -> None:
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            for _ in range(3):
                out = a

    with pytest.raises(gtscript.GTScriptSyntaxError) as info:
        gtscript.stencil(backend="numpy")(st)
    _assert_points_at(info.value, st, "for _ in range(3):")
    assert info.value.message == "For statements are not supported in GTScript"


def test_errors_found_after_parsing_carry_the_statements_location() -> None:
    """Dependency analysis runs on the IR: it reports the location the frontend stored."""

    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a[1, 0, 0]
            a = out

    with pytest.raises(gtscript.GTScriptDefinitionError, match="illegal dependency") as info:
        gtscript.stencil(backend="numpy")(st)
    _assert_points_at(info.value, st, "out = a[1, 0, 0]")


class Functions:
    @gtscript.function
    def bad(x):  # noqa: N805 (a GTScript function, not a method)
        return x + missing_in_function  # noqa: F821


def test_error_inside_an_inlined_function_points_into_that_function() -> None:
    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = Functions.bad(a)

    with pytest.raises(gtscript.GTScriptSymbolError) as info:
        gtscript.stencil(backend="numpy", externals={"Functions": Functions})(st)
    _assert_points_at(info.value, Functions.bad, "missing_in_function")


def test_errors_pickle_with_their_message() -> None:
    with pytest.raises(gtscript.GTScriptSymbolError) as info:
        gtscript.stencil(backend="numpy")(Stencils.undefined)
    clone = pickle.loads(pickle.dumps(info.value))
    assert str(clone) == str(info.value)
