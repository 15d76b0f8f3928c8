"""A mypy plugin for gt4py.next user code: ``plugins = ["gt4py.next.mypy_plugin"]``.

Field annotations name dimensions by value: in ``Field[Dims[I, J], float64]`` or
``Field[[I], float64]`` the dimension ``I`` is a :class:`~gt4py.next.Dimension` object, which
mypy refuses as a type ("Variable ... is not valid as a type"). With this plugin such an
annotation is the type :class:`~gt4py.next.Field`: the dimensions are left to gt4py's own
checker, which runs when the operator is decorated. The dtype (second) argument is analysed as
a type, so a misspelled dtype is still an error, and an alias generic over a ``TypeVar``
(``IJField = Field[Dims[I, J], T]``, then ``IJField[float64]``) works as usual.

Calls of programs and field operators (ADR 0029): the decorators keep the definition's
parameters (a ParamSpec), which cannot say the keywords a call adds (``out=``, ``domain=``,
``offset_provider=``, ``enable_jit=``), so ``__call__``'s overloads take any arguments once one
of those is given. The plugin gives each overload the definition's parameters plus its own
keywords, so every call form is checked, and lets a numpy scalar parameter take the Python
scalar gt4py accepts for it at run time (ADR 0017: an ``int`` for integers and floats, a
``float`` for floats, a ``bool`` for bools).

Typing only: nothing of gt4py imports this module at run time, and mypy imports it only when a
configuration names it.
"""

from __future__ import annotations

from collections.abc import Callable

from mypy.nodes import ARG_NAMED, ARG_NAMED_OPT, ARG_STAR2  # tach-ignore
from mypy.plugin import (  # tach-ignore
    AnalyzeTypeContext,
    ClassDefContext,
    MethodContext,
    MethodSigContext,
    Plugin,
)
from mypy.types import (  # tach-ignore
    AnyType,
    CallableType,
    FunctionLike,
    Instance,
    Parameters,
    Type,
    TypeOfAny,
    UnionType,
    get_proper_type,
)


_FIELD = "gt4py.next._field.Field"
_DIMS = "gt4py.next._dimensions.Dims"
_CALLS = frozenset(
    {
        "gt4py.next.ffront._field_operator.FieldOperator.__call__",
        "gt4py.next.ffront._program.Program.__call__",
    }
)
_CALL_OPTIONS = frozenset(
    {
        "gt4py.next.ffront._field_operator.FieldOperator.with_call_options",
        "gt4py.next.ffront._program.Program.with_call_options",
    }
)
#: the keywords a call adds to the definition's parameters
_CALL_KEYWORDS = frozenset({"out", "domain", "offset_provider", "enable_jit"})
#: numpy scalar bases -> the Python scalar gt4py also accepts (ADR 0017)
_PYTHON_SCALARS = (
    ("numpy.bool", "builtins.bool"),
    ("numpy.integer", "builtins.int"),
    ("numpy.floating", "builtins.float"),  # takes an int too (mypy's promotion)
)


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


def _plain_field_class(ctx: ClassDefContext) -> None:
    """``Field`` as the plugin reads it: not generic (ADR 0045).

    Without the plugin mypy sees ``Field`` generic over two parameters (its base
    ``FieldParameters``), the only way mypy alone accepts ``Field[Dims[I], float64]``. With
    the plugin every subscript of ``Field`` is this hook's business (``_field_annotation``),
    and a generic ``Field`` would make mypy analyse ``Field[[I], float64]`` outside annotations
    (an alias's right-hand side) as a type application, where ``[I]`` is an error. So the
    class drops its type parameters and its base becomes ``FieldParameters[Any, Any]``.
    """
    info = ctx.cls.info
    info.type_vars = []
    ctx.cls.type_vars = []
    any_type = AnyType(TypeOfAny.special_form)
    info.bases = [
        Instance(base.type, [any_type] * len(base.args)) if base.args else base
        for base in info.bases
    ]


def _dims_annotation(ctx: AnalyzeTypeContext) -> Type:
    return ctx.api.named_type(_DIMS, [])


def _with_python_scalar(ctx: MethodSigContext | MethodContext, type_: Type) -> Type:
    proper = get_proper_type(type_)
    if isinstance(proper, Instance):
        for numpy_base, python in _PYTHON_SCALARS:
            if proper.type.has_base(numpy_base):
                return UnionType.make_union([type_, ctx.api.named_generic_type(python, [])])
    return type_


def _call_signature(ctx: MethodSigContext) -> FunctionLike:
    """One overload of ``__call__``: the definition's parameters and the overload's keywords."""
    signature = ctx.default_signature
    entry = get_proper_type(ctx.type)
    if not isinstance(entry, Instance) or not entry.args:
        return signature
    parameters = get_proper_type(entry.args[0])
    if not isinstance(parameters, Parameters) or parameters.is_ellipsis_args:
        return signature  # Program[...]: any arguments
    names = set(parameters.arg_names)
    kinds, types, arg_names = (
        list(parameters.arg_kinds),
        list(parameters.arg_types),
        list(parameters.arg_names),
    )
    types = [_with_python_scalar(ctx, t) for t in types]
    at = kinds.index(ARG_STAR2) if ARG_STAR2 in kinds else len(kinds)
    for kind, type_, name in zip(
        signature.arg_kinds, signature.arg_types, signature.arg_names, strict=True
    ):
        if name in _CALL_KEYWORDS and name not in names and kind in (ARG_NAMED, ARG_NAMED_OPT):
            kinds.insert(at, kind)
            types.insert(at, type_)
            arg_names.insert(at, name)
            at += 1
    return signature.copy_modified(arg_kinds=kinds, arg_types=types, arg_names=arg_names)


def _call_options_result(ctx: MethodContext) -> Type:
    """``with_call_options(...)``'s callable takes the Python scalars ``__call__`` takes."""
    result = get_proper_type(ctx.default_return_type)
    if not isinstance(result, CallableType):
        return ctx.default_return_type
    return result.copy_modified(arg_types=[_with_python_scalar(ctx, t) for t in result.arg_types])


class GT4PyNextPlugin(Plugin):
    """Reads gt4py.next's value-parametrized annotations (see the module's docstring)."""

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        if fullname == _FIELD:
            return _field_annotation
        if fullname == _DIMS:
            return _dims_annotation
        return None

    def get_method_signature_hook(
        self, fullname: str
    ) -> Callable[[MethodSigContext], FunctionLike] | None:
        return _call_signature if fullname in _CALLS else None

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return _call_options_result if fullname in _CALL_OPTIONS else None

    def get_customize_class_mro_hook(
        self, fullname: str
    ) -> Callable[[ClassDefContext], None] | None:
        return _plain_field_class if fullname == _FIELD else None


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    return GT4PyNextPlugin
