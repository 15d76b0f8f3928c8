"""FunctionSource: a function's parsed def, and its nodes' locations in the user's file."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys

import pytest

from gt4py import eve
from gt4py.eve.sources import (
    FunctionSource,
    SourceUnavailableError,
    describe_location,
    node_location,
)


def module_level(a, b):
    return a + b


class Holder:
    def method(self, value):
        if value:
            return value * 2
        return 0


def _nested_factory():
    def nested(x):
        return x - 1

    return nested


def _file_position(function, text: str) -> tuple[int, int]:
    """The 1-based line and column of ``text`` in ``function``'s file, found by reading it."""
    lines, first = inspect.getsourcelines(function)
    for number, line in enumerate(lines, start=first):
        if text in line:
            return number, line.index(text) + 1
    raise AssertionError(f"{text!r} not in the source of {function.__name__}")


def _only(tree: ast.AST, kind: type[ast.AST]) -> ast.AST:
    (node,) = [n for n in ast.walk(tree) if isinstance(n, kind)]
    return node


@pytest.mark.parametrize(
    ("function", "node_kind", "text", "indentation"),
    [
        (module_level, ast.BinOp, "a + b", 0),
        (Holder.method, ast.BinOp, "value * 2", 4),
        (_nested_factory(), ast.BinOp, "x - 1", 4),
    ],
)
def test_locations_point_into_the_users_file(function, node_kind, text, indentation) -> None:
    source = FunctionSource.read(function)
    assert source.filename == __file__
    assert source.column_offset == indentation
    assert source.tree.name == function.__name__
    node = _only(source.tree, node_kind)
    location = source.location(node)
    assert isinstance(location, eve.SourceLocation)
    assert (location.line, location.column) == _file_position(function, text)
    assert location.end_line == location.line
    assert location.end_column == location.column + len(text)
    assert describe_location(location).splitlines()[1].strip().startswith("return")


def test_the_def_itself_is_located_at_its_indented_column() -> None:
    source = FunctionSource.read(Holder.method)
    location = source.location(source.tree)
    assert (location.line, location.column) == _file_position(Holder.method, "def method")


def test_functions_without_a_def_source_are_refused() -> None:
    namespace: dict[str, object] = {}
    exec("def made_by_exec():\n    return 1\n", namespace)
    with pytest.raises(SourceUnavailableError) as error:
        FunctionSource.read(namespace["made_by_exec"])  # type: ignore[arg-type]
    assert error.value.filename == "<string>" and error.value.line == 1
    square = lambda v: v * v  # noqa: E731
    with pytest.raises(SourceUnavailableError, match="not a 'def'"):
        FunctionSource.read(square)
    with pytest.raises(SourceUnavailableError):
        FunctionSource.read(len)


def test_node_location_without_end_positions() -> None:
    node = ast.Name(id="x", ctx=ast.Load(), lineno=2, col_offset=3)
    location = node_location(node, "f.py", line_offset=10, column_offset=4)
    assert (location.line, location.column, location.end_line) == (12, 8, None)


def test_describe_location_without_a_readable_file() -> None:
    location = eve.SourceLocation(filename="<no such file>", line=3, column=2)
    assert describe_location(location) == "<no such file>:3:2"


def test_reading_sources_does_not_load_datamodels() -> None:
    """The warm-start cache key reads sources; eve's datamodels load only for locations."""
    code = (
        "import sys; from gt4py.eve.sources import FunctionSource\n"
        "def f():\n    return 1\n"
        "assert 'gt4py.eve.datamodels' not in sys.modules\n"
        "import gt4py.eve as eve; eve.Node\n"
        "assert 'gt4py.eve.datamodels' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
