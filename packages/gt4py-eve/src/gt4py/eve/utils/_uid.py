"""Unique identifiers for generated names."""

from __future__ import annotations

import itertools
import secrets
import string
import threading
from typing import Final


_ALPHABET: Final = string.ascii_lowercase + string.digits


class UIDGenerator:
    """Sequential or random identifiers, optionally prefixed: ``tmp_1``, ``tmp_2``, ...

    Thread-safe; every generator has its own sequence.
    """

    def __init__(self, prefix: str | None = None, *, start: int = 1) -> None:
        self.prefix = prefix
        self._lock = threading.Lock()
        self._counter = itertools.count(start)

    def sequential_id(self, prefix: str | None = None, *, width: int | None = None) -> str:
        """The next number of the sequence, zero-padded to ``width`` digits if given."""
        if width is not None and width < 1:
            raise ValueError(f"width must be positive, got {width}")
        with self._lock:
            number = next(self._counter)
        digits = str(number) if width is None else str(number).zfill(width)
        return self._join(prefix, digits)

    def random_id(self, prefix: str | None = None, *, width: int = 8) -> str:
        """``width`` random lowercase letters and digits (not reproducible across runs)."""
        if width < 1:
            raise ValueError(f"width must be positive, got {width}")
        return self._join(prefix, "".join(secrets.choice(_ALPHABET) for _ in range(width)))

    def reset_sequence(self, start: int = 1) -> None:
        """Restart the sequence at ``start`` (earlier ids may then be issued again)."""
        with self._lock:
            self._counter = itertools.count(start)

    def _join(self, prefix: str | None, suffix: str) -> str:
        prefix = self.prefix if prefix is None else prefix
        return f"{prefix}_{suffix}" if prefix else suffix
