"""What a stencil object says about its parameters, under released gt4py.cartesian's names:
``stencil.field_info[name]`` is a :class:`FieldInfo`, ``stencil.parameter_info[name]`` a
:class:`ParameterInfo`, ``stencil.domain_info`` a :class:`DomainInfo`.

Frameworks read these (NDSL finds the fields a stencil writes with
``field_info[name].access & AccessKind.WRITE``), so each name keeps released's meaning.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import numpy as np


class AccessKind(enum.IntFlag):
    """How a stencil uses a parameter; a flag, so ``access & AccessKind.WRITE`` tests writes."""

    NONE = 0
    READ = 1
    WRITE = 2
    READ_WRITE = READ | WRITE

    @classmethod
    def of(cls, access: str) -> AccessKind:
        """The kind of an analysis access (``"none"``, ``"in"``, ``"out"``, ``"inout"``)."""
        return _ACCESS_KINDS[access]


_ACCESS_KINDS = {
    "none": AccessKind.NONE,
    "in": AccessKind.READ,
    "out": AccessKind.WRITE,
    "inout": AccessKind.READ_WRITE,
}


class Boundary(tuple[tuple[int, int], ...]):
    """``(lower, upper)`` points a field is read beyond the domain, per axis I, J, K."""

    @property
    def lower_indices(self) -> tuple[int, ...]:
        return tuple(lower for lower, _ in self)

    @property
    def upper_indices(self) -> tuple[int, ...]:
        return tuple(upper for _, upper in self)

    def __repr__(self) -> str:
        return f"Boundary({tuple(self)!r})"


_AXES = ("I", "J", "K")


@dataclasses.dataclass(frozen=True)
class FieldInfo:
    """A field parameter: its access, the points it is read beyond the domain per axis
    (``boundary``, always I, J, K), its axes, data dimensions and dtype."""

    access: AccessKind
    boundary: Boundary
    axes: tuple[str, ...]
    data_dims: tuple[int, ...]
    dtype: np.dtype[Any]

    @property
    def domain_mask(self) -> tuple[bool, ...]:
        """Which of I, J, K the field has."""
        return tuple(axis in self.axes for axis in _AXES)

    @property
    def mask(self) -> tuple[bool, ...]:
        """:attr:`domain_mask` followed by ``True`` for each data dimension."""
        return (*self.domain_mask, *(True for _ in self.data_dims))

    @property
    def domain_ndim(self) -> int:
        return len(self.axes)

    @property
    def ndim(self) -> int:
        return len(self.axes) + len(self.data_dims)


@dataclasses.dataclass(frozen=True)
class ParameterInfo:
    """A scalar parameter: read (``AccessKind.READ``) or unused (``AccessKind.NONE``)."""

    access: AccessKind
    dtype: np.dtype[Any]


@dataclasses.dataclass(frozen=True)
class DomainInfo:
    """The iteration space: I and J in parallel, K sequential (at least
    ``min_sequential_axis_size`` levels for every interval to be non-empty)."""

    parallel_axes: tuple[str, ...]
    sequential_axis: str
    min_sequential_axis_size: int
    ndim: int


__all__ = ["AccessKind", "Boundary", "DomainInfo", "FieldInfo", "ParameterInfo"]
