// Host-side CUDA runtime helpers of generated CUDA modules: errors as C++ exceptions (nanobind
// turns them into Python's RuntimeError), and device buffers tied to the call's stream.
//
// Shipped with gt4py.infra.native, like python_semantics.hpp. Needs nvcc (cuda_runtime.h).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

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
