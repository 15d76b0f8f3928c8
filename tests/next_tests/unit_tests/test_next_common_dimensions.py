"""Dimensions, Cartesian offsets, domain conditions, field offsets and annotations."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import common


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
V = gtx.Dimension("V")
E = gtx.Dimension("E")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)


def test_dimension_identity_and_hash():
    assert gtx.Dimension("I") == I
    assert hash(gtx.Dimension("I")) == hash(I)
    assert gtx.Dimension("I", gtx.DimensionKind.VERTICAL) != I
    assert I != J
    assert {I: 1}[gtx.Dimension("I")] == 1
    assert pickle.loads(pickle.dumps(K)) == K
    assert K.kind is gtx.DimensionKind.VERTICAL
    assert str(K) == "K" and "VERTICAL" in repr(K)


def test_dimension_kind_accepts_strings():
    assert gtx.Dimension("X", "vertical").kind is gtx.DimensionKind.VERTICAL


def test_dimension_errors():
    with pytest.raises(TypeError, match="non-empty name"):
        gtx.Dimension("")
    with pytest.raises(ValueError, match="unknown kind 'sideways'"):
        gtx.Dimension("X", "sideways")
    with pytest.raises(AttributeError, match="immutable"):
        I.value = "X"  # type: ignore[misc]


def test_cartesian_offsets():
    plus = I + 1
    minus = I - 2
    assert isinstance(plus, common.CartesianConnectivity)
    assert (plus.dim, plus.offset) == (I, 1)
    assert (minus.dim, minus.offset) == (I, -2)
    assert repr(minus) == "I - 2"
    assert I + np.int32(3) == common.CartesianConnectivity(I, 3)
    with pytest.raises(TypeError):
        I + 1.5


def test_named_index():
    assert I(3) == common.NamedIndex(I, 3)
    with pytest.raises(TypeError, match="integer"):
        I(1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        (K < 5, [(None, 5)]),
        (K <= 5, [(None, 6)]),
        (K > 5, [(6, None)]),
        (K >= 5, [(5, None)]),
        (I == 0, [(0, 1)]),
        (0 == I, [(0, 1)]),  # noqa: SIM300  # the reflected form
        (5 > K, [(None, 5)]),  # noqa: SIM300
    ],
)
def test_comparisons_give_domain_conditions(condition, expected):
    assert isinstance(condition, gtx.Domain)
    assert condition == gtx.Domain(*((condition.dims[0], rng) for rng in expected))


def test_not_equal_is_a_union():
    cond = I != 3
    assert isinstance(cond, common.DomainUnion)
    assert list(cond) == [gtx.domain({I: (None, 3)}), gtx.domain({I: (4, None)})]


def test_condition_bound_must_be_int():
    with pytest.raises(TypeError, match="bound of a condition on K"):
        K < 2.5  # noqa: B015


def test_promote_dims_orders_horizontal_local_vertical():
    assert common.promote_dims([K], [J, I]) == (I, J, K)
    assert common.promote_dims([E, K], [E2VDim]) == (E, E2VDim, K)
    with pytest.raises(ValueError, match="both called 'I'"):
        common.promote_dims([I], [gtx.Dimension("I", gtx.DimensionKind.VERTICAL)])


def test_dims_and_field_annotations():
    dims = gtx.Dims[I, J]
    assert tuple(dims) == (I, J)
    assert repr(dims) == "Dims[I, J]"
    annotation = gtx.Field[gtx.Dims[I, J], gtx.float64]
    assert isinstance(annotation, common.FieldAnnotation)
    assert annotation.dims == (I, J)
    assert annotation.dtype == np.float64
    assert repr(annotation) == "Field[Dims[I, J], float64]"
    assert gtx.Field[[I, J], np.float64] == annotation
    assert gtx.Field[gtx.Dims[K], gtx.int32].dtype == np.int32
    assert gtx.Field[..., gtx.bool].dims is None


def test_field_annotation_errors():
    with pytest.raises(TypeError, match=r"Field\[Dims\[I, J\], dtype\]"):
        gtx.Field[I]
    with pytest.raises(TypeError, match="not supported"):
        gtx.Field[gtx.Dims[I], np.complex128]
    with pytest.raises(ValueError, match="twice"):
        gtx.Dims[I, I]
    with pytest.raises(TypeError, match="Dimension objects"):
        gtx.Dims["I"]


def test_field_offsets():
    e2v = gtx.FieldOffset("E2V", source=V, target=(E, E2VDim))
    koff = gtx.FieldOffset("Koff", source=K, target=(K,))
    assert koff.is_cartesian_like and not e2v.is_cartesian_like
    assert e2v[1] == common.IndexedFieldOffset(e2v, 1)
    assert repr(koff[-1]) == "Koff[-1]"
    assert pickle.loads(pickle.dumps(e2v)) == e2v
    assert gtx.FieldOffset("Koff", source=K, target=K) == koff


def test_field_offset_errors():
    with pytest.raises(ValueError, match=r"must be of kind DimensionKind\.LOCAL"):
        gtx.FieldOffset("E2V", source=V, target=(E, K))
    with pytest.raises(TypeError, match="source must be a Dimension"):
        gtx.FieldOffset("X", source="V", target=(E,))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes an integer"):
        gtx.FieldOffset("Koff", source=K, target=(K,))[1.0]  # type: ignore[index]


def test_grid_type():
    assert gtx.GridType.CARTESIAN == "cartesian"
    assert gtx.GridType("unstructured") is gtx.GridType.UNSTRUCTURED
