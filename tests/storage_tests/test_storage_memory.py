"""``memory_owner`` / ``byte_span``: how both DSL stacks tell arguments sharing memory."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from gt4py import storage


def test_views_of_one_array_have_its_owner():
    base = np.zeros((4, 5))
    assert storage.memory_owner(base) is base
    assert storage.memory_owner(base[1:, ::2]) is base
    assert storage.memory_owner(base.T[2]) is base
    strided = np.lib.stride_tricks.as_strided(base, shape=(2, 2), strides=(8, 8))
    assert storage.memory_owner(strided) is base  # through as_strided's DummyArray


def test_buffers_seen_through_new_memoryviews_have_one_owner():
    buffer = bytearray(80)
    first, second = np.frombuffer(buffer), np.frombuffer(buffer)[3:]
    assert first.base is not second.base.base  # numpy's own `base` tells them apart
    assert storage.memory_owner(first) is storage.memory_owner(second) is buffer


def test_memory_of_an_unknown_owner_is_foreign():
    raw = (ctypes.c_double * 8)()
    array = np.ctypeslib.as_array(raw)
    assert storage.memory_owner(array) is storage.FOREIGN_MEMORY
    assert repr(storage.FOREIGN_MEMORY) == "FOREIGN_MEMORY"


@pytest.mark.parametrize(
    ("a", "b", "overlap"),
    [
        (slice(0, 5), slice(5, 10), False),
        (slice(0, 6), slice(5, 10), True),
        (slice(0, 10, 2), slice(1, 10, 2), True),  # interleaved: the ranges overlap
        (slice(3, 3), slice(0, 10), False),  # empty
    ],
)
def test_byte_spans(a, b, overlap):
    base = np.zeros(10)
    span_a, span_b = storage.byte_span(base[a]), storage.byte_span(base[b])
    assert storage.spans_overlap(span_a, span_b) is overlap
    assert storage.spans_overlap(span_b, span_a) is overlap


def test_byte_span_of_negative_strides_and_addresses():
    base = np.zeros(10)
    start, end = storage.byte_span(base)
    assert end - start == 80
    assert storage.byte_span(base[::-1]) == (start, end)
    assert storage.data_address(base[2:]) == start + 16
    assert storage.byte_span(object()) == (0, 2**64)  # unknown: overlaps everything
