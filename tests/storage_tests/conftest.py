"""Shared setup for the gt4py.storage tests: GPU availability and backend lists."""

from __future__ import annotations

import functools

import pytest


@functools.cache
def gpu_unavailable_reason() -> str | None:
    """Why GPU tests cannot run here, or None when cupy and a GPU are both present."""
    try:
        import cupy
    except ImportError:
        return "cupy is not installed"
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as error:  # cupy raises its own CUDA runtime errors
        return f"cupy finds no usable GPU ({error})"
    return None if count > 0 else "cupy finds no GPU"


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("requires_gpu") is not None:
        reason = gpu_unavailable_reason()
        if reason is not None:
            pytest.skip(f"requires a GPU: {reason}")


def _backends(gpu: bool) -> list[str]:
    from gt4py import storage

    return [
        name for name in storage.registered_backends() if storage.backend_layout(name).is_gpu == gpu
    ]


CPU_BACKENDS = _backends(gpu=False)
GPU_BACKENDS = _backends(gpu=True)


@pytest.fixture(params=CPU_BACKENDS)
def cpu_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=GPU_BACKENDS)
def gpu_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)
