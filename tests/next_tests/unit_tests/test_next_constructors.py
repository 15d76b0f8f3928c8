"""Field constructors and the allocator protocol."""

from __future__ import annotations

import types

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra.definitions import Device, DeviceType
from gt4py.next.allocators import NamespaceAllocator, resolve_allocator
from gt4py.next.embedded import NdArrayConnectivityField, NdArrayField


I = gtx.Dimension("I")
J = gtx.Dimension("J")
V = gtx.Dimension("V")
E = gtx.Dimension("E")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (gtx.zeros, 0.0),
        (lambda d: gtx.ones(d, dtype=gtx.int32), 1),
        (lambda d: gtx.full(d, 2.5, dtype=np.float32), 2.5),
        (lambda d: gtx.full(d, 3), 3),
    ],
)
def test_filled_constructors(make, expected):
    f = make(gtx.domain({I: (1, 4), J: 2}))
    assert isinstance(f, NdArrayField)
    assert f.domain == gtx.domain({I: (1, 4), J: 2})
    assert (f.asnumpy() == expected).all()


def test_constructor_dtypes():
    assert gtx.zeros({I: 2}).dtype == np.float64
    assert gtx.ones({I: 2}, dtype=gtx.int32).dtype == np.int32
    assert gtx.full({I: 2}, 3).dtype == np.int64
    assert gtx.full({I: 2}, True).dtype == np.bool_
    assert gtx.empty({I: 2}, dtype="float32").dtype == np.float32


def test_constructor_errors():
    with pytest.raises(TypeError, match="not supported"):
        gtx.zeros({I: 2}, dtype=np.complex64)
    with pytest.raises(ValueError, match="unbounded"):
        gtx.zeros({I: (0, None)})
    with pytest.raises(TypeError, match="is not an allocator"):
        gtx.zeros({I: 2}, allocator="numpy")
    with pytest.raises(OverflowError, match="does not fit"):
        gtx.full({I: 2}, 300, dtype=np.int8)


def test_as_field_copies_and_takes_origin():
    data = np.arange(6.0).reshape(2, 3)
    f = gtx.as_field([I, J], data, origin={J: 1})
    assert f.domain == gtx.domain({I: 2, J: (-1, 2)})
    data[0, 0] = 99
    assert f.asnumpy()[0, 0] == 0.0
    g = gtx.as_field(gtx.domain({I: (5, 7), J: 3}), np.ones((2, 3)), dtype=gtx.float32)
    assert g.dtype == np.float32 and g.domain.ranges[0] == gtx.UnitRange(5, 7)
    assert gtx.as_field([I], [1, 2, 3]).dtype == np.int64


def test_as_field_errors():
    with pytest.raises(ValueError, match="does not fit"):
        gtx.as_field(gtx.domain({I: 3}), np.zeros(4))
    with pytest.raises(ValueError, match="2 dimensions"):
        gtx.as_field([I], np.zeros((2, 2)))
    with pytest.raises(ValueError, match="origin names dimensions"):
        gtx.as_field([I], np.zeros(2), origin={J: 1})
    with pytest.raises(ValueError, match="origin= only goes with"):
        gtx.as_field(gtx.domain({I: 2}), np.zeros(2), origin={I: 1})
    with pytest.raises(TypeError, match="not supported"):
        gtx.as_field([I], np.array(["a", "b"]))


class RecordingAllocator:
    """A custom allocator: `__gt_allocate__` returns the buffer, here a Fortran-ordered one."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def __gt_allocate__(self, *, domain, dtype, device, aligned_index):
        self.calls.append((domain, dtype, device, aligned_index))
        return np.empty(domain.shape, dtype=dtype, order="F")


class FakeBackend:
    """What backends and programs do: point `__gt_allocator__` at an allocator."""

    def __init__(self, allocator) -> None:
        self.__gt_allocator__ = allocator


def test_custom_allocator_protocol():
    allocator = RecordingAllocator()
    f = gtx.zeros({I: 3, J: 2}, allocator=allocator, aligned_index=[I(0)])
    assert allocator.calls == [(gtx.domain({I: 3, J: 2}), np.dtype(np.float64), None, [I(0)])]
    assert f.ndarray.flags.f_contiguous and (f.asnumpy() == 0).all()
    g = gtx.as_field([I], np.arange(3.0), allocator=FakeBackend(allocator))
    np.testing.assert_array_equal(g.asnumpy(), np.arange(3.0))
    assert len(allocator.calls) == 2


def test_allocator_resolution():
    assert isinstance(resolve_allocator(None, None), NamespaceAllocator)
    assert resolve_allocator(np, None).array_ns is np
    assert resolve_allocator(FakeBackend(FakeBackend(np)), None).array_ns is np
    with pytest.raises(TypeError, match="Device"):
        resolve_allocator(None, "cpu")


def test_namespace_allocator_uses_the_given_namespace():
    calls = []

    def empty(shape, dtype=None):
        calls.append(shape)
        return np.empty(shape, dtype=dtype)

    namespace = types.SimpleNamespace(
        empty=empty, full=np.full, asarray=np.asarray, __name__="recording_numpy"
    )
    f = gtx.empty({I: 4}, allocator=namespace)
    assert calls == [(4,)] and f.array_ns is namespace


def test_device_handling():
    cpu = gtx.zeros({I: 2}, device=Device(DeviceType.CPU, 0))
    assert cpu.array_ns is np
    with pytest.raises(ValueError, match="cannot allocate on Device\\(CUDA, 0\\)"):
        gtx.zeros({I: 2}, allocator=np, device=Device(DeviceType.CUDA, 0))


def test_cuda_device_without_cupy_names_the_extra():
    try:
        import cupy  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("cupy is installed")
    with pytest.raises(ImportError, match=r"needs cupy; install gt4py-next\[cuda12\]"):
        gtx.zeros({I: 2}, device=Device(DeviceType.CUDA, 0))


def test_as_connectivity():
    table = np.array([[0, 1], [1, 2], [2, -1]], dtype=np.int32)
    conn = gtx.as_connectivity([E, E2VDim], codomain=V, data=table)
    assert isinstance(conn, NdArrayConnectivityField) and isinstance(conn, gtx.Connectivity)
    assert conn.codomain == V and conn.skip_value == -1 and conn.has_skip_values
    assert conn.max_neighbors == 2 and conn.source_dim == E and conn.neighbor_dim == E2VDim
    assert conn.dtype == np.int32
    full = gtx.as_connectivity(gtx.domain({E: 2, E2VDim: 2}), V, np.array([[0, 1], [1, 0]]))
    assert full.skip_value is None and not full.has_skip_values
    explicit = gtx.as_connectivity([E], V, np.array([0, 5, 5]), skip_value=5)
    assert explicit.skip_value == 5 and explicit.has_skip_values


def test_as_connectivity_errors():
    with pytest.raises(TypeError, match="integer dtype"):
        gtx.as_connectivity([E], V, np.zeros(3))
    with pytest.raises(ValueError, match="negative index -2"):
        gtx.as_connectivity([E], V, np.array([0, -2]))
    with pytest.raises(ValueError, match="pass skip_value=-1"):
        gtx.as_connectivity([E], V, np.array([0, -1]), skip_value=None)
    with pytest.raises(TypeError, match="codomain must be a Dimension"):
        gtx.as_connectivity([E], "V", np.array([0]))
