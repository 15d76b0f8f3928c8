"""The field abstraction: values over a domain, and how annotations name their type.

:class:`Field` is the interface every field implementation offers (the embedded ndarray field
today; backends may add their own). ``Field[Dims[I, J], float64]`` builds a
:class:`FieldAnnotation` that the frontend reads to type operator arguments.
"""

from __future__ import annotations

import abc
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from gt4py.infra.definitions import SCALAR_TYPES

from ._annotation_forms import DimsT, DTypeT_co, FieldParameters
from ._dimensions import Dimension, Dims
from ._domain import Domain


def scalar_dtype(dtype_like: object) -> np.dtype[Any]:
    """The numpy dtype of a dtype-like (``gtx.float64``, ``np.int32``, ``"float32"``, ``float``).

    Only the DSL's scalar types are accepted (bool, int8..int64, uint8..uint64, float32/64).
    """
    try:
        dtype: np.dtype[Any] = np.dtype(dtype_like)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"{dtype_like!r} is not a dtype") from None
    if dtype not in _SUPPORTED_DTYPES:
        raise TypeError(
            f"dtype {dtype} is not supported by gt4py.next "
            "(supported: bool, int8..int64, uint8..uint64, float32, float64)"
        )
    return dtype


_SUPPORTED_DTYPES = frozenset(SCALAR_TYPES.values())


class FieldAnnotation:
    """The type written as ``Field[Dims[I, J], float64]``: its dimensions and dtype.

    ``dims`` is ``None`` for ``Field[..., dtype]`` (any dimensions). An annotation may be
    generic, as typing's generic aliases are: the dtype, the dimensions (``Dims[D]``, or a bare
    ``D`` in place of ``Dims[...]``) or single dimensions (``Dims[Cell, D]``) may be
    ``typing.TypeVar`` s. Subscripting substitutes them in order of appearance:
    ``Field[Dims[D], T][Cell, float64]`` is ``Field[Dims[Cell], float64]``; a dimension variable
    takes a :class:`Dimension` or a ``Dims[...]`` whose dimensions take its place.
    ``Field[...] | None`` is a ``typing.Optional``. As in released gt4py, helper code may also
    write a union of dtypes (``Field[Dims[Cell], float32 | float64]``) or the class
    ``Dimension`` for any dimension (``Dims[Dimension]``); such annotations, like unsubstituted
    generic ones, are not :attr:`is_concrete` and the DSL refuses them.
    """

    __slots__ = ("dims", "dtype")

    def __init__(self, dims: Sequence[Dimension] | None, dtype: object) -> None:
        self.dims = None if dims is None else Dims(dims)
        self.dtype: Any = dtype if _is_type_expression(dtype) else scalar_dtype(dtype)

    @property
    def is_concrete(self) -> bool:
        """Whether this names one field type (no type variable, union or ``Dimension`` class)."""
        return isinstance(self.dtype, np.dtype) and (
            self.dims is None or all(isinstance(d, Dimension) for d in self.dims)
        )

    @property
    def __parameters__(self) -> tuple[TypeVar, ...]:
        dims = () if self.dims is None else self.dims.__parameters__
        dtype = (self.dtype,) if isinstance(self.dtype, TypeVar) else ()
        return tuple(dict.fromkeys((*dims, *dtype)))

    def __getitem__(self, args: object) -> FieldAnnotation:
        params = self.__parameters__
        if not params:
            raise TypeError(f"{self!r} is not generic: it has no type variable to substitute")
        # `X[a, b]` passes a plain tuple; a `Dims[...]` argument is one argument
        args = args if type(args) is tuple else (args,)
        if len(args) != len(params):
            raise TypeError(
                f"{self!r} takes {len(params)} type argument(s) "
                f"({', '.join(map(str, params))}), got {len(args)}"
            )
        return self.substitute(dict(zip(params, args, strict=True)))

    def substitute(self, values: Mapping[TypeVar, object]) -> FieldAnnotation:
        """This annotation with type variables replaced by ``values`` (others are kept)."""
        dims: list[Any] | None = None
        if self.dims is not None:
            dims = []
            for dim in self.dims:
                value = values.get(dim, dim) if isinstance(dim, TypeVar) else dim
                dims.extend(value if isinstance(value, (list, tuple)) else (value,))
        dtype = (
            values.get(self.dtype, self.dtype) if isinstance(self.dtype, TypeVar) else self.dtype
        )
        return FieldAnnotation(dims, dtype)

    def __or__(self, other: object) -> Any:
        return typing.Union[self, other]  # noqa: UP007  (an instance is no type for `|`)

    def __ror__(self, other: object) -> Any:
        return typing.Union[other, self]  # noqa: UP007

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FieldAnnotation):
            return NotImplemented
        return self.dims == other.dims and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash((FieldAnnotation, self.dims, self.dtype))

    def __repr__(self) -> str:
        dims = "..." if self.dims is None else repr(self.dims)
        dtype = self.dtype.name if isinstance(self.dtype, np.dtype) else self.dtype
        return f"Field[{dims}, {dtype}]"


def _is_type_expression(dtype: object) -> bool:
    """A type variable, a union (``float32 | float64``) or a ``type X = ...`` alias."""
    alias_type = getattr(typing, "TypeAliasType", ())
    return isinstance(dtype, (TypeVar, types.UnionType, alias_type)) or (
        typing.get_origin(dtype) is typing.Union
    )


def _field_annotation(params: object) -> FieldAnnotation:
    if not (isinstance(params, tuple) and len(params) == 2):
        raise TypeError(f"write Field[Dims[I, J], dtype], got Field[{params!r}]")
    dims, dtype = params
    if dims is Ellipsis:
        return FieldAnnotation(None, dtype)
    if isinstance(dims, (Dimension, TypeVar)):
        dims = (dims,)
    if not isinstance(dims, (list, tuple)):
        raise TypeError(f"the first argument of Field[...] must be Dims[...], got {dims!r}")
    return FieldAnnotation(dims, dtype)


