"""`UnitRange`: a half-open interval of integers whose ends may be infinite.

Infinite ranges describe broadcast values (a scalar is defined everywhere) and domain
conditions (``K < 5``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sequence
from typing import TypeAlias, overload

from ._index_space import DOMAIN_MODULE, INFINITY, Bound, check_index_range


def _bound(value: object, *, lower: bool) -> Bound:
    if value is None:
        return -INFINITY if lower else INFINITY
    if isinstance(value, float) and math.isinf(value):
        if (value < 0) != lower:
            side = "start" if lower else "stop"
            raise ValueError(f"a UnitRange {side} cannot be {value}")
        return value
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"UnitRange bounds must be integers (or None for unbounded), got {value!r}")
    return operator.index(value)


def _fmt_bound(value: Bound) -> str:
    if value == INFINITY:
        return "inf"
    if value == -INFINITY:
        return "-inf"
    return str(value)


class UnitRange(Sequence[int]):
    """The integers ``start <= i < stop``; either end may be unbounded (``None`` / ``±math.inf``).

    Every empty range is normalized to ``UnitRange(0, 0)``.
    """

    __module__ = DOMAIN_MODULE  # where it was defined before the split: reprs and pickles
    __slots__ = ("start", "stop")

    start: Bound
    stop: Bound

    def __init__(self, start: object, stop: object, *, dim: str | None = None) -> None:
        lo = _bound(start, lower=True)
        hi = _bound(stop, lower=False)
        check_index_range(dim, lo, hi)
        if lo >= hi:
            lo = hi = 0
        self.start = lo
        self.stop = hi

    @classmethod
    def _make(cls, start: Bound, stop: Bound) -> UnitRange:
        """Fast path for already validated bounds."""
        rng = object.__new__(cls)
        if start >= stop:
            start = stop = 0
        rng.start = start
        rng.stop = stop
        return rng

    @classmethod
    def infinite(cls) -> UnitRange:
        return cls._make(-INFINITY, INFINITY)

    def is_finite(self) -> bool:
        return self.start != -INFINITY and self.stop != INFINITY

    def is_left_finite(self) -> bool:
        return self.start != -INFINITY

    def is_right_finite(self) -> bool:
        return self.stop != INFINITY

    def is_empty(self) -> bool:
        return self.start == self.stop

    def __len__(self) -> int:
        if not self.is_finite():
            raise ValueError(f"{self!r} is unbounded and has no length")
        return int(self.stop - self.start)

    def __iter__(self) -> Iterator[int]:
        if not self.is_finite():
            raise ValueError(f"cannot iterate over the unbounded {self!r}")
        return iter(range(int(self.start), int(self.stop)))

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> UnitRange: ...

    def __getitem__(self, index: int | slice) -> int | UnitRange:
        positions = range(int(self.start), int(self.stop)) if self.is_finite() else None
        if positions is None:
            raise ValueError(f"cannot index the unbounded {self!r}")
        selected = positions[index]
        if isinstance(selected, range):
            if selected.step != 1:
                raise ValueError(f"a UnitRange can only be sliced with step 1, got {index!r}")
            return UnitRange._make(selected.start, selected.stop)
        return selected

    def __contains__(self, value: object) -> bool:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            return False
        return self.start <= operator.index(value) < self.stop

    def __and__(self, other: UnitRange) -> UnitRange:
        if not isinstance(other, UnitRange):
            return NotImplemented
        return UnitRange._make(max(self.start, other.start), min(self.stop, other.stop))

    def __add__(self, offset: int) -> UnitRange:
        if self.is_empty():
            return self
        return UnitRange._make(self.start + offset, self.stop + offset)

    def __sub__(self, offset: int) -> UnitRange:
        if self.is_empty():
            return self
        return UnitRange._make(self.start - offset, self.stop - offset)

    def __le__(self, other: UnitRange) -> bool:
        """Whether ``self`` lies inside ``other``."""
        return self.is_empty() or (self.start >= other.start and self.stop <= other.stop)

    def __ge__(self, other: UnitRange) -> bool:
        return other <= self

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not UnitRange:
            return NotImplemented
        return self.start == other.start and self.stop == other.stop

    def __hash__(self) -> int:
        return hash((self.start, self.stop))

    def __reduce__(self) -> tuple[type[UnitRange], tuple[Bound, Bound]]:
        return (UnitRange, (self.start, self.stop))

    def __repr__(self) -> str:
        return f"UnitRange({_fmt_bound(self.start)}, {_fmt_bound(self.stop)})"

    def __str__(self) -> str:
        return f"[{_fmt_bound(self.start)}, {_fmt_bound(self.stop)})"


RangeLike: TypeAlias = UnitRange | range | tuple[object, object] | int | None


def unit_range(value: RangeLike, dim: str | None = None) -> UnitRange:
    """A :class:`UnitRange` from ``UnitRange``, ``range`` (step 1), ``(start, stop)`` or a size
    (``dim``: the dimension's name, for the message of a range outside the index space)."""
    if isinstance(value, UnitRange):
        return value
    if isinstance(value, range):
        if value.step != 1:
            raise ValueError(f"a UnitRange needs step 1, got {value!r}")
        return UnitRange(value.start, value.stop, dim=dim)
    if isinstance(value, tuple) and len(value) == 2:
        return UnitRange(value[0], value[1], dim=dim)
    if value is None:
        return UnitRange.infinite()
    if not isinstance(value, bool) and hasattr(value, "__index__"):
        size = operator.index(value)
        if size < 0:
            raise ValueError(f"a size must not be negative, got {size}")
        return UnitRange(0, size, dim=dim)
    raise TypeError(
        f"cannot make a UnitRange from {value!r}: use a size, (start, stop), range or UnitRange"
    )
