"""The backend layout registry: what memory layout, alignment and device each backend wants.

Backends register under their name (``"gt:cpu_ifirst"``); the GTScript storage API looks the
name up to allocate arrays the backend can use without copies. The GTScript backend names are
pre-registered with the layouts released gt4py gives them; a backend package may replace an
entry with ``replace=True``.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, Literal, TypeAlias

import numpy as np

from gt4py.infra.definitions import DeviceType

from ._layouts import (
    AxisOrderLayout,
    LayoutMaker,
    LayoutMap,
    is_valid_layout_map,
    strides_follow_layout_map,
)


DeviceKind: TypeAlias = Literal["cpu", "gpu"]


class UnknownBackendError(ValueError):
    """A backend name that is not in the layout registry."""


@dataclasses.dataclass(frozen=True)
class BackendLayout:
    """How one backend wants its storages laid out.

    ``alignment`` counts *elements*, as in released gt4py: the element at a storage's
    ``aligned_index`` sits on a multiple of ``alignment * dtype.itemsize`` bytes (32 elements on
    GPUs: one coalesced warp access). ``device`` is ``"gpu"`` for whichever GPU kind (CUDA or
    ROCm) the installed cupy drives.
    """

    name: str
    layout: LayoutMaker
    alignment: int
    device: DeviceKind

    @property
    def is_gpu(self) -> bool:
        return self.device == "gpu"

    def layout_map(self, dimensions: tuple[str, ...]) -> LayoutMap:
        """The layout map for a storage with these dimension names, checked."""
        produced = self.layout(dimensions)
        if not is_valid_layout_map(produced, len(dimensions)):
            raise ValueError(
                f"the layout of backend {self.name!r} returned {produced!r} for dimensions "
                f"{dimensions}, which is not a permutation of 0..{len(dimensions) - 1}"
            )
        return tuple(int(entry) for entry in produced)

    def byte_alignment(self, dtype: Any) -> int:
        """The alignment in bytes for elements of ``dtype``."""
        itemsize: int = np.dtype(dtype).itemsize
        return self.alignment * itemsize

    def is_optimal_layout(self, array: Any, dimensions: tuple[str, ...]) -> bool:
        """Whether ``array``'s strides follow this backend's layout for ``dimensions``."""
        return strides_follow_layout_map(array.strides, self.layout_map(dimensions))


_REGISTRY: dict[str, BackendLayout] = {}


def _device_kind(device: DeviceKind | DeviceType) -> DeviceKind:
    if isinstance(device, DeviceType):
        if device is DeviceType.CPU:
            return "cpu"
        if device in (DeviceType.CUDA, DeviceType.ROCM):
            return "gpu"
        raise ValueError(f"backends cannot place storages on {device.name} memory")
    if device in ("cpu", "gpu"):
        return device
    raise ValueError(f"device must be 'cpu', 'gpu' or a DeviceType, not {device!r}")


def register_backend(
    name: str,
    *,
    layout: LayoutMaker,
    alignment: int = 1,
    device: DeviceKind | DeviceType = "cpu",
    replace: bool = False,
) -> BackendLayout:
    """Register (or, with ``replace=True``, re-register) the storage layout of a backend.

    Args:
        name: the backend name users pass as ``backend=``.
        layout: maps a storage's dimension names (``("I", "J", "K", "0")``) to its layout map;
            e.g. ``AxisOrderLayout("KJI", data_dimensions="outer")`` or ``c_order_layout``.
        alignment: in elements; a positive power of two.
        device: ``"cpu"`` or ``"gpu"`` (or a DeviceType: CPU, CUDA, ROCM).
        replace: allow overwriting an existing, different entry.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"backend name must be a non-empty string, got {name!r}")
    if not callable(layout):
        raise TypeError(f"layout of backend {name!r} must be callable, got {layout!r}")
    if isinstance(alignment, bool):
        raise TypeError(f"alignment of backend {name!r} must be an integer, got {alignment!r}")
    count = operator.index(alignment)
    if count < 1 or count & (count - 1):
        raise ValueError(
            f"alignment of backend {name!r} must be a positive power of two (in elements), "
            f"got {alignment!r}"
        )
    entry = BackendLayout(name=name, layout=layout, alignment=count, device=_device_kind(device))
    existing = _REGISTRY.get(name)
    if existing is not None and existing != entry and not replace:
        raise ValueError(
            f"backend {name!r} is already registered with {existing}; "
            "pass replace=True to register it again"
        )
    _REGISTRY[name] = entry
    return entry


def unregister_backend(name: str) -> BackendLayout:
    """Remove a backend's entry and return it."""
    entry = backend_layout(name)
    del _REGISTRY[name]
    return entry


def backend_layout(name: str) -> BackendLayout:
    """The registered layout of backend ``name``; an error listing the registered names otherwise."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        known = ", ".join(repr(known) for known in sorted(_REGISTRY))
        raise UnknownBackendError(
            f"unknown backend {name!r}; registered backends: {known}"
        ) from None


def registered_backends() -> tuple[str, ...]:
    """The names of all registered backends, sorted."""
    return tuple(sorted(_REGISTRY))


# -- the GTScript backends, with the layouts released gt4py 1.2.3 gives them ------------------
# (read off released's ``backend.from_name(name).storage_info``; tests/storage_tests pins them).
# Axis orders run from the outermost to the contiguous axis; data dimensions are outermost.

_K_CONTIGUOUS = AxisOrderLayout("IJK", data_dimensions="outer")
_I_CONTIGUOUS = AxisOrderLayout("KJI", data_dimensions="outer")
for _name in ("numpy", "debug", "gt:cpu_kfirst", "dace:cpu_kfirst"):
    register_backend(_name, layout=_K_CONTIGUOUS, alignment=1, device="cpu")
for _name in ("gt:cpu_ifirst", "dace:cpu_KJI"):
    register_backend(_name, layout=_I_CONTIGUOUS, alignment=1, device="cpu")
# J contiguous, then I, K outermost.
register_backend("dace:cpu", layout=AxisOrderLayout("KIJ", data_dimensions="outer"), alignment=1)
# I contiguous for coalesced access; 32-element (one warp) alignment.
for _name in ("gt:gpu", "cuda"):
    register_backend(_name, layout=_I_CONTIGUOUS, alignment=32, device="gpu")
register_backend("dace:gpu", layout=_I_CONTIGUOUS, alignment=1, device="gpu")
register_backend("dace:gpu_IJK", layout=_K_CONTIGUOUS, alignment=1, device="gpu")
del _name
