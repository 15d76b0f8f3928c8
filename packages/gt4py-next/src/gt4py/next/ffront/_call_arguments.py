"""The type contract of a call: every argument fits its declared parameter, on every backend.

Checked before anything runs (embedded or compiled), so one bad call gives one ``TypeError``
naming the argument everywhere. The rules are those of assignment in the DSL
(:func:`type_specifications.is_assignable`): a field must have the declared dimensions (in
any order: fields align by name) and exactly the declared dtype; a numpy scalar exactly the
declared dtype; a Python ``bool`` / ``int`` / ``float`` is a literal that must fit the
declared kind (``int`` fits integers, within range, and floats; ``float`` only floats;
``bool`` only bool). Nothing is converted silently: ``"16"`` or ``9.7`` for an ``int32`` is an
error, not 16 or 9.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._dimensions import Dimension
from ..embedded.exceptions import DomainError, FieldDTypeError
from ..embedded.nd_array_field import NdArrayField
from ..errors import CallArgumentError
from . import type_specifications as ts


def argument_count_message(function: str, names: Sequence[str], given: int) -> str:
    """What a call with ``given`` positional arguments for parameters ``names`` got wrong: the
    parameters it misses by name, or the count it exceeds."""
    if given < len(names):
        missing = ", ".join(repr(name) for name in names[given:])
        return (
            f"{function}() is missing the argument(s) {missing} "
            f"(it takes {', '.join(names)}; got {given})"
        )
    return f"{function}() takes {len(names)} argument(s) ({', '.join(names)}), got {given}"


def check_call_arguments(
    callee: str,
    names: Sequence[str],
    declared: Sequence[Any],
    args: Sequence[Any],
    *,
    scan: bool = False,
) -> None:
    """Raise ``TypeError`` for the first argument that does not fit its declared type.

    ``scan``: the callee is a scan operator, whose parameters are declared per level (a
    scalar parameter also takes a field of that dtype, one value per level)."""
    for name, type_, value in zip(names, declared, args, strict=False):
        if type_ is not None:
            problem = _mismatch(value, _per_level(type_, value) if scan else type_)
            if problem is not None:
                raise CallArgumentError(f"{callee}: argument '{name}' {problem}")


def _per_level(declared: Any, value: Any) -> Any:
    """What a scan operator's parameter declared ``declared`` takes as ``value``."""
    if isinstance(declared, ts.ScalarType) and isinstance(value, NdArrayField):
        return ts.FieldType(None, declared.dtype)
    if (
        isinstance(declared, ts.TupleType)
        and isinstance(value, tuple)
        and len(value) == len(declared.types)
    ):
        return ts.TupleType(
            tuple(_per_level(t, v) for t, v in zip(declared.types, value, strict=True))
        )
    return declared


def _describe(value: Any) -> str:
    if isinstance(value, NdArrayField):
        dims = ", ".join(d.value for d in value._domain.dims)
        return f"a field over ({dims}) of {value._data.dtype}"
    if isinstance(value, np.ndarray):
        return f"a numpy array of shape {value.shape}"
    return f"{value!r} ({type(value).__name__})"


def _expected_field(declared: ts.FieldType) -> str:
    dims = "" if declared.dims is None else f" over ({', '.join(d.value for d in declared.dims)})"
    return f"a field{dims} of {declared.dtype}"


