"""Names of released gt4py 1.2.x that icon4py-style code uses, with the meaning they have there."""

from __future__ import annotations

import collections.abc
import functools
import sys
import typing

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import common, errors
from gt4py.next.ffront import type_specifications as ts


Cell = gtx.Dimension("Cell")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
T = typing.TypeVar("T")
D = typing.TypeVar("D")


def _operator_type(annotation: object) -> ts.TypeSpec:
    @gtx.field_operator
    def identity(a: annotation) -> annotation:  # type: ignore[valid-type]
        return a

    return identity.__gt_signature__.definition.returns  # type: ignore[attr-defined]


def test_field_generic_over_dtype_and_dims() -> None:
    generic = gtx.Field[gtx.Dims[D], T]
    assert generic.__parameters__ == (D, T)
    assert generic[Cell, gtx.float64] == gtx.Field[gtx.Dims[Cell], gtx.float64]
    # a Dims[...] argument stands for the dimensions the variable takes the place of
    assert generic[gtx.Dims[Cell, K], gtx.float64] == gtx.Field[gtx.Dims[Cell, K], gtx.float64]
    partly = gtx.Field[gtx.Dims[Cell, D], gtx.float32]
    assert partly.__parameters__ == (D,)
    assert partly[K] == gtx.Field[gtx.Dims[Cell, K], gtx.float32]
    # a bare variable in place of Dims[...], as icon4py's `Field[DimsT, T]`
    assert (
        gtx.Field[common.DimsT, T][gtx.Dims[Cell], gtx.int32]
        == gtx.Field[gtx.Dims[Cell], gtx.int32]
    )
    with pytest.raises(TypeError, match=r"takes 2 type argument\(s\)"):
        generic[gtx.float64]


def test_substituted_generic_field_in_an_operator() -> None:
    cell_k_field = gtx.Field[gtx.Dims[Cell, D], T]
    assert _operator_type(cell_k_field[K, gtx.float64]) == ts.FieldType(
        (Cell, K), np.dtype(np.float64)
    )
    with pytest.raises(errors.InvalidParameterAnnotationError, match="is generic"):
        _operator_type(cell_k_field)


def test_core_definitions_scalar_t() -> None:
    import gt4py._core.definitions as core_defs

    assert isinstance(core_defs.ScalarT, typing.TypeVar)
    annotation = gtx.Field[gtx.Dims[common.DimsT], core_defs.ScalarT]
    assert annotation.__parameters__ == (common.DimsT, core_defs.ScalarT)
    assert annotation[gtx.Dims[Cell, K], gtx.float64] == gtx.Field[gtx.Dims[Cell, K], gtx.float64]
    assert core_defs.is_scalar_type(1.0) and core_defs.is_scalar_type(np.int32(1))
    assert not core_defs.is_scalar_type(np.float64) and not core_defs.is_scalar_type("1")
    assert gtx.is_scalar_type is core_defs.is_scalar_type


def test_field_annotation_union_with_none() -> None:
    annotation = gtx.Field[gtx.Dims[Cell], gtx.float64]
    assert annotation | None == typing.Optional[annotation]  # noqa: UP045
    assert None | annotation == typing.Optional[annotation]  # noqa: UP045
    generic = gtx.Field[gtx.Dims[Cell, D], T] | None
    assert generic[K, gtx.float64] == typing.Optional[gtx.Field[gtx.Dims[Cell, K], gtx.float64]]  # noqa: UP045

    def helper(field: gtx.Field[gtx.Dims[Cell], gtx.float64] | None = None) -> None: ...

    assert typing.get_type_hints(helper)["field"] == typing.Optional[annotation]  # noqa: UP045


def test_abstract_dtypes_and_dims_in_helper_annotations() -> None:
    # icon4py's `Field[Dims[Dimension], ScalarType]` and `EdgeKField[anyfloat]`
    union = gtx.Field[gtx.Dims[gtx.Dimension], gtx.float32 | gtx.float64]
    assert not union.is_concrete
    assert gtx.Field[gtx.Dims[Cell, K], T][gtx.float32 | gtx.float64].dtype == (
        gtx.float32 | gtx.float64
    )
    with pytest.raises(errors.InvalidParameterAnnotationError, match="no single field type"):
        _operator_type(union)
    with pytest.raises(TypeError, match="not supported"):
        gtx.Field[gtx.Dims[Cell], np.complex128]


def test_common_field_views_an_array() -> None:
    data = np.arange(6.0).reshape(3, 2)
    view = common._field(data[:, 0], domain={Cell: (0, 3)})
    assert view.domain == gtx.domain({Cell: (0, 3)})
    assert np.shares_memory(view.ndarray, data)
    with pytest.raises(TypeError, match="as_field"):
        common._field([1.0, 2.0], domain={Cell: (0, 2)})


