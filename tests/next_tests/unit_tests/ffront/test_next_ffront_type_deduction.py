"""Type deduction of field operators and programs: accepted constructs and located errors."""

from __future__ import annotations

import dataclasses
import inspect
import typing

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import Dims, Field, errors, float32, float64, int64
from gt4py.next.ffront import type_specifications as ts


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
V = gtx.Dimension("V")
E = gtx.Dimension("E")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))

IJField = Field[Dims[I, J], float64]


def _line_of(marker: str, function: object) -> int:
    lines, start = inspect.getsourcelines(function)  # type: ignore[arg-type]
    for offset, line in enumerate(lines):
        if marker in line:
            return start + offset
    raise AssertionError(marker)


def _returns(operator: object) -> ts.TypeSpec:
    return operator.__gt_signature__.definition.returns  # type: ignore[attr-defined]


def test_field_types_and_cartesian_shift() -> None:
    @gtx.field_operator
    def shifted(a: IJField) -> IJField:
        return a(I + 1) + a(J - 1)

    assert _returns(shifted) == ts.FieldType((I, J), np.dtype(np.float64))


def test_list_dims_annotation_and_deduced_return() -> None:
    @gtx.field_operator
    def twice(a: Field[[I, J], float32]):
        return a * 2.0

    assert _returns(twice) == ts.FieldType((I, J), np.dtype(np.float32))


def test_unstructured_shifts_give_local_and_target_dims() -> None:
    @gtx.field_operator
    def all_neighbours(v: Field[[V, K], float64]) -> Field[[E, E2VDim, K], float64]:
        return v(E2V)

    @gtx.field_operator
    def first_neighbour(v: Field[[V, K], float64]) -> Field[[E, K], float64]:
        return v(E2V[0])

    @gtx.field_operator
    def summed(v: Field[[V, K], float64]) -> Field[[E, K], float64]:
        return gtx.neighbor_sum(v(E2V), axis=E2VDim) + v(E2V[1])(Koff[1])

    assert _returns(all_neighbours).dims == (E, E2VDim, K)  # type: ignore[attr-defined]
    assert set(_returns(summed).dims) == {E, K}  # type: ignore[attr-defined]
    assert first_neighbour.__gt_signature__.params[0][0] == "v"


def test_tuples_scalars_and_integer_literals() -> None:
    @gtx.field_operator
    def pair(a: Field[[I], int64], s: int64) -> tuple[Field[[I], int64], Field[[I], bool]]:
        b = a + 7
        c, d = (b * s, b > 2)
        return c, d

    assert _returns(pair) == ts.TupleType(
        (ts.FieldType((I,), np.dtype(np.int64)), ts.FieldType((I,), np.dtype(np.bool_)))
    )


def test_builtins_as_attributes_and_dtype_constructors() -> None:
    @gtx.field_operator
    def attrs(a: IJField) -> Field[[I, J], float32]:
        return gtx.astype(gtx.where(a > 0.0, a, -a), gtx.float32) * gtx.float32(2.0)

    assert _returns(attrs).dtype == np.dtype(np.float32)  # type: ignore[attr-defined]


def test_dtype_constructor_on_a_field_names_astype() -> None:
    """gtx.float32 is numpy's type (as released): fields are cast with astype."""
    with pytest.raises(errors.DSLTypeError, match=r"cast a field with astype\(value, float32\)"):

        @gtx.field_operator
        def cast(a: IJField) -> Field[[I, J], float32]:
            return gtx.float32(a)


T = typing.TypeVar("T", float64, float32)
IJGeneric: typing.TypeAlias = Field[gtx.Dims[I, J], T]  # type: ignore[valid-type]


def test_generic_field_aliases() -> None:
    """icon4py's `CellKField: TypeAlias = Field[Dims[Cell, K], T]`, used as CellKField[wp]."""
    assert IJGeneric.__parameters__ == (T,)

    @gtx.field_operator
    def scale(a: IJGeneric[float64], s: float64) -> IJGeneric[float64]:
        return a * s

    assert _returns(scale) == ts.FieldType((I, J), np.dtype(np.float64))
    with pytest.raises(errors.InvalidParameterAnnotationError, match="is generic"):

        @gtx.field_operator
        def unbound(a: IJGeneric) -> IJGeneric[float64]:
            return a


