"""Restriction (`f[...]`), assignment (`f[...] = v`), `.ndarray`, `.asnumpy()`."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import DomainError, FieldDTypeError


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)


@pytest.fixture
def a():
    return gtx.as_field([I, J], np.arange(20.0).reshape(4, 5), origin={I: 1})


def test_properties(a):
    assert a.domain == gtx.domain({I: (-1, 3), J: (0, 5)})
    assert a.dtype == np.float64 and a.codomain is np.float64
    assert a.shape == (4, 5) and a.ndim == 2
    assert a.__gt_origin__ == (1, 0)
    assert isinstance(a.ndarray, np.ndarray)
    assert np.shares_memory(a.ndarray, a.asnumpy())


def test_restrict_by_domain(a):
    sub = a[gtx.domain({I: (0, 2), J: (1, 4)})]
    assert sub.domain == gtx.domain({I: (0, 2), J: (1, 4)})
    np.testing.assert_array_equal(sub.asnumpy(), np.arange(20.0).reshape(4, 5)[1:3, 1:4])
    assert a.restrict(gtx.domain({J: (2, 3)})).domain == gtx.domain({I: (-1, 3), J: (2, 3)})


def test_restrict_by_named_indices_and_slices(a):
    row = a[I(0)]
    assert row.domain == gtx.domain({J: 5})
    np.testing.assert_array_equal(row.asnumpy(), np.arange(5.0, 10.0))
    assert a[I(0), J(2)].as_scalar() == 7.0
    sliced = a[I(0) : I(2)]
    assert sliced.domain == gtx.domain({I: (0, 2), J: 5})
    assert a[(J, (1, 3))].domain == gtx.domain({I: (-1, 3), J: (1, 3)})


def test_relative_indexing(a):
    data = np.arange(20.0).reshape(4, 5)
    np.testing.assert_array_equal(a[1:3, :].asnumpy(), data[1:3, :])
    assert a[1:3, :].domain == gtx.domain({I: (0, 2), J: 5})
    np.testing.assert_array_equal(a[..., -1].asnumpy(), data[:, -1])
    assert a[0, 0].as_scalar() == 0.0


def test_restrict_errors(a):
    with pytest.raises(DomainError, match="out of bounds"):
        a[gtx.domain({I: (0, 10)})]
    with pytest.raises(DomainError, match="no such dimension"):
        a[K(0)]
    with pytest.raises(DomainError, match="out of bounds"):
        a[I(7)]
    with pytest.raises(DomainError, match="too many indices"):
        a[0, 0, 0]
    with pytest.raises(TypeError, match="cannot index a field with 'x'"):
        a["x"]


def test_setitem(a):
    a[I(0)] = 0.0
    assert (a[I(0)].asnumpy() == 0).all()
    a[gtx.domain({I: (1, 3), J: (0, 2)})] = gtx.as_field(
        gtx.domain({I: (1, 3), J: (0, 2)}), np.full((2, 2), 7.0)
    )
    assert (a.asnumpy()[2:4, 0:2] == 7.0).all()
    a[...] = 1
    assert (a.asnumpy() == 1).all()
    a[0:2, 0] = np.array([5.0, 6.0])
    np.testing.assert_array_equal(a.asnumpy()[0:2, 0], [5.0, 6.0])


def test_setitem_with_larger_or_broadcast_value():
    out = gtx.zeros({I: 3, K: 2})
    bigger = gtx.as_field([I, K], np.arange(12.0).reshape(4, 3))
    out[...] = bigger
    np.testing.assert_array_equal(out.asnumpy(), np.arange(12.0).reshape(4, 3)[:3, :2])
    column = gtx.as_field([K], np.array([1.0, 2.0]))
    out[...] = column
    np.testing.assert_array_equal(out.asnumpy(), np.tile([1.0, 2.0], (3, 1)))


def test_setitem_errors(a):
    with pytest.raises(DomainError, match="needed"):
        a[...] = gtx.as_field([I], np.zeros(2))
    with pytest.raises(FieldDTypeError, match="cannot assign a float32 field"):
        a[...] = gtx.as_field([I, J], np.zeros((4, 5), dtype=np.float32), origin={I: 1})
    with pytest.raises(DomainError, match="shape"):
        a[...] = np.zeros((2, 2))
    with pytest.raises(DomainError, match="which the target"):
        a[I(0)] = gtx.as_field([I, J], np.zeros((4, 5)), origin={I: 1})


def test_unbounded_fields_have_no_array():
    broadcast = gtx.broadcast(1.0, (I,))
    with pytest.raises(DomainError, match="unbounded"):
        broadcast.ndarray  # noqa: B018
    restricted = broadcast[gtx.domain({I: (2, 5)})]
    np.testing.assert_array_equal(restricted.asnumpy(), [1.0, 1.0, 1.0])
