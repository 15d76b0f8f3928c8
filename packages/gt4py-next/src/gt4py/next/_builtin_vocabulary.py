"""The builtin vocabulary of gt4py.next: one row per pointwise IR call and per reduction.

Every layer that spells a builtin reads it from here instead of keeping its own list: the
frontend (:mod:`gt4py.next.ffront.fbuiltins`: which builtins exist and their type rules),
embedded execution (the numpy function of each operation), lowering (Python operator or
builtin -> IR call), constant folding (which calls it evaluates, with numpy), and both code
generators (IR call -> numpy for ``itir_python``, -> C++ for ``gtfn``). Data only: the readers
derive their mappings from the rows.

``where``/``astype``/``broadcast``/``concat_where`` with their tuple and domain handling are
builtins of the frontend that lower to IR nodes (``if_`` calls, casts, nothing); only the
pointwise ``if_`` row is listed here.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
from typing import Final


class Kind(enum.Enum):
    """The group a builtin belongs to (the frontend's type rules follow it)."""

    ARITHMETIC = "arithmetic"  # Python operators on numbers: + - * / // % ** and unary -
    COMPARISON = "comparison"  # == != < <= > >=
    LOGICAL = "logical"  # & | ^ ~ on bools
    UNARY_MATH = "unary math"  # sin(x), isnan(x), abs(x), ...
    BINARY_MATH = "binary math"  # minimum(a, b), maximum(a, b), fmod(a, b)
    SELECT = "select"  # where(mask, a, b) on scalars: the IR's if_
    REDUCTION = "reduction"  # neighbor_sum & co: an ir.Reduce with the row's combining op


class Result(enum.Enum):
    """The dtype of the result, given the dtype of the operands."""

    SAME = "same"  # the operands' dtype
    BOOL = "bool"
    FLOAT = "float"  # float64 for integer or bool operands, else the operands' dtype


class CxxForm(enum.Enum):
    """How gtfn spells a call with the row's ``cxx`` text."""

    INFIX = "infix"  # (a <cxx> b)
    PREFIX = "prefix"  # (<cxx>a)
    CALL = "call"  # <cxx>(a, b)
    TERNARY = "ternary"  # (a ? b : c)


@dataclasses.dataclass(frozen=True)
class Builtin:
    """One builtin: its IR name and how every layer spells and evaluates it."""

    #: the IR call (``ir.Call.fun``); for reductions the combining op (``ir.Reduce.op``)
    ir_name: str
    kind: Kind
    arity: int
    result: Result
    #: numpy dtype kinds the operands may have ("iuf": numbers, "b": bool)
    accepts: str
    #: the numpy function (``np.<numpy>``); None: ``gt4py.next._special_functions.<ir_name>``
    numpy: str | None
    #: gtfn's spelling: an operator, a ``std::`` or ``gt4py::`` (<gt4py/python_semantics.hpp>) function
    cxx: str
    cxx_form: CxxForm
    #: the names of the frontend builtins (``gtx.sin``) that are this operation
    dsl_names: tuple[str, ...] = ()
    #: the Python operators (``ast`` classes) that are this operation, and their text
    python_operators: tuple[type[ast.AST], ...] = ()
    symbol: str | None = None
    #: constant folding evaluates calls on literals (with numpy)
    foldable: bool = False
    #: the docstring of the frontend builtin
    summary: str = ""


_A, _C, _L = Kind.ARITHMETIC, Kind.COMPARISON, Kind.LOGICAL
_SAME, _BOOL, _FLOAT = Result.SAME, Result.BOOL, Result.FLOAT
_INFIX, _PREFIX, _CALL = CxxForm.INFIX, CxxForm.PREFIX, CxxForm.CALL
_NUMBERS: Final = "iuf"


def _operator(
    ir_name: str,
    kind: Kind,
    symbol: str,
    operators: type[ast.AST] | tuple[type[ast.AST], ...],
    numpy: str,
    cxx: str,
    cxx_form: CxxForm = _INFIX,
    *,
    arity: int = 2,
    result: Result = _SAME,
    accepts: str = _NUMBERS,
    foldable: bool = True,
    dsl_names: tuple[str, ...] = (),
    summary: str = "",
) -> Builtin:
    """A Python operator: its text and ``ast`` class(es)."""
    return Builtin(
        ir_name=ir_name,
        kind=kind,
        arity=arity,
        result=result,
        accepts=accepts,
        numpy=numpy,
        cxx=cxx,
        cxx_form=cxx_form,
        dsl_names=dsl_names,
        python_operators=operators if isinstance(operators, tuple) else (operators,),
        symbol=symbol,
        foldable=foldable,
        summary=summary,
    )


def _math(name: str, cxx: str, summary: str, *, result: Result = _FLOAT) -> Builtin:
    """A math builtin ``name(x)`` (``name(a, b)`` for binary ones, whose result is ``SAME``)."""
    binary = name in ("minimum", "maximum", "fmod")
    return Builtin(
        ir_name=name,
        kind=Kind.BINARY_MATH if binary else Kind.UNARY_MATH,
        arity=2 if binary else 1,
        result=_SAME if binary else result,
        accepts=_NUMBERS,
        numpy=None if name == "gamma" else name,
        cxx=cxx,
        cxx_form=_CALL,
        dsl_names=(name,),
        summary=summary,
    )


def _reduction(dsl_name: str, combine: str, numpy: str, cxx: str, summary: str) -> Builtin:
    """A neighbour reduction; ``combine`` (a binary row) merges two values, as ``cxx`` does."""
    return Builtin(
        ir_name=combine,
        kind=Kind.REDUCTION,
        arity=1,
        result=_SAME,
        accepts=_NUMBERS + "b",
        numpy=numpy,
        cxx=cxx,
        cxx_form=_INFIX if cxx == "+" else _CALL,
        dsl_names=(dsl_name,),
        summary=summary,
    )


_NEIGHBOURS: Final = "(field, axis=LocalDim): the {} over neighbours, skipping missing ones."

#: Every builtin, grouped by kind (the frontend lists its builtins in this order).
VOCABULARY: Final[tuple[Builtin, ...]] = (
    # Python operators: `//`, `%` and `**` follow Python's rules (gtfn: gt4py:: functions)
    _operator("plus", _A, "+", ast.Add, "add", "+"),
    _operator("minus", _A, "-", ast.Sub, "subtract", "-"),
    _operator("multiplies", _A, "*", ast.Mult, "multiply", "*"),
    _operator("divides", _A, "/", ast.Div, "divide", "/", result=_FLOAT, foldable=False),
    _operator(
        "floordiv", _A, "//", ast.FloorDiv, "floor_divide", "gt4py::floordiv", _CALL, foldable=False
    ),
    _operator("mod", _A, "%", ast.Mod, "mod", "gt4py::mod", _CALL, foldable=False),
    _operator(
        "power",
        _A,
        "**",
        ast.Pow,
        "power",
        "gt4py::power",
        _CALL,
        foldable=False,
        dsl_names=("power",),
        summary="power(a, b): a to the power b.",
    ),
    _operator(
        "neg",
        _A,
        "-",
        ast.USub,
        "negative",
        "-",
        _PREFIX,
        arity=1,
        dsl_names=("neg",),
        summary="neg(x): -x, pointwise.",
    ),
    _operator("eq", _C, "==", ast.Eq, "equal", "==", result=_BOOL, accepts="iufb"),
    _operator("ne", _C, "!=", ast.NotEq, "not_equal", "!=", result=_BOOL, accepts="iufb"),
    _operator("lt", _C, "<", ast.Lt, "less", "<", result=_BOOL),
    _operator("le", _C, "<=", ast.LtE, "less_equal", "<=", result=_BOOL),
    _operator("gt", _C, ">", ast.Gt, "greater", ">", result=_BOOL),
    _operator("ge", _C, ">=", ast.GtE, "greater_equal", ">=", result=_BOOL),
    _operator("and_", _L, "&", ast.BitAnd, "logical_and", "&&", result=_BOOL, accepts="b"),
    _operator("or_", _L, "|", ast.BitOr, "logical_or", "||", result=_BOOL, accepts="b"),
    _operator(
        "xor_",
        _L,
        "^",
        ast.BitXor,
        "logical_xor",
        "!=",
        result=_BOOL,
        accepts="b",
        foldable=False,
    ),
    _operator(
        "not_",
        _L,
        "~",
        (ast.Invert, ast.Not),
        "logical_not",
        "!",
        _PREFIX,
        arity=1,
        result=_BOOL,
        accepts="b",
        foldable=False,
    ),
    # where(mask, a, b) on scalars (the frontend's `where` also maps over tuples)
    Builtin(
        ir_name="if_",
        kind=Kind.SELECT,
        arity=3,
        result=_SAME,
        accepts=_NUMBERS + "b",
        numpy="where",
        cxx="?:",
        cxx_form=CxxForm.TERNARY,
        dsl_names=("where",),
        summary="where(mask, a, b): a where mask is true, else b; a and b may be tuples.",
    ),
    _math("minimum", "gt4py::minimum", "minimum(a, b), pointwise."),
    _math("maximum", "gt4py::maximum", "maximum(a, b), pointwise."),
    _math("fmod", "std::fmod", "fmod(a, b): C remainder, sign of a."),
    _math("sin", "std::sin", "sin(x), pointwise."),
    _math("cos", "std::cos", "cos(x), pointwise."),
    _math("tan", "std::tan", "tan(x), pointwise."),
    _math("arcsin", "std::asin", "arcsin(x), pointwise."),
    _math("arccos", "std::acos", "arccos(x), pointwise."),
    _math("arctan", "std::atan", "arctan(x), pointwise."),
    _math("sinh", "std::sinh", "sinh(x), pointwise."),
    _math("cosh", "std::cosh", "cosh(x), pointwise."),
    _math("tanh", "std::tanh", "tanh(x), pointwise."),
    _math("arcsinh", "std::asinh", "arcsinh(x), pointwise."),
    _math("arccosh", "std::acosh", "arccosh(x), pointwise."),
    _math("arctanh", "std::atanh", "arctanh(x), pointwise."),
    _math("sqrt", "std::sqrt", "sqrt(x), pointwise."),
    _math("cbrt", "std::cbrt", "cbrt(x): the real cube root, pointwise."),
    _math("exp", "std::exp", "exp(x), pointwise."),
    _math("log", "std::log", "log(x): the natural logarithm, pointwise."),
    _math("gamma", "std::tgamma", "gamma(x): the gamma function (C tgamma), pointwise."),
    _math("floor", "std::floor", "floor(x), pointwise."),
    _math("ceil", "std::ceil", "ceil(x), pointwise."),
    _math("trunc", "std::trunc", "trunc(x), pointwise."),
    _math("isfinite", "std::isfinite", "isfinite(x), pointwise.", result=_BOOL),
    _math("isinf", "std::isinf", "isinf(x), pointwise.", result=_BOOL),
    _math("isnan", "std::isnan", "isnan(x), pointwise.", result=_BOOL),
    _math("abs", "gt4py::abs", "abs(x), pointwise.", result=_SAME),
    _reduction("neighbor_sum", "plus", "sum", "+", "neighbor_sum" + _NEIGHBOURS.format("sum")),
    _reduction(
        "max_over", "maximum", "max", "gt4py::maximum", "max_over" + _NEIGHBOURS.format("maximum")
    ),
    _reduction(
        "min_over", "minimum", "min", "gt4py::minimum", "min_over" + _NEIGHBOURS.format("minimum")
    ),
)

#: The pointwise IR calls (``ir.Call.fun``) by name.
IR_CALLS: Final[dict[str, Builtin]] = {
    b.ir_name: b for b in VOCABULARY if b.kind is not Kind.REDUCTION
}
#: The reductions by frontend name (``neighbor_sum``), each naming its ``ir.Reduce.op``.
REDUCTIONS: Final[dict[str, Builtin]] = {
    b.dsl_names[0]: b for b in VOCABULARY if b.kind is Kind.REDUCTION
}
#: The frontend builtins that are a row of the table, by frontend name.
DSL_BUILTINS: Final[dict[str, Builtin]] = {n: b for b in VOCABULARY for n in b.dsl_names}


def dsl_names(kind: Kind, *, result: Result | None = None) -> tuple[str, ...]:
    """The frontend names of the builtins of ``kind`` (with that result rule), in order."""
    return tuple(
        name
        for b in VOCABULARY
        if b.kind is kind and (result is None or b.result is result)
        for name in b.dsl_names
    )
