"""``ConstrainedStr``: str subclasses whose values must match a pattern."""

from __future__ import annotations

import re
from typing import Any, ClassVar


class ConstrainedStr(str):
    """A str that only takes values matching the class's ``pattern`` (a full match).

    Subclass with ``pattern = r"..."``. Datamodel fields annotated with a subclass accept plain
    strings and convert them (``__eve_auto_coerce__``); a non-matching value is a ``ValueError``
    naming the class, the value and the pattern.
    """

    __slots__ = ()
    __eve_auto_coerce__: ClassVar[bool] = True
    pattern: ClassVar[str | None] = None
    _compiled: ClassVar[re.Pattern[str] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "pattern" in cls.__dict__ and cls.pattern is not None:
            try:
                cls._compiled = re.compile(cls.pattern)
            except re.error as error:
                raise ValueError(f"{cls.__qualname__}.pattern {cls.pattern!r}: {error}") from None

    def __new__(cls, value: object) -> ConstrainedStr:
        if not isinstance(value, str):
            raise TypeError(
                f"{cls.__qualname__} takes a str, got {type(value).__qualname__} {value!r}"
            )
        compiled = cls._compiled
        if compiled is not None and compiled.fullmatch(value) is None:
            name = cls.__qualname__.rsplit("<locals>.", 1)[-1]
            raise ValueError(f"{value!r} is not a valid {name} (must match {cls.pattern!r})")
        return super().__new__(cls, value)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self),))
