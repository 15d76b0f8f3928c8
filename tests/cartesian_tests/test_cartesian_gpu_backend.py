"""gt:gpu / cuda (ADR 0019): GTScript stencils as CUDA, generated and compiled by nvcc here.

Compile-only tests need nvcc but no GPU (the extension is built and imported; the CUDA runtime
is linked statically and needs the driver only when a kernel runs). The feature suite runs on
gt:gpu where cupy and a device exist (``conftest.BACKENDS``); the execution test here skips
cleanly without them. Everywhere, the suite also runs the same CUDA source on the test-only
``gt:gpu_emulated`` backend (host compiler, launches and runtime emulated, numpy arrays).
"""

from __future__ import annotations

import importlib.util
import os
import shutil

import numpy as np
import pytest

from gt4py.cartesian import _cuda_codegen, gtscript
from gt4py.cartesian.gtscript import (
    BACKWARD,
    FORWARD,
    PARALLEL,
    I,
    J,
    computation,
    horizontal,
    interval,
    region,
)
from gt4py.infra import config


F = gtscript.Field[np.float64]

needs_nvcc = pytest.mark.skipif(
    shutil.which("nvcc") is None and not os.environ.get("CUDACXX"), reason="needs nvcc"
)


def _gpu_present() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    import cupy

    try:
        return bool(cupy.cuda.runtime.getDeviceCount() > 0)
    except Exception:
        return False


def lap(a: F, out: F, alpha: float):
    with computation(PARALLEL), interval(...):
        tmp = a[1, 0, 0] + a[-1, 0, 0] + a[0, 1, 0] + a[0, -1, 0] - 4.0 * a
        out = alpha * (tmp[1, 0, 0] - tmp[-1, 0, 0])


def tridiagonal(a: F, b: F, c: F, d: F, x: F):
    with computation(FORWARD):
        with interval(0, 1):
            c = c / b
            d = d / b
        with interval(1, None):
            m = 1.0 / (b - a * c[0, 0, -1])
            c = c * m
            d = (d - a * d[0, 0, -1]) * m
    with computation(BACKWARD):
        with interval(-1, None):
            x = d
        with interval(0, -1):
            x = d - c * x[0, 0, 1]


def regions_and_modulo(a: F, out: F):
    with computation(PARALLEL), interval(...):
        out = a[0, 0, 0] % 3.0
        with horizontal(region[I[0], :], region[:, J[-1]]):
            out = 2.0 * a


def _analysed(definition):
    from gt4py.cartesian._analysis import analyse
    from gt4py.cartesian._frontend import DefinitionParser

    parser = DefinitionParser(
        definition, externals={}, dtypes={}, name=definition.__name__, annotation_locals=None
    )
    return analyse(parser.parse())


pytestmark = pytest.mark.slow


@needs_nvcc
@pytest.mark.parametrize("backend", ["gt:gpu", "cuda"])
def test_stencils_compile_with_nvcc(backend):
    # built without a GPU, as into a cache on a login node (issue 45: otherwise checked first)
    with config.overrides(gpu_build_without_device=True):
        stencils = [
            gtscript.stencil(backend=backend, definition=definition)
            for definition in (lap, tridiagonal, regions_and_modulo)
        ]
    for stencil in stencils:
        assert stencil.backend == backend


def test_the_cuda_source_maps_the_stride_1_axis_to_threads():
    analysed = _analysed(lap)
    source = _cuda_codegen.generate_cuda(analysed, backend="gt:gpu", module_name="m")
    assert source.count("__global__") == 2
    assert "const idx i = i0 + idx(blockIdx.x) * blockDim.x + threadIdx.x;" in source
    # one source for nvcc and the emulation: the launch and the arrays' device are macros
    assert "GT4PY_ARRAY_DEVICE>" in source and "nb::device::cpu>" not in source
    assert "GT4PY_LAUNCH(gt_kernel0, grid, dim3(32, 8), stream)(args, kerror," in source
    assert "<<<" not in source
    assert "device_buffer storage_" in source  # the temporary (cudaMallocAsync)
    assert "cudaStreamSynchronize" not in source  # no checked K index: no synchronization


def test_sequential_computations_launch_per_level():
    source = _cuda_codegen.generate_cuda(_analysed(tridiagonal), backend="gt:gpu", module_name="m")
    assert "for (idx k = k0; k < k1; ++k) {" in source  # FORWARD, on the host
    assert "for (idx k = k1 - 1; k >= k0; --k) {" in source  # BACKWARD