def test_unit_range() -> None:
    assert gtx.unit_range((1, 4)) == gtx.UnitRange(1, 4)


def test_dace_transformations_import_but_say_there_is_no_dace() -> None:
    from gt4py.next.program_processors.runners.dace import transformations

    with pytest.raises(AttributeError, match="no dace backends"):
        transformations.GT4PyAutoOptHook  # noqa: B018


def test_instrumentation() -> None:
    from gt4py.next.instrumentation import hooks, metrics

    assert (metrics.DISABLED, metrics.ALL) == (0, 100)
    assert metrics.is_any_level_enabled() == (metrics.get_current_level() > 0)
    assert isinstance(metrics.dumps(), str)
    assert isinstance(metrics.sources, collections.abc.MutableMapping)
    assert callable(metrics.get_current_source_key)  # test_next_instrumentation_hooks
    assert callable(hooks.program_call_context.register)  # test_next_instrumentation_hooks


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 type aliases")
def test_pep695_alias_as_dtype() -> None:
    # icon4py's `type anyfloat = gtx.float32 | gtx.float64` in `EdgeKField[anyfloat]`
    anyfloat = typing.TypeAliasType("anyfloat", gtx.float32 | gtx.float64)  # type: ignore[attr-defined]
    annotation = gtx.Field[gtx.Dims[Cell, K], T][anyfloat]
    assert annotation.dtype is anyfloat and not annotation.is_concrete


@pytest.mark.parametrize("name", ["empty", "zeros", "ones", "full", "as_field", "as_connectivity"])
def test_constructors_have_fluid_partial(name: str) -> None:
    # released: `gtx.constructors.zeros.partial(allocator=backend)` (icon4py's geometry)
    constructor = getattr(gtx.constructors, name)
    assert getattr(gtx, name) is constructor
    bound = constructor.partial(allocator=None)
    assert isinstance(bound, functools.partial) and bound.func is constructor
    assert bound.keywords == {"allocator": None}
    chained = constructor.partial.partial(allocator=None)(device=None)
    assert chained.keywords == {"allocator": None, "device": None}


def test_partial_constructors_allocate() -> None:
    zeros = gtx.constructors.zeros.partial(allocator=gtx.embedded_numpy)
    field = zeros({Cell: 3}, dtype=gtx.int32)
    assert field.asnumpy().tolist() == [0, 0, 0] and field.dtype == np.int32
    full = gtx.full.partial(fill_value=2.5)
    assert full({Cell: 2}).asnumpy().tolist() == [2.5, 2.5]
    as_field = gtx.as_field.partial([Cell])
    assert as_field(np.arange(3.0)).asnumpy().tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError):
        gtx.zeros.partial(no_such_keyword=1)({Cell: 2})


CellField = gtx.Field[gtx.Dims[Cell], gtx.float64]


@gtx.field_operator
def _scaled(a: CellField, s: CellField) -> CellField:
    return a * s


@gtx.program
def _scale(a: CellField, s: CellField, out: CellField):
    _scaled(a, s, out=out)


def test_embedded_call_widens_safely_castable_field_arguments() -> None:
    # icon4py's compute_geofac_rot gets the grid file's int32 edge orientation where it
    # declares float64; released's embedded numpy-promotes inside, to the same values
    a = gtx.as_field([Cell], np.array([1.0, 2.0, 3.0]))
    sign = gtx.as_field([Cell], np.array([1, -1, 1], dtype=np.int32))
    out = gtx.zeros({Cell: 3})
    _scaled.with_backend(None)(a, sign, out=out, offset_provider={})
    assert out.asnumpy().tolist() == [1.0, -2.0, 3.0]
    assert sign.dtype == np.int32  # the caller's field is not changed
    assert _scaled(a, s=sign, offset_provider={}).asnumpy().tolist() == [1.0, -2.0, 3.0]
    out = gtx.zeros({Cell: 3})
    _scale.with_backend(gtx.embedded_numpy)(a, sign, out)
    assert out.asnumpy().tolist() == [1.0, -2.0, 3.0]
    # an output is never converted (the program would write into a copy)
    with pytest.raises(TypeError, match="float64"):
        _scale.with_backend(gtx.embedded_numpy)(a, a, gtx.zeros({Cell: 3}, dtype=gtx.float32))
    # a conversion that is not safe (complex to float) is not made: the check reports it
    with pytest.raises(TypeError, match="complex128"):
        _scale.with_backend(gtx.embedded_numpy)(
            a, gtx.as_field([Cell], np.ones(3, dtype=np.complex128)), out
        )
