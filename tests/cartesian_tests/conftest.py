"""Shared fixtures of the cartesian tests: the backend registry and an isolated cache root."""

from __future__ import annotations

import importlib.util
import os
import zlib
from typing import Any

import numpy as np
import pytest

from gt4py.infra import config


def _gpu_present() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    import cupy

    try:
        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:  # no driver / no device
        return False


# Every backend the feature suite runs on; the C++ backends join here by one line each.
BACKENDS = [
    "numpy",
    "debug",
    # Each stencil is one C++ compile (about a second): slow tests, still run in CI.
    pytest.param("gt:cpu_ifirst", marks=pytest.mark.slow),
    pytest.param("gt:cpu_kfirst", marks=pytest.mark.slow),
    # CUDA (ADR 0019): the suite's numpy arguments are moved to the device and back around
    # each call (`_host_arguments_on_the_gpu`); skipped without cupy and a device.
    pytest.param(
        "gt:gpu",
        marks=[
            pytest.mark.slow,
            pytest.mark.requires_gpu,
            pytest.mark.skipif(not _gpu_present(), reason="gt:gpu needs cupy and a GPU"),
        ],
    ),
    pytest.param(
        "dace:gpu",
        marks=[
            pytest.mark.slow,
            pytest.mark.requires_gpu,
            pytest.mark.skipif(
                not _gpu_present() or importlib.util.find_spec("dace") is None,
                reason="dace:gpu needs the dace extra, cupy and a GPU",
            ),
        ],
    ),
    # The gt:gpu CUDA source built by the host compiler with the CUDA launches and runtime
    # emulated (<gt4py/cuda_emulation.hpp>), on the suite's numpy arrays: the kernels' logic
    # runs everywhere, with numpy/debug as the oracle (a test-only backend).
    pytest.param("gt:gpu_emulated", marks=pytest.mark.slow),
    # DaCe (ADR 0041): GTScript -> SDFG -> DaCe's C++ -> infra's native build; skipped
    # without the dace extra. Each stencil is one C++20 compile of DaCe's runtime headers
    # (6-25 s on the shared 2 cores): 88 feature/idiom tests per backend, 9-25 min each, so
    # CI runs a fixed sample of them (DACE_SAMPLE below; GT4PY_DACE_TESTS=all runs all).
    # dace:gpu_emulated: the dace:gpu CUDA source on the host, as gt:gpu_emulated (ADR 0047).
    *(
        pytest.param(
            name,
            marks=[
                pytest.mark.slow,
                pytest.mark.skipif(
                    importlib.util.find_spec("dace") is None, reason="needs the dace extra"
                ),
            ],
        )
        for name in ("dace:cpu", "dace:cpu_kfirst", "dace:gpu_emulated")
    ),
]
CPP_BACKENDS = (
    "gt:cpu_ifirst",
    "gt:cpu_kfirst",
    "gt:gpu",
    "gt:gpu_emulated",
    "dace:cpu",
    "dace:cpu_kfirst",
    "dace:gpu",
    "dace:gpu_emulated",
)
#: The test-only backends running a GPU backend's code on the host (numpy arrays): each
#: with the storage layout of the GPU backend it emulates.
EMULATED_GPU_BACKENDS = {"gt:gpu_emulated": "gt:gpu", "dace:gpu_emulated": "dace:gpu"}


#: backend -> run one test in N (chosen by a checksum of the test's id: the same sample in
#: every run, spread over the suites); GT4PY_DACE_TESTS=all runs every one.
DACE_SAMPLE = {"dace:cpu": 4, "dace:cpu_kfirst": 8, "dace:gpu_emulated": 8}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("GT4PY_DACE_TESTS", "sample") == "all":
        return
    for item in items:
        callspec = getattr(item, "callspec", None)
        name = callspec.params.get("backend") if callspec is not None else None
        if not isinstance(name, str) or name not in DACE_SAMPLE:
            continue  # (other packages parametrize "backend" with unhashable objects)
        if zlib.crc32(item.nodeid.encode()) % DACE_SAMPLE[name]:
            item.add_marker(
                pytest.mark.skip(
                    reason=f"{name}: not in the sample of one test in {DACE_SAMPLE[name]} "
                    "(GT4PY_DACE_TESTS=all runs every one)"
                )
            )


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session", autouse=True)
def _emulated_gpu_storage_layouts():
    """gt4py.storage knows gt:gpu_emulated and dace:gpu_emulated while the cartesian tests
    run: gt:gpu's and dace:gpu's layouts, on the CPU. Registered here, not at import, so that the
    storage tests' backend lists (made at collection) stay the pre-registered ones."""
    from gt4py import storage

    added = []
    for name, emulated in EMULATED_GPU_BACKENDS.items():
        gpu = storage.backend_layout(emulated)
        if name not in storage.registered_backends():
            storage.register_backend(name, layout=gpu.layout, alignment=gpu.alignment)
            added.append(name)
    yield
    for name in added:
        storage.unregister_backend(name)


@pytest.fixture(scope="session")
def _shared_native_cache(tmp_path_factory: pytest.TempPathFactory):
    """One cache root for the C++ backends' tests: the native toolchain is set up once."""
    return tmp_path_factory.mktemp("gt4py_cpp_cache")


@pytest.fixture(autouse=True)
def _isolated_cache(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("backend") in CPP_BACKENDS:
        root = request.getfixturevalue("_shared_native_cache")
    else:
        root = tmp_path_factory.mktemp("gt4py_cache")
    with config.overrides(build_cache_dir=root):
        yield root


class _OnTheGPU:
    """A gt:gpu stencil called with the suite's numpy arrays: they go to the device, the
    stencil runs there and every array comes back into the caller's numpy array."""

    def __init__(self, stencil: Any) -> None:
        self._stencil = stencil

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stencil, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        import cupy

        moved: list[tuple[np.ndarray, Any]] = []

        def to_device(value: Any) -> Any:
            if isinstance(value, np.ndarray):
                device = cupy.asarray(value)
                moved.append((value, device))
                return device
            return value

        args = tuple(to_device(a) for a in args)
        kwargs = {k: to_device(v) for k, v in kwargs.items()}
        try:
            return self._stencil(*args, **kwargs)
        finally:
            for host, device in moved:
                if host.flags.writeable:
                    host[...] = cupy.asnumpy(device)


@pytest.fixture(autouse=True)
def _host_arguments_on_the_gpu(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    callspec = getattr(request.node, "callspec", None)
    if callspec is None or callspec.params.get("backend") not in ("gt:gpu", "dace:gpu"):
        yield
        return
    from gt4py.cartesian import gtscript

    original = gtscript.stencil

    def stencil(*args: Any, **kwargs: Any) -> Any:
        built = original(*args, **kwargs)
        if hasattr(built, "field_info"):
            return _OnTheGPU(built)
        return lambda definition: _OnTheGPU(built(definition))  # decorator form

    monkeypatch.setattr(gtscript, "stencil", stencil)
    yield
