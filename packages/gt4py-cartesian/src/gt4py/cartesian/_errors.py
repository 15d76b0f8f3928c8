"""GTScript errors: definition errors carry the user's ``file:line:column`` (an eve
:class:`~gt4py.eve.SourceLocation`, as gt4py.next's errors do); call errors name the argument."""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

from gt4py.eve.sources import describe_location


if TYPE_CHECKING:
    from gt4py.eve import SourceLocation


class GTScriptError(Exception):
    """Base of every GTScript error."""


def _located(message: str, loc: SourceLocation | None) -> str:
    return message if loc is None else f"{message}\n  at {describe_location(loc)}"


class GTScriptSyntaxError(GTScriptError, SyntaxError):
    """The definition uses Python syntax that GTScript does not accept."""

    def __init__(self, message: str, *, loc: SourceLocation | None = None) -> None:
        self.loc = loc
        self.message = message
        super().__init__(_located(message, loc))

    def __str__(self) -> str:
        return str(self.args[0])


class GTScriptDefinitionError(GTScriptError):
    """The definition is valid Python but not a valid stencil (types, dependencies, ...).

    ``loc`` is where (``None`` if unknown); ``message`` is the bare explanation.
    """

    def __init__(self, message: str, *, loc: SourceLocation | None = None) -> None:
        self.loc = loc
        self.message = message
        super().__init__(_located(message, loc))


class GTScriptSymbolError(GTScriptDefinitionError):
    """A name in the definition is neither a parameter, a temporary, an external nor a builtin."""


class StencilArgumentError(ValueError):
    """A stencil call got arguments that do not fit the stencil (shape, dtype, origin, domain)."""


class StencilCompilationError(GTScriptError):
    """The C++ generated for a stencil did not compile.

    ``compiler_output`` and ``source_dir`` (the kept sources) come from infra's
    ``CompilationError``, which is chained as ``__cause__``.
    """

    def __init__(self, message: str, *, compiler_output: str, source_dir: pathlib.Path) -> None:
        super().__init__(message)
        self.compiler_output = compiler_output
        self.source_dir = source_dir


class BackendNotAvailableError(GTScriptError):
    """A registered backend that cannot build stencils here (a missing extra, an unbuilt
    backend): raised before any work, naming what to install or use instead."""


class StencilNotCachedError(GTScriptError):
    """``raise_if_not_cached=True`` and the stencil is not in the cache."""


#: The errors about the user's definition or call, whose tracebacks the entry points (the
#: decorators, ``StencilObject.__call__``) cut down to the user's frames (ADR 0030). A
#: ``StencilCompilationError`` is gt4py's (its generated code did not compile): never filtered.
USER_ERRORS: tuple[type[Exception], ...] = (
    GTScriptSyntaxError,
    GTScriptDefinitionError,
    StencilArgumentError,
    BackendNotAvailableError,
)


__all__ = [
    "BackendNotAvailableError",
    "GTScriptDefinitionError",
    "GTScriptError",
    "GTScriptSymbolError",
    "GTScriptSyntaxError",
    "StencilArgumentError",
    "StencilCompilationError",
    "StencilNotCachedError",
]
