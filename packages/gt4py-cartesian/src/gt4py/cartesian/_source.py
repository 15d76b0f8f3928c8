"""Reading a definition's source and the names its body sees.

The parsed ``def`` and its offsets in the user's file are eve's
:class:`~gt4py.eve.sources.FunctionSource`, the location model gt4py.next uses too. Computing
a stencil's cache key reads sources but builds no IR: eve's source reader loads no datamodel.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from gt4py.eve.sources import FunctionSource, SourceUnavailableError

from ._errors import GTScriptDefinitionError


#: The ``frontend`` stage's value: the definition's dedented source and its parsed ``def``.
SourceInfo = FunctionSource


def source_info(func: Callable[..., Any]) -> FunctionSource:
    try:
        return FunctionSource.read(func)
    except SourceUnavailableError as error:
        raise GTScriptDefinitionError(
            f"cannot read the source of {getattr(func, '__qualname__', func)!r}: "
            f"{error.reason}; GTScript definitions must be 'def' functions in a file "
            "(not a REPL string)"
        ) from None


def closure_namespace(func: Callable[..., Any]) -> dict[str, Any]:
    """The names a function body can see: globals, then its closure cells."""
    namespace = dict(func.__globals__)
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__, strict=True):
            with contextlib.suppress(ValueError):  # an empty cell: the name is not bound yet
                namespace[name] = cell.cell_contents
    return namespace


def warm_up() -> None:
    """Have ``inspect``'s tokenizer compile its patterns now (``gtscript``'s import) rather
    than in the first decoration of a process: it compiles them on first use."""
    import inspect

    inspect.getblock(["def _():\n", "    pass\n"])
