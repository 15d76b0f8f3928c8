"""Lazy pointwise evaluation: same results as eager, in-place reuse only of dead temporaries."""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import _lazy, _scratch, embedded_context


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)

SHAPE = (40, 30, 40)  # 48000 elements: large enough to be deferred


@pytest.fixture
def data():
    rng = np.random.default_rng(3)
    return rng.random(SHAPE), rng.random(SHAPE)


def fields(data):
    return tuple(gtx.as_field([I, J, K], d) for d in data)


def laplacian(a):
    return -4.0 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)


def test_lazy_matches_eager(data):
    a, b = fields(data)
    expected = laplacian(a) * b - b / 3.0
    with embedded_context(lazy=True):
        result = laplacian(a) * b - b / 3.0
        assert isinstance(result, _lazy.LazyNdArrayField) and result.is_pending
        assert result.domain == expected.domain and result.dtype == np.float64
    np.testing.assert_array_equal(result.asnumpy(), expected.asnumpy())


def test_dead_temporaries_are_overwritten_in_place(data, monkeypatch):
    a, _ = fields(data)
    fresh = []
    original = _scratch.call

    def counting_call(function, args):
        fresh.append(function)
        return original(function, args)

    monkeypatch.setattr(_scratch, "call", counting_call)
    out = gtx.zeros(a.domain)
    with embedded_context(lazy=True):
        lap = laplacian(a)
        out[lap.domain] = lap
    assert len(fresh) == 1  # `-4.0 * a` allocates; the four additions reuse it
    np.testing.assert_allclose(
        out[lap.domain].asnumpy(), laplacian(gtx.as_field([I, J, K], data[0])).asnumpy()
    )


def test_values_held_by_variables_are_never_overwritten(data):
    a, b = fields(data)
    a_np, b_np = data
    with embedded_context(lazy=True):
        t = a * 2.0
        first = t + b
        second = t * 3.0
        np.testing.assert_array_equal(first.asnumpy(), a_np * 2 + b_np)
        np.testing.assert_array_equal(t.asnumpy(), a_np * 2)
        np.testing.assert_array_equal(second.asnumpy(), a_np * 6)


def test_arrays_handed_out_are_never_overwritten(data):
    a, b = fields(data)
    a_np, b_np = data
    with embedded_context(lazy=True):
        x = a + 1.0
        view = x.ndarray
        result = x + b
        del x
        np.testing.assert_array_equal(result.asnumpy(), a_np + 1 + b_np)
    np.testing.assert_array_equal(view, a_np + 1)


def test_inputs_are_never_overwritten(data):
    a, b = fields(data)
    with embedded_context(lazy=True):
        result = (a + b) + (b + a)
        result.asnumpy()
    np.testing.assert_array_equal(a.asnumpy(), data[0])
    np.testing.assert_array_equal(b.asnumpy(), data[1])


def test_writes_compute_pending_results_first(data):
    a, _ = fields(data)
    with embedded_context(lazy=True):
        plus_one = a + 1.0
        a[...] = 0.0
    np.testing.assert_array_equal(plus_one.asnumpy(), data[0] + 1)


def test_leaving_the_context_computes_pending_results(data):
    a, _ = fields(data)
    with embedded_context(lazy=True):
        doubled = a * 2.0
    assert not doubled.is_pending
    a[...] = 0.0
    np.testing.assert_array_equal(doubled.asnumpy(), data[0] * 2)


def test_result_dtypes_are_known_ahead(data):
    a, _ = fields(data)
    ints = gtx.as_field([I, J, K], (data[0] * 100).astype(np.int32))
    with embedded_context(lazy=True):
        flags = a > 0.5
        ratio = ints / (ints(I + 1) + 1)
        quotient = ints // 3
        assert (flags.dtype, ratio.dtype, quotient.dtype) == (np.bool_, np.float64, np.int32)
        assert flags.asnumpy().dtype == np.bool_ and ratio.asnumpy().dtype == np.float64
        np.testing.assert_array_equal(quotient.asnumpy(), (data[0] * 100).astype(np.int32) // 3)


def test_long_chains_and_other_operations(data):
    a, b = fields(data)
    with embedded_context(lazy=True):
        acc = a
        for _ in range(100):  # deeper than the deferral limit
            acc = acc + 1.0
        mixed = gtx.where(acc > 100.5, gtx.sqrt(acc), acc(K + 1)) + b
    np.testing.assert_allclose(acc.asnumpy(), data[0] + 100)
    eager_acc = gtx.as_field([I, J, K], data[0] + 100)
    expected = gtx.where(eager_acc > 100.5, gtx.sqrt(eager_acc), eager_acc(K + 1)) + b
    np.testing.assert_allclose(mixed.asnumpy(), expected.asnumpy())


def test_small_fields_are_not_deferred():
    a = gtx.as_field([I], np.arange(10.0))
    with embedded_context(lazy=True):
        assert not isinstance(a + 1.0, _lazy.LazyNdArrayField)


def test_contexts_nest_and_keep_the_offset_provider():
    koff = gtx.FieldOffset("Koff", source=K, target=(K,))
    a = gtx.as_field([K], np.arange(5.0))
    with embedded_context(offset_provider={"Koff": K}), embedded_context(lazy=True):
        assert a(koff[1]).domain == gtx.domain({K: (-1, 4)})
        with embedded_context(lazy=False):
            assert _lazy.pending_results() is None
    with pytest.raises(TypeError, match="offset_provider must be a mapping"):
        embedded_context(offset_provider=[("Koff", K)])
