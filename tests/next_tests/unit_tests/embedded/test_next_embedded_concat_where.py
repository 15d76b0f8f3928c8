"""concat_where on domain conditions (DESIGN §9), tuples and piecewise results."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import NdArrayField, NonContiguousDomainError, embedded_context
from gt4py.next.experimental import concat_where


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))

NK = 6


def k_field(values=None):
    return gtx.as_field([K], np.arange(NK, dtype=float) if values is None else values)


def test_half_open_condition():
    a = k_field()
    b = -k_field()
    result = concat_where(K < 2, a, b)
    assert isinstance(result, NdArrayField) and result.domain == gtx.domain({K: NK})
    np.testing.assert_array_equal(result.asnumpy(), [0.0, 1.0, -2.0, -3.0, -4.0, -5.0])


def test_open_ended_condition_with_a_scalar_branch():
    """DESIGN §9: `concat_where(K >= 1, a(K - 1), 0.0)`."""
    a = k_field(np.arange(10.0, 10.0 + NK))
    result = concat_where(K >= 1, a(K - 1), 0.0)
    # 0.0 everywhere below level 1, a(K - 1) up to the top of the shifted field
    assert result.domain == gtx.domain({K: (None, NK + 1)})
    out = gtx.zeros({K: NK})
    out[...] = result
    np.testing.assert_array_equal(out.asnumpy(), [0.0, 10.0, 11.0, 12.0, 13.0, 14.0])
    with embedded_context(offset_provider={"Koff": K}):
        combined = concat_where(K >= 1, a(Koff[-1]), 0.0) + a
    assert combined.domain == gtx.domain({K: NK})
    np.testing.assert_array_equal(combined.asnumpy(), [10.0, 21.0, 23.0, 25.0, 27.0, 29.0])


def test_union_of_disjoint_conditions():
    """DESIGN §9: `(I == 0) | (I == n - 1)` and `(I == 0) | (I >= n)` style unions."""
    n = 5
    b_np = np.arange(1.0, n + 1)
    b = gtx.as_field([I], b_np)
    boundary = concat_where((I == 0) | (I == n - 1), 0.0, b)  # noqa: SIM300
    assert boundary.domain == gtx.domain({I: n})
    np.testing.assert_array_equal(boundary.asnumpy(), [0.0, 2.0, 3.0, 4.0, 0.0])
    ends = concat_where((I == 0) | (I >= 3), -b, b)
    np.testing.assert_array_equal(ends.asnumpy(), [-1.0, 2.0, 3.0, -4.0, -5.0])


def test_condition_over_several_dimensions():
    """DESIGN §9: conditions over several dimensions."""
    a_np = np.arange(20.0).reshape(4, 5)
    a = gtx.as_field([I, K], a_np)
    result = concat_where((I >= 1) & (K < 3), a, -a)
    assert result.domain == a.domain
    i, k = np.meshgrid(np.arange(4), np.arange(5), indexing="ij")
    np.testing.assert_array_equal(result.asnumpy(), np.where((i >= 1) & (k < 3), a_np, -a_np))
    with_scalar = concat_where((I >= 1) & (K < 3), a, -1.0)[a.domain]
    np.testing.assert_array_equal(with_scalar.asnumpy(), np.where((i >= 1) & (k < 3), a_np, -1.0))


def test_condition_on_a_dimension_the_fields_lack():
    j_np = np.arange(3.0)
    j = gtx.as_field([J], j_np)
    result = concat_where(K < 2, j, 10.0)
    assert result.domain.dims == (J, K)
    window = result[gtx.domain({J: 3, K: 4})]
    np.testing.assert_array_equal(
        window.asnumpy(), np.stack([j_np, j_np, [10.0] * 3, [10.0] * 3], axis=1)
    )


def test_branches_intersect_in_the_other_dimensions():
    a = gtx.as_field([I, K], np.ones((4, 6)))
    b = gtx.as_field(gtx.domain({I: (1, 3), K: 6}), np.zeros((2, 6)))
    result = concat_where(K < 3, a, b)
    assert result.domain == gtx.domain({I: (1, 3), K: 6})


def test_tuples():
    a = k_field()
    b = gtx.as_field([K], np.arange(NK))
    first, second = concat_where(K < 3, (a, b), (-a, 0))
    np.testing.assert_array_equal(first.asnumpy(), [0.0, 1.0, 2.0, -3.0, -4.0, -5.0])
    assert second.dtype == np.int64
    assert second.domain == gtx.domain({K: (0, None)})  # the scalar branch is unbounded
    np.testing.assert_array_equal(second[gtx.domain({K: NK})].asnumpy(), [0, 1, 2, 0, 0, 0])


def test_gap_between_branches_is_an_error():
    a = gtx.as_field(gtx.domain({K: (0, 2)}), np.zeros(2))
    b = gtx.as_field(gtx.domain({K: (4, 6)}), np.ones(2))
    with pytest.raises(NonContiguousDomainError, match="gap along K"):
        concat_where(K < 3, a, b)


def test_empty_and_full_conditions():
    a = k_field()
    b = -k_field()
    assert concat_where(K < -10, a, b) is b
    assert concat_where(gtx.Domain(), a, b) is a
    inverted = concat_where(~(K < 2), a, b)
    np.testing.assert_array_equal(inverted.asnumpy(), [-0.0, -1.0, 2.0, 3.0, 4.0, 5.0])


def test_bool_field_mask():
    mask = gtx.as_field([K], np.array([True, True, False, False, True, True]))
    a = k_field()
    result = concat_where(mask, a, -a)
    np.testing.assert_array_equal(result.asnumpy(), [0.0, 1.0, -2.0, -3.0, 4.0, 5.0])


def test_piecewise_results_compose():
    a = k_field()
    lower = concat_where(K < 2, 1.0, 2.0)  # unbounded both ways
    assert not lower.domain.is_finite()
    shifted = lower(K + 1)
    result = gtx.sqrt(a * shifted + gtx.broadcast(0.0, (K,)))
    expected_factor = np.where(np.arange(NK) + 1 < 2, 1.0, 2.0)
    np.testing.assert_allclose(result.asnumpy(), np.sqrt(np.arange(NK) * expected_factor))
    assert gtx.where(a > 2.0, lower, 0.0)[gtx.domain({K: NK})].asnumpy().tolist() == [
        0,
        0,
        0,
        2,
        2,
        2,
    ]


def test_condition_type_errors():
    a = k_field()
    with pytest.raises(TypeError, match="needs a domain condition"):
        concat_where(a, a, a)
    with pytest.raises(TypeError, match="needs a domain condition"):
        concat_where(True, a, a)


def test_piecewise_results_through_neighbour_shifts_and_reductions(mesh):
    data = np.arange(10.0).reshape(5, 2)
    values = gtx.as_field([mesh.V, mesh.K], data)
    below = concat_where(mesh.K >= 1, values(mesh.K - 1), 0.0)  # unbounded below in K
    with embedded_context(offset_provider=mesh.offset_provider):
        summed = gtx.neighbor_sum(below(mesh.E2V), axis=mesh.E2VDim)
    result = summed[gtx.domain({mesh.E: 6, mesh.K: 2})].asnumpy()
    shifted = np.concatenate([np.zeros((5, 1)), data[:, :1]], axis=1)
    table = mesh.e2v_table
    expected = np.where(table[..., None] != -1, shifted[table], 0.0).sum(axis=1)
    np.testing.assert_array_equal(result, expected)
