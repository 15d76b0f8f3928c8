"""The one exception type of fingerprinting."""

from __future__ import annotations


class FingerprintError(TypeError):
    """A value (or a part of it) cannot be fingerprinted under the chosen contract.

    ``path`` says where inside the fingerprinted value the offending part sits (for example
    ``value.body[2].func``); it is filled in by the fold and shown by ``str()``.
    """

    __module__ = "gt4py.infra.fingerprinting"

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        if self.path is None:
            return self.message
        return f"{self.message} (found at {self.path})"

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild_error, (self.message, self.path))


def _rebuild_error(message: str, path: str | None) -> FingerprintError:
    return FingerprintError(message, path=path)
