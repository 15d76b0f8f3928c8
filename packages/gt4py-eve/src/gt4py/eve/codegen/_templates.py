"""Code templates: ``str.format`` strings and jinja2 templates (the project's one engine).

A template is checked when the generator class that uses it is defined, so syntax errors
surface at import time, naming the generator and the node class; rendering errors name the
missing value and the values that were available.
"""

from __future__ import annotations

import abc
import string
import threading
from collections.abc import Mapping
from typing import Any, Final


class TemplateError(Exception):
    """Base of template errors."""


class TemplateDefinitionError(TemplateError, ValueError):
    """A template that cannot be parsed."""


class TemplateRenderingError(TemplateError, RuntimeError):
    """A template that failed while filling in a node's values."""


def _excerpt(text: str, limit: int = 80) -> str:
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return repr(text)


class Template(abc.ABC):
    """A template for one node class; ``render`` fills in the node's visited fields."""

    __slots__ = ("_lock", "_prepared", "definition")

    def __init__(self, definition: str) -> None:
        if not isinstance(definition, str):
            raise TypeError(
                f"{type(self).__name__} takes the template text, got {type(definition).__qualname__}"
            )
        self.definition = definition
        self._prepared: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.definition!r})"

    def check(self, where: str) -> None:
        """Parse the template now; ``where`` says whose template it is, for the error."""
        if self._prepared is None:
            with self._lock:
                if self._prepared is None:
                    try:
                        self._prepared = self._prepare()
                    except TemplateDefinitionError as error:
                        raise TemplateDefinitionError(
                            f"invalid {type(self).__name__} for {where}: {error}; template: "
                            f"{_excerpt(self.definition)}"
                        ) from None

    def render(self, values: Mapping[str, Any], where: str) -> str:
        self.check(where)
        try:
            return self._render(self._prepared, values)
        except TemplateRenderingError as error:
            raise TemplateRenderingError(
                f"rendering the {type(self).__name__} for {where} failed: {error}; "
                f"available values: {', '.join(sorted(values))}; template: "
                f"{_excerpt(self.definition)}"
            ) from error.__cause__

    @abc.abstractmethod
    def _prepare(self) -> Any:
        """Parse the definition; raise TemplateDefinitionError (without context) if invalid."""

    @abc.abstractmethod
    def _render(self, prepared: Any, values: Mapping[str, Any]) -> str:
        """Fill in; raise TemplateRenderingError (with the cause chained) on failure."""


class FormatTemplate(Template):
    """A ``str.format`` template: ``"{left} {op} {right}"``."""

    __slots__ = ()

    def _prepare(self) -> Any:
        try:
            list(string.Formatter().parse(self.definition))
        except ValueError as error:
            raise TemplateDefinitionError(str(error)) from None
        return self.definition

    def _render(self, prepared: Any, values: Mapping[str, Any]) -> str:
        try:
            return str(prepared.format_map(values))
        except KeyError as error:
            raise TemplateRenderingError(f"no value named {error.args[0]!r}") from error
        except (AttributeError, IndexError, ValueError, TypeError) as error:
            raise TemplateRenderingError(f"{type(error).__name__}: {error}") from error


_jinja_environment: Any = None
_jinja_lock: Final = threading.Lock()


def _environment() -> Any:
    """One shared jinja2 environment, created on first use (jinja2 is imported lazily)."""
    global _jinja_environment
    if _jinja_environment is None:
        with _jinja_lock:
            if _jinja_environment is None:
                import jinja2

                _jinja_environment = jinja2.Environment(
                    undefined=jinja2.StrictUndefined,  # a missing value is an error, not ""
                    keep_trailing_newline=True,
                    autoescape=False,
                )
    return _jinja_environment


class JinjaTemplate(Template):
    """A jinja2 template: ``"{{ name }}({{ args | join(', ') }})"``."""

    __slots__ = ()

    def _prepare(self) -> Any:
        import jinja2

        try:
            return _environment().from_string(self.definition)
        except jinja2.TemplateSyntaxError as error:
            raise TemplateDefinitionError(f"line {error.lineno}: {error.message}") from None

    def _render(self, prepared: Any, values: Mapping[str, Any]) -> str:
        import jinja2

        try:
            return str(prepared.render(**values))
        except jinja2.UndefinedError as error:
            raise TemplateRenderingError(str(error)) from error
        except Exception as error:
            raise TemplateRenderingError(f"{type(error).__name__}: {error}") from error


def as_fmt(definition: str) -> FormatTemplate:
    """Shorthand for :class:`FormatTemplate`."""
    return FormatTemplate(definition)


def as_jinja(definition: str) -> JinjaTemplate:
    """Shorthand for :class:`JinjaTemplate`."""
    return JinjaTemplate(definition)