def _mismatch(value: Any, declared: Any) -> str | None:
    """Why ``value`` does not fit ``declared`` (None: it fits)."""
    if isinstance(declared, ts.FieldType):
        # the message is built only for a mismatch: this runs on every general-path call
        if not isinstance(value, NdArrayField):
            hint = " (wrap arrays with gtx.as_field(...))" if isinstance(value, np.ndarray) else ""
            return f"must be {_expected_field(declared)}, got {_describe(value)}{hint}"
        if not ts.same_field_dims(tuple(value._domain.dims), declared.dims) or (
            declared.dims is not None and len(value._domain.dims) != len(declared.dims)
        ):
            return f"must be {_expected_field(declared)}, got {_describe(value)}"
        if value._data.dtype != declared.dtype:
            return (
                f"must be {_expected_field(declared)}, got {_describe(value)} (convert it with "
                f"gtx.astype or allocate it as {declared.dtype})"
            )
        return None
    if isinstance(declared, ts.ScalarType):
        return _scalar_mismatch(value, declared.dtype)
    if isinstance(declared, ts.TupleType):
        if not isinstance(value, tuple) or len(value) != len(declared.types):
            return f"must be a tuple of {len(declared.types)} ({declared}), got {_describe(value)}"
        for i, (item, item_type) in enumerate(zip(value, declared.types, strict=True)):
            problem = _mismatch(item, item_type)
            if problem is not None:
                return f"element {i} {problem}"
        return None
    if isinstance(declared, ts.NamedCollectionType):
        if not isinstance(value, declared.python_type):
            return f"must be a {declared.python_type.__name__}, got {_describe(value)}"
        for member, member_type in zip(declared.names, declared.types, strict=True):
            problem = _mismatch(getattr(value, member), member_type)
            if problem is not None:
                return f"member '{member}' {problem}"
        return None
    return None


def _scalar_mismatch(value: Any, dtype: np.dtype[Any]) -> str | None:
    if isinstance(value, np.generic):
        if value.dtype == dtype:
            return None
        return f"must be a scalar of type {dtype}, got {_describe(value)}"
    kind = dtype.kind
    if isinstance(value, bool):
        fits = kind == "b"
    elif isinstance(value, int):
        if kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                return f"must be a scalar of type {dtype}, {value} is out of its range"
            fits = True
        else:
            fits = kind == "f"
    elif isinstance(value, float):
        fits = kind == "f"
    else:
        fits = False
    if fits:
        return None
    return f"must be a scalar of type {dtype}, got {_describe(value)} (nothing is converted implicitly)"


def check_scan_out(callee: str, axis: Dimension, out: Any) -> None:
    """A scan operator writes level by level: every output field needs the scan axis."""
    for value in out if isinstance(out, tuple) else (out,):
        if isinstance(value, tuple):
            check_scan_out(callee, axis, value)
        elif not isinstance(value, NdArrayField):
            raise CallArgumentError(
                f"scan operator '{callee}': 'out' must be fields, got {_describe(value)}"
            )
        elif value._domain.dim_index(axis) is None:
            raise CallArgumentError(
                f"scan operator '{callee}': 'out' must have the scan axis {axis.value}, got "
                f"{_describe(value)}"
            )


def check_operator_out(callee: str, returns: Any, out: Any) -> None:
    """``out`` of a field operator called directly takes its result as embedded assignment
    does: a field with (at least) the result's dimensions and its dtype, a tuple for a tuple."""
    if isinstance(returns, ts.TupleType):
        if not isinstance(out, tuple) or len(out) != len(returns.types):
            raise CallArgumentError(
                f"field operator '{callee}' returns a tuple of {len(returns.types)}, 'out' is "
                f"{_describe(out)}"
            )
        for part, target in zip(returns.types, out, strict=True):
            check_operator_out(callee, part, target)
        return
    if isinstance(out, tuple):
        raise CallArgumentError(f"field operator '{callee}' returns one value but 'out' is a tuple")
    if not isinstance(out, NdArrayField):
        raise CallArgumentError(
            f"field operator '{callee}': 'out' must be a field, got {_describe(out)}"
        )
    if not isinstance(returns, ts.FieldType):
        return
    missing = [d.value for d in returns.dims or () if out._domain.dim_index(d) is None]
    if missing:
        raise DomainError(
            f"field operator '{callee}': 'out' ({_describe(out)}) lacks the result's "
            f"dimension(s) {', '.join(missing)}"
        )
    if out._data.dtype != returns.dtype:
        raise FieldDTypeError(
            f"field operator '{callee}' returns {returns.dtype}, 'out' is {_describe(out)}; "
            f"convert with astype(..., {out._data.dtype}) in the operator or allocate 'out' as "
            f"{returns.dtype}"
        )


