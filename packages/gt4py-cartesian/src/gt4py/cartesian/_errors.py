"""GTScript errors: definition errors carry the user's ``file:line``; call errors name the argument."""

from __future__ import annotations

import pathlib


class GTScriptError(Exception):
    """Base of every GTScript error."""


class GTScriptSyntaxError(GTScriptError, SyntaxError):
    """The definition uses Python syntax that GTScript does not accept."""

    def __init__(self, message: str, *, loc: str | None = None) -> None:
        self.loc = loc
        super().__init__(f"{loc}: {message}" if loc else message)

    def __str__(self) -> str:
        return str(self.args[0])


class GTScriptDefinitionError(GTScriptError):
    """The definition is valid Python but not a valid stencil (types, dependencies, ...)."""

    def __init__(self, message: str, *, loc: str | None = None) -> None:
        self.loc = loc
        super().__init__(f"{loc}: {message}" if loc else message)


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


__all__ = [
    "GTScriptDefinitionError",
    "GTScriptError",
    "GTScriptSymbolError",
    "GTScriptSyntaxError",
    "StencilArgumentError",
    "StencilCompilationError",
]
