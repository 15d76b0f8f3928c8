"""Field operations go through the field's array namespace, never numpy directly.

A recording namespace wraps numpy: fields allocated with it must compute every result
through it (this is what lets cupy and jax.numpy fields share the same code).
"""

from __future__ import annotations

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next.embedded import embedded_context
from gt4py.next.experimental import concat_where


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)


class RecordingNamespace:
    """numpy, seen through a namespace that records which functions are called."""

    __name__ = "recording_numpy"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __getattr__(self, name: str):
        target = getattr(np, name)
        if not callable(target) or isinstance(target, type):
            return target

        def recorded(*args, **kwargs):
            self.calls.append(name)
            return target(*args, **kwargs)

        return recorded


@pytest.fixture
def xp():
    return RecordingNamespace()


def test_fields_keep_their_namespace(xp):
    a = gtx.as_field([I, J], np.arange(12.0).reshape(3, 4), allocator=xp)
    assert a.array_ns is xp
    lap = -4 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)
    assert lap.array_ns is xp
    assert xp.calls.count("add") == 4 and xp.calls.count("multiply") == 1
    data = np.arange(12.0).reshape(3, 4)
    expected = (
        -4 * data[1:-1, 1:-1] + data[2:, 1:-1] + data[:-2, 1:-1] + data[1:-1, 2:] + data[1:-1, :-2]
    )
    np.testing.assert_array_equal(lap.asnumpy(), expected)


def test_builtins_use_the_namespace(xp, mesh):
    values = gtx.as_field([mesh.V, K], np.arange(10.0).reshape(5, 2), allocator=xp)
    with embedded_context(offset_provider=mesh.offset_provider):
        summed = gtx.neighbor_sum(values(mesh.E2V), axis=mesh.E2VDim)
    assert summed.array_ns is xp
    assert {"take", "sum", "where"} <= set(xp.calls)
    xp.calls.clear()
    k = gtx.as_field([K], np.arange(4.0), allocator=xp)
    assert gtx.sin(k).array_ns is xp and "sin" in xp.calls
    assert gtx.where(k > 1.0, k, 0.0).array_ns is xp and "where" in xp.calls
    assert gtx.astype(k, gtx.float32).array_ns is xp
    xp.calls.clear()
    joined = concat_where(K < 2, k, -k)
    assert joined.array_ns is xp and "concatenate" in xp.calls
    np.testing.assert_array_equal(joined.asnumpy(), [0.0, 1.0, -2.0, -3.0])


def test_different_namespaces_do_not_mix(xp):
    a = gtx.as_field([I], np.arange(3.0), allocator=xp)
    b = gtx.as_field([I], np.arange(3.0))
    with pytest.raises(TypeError, match="different array namespaces"):
        a + b
    # a single value (e.g. a broadcast scalar) moves to the other namespace
    assert (a + gtx.as_field([], np.array(1.0))).array_ns is xp
