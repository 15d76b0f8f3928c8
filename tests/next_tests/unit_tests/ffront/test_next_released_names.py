"""Names of released gt4py 1.2.x that icon4py-style code uses, with the meaning they have there."""

from __future__ import annotations

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
    with pytest.raises(AttributeError, match="per-call"):
        metrics.sources  # noqa: B018
    assert callable(hooks.program_call_context.register)  # test_next_instrumentation_hooks


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 type aliases")
def test_pep695_alias_as_dtype() -> None:
    # icon4py's `type anyfloat = gtx.float32 | gtx.float64` in `EdgeKField[anyfloat]`
    anyfloat = typing.TypeAliasType("anyfloat", gtx.float32 | gtx.float64)  # type: ignore[attr-defined]
    annotation = gtx.Field[gtx.Dims[Cell, K], T][anyfloat]
    assert annotation.dtype is anyfloat and not annotation.is_concrete
