"""gtfn_gpu checks for cupy and a GPU before it builds a variant (issue 45): a machine without
one fails at once in gt4py's words (``gt4py.storage.NoGPUError``), not after nvcc nor in
cupy's (``CUDARuntimeError``). The ``gpu_build_without_device`` setting builds anyway; the host
emulation (``GTFNConfig(device="emulated")``, what CI runs) never needs a GPU.

The machine is simulated by a stand-in ``cupy`` in ``sys.modules`` whose runtime raises as
cupy's does without a driver or a device; reaching the build is seen by a stand-in
``make_artifact`` (builds in this process: ``build_jobs_mode="serial"``; nothing compiles).
"""

from __future__ import annotations

import sys
import types

import pytest

import gt4py.next as gtx
from gt4py import storage
from gt4py.infra import config
from gt4py.next.backends import _pipeline
from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend
from gt4py.storage import _devices


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]


@gtx.field_operator
def plus_one(a: IField) -> IField:
    return a + 1.0


@gtx.program
def run(a: IField, out: IField):
    plus_one(a, out=out)


class CUDARuntimeError(RuntimeError):
    pass


class Built(Exception):
    """Raised by the stand-in make_artifact: the build started."""


@pytest.fixture
def no_gpu(monkeypatch: pytest.MonkeyPatch):
    def no_device() -> int:
        raise CUDARuntimeError("cudaErrorInsufficientDriver: CUDA driver version is insufficient")

    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=no_device))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(_devices, "_gpu_found", [])

    def make_artifact(*args, **kwargs):
        raise Built

    monkeypatch.setattr(_pipeline.ArtifactPipeline, "make_artifact", make_artifact)
    with config.overrides(build_jobs_mode="serial"):
        yield


def _fields():
    return gtx.zeros({I: 4}, dtype=gtx.float64), gtx.zeros({I: 4}, dtype=gtx.float64)


def test_a_call_without_a_gpu_fails_before_building(no_gpu):
    backend = make_gtfn_backend(GTFNConfig(device="gpu"), name="gtfn_gpu_check")
    with pytest.raises(storage.NoGPUError) as info:
        run.with_backend(backend)(*_fields(), offset_provider={})
    message = str(info.value)
    assert message.startswith("gtfn_gpu needs a GPU, and cupy found none on this machine: ")
    assert "cudaErrorInsufficientDriver" in message
    assert "GT4PY_GPU_BUILD_WITHOUT_DEVICE=1" in message


def test_ahead_of_time_compilation_without_a_gpu_fails_before_building(no_gpu):
    backend = make_gtfn_backend(GTFNConfig(device="gpu"), name="gtfn_gpu_check")
    with pytest.raises(storage.NoGPUError, match="needs a GPU"):
        run.with_backend(backend).compile(offset_provider={})


def test_no_cupy_names_the_extra(no_gpu, monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)
    backend = make_gtfn_backend(GTFNConfig(device="gpu"), name="gtfn_gpu_check")
    with pytest.raises(ImportError, match=r"gtfn_gpu needs cupy, which is not installed: pip install 'gt4py-next\[cuda12\]'"):  # fmt: skip
        run.with_backend(backend)(*_fields(), offset_provider={})


def test_the_setting_builds_without_a_gpu(no_gpu):
    backend = make_gtfn_backend(GTFNConfig(device="gpu"), name="gtfn_gpu_check")
    with config.overrides(gpu_build_without_device=True), pytest.raises(Built):
        run.with_backend(backend)(*_fields(), offset_provider={})


def test_the_host_emulation_needs_no_gpu(no_gpu):
    backend = make_gtfn_backend(GTFNConfig(device="emulated"), name="gtfn_gpu_emulated_check")
    with pytest.raises(Built):
        run.with_backend(backend)(*_fields(), offset_provider={})