def check_writable(callee: str, name: str, value: Any) -> None:
    """Raise ``TypeError`` if ``value`` (a field, or tuple of them, the call writes) has a
    read-only array: before anything is written, in the words the compiled backends use."""
    if isinstance(value, tuple):
        for n, part in enumerate(value):
            check_writable(callee, f"{name}[{n}]", part)
        return
    flags = getattr(getattr(value, "_data", None), "flags", None)
    if flags is not None and not getattr(flags, "writeable", True):
        raise CallArgumentError(
            f"{callee}: argument '{name}' must be writable (the program writes it), got a "
            "read-only array (flags.writeable is False)"
        )


def written_parameters(calls: Sequence[Any]) -> frozenset[str]:
    """The program parameters its operator calls write whole (``out=a``, ``out=(a, b)``; a
    member ``out=s.a`` of a structured argument is left to the assignment's own check)."""

    def names(node: ast.expr) -> list[str]:
        if isinstance(node, ast.Name):
            return [node.id]
        if isinstance(node, ast.Tuple):
            return [name for element in node.elts for name in names(element)]
        return []

    return frozenset(name for call in calls for name in names(call.out))


def widen_to_declared(
    params: Sequence[tuple[str, Any]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    written: frozenset[str] = frozenset(),
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments of a top-level embedded call, with every field whose dtype converts
    safely (numpy's ``can_cast(..., "safe")``: ``int32`` to ``float64``, ``float32`` to
    ``float64``) to a different declared dtype converted to it (a copy; ADR 0034).

    Released gt4py's embedded execution runs such a call (numpy promotes inside the body, to
    the same values); here operands must share a dtype, so the conversion happens once, at
    the call. Anything else (a narrowing or a kind change like float to int) is left as
    given, for the checks to report; so are the ``written`` parameters (a program's outputs
    must be the caller's own fields).
    """
    from ..embedded import _array_ns

    declared = {name: t for name, t in params if name not in written}

    def widen(value: Any, type_: Any) -> Any:
        if (
            isinstance(type_, ts.FieldType)
            and isinstance(value, NdArrayField)
            and value._data.dtype != type_.dtype
            and np.can_cast(value._data.dtype, type_.dtype, "safe")
        ):
            xp = value.array_ns
            data = _array_ns.astype(xp, value._data, type_.dtype)
            return NdArrayField._make(value._domain, data, xp)
        return value

    widened = tuple(widen(a, declared.get(n)) for a, (n, _) in zip(args, params, strict=False))
    widened += args[len(widened) :]
    if kwargs:
        kwargs = {k: widen(v, declared.get(k)) for k, v in kwargs.items()}
    return widened, kwargs


def run_compiled(
    run: Callable[[tuple[Any, ...], dict[str, Any]], Any],
    params: Sequence[tuple[str, Any]],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    written: frozenset[str] = frozenset(),
) -> Any:
    """``run(args, kwargs)`` of a compiled call; if its argument check rejects it and
    :func:`widen_to_declared` converts some field argument, the call again with the converted
    arguments: a compiled backend accepts what embedded accepts (ADR 0034), and a call that
    fits pays nothing for it (the check raises before anything runs)."""
    try:
        return run(args, kwargs)
    except CallArgumentError:
        widened_args, widened_kwargs = widen_to_declared(params, args, kwargs, written)
        if all(a is b for a, b in zip(widened_args, args, strict=True)) and all(
            widened_kwargs[k] is v for k, v in kwargs.items()
        ):
            raise
    return run(widened_args, widened_kwargs)


def as_declared(value: Any, declared: Any) -> Any:
    """``value`` (checked) with its Python scalars as the declared numpy scalars, as embedded
    execution passes them: ``~flag`` on a ``bool`` parameter is then logical (numpy's), not
    Python's bitwise ``~True == -2``."""
    if isinstance(declared, ts.ScalarType):
        if isinstance(value, (bool, int, float)):
            return declared.dtype.type(value)
        return value
    if isinstance(declared, ts.TupleType) and type(value) is tuple:
        return tuple(as_declared(v, t) for v, t in zip(value, declared.types, strict=True))
    return value
