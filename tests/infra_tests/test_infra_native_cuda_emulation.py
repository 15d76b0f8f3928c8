"""The shipped host emulation of CUDA (``<gt4py/cuda_emulation.hpp>``, ADR 0019): a ``.cu``
built with ``BuildOptions(cuda_emulation=True)`` runs every block and thread of a launch on the
CPU, enforces CUDA's launch limits, and rejects what it cannot run (``__syncthreads``).
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from gt4py.infra import native


pytestmark = [pytest.mark.slow, pytest.mark.gpu_emulation]

OPTIONS = native.BuildOptions(cuda_emulation=True, openmp=True)

_SOURCE = textwrap.dedent(
    """\
    #include <nanobind/nanobind.h>
    #include <nanobind/ndarray.h>
    #include <cstdint>
    #include <stdexcept>
    #include <gt4py/cuda_launch.hpp>
    namespace nb = nanobind;

    // each point: its global x index * 10 + its y thread index; the first thread to reach
    // the CAS leaves its index
    __global__ void __launch_bounds__(1024) fill(int* out, int n, int rows, int* first) {
      const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
      const int j = int(blockIdx.y * blockDim.y + threadIdx.y);
      if (i >= n || j >= rows) return;
      out[j * n + i] = i * 10 + j;
      atomicCAS(first, -1, j * n + i);
    }

    int run(nb::ndarray<int, nb::ndim<2>, nb::c_contig, GT4PY_ARRAY_DEVICE> out,
            unsigned bx, unsigned by, unsigned gx, unsigned gy, std::uintptr_t stream_handle) {
      const auto stream = reinterpret_cast<cudaStream_t>(stream_handle);
      gt4py::cuda::device_buffer first(sizeof(int), stream, "test");
      const int minus_one = -1;
      gt4py::cuda::check(cudaMemcpyAsync(first.ptr, &minus_one, sizeof(int),
                                         cudaMemcpyHostToDevice, stream), "test", "copy");
      GT4PY_LAUNCH(fill, dim3(gx, gy), dim3(bx, by), stream)(
          out.data(), int(out.shape(1)), int(out.shape(0)), static_cast<int*>(first.ptr));
      gt4py::cuda::check(cudaGetLastError(), "test", "launch");
      int found = 0;
      gt4py::cuda::check(cudaMemcpyAsync(&found, first.ptr, sizeof(int),
                                         cudaMemcpyDeviceToHost, stream), "test", "copy");
      gt4py::cuda::check(cudaStreamSynchronize(stream), "test", "sync");
      return found;
    }

    NB_MODULE(emulated_fill, m) { m.def("run", &run); }
    """
)


@pytest.fixture(scope="module")
def fill():
    path = native.build_extension("emulated_fill", {"emulated_fill.cu": _SOURCE}, OPTIONS)
    return native.load_extension(path).run


def test_every_block_and_thread_of_the_grid_runs(fill):
    out = np.full((5, 1000), -7, dtype=np.int32)
    first = fill(out, 128, 2, 8, 3, 0)  # 8 x 3 blocks of 128 x 2 threads: more than needed
    expected = np.arange(1000)[None, :] * 10 + np.arange(5)[:, None]
    np.testing.assert_array_equal(out, expected)
    assert 0 <= first < out.size


@pytest.mark.parametrize(
    "shape",
    [
        (2048, 1, 1, 1),  # more than 1024 threads per block
        (1, 1, 0, 1),  # no blocks
        (1, 1, 1, 65536),  # gridDim.y beyond 65535
    ],
)
def test_a_launch_beyond_cudas_limits_fails_as_on_the_device(fill, shape):
    out = np.zeros((1, 4), dtype=np.int32)
    with pytest.raises(RuntimeError, match="launch: invalid configuration argument"):
        fill(out, *shape, 0)
    assert not out.any()  # nothing ran


def test_syncthreads_is_rejected_when_compiling():
    source = _SOURCE.replace("if (i >= n", "__syncthreads();\n  if (i >= n").replace(
        "emulated_fill", "emulated_sync"
    )
    with pytest.raises(native.CompilationError) as error:
        native.build_extension("emulated_sync", {"emulated_sync.cu": source}, OPTIONS)
    assert "__syncthreads() is not supported" in error.value.compiler_output


def test_cuda_sources_need_cuda_or_its_emulation():
    with pytest.raises(ValueError, match="cuda_emulation=True"):
        native.build_extension("plain", {"plain.cu": _SOURCE}, native.BuildOptions())
