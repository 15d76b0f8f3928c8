// Host-side CUDA runtime helpers of generated CUDA modules: errors as C++ exceptions (nanobind
// turns them into Python's RuntimeError), and device buffers tied to the call's stream.
//
// Shipped with gt4py.infra.native, like python_semantics.hpp. Needs nvcc (cuda_runtime.h), or
// a host C++ compiler with -DGT4PY_CUDA_EMULATION (cuda_emulation.hpp runs the kernels on the
// CPU). Generated code launches through GT4PY_LAUNCH and takes GT4PY_ARRAY_DEVICE arrays, so
// that one source text serves both.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#ifdef GT4PY_CUDA_EMULATION
#include <gt4py/cuda_emulation.hpp>
// `GT4PY_LAUNCH(kernel, grid, block, stream)(arguments...)`: every block and thread, on the host
#define GT4PY_LAUNCH(kernel, grid, block, stream) \
  ::gt4py::cuda::emulation::launch(kernel, grid, block, 0, stream)
// the nanobind device of field arguments: host arrays (numpy) under emulation
#define GT4PY_ARRAY_DEVICE ::nanobind::device::cpu
#else
#include <cuda_runtime.h>
#define GT4PY_LAUNCH(kernel, grid, block, stream) kernel<<<grid, block, 0, stream>>>
#define GT4PY_ARRAY_DEVICE ::nanobind::device::cuda
#endif

namespace gt4py::cuda {

// Raises "<backend>: <what>: <CUDA's message>" unless `error` is cudaSuccess.
inline void check(cudaError_t error, const char* backend, const char* what) {
  if (error != cudaSuccess)
    throw std::runtime_error(std::string(backend) + ": " + what + ": " + cudaGetErrorString(error));
}

// A device buffer allocated on the call's stream (zero-filled if asked), freed on it
// (asynchronously) when the buffer goes out of scope. Never empty: a zero-byte request gets a
// byte, so that its pointer is a valid, distinct one.
struct device_buffer {
  void* ptr = nullptr;
  cudaStream_t stream;

  device_buffer(std::size_t bytes, cudaStream_t s, const char* backend, bool zeroed = false)
      : stream(s) {
    const std::size_t size = bytes > 0 ? bytes : 1;
    check(cudaMallocAsync(&ptr, size, s), backend, "cudaMallocAsync");
    if (zeroed) check(cudaMemsetAsync(ptr, 0, size, s), backend, "cudaMemsetAsync");
  }
  ~device_buffer() {
    if (ptr) cudaFreeAsync(ptr, stream);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

}  // namespace gt4py::cuda
