"""Where field memory comes from: the ``allocator=`` protocol of the field constructors.

``gtx.zeros(domain, allocator=...)`` (and ``empty``, ``ones``, ``full``, ``as_field``,
``as_connectivity``) accept as allocator:

1. ``None``: numpy for the CPU (the default), cupy when ``device=`` is a GPU.
2. An array namespace: ``numpy``, ``cupy``, ``jax.numpy`` (a module with ``empty`` and
   ``asarray``). The field lives in that namespace.
3. A :class:`FieldBufferAllocator`: any object with a ``__gt_allocate__`` method returning a
   fresh array, for allocators that control layout and alignment.
4. Anything with a ``__gt_allocator__`` attribute holding one of the above: backends and
   programs expose their allocator this way, so ``gtx.zeros(..., allocator=program)`` works.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gt4py.infra.definitions import Device, DeviceType

from ._dimensions import NamedIndex
from ._domain import Domain
from .embedded import _array_ns


@runtime_checkable
class FieldBufferAllocator(Protocol):
    """Allocates the (uninitialized) array behind a new field."""

    def __gt_allocate__(
        self,
        *,
        domain: Domain,
        dtype: np.dtype[Any],
        device: Device | None,
        aligned_index: Sequence[NamedIndex] | None,
    ) -> Any:
        """A new array of shape ``domain.shape`` and ``dtype`` on ``device``."""


class NamespaceAllocator:
    """Allocates plain arrays of one array namespace (``aligned_index`` is not needed there)."""

    __slots__ = ("array_ns",)

    def __init__(self, array_ns: Any) -> None:
        self.array_ns = array_ns

    def __gt_allocate__(
        self,
        *,
        domain: Domain,
        dtype: np.dtype[Any],
        device: Device | None,
        aligned_index: Sequence[NamedIndex] | None,
    ) -> Any:
        return self.full(domain.shape, None, dtype, device)

    def full(
        self, shape: tuple[int, ...], fill_value: Any, dtype: np.dtype[Any], device: Device | None
    ) -> Any:
        """A new array, filled with ``fill_value`` unless it is ``None`` (uninitialized)."""
        xp = self.array_ns
        name = _array_ns.namespace_name(xp)
        on_gpu = device is not None and device.device_type.is_gpu
        if device is not None and on_gpu != name.startswith("cupy"):
            raise ValueError(
                f"the {name} allocator cannot allocate on {device}; use allocator=cupy (or no "
                "allocator) for GPU devices and numpy for the CPU"
            )
        if on_gpu:
            assert device is not None
            with xp.cuda.Device(device.device_id):
                return _filled(xp, shape, fill_value, dtype)
        return _filled(xp, shape, fill_value, dtype)  # device None: the namespace's default

    @property
    def device_type(self) -> DeviceType:
        """Where this namespace's arrays live (CUDA for cupy, CPU for numpy and jax here)."""
        return (
            DeviceType.CUDA
            if _array_ns.namespace_name(self.array_ns).startswith("cupy")
            else DeviceType.CPU
        )

    def __repr__(self) -> str:
        return f"NamespaceAllocator({_array_ns.namespace_name(self.array_ns)})"


def _filled(xp: Any, shape: tuple[int, ...], fill_value: Any, dtype: np.dtype[Any]) -> Any:
    if fill_value is None:
        return xp.empty(shape, dtype=dtype)
    return xp.full(shape, fill_value, dtype=dtype)


_MAX_INDIRECTIONS = 8


def resolve_allocator(allocator: Any, device: Device | None) -> Any:
    """The :class:`FieldBufferAllocator` that ``allocator=`` and ``device=`` stand for."""
    if device is not None and not isinstance(device, Device):
        raise TypeError(f"device must be a gt4py.infra.definitions.Device, got {device!r}")
    given = allocator
    for _ in range(_MAX_INDIRECTIONS):
        if allocator is None:
            return NamespaceAllocator(_default_namespace(device))
        if isinstance(allocator, FieldBufferAllocator):
            return allocator
        if _array_ns.is_namespace(allocator):
            return NamespaceAllocator(allocator)
        if not hasattr(allocator, "__gt_allocator__"):
            break
        allocator = allocator.__gt_allocator__
    raise TypeError(
        f"{given!r} is not an allocator: pass an array namespace (numpy, cupy, jax.numpy), an "
        "object with __gt_allocate__(...), or a backend/program (an object with __gt_allocator__)"
    )


def _default_namespace(device: Device | None) -> Any:
    if device is None or device.device_type is DeviceType.CPU:
        return np
    if device.device_type.is_gpu:
        try:
            import cupy
        except ImportError:
            raise ImportError(
                f"allocating on {device} needs cupy; install gt4py-next[cuda12] (or [cuda13], "
                "[rocm])"
            ) from None
        return cupy
    raise ValueError(f"no default allocator for {device}; pass allocator=")
