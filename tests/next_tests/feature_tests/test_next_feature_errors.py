"""Errors in operator definitions: ``gtx.errors.DSLError`` with a message and the user's line."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import errors


I = gtx.Dimension("I")
J = gtx.Dimension("J")
IField = gtx.Field[gtx.Dims[I], gtx.float64]
IIntField = gtx.Field[gtx.Dims[I], gtx.int32]
JField = gtx.Field[gtx.Dims[J], gtx.float64]
THIS_FILE = pathlib.Path(__file__).resolve()


def line_of(marker: str) -> int:
    """The 1-based line number of the unique line of this file that ends with ``marker``."""
    lines = [
        number
        for number, text in enumerate(THIS_FILE.read_text().splitlines(), start=1)
        if text.rstrip().endswith(marker)
    ]
    assert len(lines) == 1, f"marker {marker!r} found on lines {lines}"
    return lines[0]


def assert_points_at(error: errors.DSLError, *markers: str) -> None:
    """The error's location is in this file, on one of the lines ending with ``markers``."""
    location = error.location
    assert location is not None, "the error carries no source location"
    assert pathlib.Path(location.filename).resolve() == THIS_FILE
    assert location.line in {line_of(marker) for marker in markers}


def test_wrong_dtype_in_addition():
    with pytest.raises(errors.DSLError) as caught:

        @gtx.field_operator
        def add_mixed(a: IField, b: IIntField) -> IField:
            return a + b  # marker: mixed dtypes

    message = caught.value.message
    assert "float64" in message and "int32" in message
    assert_points_at(caught.value, "# marker: mixed dtypes")


def test_unknown_symbol():
    with pytest.raises(errors.DSLError) as caught:

        @gtx.field_operator
        def uses_undefined(a: IField) -> IField:
            return a + undefined_coefficient  # type: ignore[name-defined]  # noqa: F821  # marker: undefined

    assert "undefined_coefficient" in caught.value.message
    assert_points_at(caught.value, "# marker: undefined")


def test_return_type_mismatch():
    with pytest.raises(errors.DSLError) as caught:

        @gtx.field_operator
        def returns_float(a: IField) -> IIntField:  # marker: return annotation
            return a  # marker: return type

    message = caught.value.message
    assert "float64" in message and "int32" in message
    # Released gt4py points at the return statement; the annotation is as useful.
    assert_points_at(caught.value, "# marker: return type", "# marker: return annotation")


def test_dimension_mismatch_in_returned_value():
    """``a + b`` over I and J broadcasts to (I, J), which is not the annotated ``Field[[I]]``."""
    with pytest.raises(errors.DSLError) as caught:

        @gtx.field_operator
        def mixes_dims(a: IField, b: JField) -> IField:  # marker: dims annotation
            return a + b  # marker: dims

    assert "J" in caught.value.message
    assert_points_at(caught.value, "# marker: dims", "# marker: dims annotation")


def test_program_call_without_out():
    @gtx.field_operator
    def identity(a: IField) -> IField:
        return a

    @gtx.program
    def forgets_out(a: IField, b: IField):
        identity(a)  # marker: missing out

    # As released: the definition error is raised where the program is first used.
    with pytest.raises(errors.DSLError) as caught:
        forgets_out(gtx.zeros({I: 3}), gtx.zeros({I: 3}), offset_provider={})
    assert "out" in caught.value.message
    assert_points_at(caught.value, "# marker: missing out")


def test_errors_are_raised_before_any_call(backend):
    """A correct operator next to the failing definitions still runs (no global breakage)."""

    @gtx.field_operator
    def negate(a: IField) -> IField:
        return -a

    a = gtx.as_field([I], np.arange(3.0), allocator=backend)
    out = gtx.zeros(a.domain, allocator=backend)
    negate.with_backend(backend)(a, out=out, offset_provider={})
    np.testing.assert_array_equal(out.asnumpy(), -np.arange(3.0))


def test_unsupported_python_syntax():
    with pytest.raises(errors.DSLError) as caught:

        @gtx.field_operator
        def loops(a: IField) -> IField:
            while True:  # marker: while
                a = a + 1.0
            return a

    assert "while" in str(caught.value).lower() or "unsupported" in str(caught.value).lower()
    assert_points_at(caught.value, "# marker: while")


@gtx.field_operator
def _add_for_counts(a: IField, b: IField) -> IField:
    return a + b


@gtx.program
def _three_parameters(a: IField, b: IField, out: IField):
    _add_for_counts(a, b, out=out)


@pytest.mark.parametrize("backend", [gtx.embedded_numpy, gtx.itir_python], ids=lambda b: b.name)
def test_a_missing_program_argument_is_named(backend):
    """Positional calls that miss arguments name them (issue 45), before anything runs; a
    call with keywords names them as Python's binding does."""
    a = gtx.zeros({I: 4}, dtype=gtx.float64)
    run = _three_parameters.with_backend(backend)
    with pytest.raises(TypeError, match=r"missing the argument\(s\) 'out' \(it takes a, b, out; got 2\)"):  # fmt: skip
        run(a, a, offset_provider={})
    with pytest.raises(TypeError, match=r"missing the argument\(s\) 'b', 'out'"):
        run(a, offset_provider={})
    with pytest.raises(TypeError, match=r"takes 3 argument\(s\) \(a, b, out\), got 4"):
        run(a, a, a, a, offset_provider={})
    with pytest.raises(TypeError, match="'out'"):
        run(a=a, b=a, offset_provider={})


def test_a_misspelled_builtin_gets_a_did_you_mean():
    """Python's "did you mean" over the DSL's builtins and the definition's names (issue 45)."""
    with pytest.raises(errors.UndefinedSymbolError) as info:

        @gtx.field_operator
        def typo(a: IField) -> IField:
            return maximun(a, a)  # noqa: F821  # did-you-mean-builtin

    message = str(info.value)
    assert "undefined name 'maximun'" in message
    assert (
        "did you mean 'maximum'? (a gt4py.next builtin: `from gt4py.next import maximum`" in message
    )
    assert_points_at(info.value, "# did-you-mean-builtin")

    with pytest.raises(errors.UndefinedSymbolError, match=r"did you mean 'IField'\?"):

        @gtx.field_operator
        def typo_of_a_global(a: IField) -> IField:
            return a + IFeld  # noqa: F821

    with pytest.raises(errors.UndefinedSymbolError) as info:

        @gtx.field_operator
        def nothing_close(a: IField) -> IField:
            return zzzzzz(a)  # noqa: F821

    assert "did you mean" not in str(info.value)


@pytest.mark.ours_only
def test_broadcast_to_a_repeated_dimension_is_one_located_error_on_every_backend(backend):
    """Issue 44: embedded raised a bare ValueError at the call, itir_python and gtfn_cpu ran
    ``broadcast(s, (J, J))``. The frontend refuses it at the definition, for every backend."""
    with pytest.raises(errors.DSLTypeError) as caught:

        @gtx.field_operator(backend=backend)
        def twice(s: gtx.float64) -> JField:
            return gtx.broadcast(s, (J, J))  # marker: repeated dims

    assert "(J, J)" in caught.value.message and "more than once" in caught.value.message
    assert_points_at(caught.value, "# marker: repeated dims")
