"""The pointwise operations of embedded execution, as descriptors: :class:`Op` and its table.

Each :class:`Op` names its array-namespace function (or a kernel), the dtypes it accepts and
the dtype of its result. ``OPS`` has one per pointwise IR call of the builtin vocabulary;
``UFUNC_OPS`` maps numpy ufunc names to them (for ``np.sin(field)``). They are data, below
both the field classes, whose operators name them, and ``_elementwise``, which runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np

from .. import _builtin_vocabulary as vocabulary
from .._special_functions import gamma as _gamma_kernel
from . import _array_ns
from .exceptions import FieldDTypeError


NUMERIC: Final = "iuf"
_BOOL: Final = np.dtype(np.bool_)
_FLOAT64: Final = np.dtype(np.float64)


class Op:
    """One pointwise operation: its namespace function and the dtypes it accepts."""

    __slots__ = ("accepts", "function_name", "kernel", "name", "result", "symbol")

    def __init__(
        self,
        name: str,
        symbol: str,
        accepts: str,
        *,
        result: str = "same",
        kernel: Callable[[Any], Callable[..., Any]] | None = None,
    ) -> None:
        self.name = name
        self.symbol = symbol
        self.accepts = accepts  # numpy dtype kinds accepted
        self.result = result  # "same", "bool" or "float" (for integer operands)
        self.function_name = name
        self.kernel = kernel

    def result_dtype(self, dtype: np.dtype[Any]) -> np.dtype[Any]:
        """The dtype of the result for operands of ``dtype`` (numpy's rules, ahead of time)."""
        if self.result == "bool":
            return _BOOL
        if self.result == "float" and dtype.kind in "iub":
            return _FLOAT64
        return dtype

    def function(self, xp: Any) -> Callable[..., Any]:
        if self.kernel is not None:
            return self.kernel(xp)
        return _array_ns.function(xp, self.function_name)

    def check(self, dtype: np.dtype[Any]) -> None:
        if dtype.kind not in self.accepts:
            wanted = {"b": "bool", "iuf": "numeric", "iub": "integer or bool"}.get(
                self.accepts, "numeric or bool"
            )
            raise FieldDTypeError(f"{self.symbol} needs {wanted} operands, got {dtype}")

    def __repr__(self) -> str:
        return f"Op({self.name})"


def _gamma(xp: Any) -> Callable[[Any], Any]:
    def gamma(x: Any) -> Any:
        as_float = _array_ns.astype(xp, x, np.dtype(np.float64))
        result = _gamma_kernel(xp, as_float)
        return (
            _array_ns.astype(xp, result, np.dtype(np.float32)) if x.dtype == np.float32 else result
        )

    return gamma


def _op(row: vocabulary.Builtin) -> Op:
    """The operation of a pointwise row of the vocabulary (named for its numpy function)."""
    if row.symbol is None:  # a builtin function: sin, minimum, ...
        symbol = row.ir_name
    elif row.arity == 1 and row.kind is vocabulary.Kind.ARITHMETIC:
        symbol = f"unary '{row.symbol}'"
    else:
        symbol = f"'{row.symbol}'"
    kernel = _gamma if row.numpy is None else None
    return Op(row.numpy or row.ir_name, symbol, row.accepts, result=row.result.value, kernel=kernel)


#: The operation of each pointwise IR call (``if_`` is :func:`gt4py.next.embedded._where.where`).
OPS: Final[dict[str, Op]] = {
    name: _op(row)
    for name, row in vocabulary.IR_CALLS.items()
    if row.kind is not vocabulary.Kind.SELECT
}
ADD: Final = OPS["plus"]
SUBTRACT: Final = OPS["minus"]
MULTIPLY: Final = OPS["multiplies"]
DIVIDE: Final = OPS["divides"]
FLOOR_DIVIDE: Final = OPS["floordiv"]
MOD: Final = OPS["mod"]
POWER: Final = OPS["power"]
NEGATIVE: Final = OPS["neg"]
ABS: Final = OPS["abs"]
EQUAL: Final = OPS["eq"]
NOT_EQUAL: Final = OPS["ne"]
LESS: Final = OPS["lt"]
LESS_EQUAL: Final = OPS["le"]
GREATER: Final = OPS["gt"]
GREATER_EQUAL: Final = OPS["ge"]
LOGICAL_AND: Final = OPS["and_"]
LOGICAL_OR: Final = OPS["or_"]
LOGICAL_XOR: Final = OPS["xor_"]
LOGICAL_NOT: Final = OPS["not_"]
MINIMUM: Final = OPS["minimum"]
MAXIMUM: Final = OPS["maximum"]
FMOD: Final = OPS["fmod"]
POSITIVE: Final = Op("positive", "unary '+'", NUMERIC)  # dropped by lowering: not in the IR

#: The unary math builtins (sin, isnan, abs, ...) by name.
MATH_OPS: Final[dict[str, Op]] = {
    name: OPS[name] for name in vocabulary.dsl_names(vocabulary.Kind.UNARY_MATH)
}

# numpy ufunc name -> operation, for `np.sin(field)` and `np.float64(2) * field`.
UFUNC_OPS: Final[dict[str, Op]] = {
    **{op.name: op for op in OPS.values() if op.kernel is None},
    "true_divide": DIVIDE,
    "remainder": MOD,
    "positive": POSITIVE,
    "absolute": ABS,
    "bitwise_and": LOGICAL_AND,
    "bitwise_or": LOGICAL_OR,
    "bitwise_xor": LOGICAL_XOR,
    "invert": LOGICAL_NOT,
}
