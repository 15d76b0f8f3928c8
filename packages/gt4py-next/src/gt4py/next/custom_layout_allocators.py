"""Released gt4py's allocator helpers, for code that imports them by this path (icon4py).

``device_allocators[DeviceType.CPU]`` is the numpy allocator (``[DeviceType.CUDA]`` cupy's,
created on first access); ``is_field_allocation_tool(x)`` says whether ``allocator=x`` is
accepted, ``is_field_allocation_tool_for(x, device_type)`` whether it allocates there.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gt4py.infra.definitions import DeviceType

from ._allocators import NamespaceAllocator, resolve_allocator


class _DeviceAllocators(Mapping[DeviceType, NamespaceAllocator]):
    """The default allocator per device type; GPU ones import their array library lazily."""

    def __getitem__(self, device_type: DeviceType) -> NamespaceAllocator:
        if device_type is DeviceType.CPU:
            import numpy

            return NamespaceAllocator(numpy)
        if device_type in (DeviceType.CUDA, DeviceType.ROCM):
            try:
                import cupy
            except ImportError:
                raise KeyError(
                    f"no allocator for {device_type.name}: install gt4py-next[cuda12] (cupy)"
                ) from None
            return NamespaceAllocator(cupy)
        raise KeyError(f"no default allocator for {device_type!r}")

    def __iter__(self) -> Iterator[DeviceType]:
        return iter((DeviceType.CPU, DeviceType.CUDA))

    def __len__(self) -> int:
        return 2


device_allocators: Mapping[DeviceType, NamespaceAllocator] = _DeviceAllocators()


def is_field_allocation_tool(value: Any) -> bool:
    try:
        resolve_allocator(value, None)
    except TypeError:
        return False
    return value is not None


def is_field_allocation_tool_for(value: Any, device_type: DeviceType) -> bool:
    if not is_field_allocation_tool(value):
        return False
    return getattr(resolve_allocator(value, None), "device_type", None) == device_type


__all__ = ["device_allocators", "is_field_allocation_tool", "is_field_allocation_tool_for"]
