"""Errors in user code of the DSL: each carries where it happened and says what to do.

The location is the user's file, line and column (1-based), so that the message points at the
offending code and not at the frontend that found it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gt4py.eve.sources import describe_location


if TYPE_CHECKING:
    from gt4py.eve import SourceLocation


class DSLError(Exception):
    """An error in a field operator, scan operator or program definition.

    ``location`` is a :class:`gt4py.eve.SourceLocation` (``filename``, ``line``, ``column``)
    or ``None`` when the source is unknown; ``message`` is the bare explanation.
    """

    location: SourceLocation | None
    message: str

    def __init__(self, location: SourceLocation | None, message: str) -> None:
        self.location = location
        self.message = message
        super().__init__(location, message)

    def __str__(self) -> str:
        if self.location is None:
            return self.message
        return f"{self.message}\n  at {describe_location(self.location)}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.location, self.message))


class UnsupportedPythonFeatureError(DSLError):
    """Python syntax the DSL does not support (loops, lambdas, ...)."""

    def __init__(self, location: SourceLocation | None, feature: str, hint: str = "") -> None:
        self.feature = feature
        message = f"{feature} is not supported in gt4py.next operators and programs"
        super().__init__(location, f"{message}; {hint}" if hint else message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.location, self.message, {"feature": self.feature}))


class UndefinedSymbolError(DSLError):
    """A name that is neither a parameter, a local variable nor a global of the definition."""

    def __init__(self, location: SourceLocation | None, name: str, suggestion: str = "") -> None:
        self.name = name
        self.suggestion = suggestion
        message = f"undefined name '{name}': define it (or import it) before the decorated function"
        super().__init__(location, f"{message}; {suggestion}" if suggestion else message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.location, self.name, self.suggestion))


class MissingParameterAnnotationError(DSLError):
    """A parameter without a type annotation."""

    def __init__(self, location: SourceLocation | None, name: str) -> None:
        self.name = name
        super().__init__(
            location,
            f"parameter '{name}' needs a type annotation, e.g. "
            f"'{name}: gtx.Field[gtx.Dims[I], gtx.float64]' or '{name}: gtx.float64'",
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.location, self.name))


class InvalidParameterAnnotationError(DSLError):
    """A parameter annotation that does not name a DSL type."""


class MissingAttributeError(DSLError):
    """``value.name`` where ``value`` has no attribute ``name``."""


class DSLTypeError(DSLError):
    """Operands or arguments whose types do not fit (dtypes, dimensions, arity, ...)."""


class CallArgumentError(TypeError):
    """A call's argument does not fit its parameter (dimensions, dtype, kind, a read-only array
    the call writes, a missing or extra argument): raised before anything runs, naming the
    argument. A ``TypeError``, as released gt4py raised for these."""


def _rebuild(cls: type[DSLError], location: Any, message: str, state: dict[str, Any]) -> DSLError:
    error = DSLError.__new__(cls)
    DSLError.__init__(error, location, message)
    error.__dict__.update(state)
    return error