def _tridiagonal_on_debug(shape: tuple[int, int, int]) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Random diagonally dominant inputs of ``tridiagonal`` and its solution on debug."""
    rng = np.random.default_rng(0)
    arrays = {n: rng.random(shape) + (2.0 if n == "b" else 0.0) for n in "abcd"}
    expected = np.zeros(shape)
    reference = {n: a.copy() for n, a in arrays.items()}
    gtscript.stencil(backend="debug", definition=tridiagonal)(**reference, x=expected)
    return arrays, expected


@pytest.mark.skipif(not _gpu_present(), reason="needs cupy and a CUDA device")
def test_tridiagonal_on_the_gpu_equals_debug():
    import cupy

    import gt4py.storage as gts

    shape = (5, 4, 6)
    arrays, expected = _tridiagonal_on_debug(shape)
    gpu = {n: gts.from_array(a, backend="gt:gpu") for n, a in arrays.items()}
    x = gts.zeros(shape, dtype=np.float64, backend="gt:gpu")
    assert isinstance(x, cupy.ndarray)
    gtscript.stencil(backend="gt:gpu", definition=tridiagonal)(**gpu, x=x)
    np.testing.assert_allclose(cupy.asnumpy(x), expected, rtol=1e-13)


def test_the_emulated_backend_runs_the_gt_gpu_source_on_its_storages():
    """gt:gpu_emulated: the very source of gt:gpu, on host storages with gt:gpu's layout."""
    import gt4py.storage as gts
    from gt4py.cartesian import _backends

    assert "gt:gpu_emulated" not in _backends.backend_names()  # test-only
    assert "gt:gpu" in _backends.backend_names()
    stencil = gtscript.stencil(backend="gt:gpu_emulated", definition=tridiagonal)
    expected_source = _cuda_codegen.generate_cuda(
        _analysed(tridiagonal), backend="gt:gpu", module_name="gtcpp_tridiagonal"
    )
    assert stencil.stages["cu"] == expected_source

    shape = (37, 10, 6)  # two blocks along I and J
    arrays, expected = _tridiagonal_on_debug(shape)
    host = {n: gts.from_array(a, backend="gt:gpu_emulated") for n, a in arrays.items()}
    x = gts.zeros(shape, dtype=np.float64, backend="gt:gpu_emulated")
    assert isinstance(x, np.ndarray) and x.strides[0] == 8  # KJI: I contiguous
    stencil(**host, x=x)
    np.testing.assert_allclose(x, expected, rtol=1e-13)


def _plus_one(a: F, out: F):
    with computation(PARALLEL), interval(...):
        out = a + 1.0


def _plus_one_forward(a: F, out: F):
    with computation(FORWARD), interval(...):
        out = a + 1.0


@pytest.mark.parametrize("definition", [_plus_one, _plus_one_forward])
def test_emulated_launches_cover_more_rows_than_a_grid_has_blocks(definition):
    """A grid has at most 65535 blocks along y (J, 8 rows a block) and z (K): the kernels
    grid-stride, so that every point of a longer J or K is computed."""
    stencil = gtscript.stencil(backend="gt:gpu_emulated", definition=definition)
    shapes = [(1, 65535 * 8 + 100, 2)]
    if definition is _plus_one:
        shapes.append((1, 1, 65535 + 70))
    for shape in shapes:
        a, out = np.ones(shape), np.zeros(shape)
        stencil(a, out)
        assert np.argwhere(out != 2.0).tolist() == [], shape


def test_gt_gpu_entries_are_keyed_by_the_gpu_architecture(monkeypatch):
    """An entry holds its own extension, so a hit never reaches infra's build key: the stencil
    key must say which architecture the device code was built for (gpu-review A.3)."""
    from gt4py.cartesian import _cpp_backend, _stencil_key

    monkeypatch.setattr(_cpp_backend, "cuda_arch", lambda: None)
    assert _stencil_key._native_target("gt:gpu") == "cuda nvcc default architecture"
    monkeypatch.setattr(_cpp_backend, "cuda_arch", lambda: "sm_90")
    assert _stencil_key._native_target("gt:gpu") == "cuda sm_90"
    assert _stencil_key._native_target("cuda") == "cuda sm_90"
    assert not _stencil_key._native_target("gt:gpu_emulated").startswith("cuda")
    # no fused multiply-adds on the device either (numpy and debug round every operation)
    flags = _cpp_backend.cuda_build_options("gt:gpu").extra_cuda_flags
    assert "--fmad=false" in flags and "-arch=sm_90" in flags