def test_enum_and_module_constants() -> None:
    import enum

    class Constants(float64, enum.Enum):
        ALPHA = 0.25

    @gtx.field_operator
    def scaled(a: IJField) -> IJField:
        return a * Constants.ALPHA + np.pi

    assert _returns(scaled) == ts.FieldType((I, J), np.dtype(np.float64))


def test_dataclass_arguments() -> None:
    @dataclasses.dataclass
    class State:
        u: Field[[I], float64]
        v: Field[[I], float64]

    @gtx.field_operator
    def speed(state: State) -> Field[[I], float64]:
        return state.u * state.u + state.v * state.v

    u = gtx.as_field([I], np.array([3.0, 1.0]))
    v = gtx.as_field([I], np.array([4.0, 1.0]))
    out = gtx.zeros({I: 2})
    speed(State(u, v), out=out)
    assert out.asnumpy().tolist() == [25.0, 2.0]


def test_call_of_other_operator_with_keywords() -> None:
    @gtx.field_operator
    def axpy(x: IJField, y: IJField, alpha: float64) -> IJField:
        return alpha * x + y

    @gtx.field_operator
    def caller(x: IJField) -> IJField:
        return axpy(x, y=x, alpha=2.0)

    assert _returns(caller) == ts.FieldType((I, J), np.dtype(np.float64))


# -- errors: message and line -------------------------------------------------------------------


def test_dtype_mismatch_in_addition() -> None:
    def mixed(a: Field[[I], float32], b: Field[[I], float64]) -> Field[[I], float64]:
        return a + b  # MARK

    with pytest.raises(
        errors.DSLTypeError, match=r"'\+' cannot combine .*float32.*float64"
    ) as info:
        gtx.field_operator(mixed)
    assert info.value.location.line == _line_of("# MARK", mixed)
    assert info.value.location.filename == __file__
    assert info.value.location.column == 16


def test_unknown_offset_and_bad_shift() -> None:
    def bad(v: Field[[E], float64]) -> Field[[E], float64]:
        return v(E2V[0])  # MARK

    with pytest.raises(errors.DSLTypeError, match="reads along V") as info:
        gtx.field_operator(bad)
    assert info.value.location.line == _line_of("# MARK", bad)

    def undefined(v: Field[[V], float64]) -> Field[[V], float64]:
        return v(V2X[0])  # MARK # noqa: F821

    with pytest.raises(errors.UndefinedSymbolError, match="undefined name 'V2X'") as info2:
        gtx.field_operator(undefined)
    assert info2.value.location.line == _line_of("# MARK", undefined)


def test_return_type_mismatch() -> None:
    def wrong(a: Field[[I], float64]) -> Field[[I, J], float64]:  # MARK
        return a

    with pytest.raises(errors.DSLTypeError, match="annotated return type") as info:
        gtx.field_operator(wrong)
    assert info.value.location.line == _line_of("# MARK", wrong)


def test_dimension_mismatch_in_reduction() -> None:
    def reduce_bad(a: Field[[E], float64]) -> Field[[E], float64]:
        return gtx.neighbor_sum(a, axis=E2VDim)  # MARK

    with pytest.raises(errors.DSLTypeError, match="no such dimension") as info:
        gtx.field_operator(reduce_bad)
    assert info.value.location.line == _line_of("# MARK", reduce_bad)


def test_unsupported_syntax() -> None:
    def loop(a: Field[[I], float64]) -> Field[[I], float64]:
        for _ in range(3):  # MARK
            a = a + 1.0
        return a

    with pytest.raises(errors.UnsupportedPythonFeatureError, match="'for' loops") as info:
        gtx.field_operator(loop)
    assert info.value.location.line == _line_of("# MARK", loop)

    def with_lambda(a: Field[[I], float64]) -> Field[[I], float64]:
        f = lambda x: x  # MARK # noqa: E731
        return f(a)

    with pytest.raises(errors.UnsupportedPythonFeatureError, match="lambda") as info2:
        gtx.field_operator(with_lambda)
    assert info2.value.location.line == _line_of("# MARK", with_lambda)


