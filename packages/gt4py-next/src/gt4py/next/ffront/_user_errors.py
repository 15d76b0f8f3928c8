"""The errors about the user's definition or call, whose tracebacks the entry points (the
decorators, ``__call__``, ``.compile``) cut down to the user's frames (ADR 0030).

Errors of other types are gt4py's own (bugs) and keep their whole traceback.
"""

from __future__ import annotations

from gt4py.infra.tracebacks import hide_internal_frames as hide_internal_frames

from .._domain import DomainError
from ..embedded.exceptions import EmbeddedError
from ..errors import CallArgumentError, DSLError


USER_ERRORS: tuple[type[Exception], ...] = (DSLError, CallArgumentError, DomainError, EmbeddedError)

__all__ = ["USER_ERRORS", "hide_internal_frames"]
