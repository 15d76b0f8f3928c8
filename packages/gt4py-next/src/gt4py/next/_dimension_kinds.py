"""`DimensionKind`, what a dimension stands for, and the canonical order of the kinds."""

from __future__ import annotations

import enum
from typing import Final

from ._index_space import DOMAIN_MODULE


class DimensionKind(enum.StrEnum):
    """What a dimension stands for; it decides the canonical order of dimensions in a field."""

    __module__ = DOMAIN_MODULE  # where it was defined before the split: reprs and pickles

    HORIZONTAL = "horizontal"
    VERTICAL = "vertical"
    LOCAL = "local"

    def __str__(self) -> str:
        return self.value


# Horizontal before local (neighbour) before vertical: `f(E2V)` on a (V, K) field gives
# (E, E2VDim, K), already in this order.
KIND_ORDER: Final = {
    DimensionKind.HORIZONTAL: 0,
    DimensionKind.LOCAL: 1,
    DimensionKind.VERTICAL: 2,
}
