"""Field offsets: named shifts whose meaning comes from the offset provider at call time.

``E2V = FieldOffset("E2V", source=V, target=(E, E2VDim))`` names a neighbour table;
``f(E2V)`` gathers all neighbours, ``f(E2V[0])`` the first one. A Cartesian offset such as
``Koff = FieldOffset("Koff", source=K, target=(K,))`` shifts by its index: ``f(Koff[1])``.
"""

from __future__ import annotations

import operator
from typing import Any

from ._dimensions import Dimension, DimensionKind


class FieldOffset:
    """A named shift from ``source`` to ``target`` dimensions.

    ``field(Off[i])`` in a field operator reads ``field`` shifted by ``Off``: by ``i`` points
    for a Cartesian offset, at neighbour ``i`` for a neighbour table; ``field(Off)`` gathers all
    neighbours (for ``neighbor_sum`` and the other reductions). What the name means at run time
    comes from the call's ``offset_provider`` (a connectivity under the same name).

    Args:
        value: the offset's name, the key of its connectivity in ``offset_provider``.
        source: the dimension the shifted field is defined on.
        target: one dimension (a Cartesian shift, ``(K,)`` with ``source=K``, or a one-to-one
            table) or two: the destination and the local dimension (``DimensionKind.LOCAL``)
            enumerating the neighbours. A single ``Dimension`` is taken as ``(Dimension,)``.

    Raises:
        TypeError: an empty name, or ``source``/``target`` not dimensions.
        ValueError: the second target dimension is not local.
    """

    __slots__ = ("_hash", "source", "target", "value")

    value: str
    source: Dimension
    target: tuple[Dimension, ...]
    _hash: int

    def __init__(
        self, value: str, source: Dimension, target: tuple[Dimension, ...] | Dimension
    ) -> None:
        if not isinstance(value, str) or not value:
            raise TypeError(f"a FieldOffset needs a non-empty name (str), got {value!r}")
        if not isinstance(source, Dimension):
            raise TypeError(f"FieldOffset {value!r}: source must be a Dimension, got {source!r}")
        if isinstance(target, Dimension):
            target = (target,)
        target = tuple(target)
        if len(target) not in (1, 2) or not all(isinstance(t, Dimension) for t in target):
            raise TypeError(
                f"FieldOffset {value!r}: target must be (Dimension,) or "
                f"(Dimension, local Dimension), got {target!r}"
            )
        if len(target) == 2 and target[1].kind is not DimensionKind.LOCAL:
            raise ValueError(
                f"FieldOffset {value!r}: the second target dimension {target[1]} must be of "
                "kind DimensionKind.LOCAL (it enumerates the neighbours)"
            )
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "_hash", hash((FieldOffset, value, source, target)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"FieldOffset is immutable (cannot set {name!r})")

    @property
    def is_cartesian_like(self) -> bool:
        """Shifts within one dimension (``source == target``): works without a provider entry."""
        return len(self.target) == 1 and self.target[0] == self.source

    def __getitem__(self, index: int) -> IndexedFieldOffset:
        return IndexedFieldOffset(self, index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldOffset):
            return NotImplemented
        return (self.value, self.source, self.target) == (other.value, other.source, other.target)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (FieldOffset, (self.value, self.source, self.target))

    def __repr__(self) -> str:
        target = ", ".join(map(repr, self.target))
        return f"FieldOffset({self.value!r}, source={self.source!r}, target=({target},))"


class IndexedFieldOffset:
    """``Koff[1]`` (shift by one) or ``E2V[0]`` (the first neighbour)."""

    __slots__ = ("index", "offset")

    def __init__(self, offset: FieldOffset, index: int) -> None:
        if isinstance(index, bool) or not hasattr(index, "__index__"):
            raise TypeError(f"{offset.value}[...] takes an integer, got {index!r}")
        self.offset = offset
        self.index = operator.index(index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IndexedFieldOffset):
            return NotImplemented
        return self.offset == other.offset and self.index == other.index

    def __hash__(self) -> int:
        return hash((IndexedFieldOffset, self.offset, self.index))

    def __repr__(self) -> str:
        return f"{self.offset.value}[{self.index}]"


class DynamicOffset:
    """``as_offset(Koff, offsets)``: a Cartesian shift whose amount varies point by point."""

    __slots__ = ("offset", "offsets")

    def __init__(self, offset: FieldOffset, offsets: Any) -> None:
        if not isinstance(offset, FieldOffset):
            raise TypeError(f"as_offset needs a FieldOffset first, got {offset!r}")
        self.offset = offset
        self.offsets = offsets

    def __repr__(self) -> str:
        return f"as_offset({self.offset.value}, <field of offsets>)"
