"""`EmbeddedField`, the operators every embedded field shares (public in
``gt4py.next.embedded.nd_array_field``).

Each operator calls the operation registered in :mod:`._field_operations`: ``a + b`` is
``binary(ADD, a, b)``, ``b + a`` with a field on the right is ``binary(ADD, b, a)``, ``-a`` is
``apply(NEGATIVE, (a,))``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Final

import numpy as np

from .._domain import Domain
from .._field import Field
from . import _ops
from ._field_operations import registered


#: Where users import, and pickle finds, the embedded field classes.
PUBLIC_MODULE: Final = "gt4py.next.embedded.nd_array_field"

_Binary = Callable[[Any, Any], Any]


def _method(function: Callable[..., Any], name: str) -> None:
    function.__name__ = name
    function.__qualname__ = f"EmbeddedField.{name}"


def _binary(op: _ops.Op, name: str) -> _Binary:
    """``__name__``: ``self op other``."""

    def forward(self: Any, other: Any) -> Any:
        return registered.binary(op, self, other)

    _method(forward, f"__{name}__")
    return forward


def _binary_pair(op: _ops.Op, name: str) -> tuple[_Binary, _Binary]:
    """``__name__`` (``self op other``) and ``__rname__`` (``other op self``) for ``op``."""

    def reflected(self: Any, other: Any) -> Any:
        return registered.binary(op, other, self)

    _method(reflected, f"__r{name}__")
    return _binary(op, name), reflected


def _unary(op: _ops.Op, name: str) -> Callable[[Any], Any]:
    def unary(self: Any) -> Any:
        return registered.apply(op, (self,))

    _method(unary, f"__{name}__")
    return unary


class EmbeddedField(Field):
    """Operators shared by all embedded fields (ndarray-backed and piecewise)."""

    __module__ = PUBLIC_MODULE
    __slots__ = ()

    _is_piecewise: ClassVar[bool] = False
    if TYPE_CHECKING:
        array_ns: Any
        _domain: Domain
    __hash__ = None  # type: ignore[assignment]  # `==` is elementwise

    # -- arithmetic -----------------------------------------------------------------------------

    __add__, __radd__ = _binary_pair(_ops.ADD, "add")
    __sub__, __rsub__ = _binary_pair(_ops.SUBTRACT, "sub")
    __mul__, __rmul__ = _binary_pair(_ops.MULTIPLY, "mul")
    __truediv__, __rtruediv__ = _binary_pair(_ops.DIVIDE, "truediv")
    __floordiv__, __rfloordiv__ = _binary_pair(_ops.FLOOR_DIVIDE, "floordiv")
    __mod__, __rmod__ = _binary_pair(_ops.MOD, "mod")
    __pow__, __rpow__ = _binary_pair(_ops.POWER, "pow")
    __neg__ = _unary(_ops.NEGATIVE, "neg")
    __pos__ = _unary(_ops.POSITIVE, "pos")
    __abs__ = _unary(_ops.ABS, "abs")

    # -- comparison -----------------------------------------------------------------------------

    __eq__ = _binary(_ops.EQUAL, "eq")
    __ne__ = _binary(_ops.NOT_EQUAL, "ne")
    __lt__ = _binary(_ops.LESS, "lt")
    __le__ = _binary(_ops.LESS_EQUAL, "le")
    __gt__ = _binary(_ops.GREATER, "gt")
    __ge__ = _binary(_ops.GREATER_EQUAL, "ge")

    # -- logical (bool fields) ------------------------------------------------------------------

    __and__, __rand__ = _binary_pair(_ops.LOGICAL_AND, "and")
    __or__, __ror__ = _binary_pair(_ops.LOGICAL_OR, "or")
    __xor__, __rxor__ = _binary_pair(_ops.LOGICAL_XOR, "xor")
    __invert__ = _unary(_ops.LOGICAL_NOT, "invert")

    # -- numpy interoperation -------------------------------------------------------------------

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.sin(field)`` and ``np.float64(2) * field`` give fields, like the builtins."""
        op = _ops.UFUNC_OPS.get(getattr(ufunc, "__name__", ""))
        if method != "__call__" or kwargs or op is None:
            return NotImplemented
        return registered.apply(op, inputs)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        array = self.asnumpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def __iter__(self) -> Iterator[Any]:
        raise TypeError("a Field is not iterable; use field.asnumpy() to loop over values")

    # -- shifts and builtins --------------------------------------------------------------------

    def premap(self, *connectivities: Any) -> Any:
        return registered.premap(self, connectivities)

    def __call__(self, *connectivities: Any) -> Any:
        return registered.premap(self, connectivities)

    def __getitem__(self, index: Any) -> Any:
        return self.restrict(index)

    @classmethod
    def __gt_builtin_func__(cls, name: str) -> Any:
        return registered.builtins.get(name)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.domain.shape

    @property
    def ndim(self) -> int:
        return len(self.domain.dims)

    def as_scalar(self) -> Any:
        """The value of a 0-dimensional field."""
        if self.domain.dims:
            raise ValueError(
                f"as_scalar() needs a 0-dimensional field, this one is over {self.domain}"
            )
        return self.asnumpy()[()]


def is_field(value: object) -> bool:
    """Whether ``value`` is an embedded field (a plain bool: duck-typed values stay ``Any``)."""
    return isinstance(value, EmbeddedField)
