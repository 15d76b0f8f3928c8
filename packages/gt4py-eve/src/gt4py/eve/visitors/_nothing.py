"""``NOTHING``: what a translator returns to drop an item from its container."""

from __future__ import annotations

from typing import Final


class NothingType:
    """The type of :data:`NOTHING` (a singleton)."""

    _instance: NothingType | None = None

    def __new__(cls) -> NothingType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOTHING"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "NOTHING"


#: Returned by a translator's visit method for an item of a list, tuple, set or dict, the
#: item is removed from the container. Returned for a node field, it is an error.
NOTHING: Final = NothingType()