#: What a field's operators take besides fields (typing only).
_Operand = typing.Union["Field", bool, int, float, np.generic]


class Field(FieldParameters[DimsT, DTypeT_co], abc.ABC):
    """A mapping from the points of a :class:`Domain` to scalars of one dtype.

    Fields support arithmetic, comparison and logical operators (combining by dimension
    name, over the intersection of domains), restriction ``f[domain]``, shifts ``f(I + 1)``,
    ``f(E2V)``, ``f(E2V[0])``, ``f(Koff[1])``, and the builtins of ``gt4py.next``.
    """

    __slots__ = ()

    # For mypy, Field is generic over the dimensions and the dtype (`FieldParameters`, ADR
    # 0045); at run time and for pyright a subscript builds the annotation the frontend reads.
    def __class_getitem__(cls, params: object) -> FieldAnnotation:
        return _field_annotation(params)

    @property
    @abc.abstractmethod
    def domain(self) -> Domain: ...

    @property
    @abc.abstractmethod
    def dtype(self) -> np.dtype[Any]: ...

    @property
    def codomain(self) -> type:
        """The scalar type of the values (``numpy.float64``, ...)."""
        return self.dtype.type

    @property
    @abc.abstractmethod
    def ndarray(self) -> Any:
        """The values as an array of the field's namespace, shaped like the domain."""

    @abc.abstractmethod
    def asnumpy(self) -> np.ndarray[Any, Any]:
        """The values as a numpy array (copied from the device where needed)."""

    @abc.abstractmethod
    def restrict(self, index: Any) -> Any:
        """The field on a sub-domain (``f[domain]``)."""

    @abc.abstractmethod
    def premap(self, *connectivities: Any) -> Field:
        """The field read through shifts: ``f.premap(I + 1)`` is ``f(I + 1)``."""

    @classmethod
    def __gt_builtin_func__(cls, name: str) -> Callable[..., Any] | None:
        """This field type's implementation of the builtin called ``name`` (or ``None``)."""
        return None

    if typing.TYPE_CHECKING:
        # For type checkers only (user code under mypy): the operators fields support. The
        # implementations live in the concrete field classes.
        def __call__(self, *offsets: Any) -> Field: ...
        def __getitem__(self, index: Any) -> Field: ...
        def __add__(self, other: _Operand) -> Field: ...
        def __radd__(self, other: _Operand) -> Field: ...
        def __sub__(self, other: _Operand) -> Field: ...
        def __rsub__(self, other: _Operand) -> Field: ...
        def __mul__(self, other: _Operand) -> Field: ...
        def __rmul__(self, other: _Operand) -> Field: ...
        def __truediv__(self, other: _Operand) -> Field: ...
        def __rtruediv__(self, other: _Operand) -> Field: ...
        def __floordiv__(self, other: _Operand) -> Field: ...
        def __rfloordiv__(self, other: _Operand) -> Field: ...
        def __mod__(self, other: _Operand) -> Field: ...
        def __rmod__(self, other: _Operand) -> Field: ...
        def __pow__(self, other: _Operand) -> Field: ...
        def __rpow__(self, other: _Operand) -> Field: ...
        def __and__(self, other: _Operand) -> Field: ...
        def __rand__(self, other: _Operand) -> Field: ...
        def __or__(self, other: _Operand) -> Field: ...
        def __ror__(self, other: _Operand) -> Field: ...
        def __xor__(self, other: _Operand) -> Field: ...
        def __rxor__(self, other: _Operand) -> Field: ...
        def __lt__(self, other: _Operand) -> Field: ...
        def __le__(self, other: _Operand) -> Field: ...
        def __gt__(self, other: _Operand) -> Field: ...
        def __ge__(self, other: _Operand) -> Field: ...
        def __eq__(self, other: object) -> Field: ...  # type: ignore[override]
        def __ne__(self, other: object) -> Field: ...  # type: ignore[override]
        def __neg__(self) -> Field: ...
        def __pos__(self) -> Field: ...
        def __abs__(self) -> Field: ...
        def __invert__(self) -> Field: ...
        def __hash__(self) -> int: ...

    def __bool__(self) -> bool:
        raise AmbiguousTruthValueError(
            "the truth value of a Field is ambiguous: use where(condition, a, b) to choose "
            "values point by point"
        )


class AmbiguousTruthValueError(TypeError):
    """``if field:`` — a Field has no single truth value."""


class Connectivity(Field):
    """A field of indices into ``codomain``: the neighbour table behind an unstructured shift.

    ``skip_value`` marks missing neighbours (``-1`` by convention) or is ``None``.
    """

    __slots__ = ()

    @property
    @abc.abstractmethod
    def codomain(self) -> Dimension:  # type: ignore[override]
        """The dimension the indices point into."""

    @property
    @abc.abstractmethod
    def skip_value(self) -> int | None: ...

    @property
    def source_dim(self) -> Dimension:
        """The dimension whose points the table rows belong to (e.g. ``E`` for E2V)."""
        return self.domain.dims[0]

    @property
    def neighbor_dim(self) -> Dimension | None:
        """The local dimension enumerating neighbours, or ``None`` for a one-to-one map."""
        for dim in self.domain.dims:
            if dim.kind.value == "local":
                return dim
        return None

    @property
    def max_neighbors(self) -> int:
        dim = self.neighbor_dim
        return 1 if dim is None else len(self.domain[dim].unit_range)

    @property
    @abc.abstractmethod
    def has_skip_values(self) -> bool: ...


def is_field(value: object) -> bool:
    return isinstance(value, Field)
