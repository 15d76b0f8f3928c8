"""A mypy plugin for gt4py.next user code: ``plugins = ["gt4py.next.mypy_plugin"]``.

Field annotations name dimensions by value: in ``Field[Dims[I, J], float64]`` or
``Field[[I], float64]`` the dimension ``I`` is a :class:`~gt4py.next.Dimension` object, which
mypy refuses as a type ("Variable ... is not valid as a type"). With this plugin such an
annotation is the type :class:`~gt4py.next.Field`: the dimensions are left to gt4py's own
checker, which runs when the operator is decorated. The dtype (second) argument is analysed as
a type, so a misspelled dtype is still an error, and an alias generic over a ``TypeVar``
(``IJField = Field[Dims[I, J], T]``, then ``IJField[float64]``) works as usual.

Typing only: nothing of gt4py imports this module at run time, and mypy imports it only when a
configuration names it.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.plugin import AnalyzeTypeContext, Plugin  # tach-ignore
from mypy.types import Type  # tach-ignore


_FIELD = "gt4py.next._field.Field"
_DIMS = "gt4py.next._dimensions.Dims"


def _field_annotation(ctx: AnalyzeTypeContext) -> Type:
    args = ctx.type.args
    if len(args) not in (0, 2):
        ctx.api.fail(
            "Field[...] takes two arguments: the dimensions (Dims[I, J] or [I, J]) and a dtype",
            ctx.context,
        )
    elif args:
        ctx.api.analyze_type(args[1])  # the dtype: a scalar type or a TypeVar
    return ctx.api.named_type(_FIELD, [])


def _dims_annotation(ctx: AnalyzeTypeContext) -> Type:
    return ctx.api.named_type(_DIMS, [])


class GT4PyNextPlugin(Plugin):
    """Reads gt4py.next's value-parametrized annotations (see the module's docstring)."""

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        if fullname == _FIELD:
            return _field_annotation
        if fullname == _DIMS:
            return _dims_annotation
        return None


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    return GT4PyNextPlugin
