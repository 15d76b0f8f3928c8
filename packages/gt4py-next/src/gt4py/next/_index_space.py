"""The index space of every backend: 64-bit indices, ``±INFINITY`` for unbounded ends, and
:class:`DomainError` for a range that does not fit.

Indices are 64-bit on every backend (the compiled ones compute with ``std::int64_t``): a
range made from user values whose finite bounds, or whose size ``stop - start`` (of an empty
range, too: the compiled backends compute it), do not fit in int64 is a :class:`DomainError`
(:func:`check_index_range`). Every backend raises it, with the same message, before running.
"""

from __future__ import annotations

import math
from typing import Final, TypeAlias


#: The module that defined the index and domain classes before they were split up; their
#: ``__module__`` stays, so that reprs, tracebacks and pickles do not change.
DOMAIN_MODULE: Final = "gt4py.next._domain"

INFINITY: Final = math.inf

#: The index space of every backend: int64.
INDEX_MIN: Final = -(2**63)
INDEX_MAX: Final = 2**63 - 1


class DomainError(ValueError):
    """Domains do not fit: out of bounds, mismatched, unbounded where bounds are needed, or
    outside the 64-bit index space. Raised by every backend (``gt4py.next.embedded`` exports
    it as well)."""

    __module__ = DOMAIN_MODULE  # where it was defined before the split: reprs and pickles


def fits_index_space(start: int, stop: int) -> bool:
    """Whether the finite range ``[start, stop)`` fits in 64-bit indices: both bounds and
    ``stop - start`` (negative for an empty range) in int64."""
    return (
        INDEX_MIN <= start <= INDEX_MAX
        and INDEX_MIN <= stop <= INDEX_MAX
        and INDEX_MIN <= stop - start <= INDEX_MAX
    )


def index_range_message(dim: str | None, start: int, stop: int) -> str:
    """The message of a range outside the index space (the same on every backend)."""
    where = f"{dim}=" if dim is not None else "the range "
    return (
        f"{where}[{start}, {stop}) does not fit in 64-bit indices: both bounds and the size "
        "stop - start (of an empty range, too) must lie in [-2**63, 2**63 - 1]"
    )


def check_index_range(dim: str | None, start: Bound, stop: Bound) -> None:
    """Raise :class:`DomainError` if the finite bounds of a range do not fit in int64."""
    lo_finite = start not in (-INFINITY, INFINITY)
    hi_finite = stop not in (-INFINITY, INFINITY)
    if lo_finite and hi_finite:
        if fits_index_space(start, stop):  # type: ignore[arg-type]  # finite: ints
            return
    elif (not lo_finite or INDEX_MIN <= start <= INDEX_MAX) and (
        not hi_finite or INDEX_MIN <= stop <= INDEX_MAX
    ):
        return
    raise DomainError(index_range_message(dim, start, stop))  # type: ignore[arg-type]


class Infinity:
    """The unbounded ends of a :class:`UnitRange` (plain ``±math.inf``)."""

    __module__ = DOMAIN_MODULE  # where it was defined before the split: reprs and pickles
    POSITIVE: Final = math.inf
    NEGATIVE: Final = -math.inf


Bound: TypeAlias = int | float  # an int, or ±math.inf
