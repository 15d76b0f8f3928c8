"""``gt4py.storage.require_gpu``: the GPU backends' check before they build (issue 45).

The machines without a GPU are simulated by a stand-in ``cupy`` module in ``sys.modules``
(so these tests run everywhere): one whose runtime raises as cupy's does without a driver or
a device (cupy's ``CUDARuntimeError`` with ``cudaErrorNoDevice``), one that counts no device,
and none at all (``import cupy`` fails).
"""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from gt4py import storage
from gt4py.storage import _devices


class CUDARuntimeError(RuntimeError):
    """What cupy raises from the CUDA runtime (cupy_backends.cuda.api.runtime)."""


def fake_cupy(*, count: int | None) -> types.ModuleType:
    """A cupy whose runtime finds ``count`` devices; ``None``: no driver/device, as cupy raises."""

    def get_device_count() -> int:
        if count is None:
            raise CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
        return count

    module = types.ModuleType("cupy")
    module.cuda = types.SimpleNamespace(  # type: ignore[attr-defined]
        runtime=types.SimpleNamespace(getDeviceCount=get_device_count)
    )
    return module


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Installs the cupy of a simulated machine: ``machine(count=...)``, ``machine(cupy=False)``."""
    monkeypatch.setattr(_devices, "_gpu_found", [])

    def install(*, count: int | None = None, cupy: bool = True) -> None:
        monkeypatch.setitem(sys.modules, "cupy", fake_cupy(count=count) if cupy else None)

    return install


def test_no_cupy_is_an_import_error_with_the_hint(machine):
    machine(cupy=False)
    with pytest.raises(ImportError, match=r"^gt:gpu needs cupy, which is not installed: pip it$"):
        storage.require_gpu("gt:gpu", "pip it")


def test_cupy_without_a_driver_or_device_is_a_no_gpu_error_in_gt4pys_words(machine):
    machine(count=None)
    with pytest.raises(storage.NoGPUError) as info:
        storage.require_gpu("gtfn_gpu", "pip it")
    message = str(info.value)
    assert message.startswith("gtfn_gpu needs a GPU, and cupy found none on this machine: ")
    assert "cudaErrorNoDevice" in message and "(CUDARuntimeError)" in message
    assert isinstance(info.value.__cause__, CUDARuntimeError)
    assert isinstance(info.value, RuntimeError)


def test_no_device_counted_is_a_no_gpu_error(machine):
    machine(count=0)
    with pytest.raises(storage.NoGPUError, match=r"^gtfn_gpu needs a GPU, and cupy found none"):
        storage.require_gpu("gtfn_gpu", "pip it")


def test_a_gpu_gives_cupy_and_is_checked_once(machine, monkeypatch):
    machine(count=2)
    cupy = sys.modules["cupy"]
    assert storage.require_gpu("gt:gpu", "pip it") is cupy
    # found once: later checks cost no runtime call
    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", None)
    assert storage.require_gpu("gt:gpu", "pip it") is cupy
