"""Errors raised by embedded execution; each names what was wrong and what to do."""

from __future__ import annotations

# Every backend raises it (a domain concept, so it lives with Domain, below the backends).
from .._domain import DomainError as DomainError


class EmbeddedError(Exception):
    """Base class of the errors embedded execution raises on bad input."""


class NonContiguousDomainError(DomainError, EmbeddedError):
    """A result would have a hole (e.g. ``concat_where`` branches that leave a gap)."""


class OffsetProviderError(EmbeddedError, LookupError):
    """A shift needs an offset-provider entry that is missing or of the wrong kind."""


class FieldDTypeError(EmbeddedError, TypeError):
    """Operands have dtypes that the operation does not combine."""
