"""gt:gpu / cuda (ADR 0019): GTScript stencils as CUDA, generated and compiled by nvcc here.

Compile-only tests need nvcc but no GPU (the extension is built and imported; the CUDA runtime
is linked statically and needs the driver only when a kernel runs). The feature suite runs on
gt:gpu where cupy and a device exist (``conftest.BACKENDS``); the execution test here skips
cleanly without them.
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
    for definition in (lap, tridiagonal, regions_and_modulo):
        stencil = gtscript.stencil(backend=backend, definition=definition)
        assert stencil.backend == backend


def test_the_cuda_source_maps_the_stride_1_axis_to_threads():
    analysed = _analysed(lap)
    source = _cuda_codegen.generate_cuda(analysed, backend="gt:gpu", module_name="m")
    assert source.count("__global__") == 2
    assert "const idx i = i0 + idx(blockIdx.x) * blockDim.x + threadIdx.x;" in source
    assert "nb::device::cuda>" in source and "nb::device::cpu>" not in source
    assert "device_buffer storage_" in source  # the temporary (cudaMallocAsync)
    assert "cudaStreamSynchronize" not in source  # no checked K index: no synchronization


def test_sequential_computations_launch_per_level():
    source = _cuda_codegen.generate_cuda(_analysed(tridiagonal), backend="gt:gpu", module_name="m")
    assert "for (idx k = k0; k < k1; ++k) {" in source  # FORWARD, on the host
    assert "for (idx k = k1 - 1; k >= k0; --k) {" in source  # BACKWARD


@pytest.mark.skipif(not _gpu_present(), reason="needs cupy and a CUDA device")
def test_tridiagonal_on_the_gpu_equals_debug():
    import cupy

    import gt4py.storage as gts

    shape = (5, 4, 6)
    rng = np.random.default_rng(0)
    arrays = {n: rng.random(shape) + (2.0 if n == "b" else 0.0) for n in "abcd"}
    expected = np.zeros(shape)
    reference = {n: a.copy() for n, a in arrays.items()}
    gtscript.stencil(backend="debug", definition=tridiagonal)(**reference, x=expected)
    gpu = {n: gts.from_array(a, backend="gt:gpu") for n, a in arrays.items()}
    x = gts.zeros(shape, dtype=np.float64, backend="gt:gpu")
    assert isinstance(x, cupy.ndarray)
    gtscript.stencil(backend="gt:gpu", definition=tridiagonal)(**gpu, x=x)
    np.testing.assert_allclose(cupy.asnumpy(x), expected, rtol=1e-13)
