"""where: pointwise selection, tuples, broadcasting, and guarded reads."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import FieldDTypeError, embedded_context


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))


def test_where_selects_pointwise():
    a_np = np.arange(6.0)
    b_np = -np.arange(6.0)
    a = gtx.as_field([I], a_np)
    b = gtx.as_field([I], b_np)
    mask = a > 2.5
    np.testing.assert_array_equal(gtx.where(mask, a, b).asnumpy(), np.where(a_np > 2.5, a_np, b_np))
    np.testing.assert_array_equal(gtx.where(mask, a, 0.0).asnumpy(), np.where(a_np > 2.5, a_np, 0))
    np.testing.assert_array_equal(gtx.where(mask, 1.0, b).asnumpy(), np.where(a_np > 2.5, 1, b_np))


def test_where_with_tuples():
    a = gtx.as_field([I], np.arange(4.0))
    b = gtx.as_field([I], np.arange(4))
    mask = a < 2.0
    first, second = gtx.where(mask, (a, b), (-a, 0))
    np.testing.assert_array_equal(first.asnumpy(), [0.0, 1.0, -2.0, -3.0])
    np.testing.assert_array_equal(second.asnumpy(), [0, 1, 0, 0])
    assert second.dtype == np.int64
    nested = gtx.where(mask, ((a, a), b), ((a, -a), b))
    np.testing.assert_array_equal(nested[0][1].asnumpy(), [0.0, 1.0, -2.0, -3.0])
    with pytest.raises(ValueError, match="same length"):
        gtx.where(mask, (a, a), (a, a, a))


def test_where_broadcasts_by_dimension_name():
    mask_np = np.array([True, False, True])
    mask = gtx.as_field([K], mask_np)
    a_np = np.arange(6.0).reshape(2, 3)
    a = gtx.as_field([I, K], a_np)
    result = gtx.where(mask, a, 0.0)
    assert result.domain.dims == (I, K)
    np.testing.assert_array_equal(result.asnumpy(), np.where(mask_np, a_np, 0.0))


def test_where_guarded_shift_keeps_the_whole_domain():
    """DESIGN §9: a read guarded by where that would fall outside the field runs embedded."""
    a_np = np.arange(5.0)
    a = gtx.as_field([K], a_np)
    k = gtx.as_field([K], np.arange(5))
    with embedded_context(offset_provider={"Koff": K}):
        below = gtx.where(k > 0, a(Koff[-1]), 0.0)
        centered = gtx.where(k < 4, a(Koff[1]), a(Koff[-1]))
    assert below.domain == gtx.domain({K: 5})
    np.testing.assert_array_equal(below.asnumpy(), [0.0, 0.0, 1.0, 2.0, 3.0])
    assert centered.domain == gtx.domain({K: 5})
    np.testing.assert_array_equal(centered.asnumpy(), [1.0, 2.0, 3.0, 4.0, 3.0])


def test_where_unguarded_read_falls_back_to_the_intersection():
    a = gtx.as_field([K], np.arange(5.0))
    k = gtx.as_field([K], np.arange(5))
    result = gtx.where(k >= 0, a(K + 1), 0.0)  # k = 4 would need a[5]
    assert result.domain == gtx.domain({K: 4})
    np.testing.assert_array_equal(result.asnumpy(), [1.0, 2.0, 3.0, 4.0])


def test_where_on_scalars():
    assert gtx.where(True, 1.0, 2.0) == 1.0
    assert gtx.where(np.bool_(False), (1, 2), (3, 4)) == (3, 4)
    a = gtx.as_field([I], np.arange(3.0))
    assert gtx.where(True, a, 0.0) is a
    assert gtx.where(False, a, 0.0) == 0.0


def test_where_errors():
    a = gtx.as_field([I], np.arange(3.0))
    with pytest.raises(FieldDTypeError, match="condition must be bool, got float64"):
        gtx.where(a, a, a)
    with pytest.raises(FieldDTypeError, match="different dtypes"):
        gtx.where(a > 1, a, gtx.as_field([I], np.arange(3)))
    with pytest.raises(TypeError, match="not a tuple"):
        gtx.where((a > 1, a > 2), a, a)


def test_where_with_scalar_branch_covers_the_mask_where_the_guarded_read_is_missing():
    data = np.arange(10.0).reshape(2, 5)
    a = gtx.as_field([I, K], data)
    k = gtx.as_field([K], np.arange(5, dtype=np.int32))
    with embedded_context():
        result = gtx.where(k > 0, a(K - 1), 0.0)
    assert result.domain == gtx.domain({I: (0, 2), K: (0, 5)})
    expected = np.concatenate([np.zeros((2, 1)), data[:, :-1]], axis=1)
    np.testing.assert_array_equal(result.asnumpy(), expected)
    # the scalar in the other position, and a mask that selects the missing level: cut there
    with embedded_context():
        flipped = gtx.where(k == 0, 0.0, a(K - 1))
        unguarded = gtx.where(k >= 0, a(K - 1), 0.0)
    np.testing.assert_array_equal(flipped.asnumpy(), expected)
    assert unguarded.domain == gtx.domain({I: (0, 2), K: (1, 5)})
