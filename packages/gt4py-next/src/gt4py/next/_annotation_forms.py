"""How type checkers read field annotations without gt4py's mypy plugin (ADR 0045).

``Field[Dims[I, J], float64]`` names its dimensions by value (``I = Dimension("I")``), which
no type checker accepts as a type. The two checkers have different ways out, so each gets its
own reading of the same two names, selected by the ``MYPY`` constant below: mypy reads
``if MYPY:`` as ``if TYPE_CHECKING:``; pyright and Python read a plain ``False``.

- **mypy** analyses every argument of a class subscript as a type, except when the subscripted
  name is a variable declared ``Any``: then the subscript is ``Any`` and its arguments are not
  looked at. So, for mypy, ``Dims`` is such a variable (``Dims[I, J]`` is ``Any``) and
  :class:`~gt4py.next.Field` is generic over two parameters (``FieldParameters``):
  ``Field[Dims[I, J], float64]`` is ``Field[Any, float64]``. Both parameters default to
  ``Any`` (PEP 696), so a bare ``Field`` still means any field under ``--strict``.
- **pyright** accepts any subscript of a class that is not generic and defines
  ``__class_getitem__`` (the class, unsubscripted), value dimensions and ``Field[[I], ...]``
  included. So, for pyright, ``Dims`` is the class and ``Field`` is not generic. Where a name
  has several declarations, pyright uses the last one: the ``else:`` branch.

At run time nothing here changes what an annotation is: ``Field.__class_getitem__`` builds the
:class:`~gt4py.next.common.FieldAnnotation` the frontend reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar


#: True for mypy only (it reads the name ``MYPY`` as ``TYPE_CHECKING``); False for pyright and
#: at run time.
MYPY = False

if TYPE_CHECKING:  # PEP 696 defaults from typing_extensions' stubs (no run-time dependency)
    from typing_extensions import TypeVar as _TypeVarDefault

    DimsT = _TypeVarDefault("DimsT", default=Any)
    DTypeT_co = _TypeVarDefault("DTypeT_co", default=Any, covariant=True)
else:
    DimsT = TypeVar("DimsT")
    DTypeT_co = TypeVar("DTypeT_co", covariant=True)


if MYPY:

    class FieldParameters(Generic[DimsT, DTypeT_co]):
        """mypy: what makes ``Field`` take two type arguments, the dimensions (``Any``: see
        the module's docstring) and the dtype (covariant: a float64 field is a ``float``
        field)."""

        __slots__ = ()

else:

    class FieldParameters:
        """pyright and run time: ``FieldParameters[...]`` is the class itself (``Field`` is
        not generic; its own ``__class_getitem__`` builds annotations)."""

        __slots__ = ()

        def __class_getitem__(cls, params: object) -> type[FieldParameters]:
            return cls
