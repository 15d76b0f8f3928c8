"""Reading a definition's source and the names its body sees.

Kept apart from the frontend so that computing a stencil's cache key (which needs the source
but not the IR) does not import the IR and eve.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from ._errors import GTScriptDefinitionError


@dataclasses.dataclass(frozen=True)
class SourceInfo:
    """Where a Python function's definition lives, and its parsed ``def``."""

    filename: str
    first_line: int
    source: str  # dedented
    tree: ast.FunctionDef


def source_info(func: Callable[..., Any]) -> SourceInfo:
    try:
        lines, first_line = inspect.getsourcelines(func)
        filename = inspect.getsourcefile(func) or "<unknown>"
    except (OSError, TypeError) as error:
        raise GTScriptDefinitionError(
            f"cannot read the source of {getattr(func, '__qualname__', func)!r}: {error}; "
            "GTScript definitions must live in a file (not a REPL string)"
        ) from None
    source = textwrap.dedent("".join(lines))
    module = ast.parse(source)
    tree = next(n for n in module.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))
    assert isinstance(tree, ast.FunctionDef)
    return SourceInfo(filename, first_line, source, tree)


def closure_namespace(func: Callable[..., Any]) -> dict[str, Any]:
    """The names a function body can see: globals, then its closure cells."""
    namespace = dict(func.__globals__)
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__, strict=True):
            with contextlib.suppress(ValueError):  # an empty cell: the name is not bound yet
                namespace[name] = cell.cell_contents
    return namespace
