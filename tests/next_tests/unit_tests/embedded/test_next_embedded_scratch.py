"""The result-buffer pool reuses memory only when no array refers to it any more."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import _scratch


I = gtx.Dimension("I")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

pytestmark = pytest.mark.skipif(not _scratch.ENABLED, reason="pool disabled (free-threaded)")

BIG = (512, 400)  # 1.6 MB


def big_field(value: float) -> gtx.Field:
    return gtx.as_field([I, K], np.full(BIG, value))


def test_live_results_never_share_memory():
    a = big_field(1.0)
    results = [a + float(i) for i in range(8)]
    arrays = [r.ndarray for r in results]
    for i, x in enumerate(arrays):
        assert (x == 1.0 + i).all()
        for y in arrays[i + 1 :]:
            assert not np.shares_memory(x, y)


def test_dropped_results_are_reused():
    a = big_field(1.0)
    first = a * 2.0
    address = first.ndarray.__array_interface__["data"][0]
    del first
    second = a * 3.0
    assert second.ndarray.__array_interface__["data"][0] == address
    assert (second.asnumpy() == 3.0).all()


def test_views_keep_a_buffer_in_use():
    a = big_field(1.0)
    first = a + 1.0
    view = first.ndarray[1:]
    del first
    second = a + 5.0
    assert not np.shares_memory(view, second.ndarray)
    assert (view == 2.0).all()


def test_shifted_fields_keep_a_buffer_in_use():
    a = big_field(1.0)
    shifted = (a + 1.0)(I + 1)  # the temporary dies, its data lives on in `shifted`
    other = a + 7.0
    assert not np.shares_memory(shifted.ndarray, other.ndarray)
    assert (shifted.asnumpy() == 2.0).all()


def test_small_results_are_not_pooled():
    assert _scratch.empty((10,), np.dtype(np.float64)) is None
