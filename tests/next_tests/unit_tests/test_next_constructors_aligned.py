"""`aligned_index=` allocates through gt4py.storage's allocator core."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.constructors import FIELD_BYTE_ALIGNMENT


I = gtx.Dimension("I")
J = gtx.Dimension("J")


def _address(array: np.ndarray, index: tuple[int, ...]) -> int:
    return array.__array_interface__["data"][0] + int(np.dot(index, array.strides))


@pytest.mark.parametrize("constructor", [gtx.zeros, gtx.ones, gtx.empty])
@pytest.mark.parametrize("dtype", [gtx.float64, gtx.float32, gtx.int32])
def test_aligned_index_lands_on_the_alignment(constructor, dtype):
    domain = gtx.domain({I: (-3, 7), J: (-2, 9)})
    field = constructor(domain, dtype, aligned_index=[I(0), J(0)])
    array = field.ndarray
    assert field.domain == domain
    assert array.shape == (10, 11)
    assert _address(array, (3, 2)) % FIELD_BYTE_ALIGNMENT == 0
    if constructor is gtx.zeros:
        assert (array == 0).all()
    if constructor is gtx.ones:
        assert (array == 1).all()


def test_aligned_index_values_round_trip_through_arithmetic():
    domain = gtx.domain({I: 5, J: 6})
    a = gtx.ones(domain, aligned_index=[J(1)])
    np.testing.assert_array_equal((a + a).asnumpy(), np.full((5, 6), 2.0))


def test_aligned_index_on_a_missing_dimension_is_an_error():
    K = gtx.Dimension("K")
    with pytest.raises(ValueError, match="aligned_index names K"):
        gtx.zeros(gtx.domain({I: 4}), aligned_index=[K(0)])
