"""gt:gpu and cuda check for cupy and a GPU before they build (issue 45): a machine without
one fails at once, in gt4py's words, instead of after nvcc's tens of seconds. The
``gpu_build_without_device`` setting builds anyway (a cache on a login node); gt:gpu_emulated
(the host emulation CI runs) never needs a GPU.

The machine is simulated by a stand-in ``cupy`` in ``sys.modules`` whose runtime raises as
cupy's does without a driver or a device; reaching the build is seen by a stand-in
``run_stages`` (nothing is compiled here).
"""

from __future__ import annotations

import importlib.util
import sys
import types

import numpy as np
import pytest

from gt4py import storage
from gt4py.cartesian import _stencil_builder, gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from gt4py.infra import config
from gt4py.storage import _devices


F = gtscript.Field[np.float64]


def copy(a: F, out: F):
    with computation(PARALLEL), interval(...):
        out = a


_needs_dace = pytest.mark.skipif(
    importlib.util.find_spec("dace") is None, reason="needs the dace extra"
)
DACE_GPU = [pytest.param(name, marks=_needs_dace) for name in ("dace:gpu", "dace:gpu_IJK")]
DACE_EMULATED = [pytest.param("dace:gpu_emulated", marks=_needs_dace)]


class CUDARuntimeError(RuntimeError):
    pass


class Built(Exception):
    """Raised by the stand-in run_stages: the build started."""


@pytest.fixture
def no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_device() -> int:
        raise CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")

    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=no_device))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(_devices, "_gpu_found", [])

    def run_stages(*args, **kwargs):
        raise Built

    monkeypatch.setattr(_stencil_builder, "run_stages", run_stages)


@pytest.mark.parametrize("backend", ["gt:gpu", "cuda", *DACE_GPU])
def test_no_gpu_fails_before_building(no_gpu, backend):
    with pytest.raises(storage.NoGPUError) as info:
        gtscript.stencil(backend=backend, definition=copy, rebuild=True)
    message = str(info.value)
    assert message.startswith(f"backend '{backend}' needs a GPU, and cupy found none")
    assert "cudaErrorNoDevice" in message
    assert "GT4PY_GPU_BUILD_WITHOUT_DEVICE=1" in message


def test_no_cupy_fails_before_building(no_gpu, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(ImportError, match=r"backend 'gt:gpu' needs cupy, which is not installed: pip install 'gt4py-cartesian\[cuda12\]'"):  # fmt: skip
        gtscript.stencil(backend="gt:gpu", definition=copy, rebuild=True)


def test_the_setting_builds_without_a_gpu(no_gpu):
    with config.overrides(gpu_build_without_device=True), pytest.raises(Built):
        gtscript.stencil(backend="gt:gpu", definition=copy, rebuild=True)


@pytest.mark.parametrize("backend", ["gt:gpu_emulated", *DACE_EMULATED])
def test_the_host_emulation_needs_no_gpu(no_gpu, backend):
    with pytest.raises(Built):
        gtscript.stencil(backend=backend, definition=copy, rebuild=True)