def test_missing_annotation() -> None:
    def no_annotation(a):  # MARK
        return a

    with pytest.raises(errors.MissingParameterAnnotationError, match="'a' needs a type") as info:
        gtx.field_operator(no_annotation)
    assert info.value.location.line == _line_of("# MARK", no_annotation)


def test_float_literal_with_integer_field_is_refused() -> None:
    def int_plus_float(a: Field[[I], int64]) -> Field[[I], int64]:
        return a + 1.5  # MARK

    with pytest.raises(errors.DSLTypeError, match="float64 literal") as info:
        gtx.field_operator(int_plus_float)
    assert info.value.location.line == _line_of("# MARK", int_plus_float)


def test_wrong_argument_type_in_operator_call() -> None:
    @gtx.field_operator
    def identity(a: Field[[I], float64]) -> Field[[I], float64]:
        return a

    def caller(a: Field[[I], float32]) -> Field[[I], float64]:
        return identity(a)  # MARK

    with pytest.raises(errors.DSLTypeError, match="argument 'a' of identity") as info:
        gtx.field_operator(caller)
    assert info.value.location.line == _line_of("# MARK", caller)


def test_program_missing_out() -> None:
    @gtx.field_operator
    def copy(a: Field[[I], float64]) -> Field[[I], float64]:
        return a

    def prog(a: Field[[I], float64], b: Field[[I], float64]):
        copy(a)  # MARK

    program = gtx.program(prog)  # as released: the error is raised where the program is used
    with pytest.raises(
        errors.DSLTypeError, match="missing required keyword argument 'out'"
    ) as info:
        _ = program.definition_stage
    assert info.value.location.line == _line_of("# MARK", prog)


def test_program_out_of_wrong_type() -> None:
    @gtx.field_operator
    def copy(a: Field[[I], float64]) -> Field[[I], float64]:
        return a

    def prog(a: Field[[I], float64], b: Field[[I], float32]):
        copy(a, out=b)  # MARK

    program = gtx.program(prog)
    with pytest.raises(errors.DSLTypeError, match="does not fit 'out'") as info:
        _ = program.definition_stage
    assert info.value.location.line == _line_of("# MARK", prog)


def test_error_message_shows_location() -> None:
    def bad(a: Field[[I], float64]) -> Field[[I], float64]:
        return a and a

    with pytest.raises(errors.DSLError) as info:
        gtx.field_operator(bad)
    text = str(info.value)
    assert f"{__file__}:" in text and "use '&'" in text


def _python_abs(a: IJField) -> IJField:
    return abs(a)  # python-abs


def _python_max(a: IJField) -> IJField:
    return max(a, 2.0 * a)  # python-max


@pytest.mark.parametrize(
    ("definition", "instead"), [(_python_abs, "abs"), (_python_max, "maximum")]
)
def test_python_builtins_name_the_gt4py_builtin_to_use(definition, instead):
    marker = "python-abs" if definition is _python_abs else "python-max"
    with pytest.raises(errors.DSLTypeError, match="is Python's builtin") as info:
        gtx.field_operator(definition)
    assert f"use gt4py.next's {instead} (`from gt4py.next import {instead}`)" in str(info.value)
    assert info.value.location.line == _line_of(marker, definition)


def _shadowed_builtin_name(a: IJField) -> IJField:
    return max(a, a)  # a user's own max here is not Python's


def test_a_users_own_function_named_like_a_builtin_keeps_the_general_message():
    namespace = {"max": lambda x, y: x}
    shadowed = type(_shadowed_builtin_name)(
        _shadowed_builtin_name.__code__, {**_shadowed_builtin_name.__globals__, **namespace}
    )
    shadowed.__annotations__ = _shadowed_builtin_name.__annotations__
    with pytest.raises(errors.DSLTypeError, match="pass it as an argument"):
        gtx.field_operator(shadowed)
