"""Layout maps: the order in which the dimensions of a tensor are laid out in memory.

A layout map has one entry per tensor dimension; ``layout_map[d]`` is the position of dimension
``d`` in memory order, counted from the outermost (largest stride) to the innermost, stride-one
dimension. ``(0, 1, 2)`` is C order, ``(2, 1, 0)`` is Fortran order, and the dimension holding the
highest value is the contiguous one. (This is the convention of GridTools and released gt4py.)

A *layout maker* turns the names of a storage's dimensions (``("I", "J", "K")``, with data
dimensions named by digit strings ``"0"``, ``"1"``, ...) into a layout map; backends register one.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Literal, Protocol, TypeAlias

import numpy as np


LayoutMap: TypeAlias = tuple[int, ...]

CARTESIAN_AXES = "IJK"


class LayoutMaker(Protocol):
    """Anything that maps dimension names to a layout map of the same length."""

    def __call__(self, dimensions: tuple[str, ...], /) -> Sequence[int]: ...


def is_data_dimension(name: str) -> bool:
    """Data dimensions (extra per-point dimensions such as vector components) are named by digits."""
    return name.isdigit()


def is_valid_layout_map(layout_map: object, ndim: int | None = None) -> bool:
    """Whether ``layout_map`` is a permutation of ``range(len(layout_map))`` (of length ``ndim``)."""
    if not isinstance(layout_map, Sequence | np.ndarray) or isinstance(layout_map, str):
        return False
    if isinstance(layout_map, np.ndarray) and layout_map.ndim != 1:
        return False
    if ndim is not None and len(layout_map) != ndim:
        return False
    entries = list(layout_map)
    if not all(_is_integer(entry) for entry in entries):
        return False
    return sorted(int(entry) for entry in entries) == list(range(len(entries)))


def _is_integer(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def memory_order(layout_map: Sequence[int]) -> tuple[int, ...]:
    """Tensor dimensions from the outermost to the innermost (contiguous) one."""
    return tuple(sorted(range(len(layout_map)), key=lambda dim: layout_map[dim]))


def strides_follow_layout_map(strides: Sequence[int], layout_map: Sequence[int]) -> bool:
    """Whether ``strides`` do not decrease from the innermost to the outermost dimension."""
    if len(strides) != len(layout_map):
        return False
    ordered = [strides[dim] for dim in reversed(memory_order(layout_map))]
    return all(inner <= outer for inner, outer in itertools.pairwise(ordered))


def c_order_layout(dimensions: tuple[str, ...], /) -> LayoutMap:
    """C order in the order the dimensions are given, whatever their names: the last is contiguous."""
    return tuple(range(len(dimensions)))


@dataclasses.dataclass(frozen=True)
class AxisOrderLayout:
    """A layout fixed by axis name, independent of the order the dimensions are given in.

    ``axis_order`` lists the Cartesian axes from the outermost to the innermost (contiguous)
    one: ``"IJK"`` keeps K contiguous (C order for an IJK field), ``"KJI"`` makes I contiguous.
    Fields with fewer axes keep the relative order of the axes they have. Data dimensions go
    either ``"outer"`` (all outside the Cartesian axes: one block per component) or ``"inner"``
    (all inside them: components of a point are adjacent), among themselves in the order given.
    """

    axis_order: str
    data_dimensions: Literal["inner", "outer"]

    def __post_init__(self) -> None:
        if len(set(self.axis_order)) != len(self.axis_order) or not self.axis_order:
            raise ValueError(f"axis_order {self.axis_order!r} must name each axis once")
        if any(is_data_dimension(axis) for axis in self.axis_order):
            raise ValueError(
                f"axis_order {self.axis_order!r} must name axes, not data dimensions (digits)"
            )
        if self.data_dimensions not in ("inner", "outer"):
            raise ValueError(
                f"data_dimensions must be 'inner' or 'outer', not {self.data_dimensions!r}"
            )

    def __call__(self, dimensions: tuple[str, ...], /) -> LayoutMap:
        # ``None`` counts as a data dimension, as in released's layout makers (NDSL names a
        # non-grid dimension past the third position so)
        axes = [
            n
            for n, name in enumerate(dimensions)
            if name is not None and not is_data_dimension(name)
        ]
        names = [dimensions[n] for n in axes]
        if len(set(names)) != len(names):  # data dimensions may repeat (named by their size)
            raise ValueError(f"dimensions {dimensions} name an axis more than once")
        unknown = [name for name in names if name not in self.axis_order]
        if unknown:
            raise ValueError(
                f"dimensions {dimensions} name axes {unknown} that this layout does not order "
                f"(it orders {tuple(self.axis_order)} and digit-named data dimensions)"
            )
        data = [n for n in range(len(dimensions)) if n not in axes]
        axes.sort(key=lambda n: self.axis_order.index(dimensions[n]))
        ordered = [*data, *axes] if self.data_dimensions == "outer" else [*axes, *data]
        return tuple(ordered.index(n) for n in range(len(dimensions)))

    def __repr__(self) -> str:
        return f"AxisOrderLayout({self.axis_order!r}, data_dimensions={self.data_dimensions!r})"
