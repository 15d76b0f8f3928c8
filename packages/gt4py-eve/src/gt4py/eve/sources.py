"""A decorated function's parsed source, and where its nodes are in the user's file.

Both DSLs parse the ``def`` of a decorated function. ``inspect.getsource`` gives the text of
a method or nested function indented, so it is dedented before parsing; :class:`FunctionSource`
keeps the line and column offsets that map the parsed tree's positions back to the user's
file, as a :class:`~gt4py.eve.SourceLocation`. Errors print ``file:line:column`` and the
source line with a caret (:func:`describe_location`).

This module imports no datamodel until a location is built: computing a cache key reads and
parses the source on every warm start, and must not pay for eve's datamodels.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import linecache
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol


if TYPE_CHECKING:
    from .nodes import SourceLocation


class SourceUnavailableError(Exception):
    """The function has no readable ``def`` source (made by exec, a lambda, a builtin...).

    ``filename`` and ``line`` say where the function claims to be defined (``line`` 1-based).
    """

    def __init__(self, filename: str, line: int, reason: str) -> None:
        self.filename = filename
        self.line = line
        self.reason = reason
        super().__init__(f"{filename}:{line}: {reason}")


@dataclasses.dataclass(frozen=True)
class FunctionSource:
    """The parsed ``def`` of a function and the offsets of its text in the user's file."""

    filename: str
    first_line: int  # file line of the source's first line (a decorator or the def), 1-based
    column_offset: int  # indentation removed before parsing, added back to every column
    source: str  # the dedented text that was parsed
    tree: ast.FunctionDef

    @classmethod
    def read(cls, function: Callable[..., Any]) -> FunctionSource:
        """Read and parse ``function``'s source; :class:`SourceUnavailableError` if none."""
        code = getattr(function, "__code__", None)
        filename = code.co_filename if code is not None else "<unknown>"
        try:
            lines, first_line = inspect.getsourcelines(function)
        except (OSError, TypeError) as error:
            line = max(code.co_firstlineno, 1) if code is not None else 1
            raise SourceUnavailableError(filename, line, str(error)) from None
        first_line = max(first_line, 1)
        text = "".join(lines)
        dedented = textwrap.dedent(text)
        try:
            module = ast.parse(dedented)
        except SyntaxError as error:  # a lambda inside a larger expression
            raise SourceUnavailableError(filename, first_line, f"not a 'def': {error}") from None
        tree = next((node for node in module.body if isinstance(node, ast.FunctionDef)), None)
        if tree is None:
            raise SourceUnavailableError(filename, first_line, "not a 'def' function")
        return cls(
            filename=filename,
            first_line=first_line,
            column_offset=_indentation(lines) if dedented != text else 0,
            source=dedented,
            tree=tree,
        )

    @property
    def line_offset(self) -> int:
        """Added to a parsed node's ``lineno`` to give the file line."""
        return self.first_line - 1

    def location(self, node: ast.AST) -> SourceLocation:
        """Where ``node`` (of :attr:`tree`) is in the user's file: 1-based line and column."""
        return node_location(node, self.filename, self.line_offset, self.column_offset)


def node_location(
    node: ast.AST, filename: str, line_offset: int = 0, column_offset: int = 0
) -> SourceLocation:
    """The location of ``node`` of a tree parsed from text that starts ``line_offset`` lines
    into ``filename`` with ``column_offset`` columns of indentation removed."""
    from .nodes import SourceLocation

    end_line = getattr(node, "end_lineno", None)
    end_column = getattr(node, "end_col_offset", None)
    return SourceLocation(
        filename=filename,
        line=getattr(node, "lineno", 1) + line_offset,
        column=getattr(node, "col_offset", 0) + column_offset + 1,
        end_line=None if end_line is None else end_line + line_offset,
        end_column=(
            None if end_column is None or end_line is None else end_column + column_offset + 1
        ),
    )


class _Located(Protocol):
    @property
    def filename(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...


def describe_location(location: _Located) -> str:
    """``file:line:column``, then the source line and a caret under the column when the
    file can be read: the text both DSLs' errors end with."""
    where = f"{location.filename}:{location.line}:{location.column}"
    text = linecache.getline(location.filename, location.line).rstrip()
    if not text:
        return where
    stripped = text.lstrip()
    caret = " " * max(location.column - 1 - (len(text) - len(stripped)), 0) + "^"
    return f"{where}\n    {stripped}\n    {caret}"


def _indentation(lines: list[str]) -> int:
    for line in lines:
        if line.strip():
            return len(line) - len(line.lstrip())
    return 0


__all__ = ["FunctionSource", "SourceUnavailableError", "describe_location", "node_location"]
