// Host emulation of the CUDA runtime and kernel launches that gt4py's generated modules use:
// a `.cu` compiled by the host C++ compiler with -DGT4PY_CUDA_EMULATION (gt4py.infra.native's
// BuildOptions(cuda_emulation=True)) runs every block and thread of each launch on the CPU.
// Included by <gt4py/cuda_launch.hpp> in place of <cuda_runtime.h>.
//
// What it proves: the kernels' logic (indexing, bounds, per-point checks, scans, reductions,
// temporaries) on the very source nvcc compiles. What it cannot: performance, occupancy,
// stream ordering, device/host pointer mix-ups (all memory is host memory), DLPack device
// interop (see ADR 0019).
//
// Blocks run in parallel under OpenMP (when compiled with it); the threads of a block run one
// after another, so __syncthreads and __shared__ are rejected at compile time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#ifndef GT4PY_CUDA_EMULATION
#error "gt4py/cuda_emulation.hpp is for host builds with -DGT4PY_CUDA_EMULATION"
#endif

// -- language ---------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__                                                                        \
  static_assert(false, "gt4py CUDA emulation runs the threads of a block one after another: " \
                       "__shared__ memory is not supported");

struct uint3 {
  unsigned x = 0, y = 0, z = 0;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

// The built-in indices, per OS thread (each OpenMP thread runs its own blocks).
inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;

template <class T = void>
inline void __syncthreads() {
  static_assert(sizeof(T) == 0,
                "gt4py CUDA emulation runs the threads of a block one after another: "
                "__syncthreads() is not supported");
}

// The atomics the generators use, on host memory (other threads run other blocks).
template <class T>
inline T gt4py_emulated_cas(T* address, T compare, T value) {
  __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return compare;  // the old value: unchanged on success, the current one on failure
}
inline int atomicCAS(int* a, int c, int v) { return gt4py_emulated_cas(a, c, v); }
inline unsigned atomicCAS(unsigned* a, unsigned c, unsigned v) { return gt4py_emulated_cas(a, c, v); }
inline unsigned long long atomicCAS(unsigned long long* a, unsigned long long c,
                                    unsigned long long v) {
  return gt4py_emulated_cas(a, c, v);
}

// -- runtime ----------------------------------------------------------------------------------
enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
};
enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
struct CUstream_st;
using cudaStream_t = CUstream_st*;

namespace gt4py::cuda::emulation {
inline thread_local cudaError_t last_error = cudaSuccess;
inline cudaError_t fail(cudaError_t error) {
  if (last_error == cudaSuccess) last_error = error;
  return error;
}
}  // namespace gt4py::cuda::emulation

inline const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument (emulated)";
    case cudaErrorMemoryAllocation: return "out of memory (emulated)";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument (emulated)";
  }
  return "unknown error (emulated)";
}
inline cudaError_t cudaGetLastError() {
  const cudaError_t error = gt4py::cuda::emulation::last_error;
  gt4py::cuda::emulation::last_error = cudaSuccess;
  return error;
}
inline cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t) {
  if (ptr == nullptr) return gt4py::cuda::emulation::fail(cudaErrorInvalidValue);
  *ptr = std::malloc(bytes > 0 ? bytes : 1);
  return *ptr ? cudaSuccess : gt4py::cuda::emulation::fail(cudaErrorMemoryAllocation);
}
inline cudaError_t cudaMalloc(void** ptr, std::size_t bytes) {
  return cudaMallocAsync(ptr, bytes, nullptr);
}
inline cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) {
  std::free(ptr);
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* ptr) { return cudaFreeAsync(ptr, nullptr); }
inline cudaError_t cudaMemsetAsync(void* ptr, int value, std::size_t bytes, cudaStream_t) {
  if (ptr == nullptr && bytes > 0) return gt4py::cuda::emulation::fail(cudaErrorInvalidValue);
  std::memset(ptr, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* to, const void* from, std::size_t bytes, cudaMemcpyKind,
                                   cudaStream_t) {
  if ((to == nullptr || from == nullptr) && bytes > 0)
    return gt4py::cuda::emulation::fail(cudaErrorInvalidValue);
  std::memmove(to, from, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* to, const void* from, std::size_t bytes, cudaMemcpyKind kind) {
  return cudaMemcpyAsync(to, from, bytes, kind, nullptr);
}
// Launches run to completion before they return: every stream is always idle.
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

// -- launches -----------------------------------------------------------------------------------
namespace gt4py::cuda::emulation {

// The limits of every current NVIDIA GPU: a launch beyond them fails as on the device.
constexpr unsigned long long max_block_threads = 1024;
constexpr unsigned max_block_x = 1024, max_block_y = 1024, max_block_z = 64;
constexpr unsigned long long max_grid_x = 2147483647ull;
constexpr unsigned max_grid_yz = 65535;

template <class... Params>
struct launcher {
  void (*kernel)(Params...);
  dim3 grid, block;
  bool refused = false;

  template <class... Args>
  void operator()(Args&&... args) const {
    const unsigned long long threads =
        static_cast<unsigned long long>(block.x) * block.y * block.z;
    if (refused || grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 ||
        threads > max_block_threads || block.x > max_block_x || block.y > max_block_y ||
        block.z > max_block_z || grid.x > max_grid_x || grid.y > max_grid_yz ||
        grid.z > max_grid_yz) {
      fail(cudaErrorInvalidConfiguration);
      return;
    }
    const long long blocks = static_cast<long long>(grid.x) * grid.y * grid.z;
    const dim3 g = grid, b = block;
    auto* const k = kernel;
    // Blocks and threads run last first: a kernel that relies on some order of its threads
    // (reads what a "lower" thread wrote) gives wrong results here, as it may on a GPU.
#pragma omp parallel for schedule(dynamic)
    for (long long n = 0; n < blocks; ++n) {
      const long long m = blocks - 1 - n;
      gridDim = g;
      blockDim = b;
      blockIdx.x = static_cast<unsigned>(m % g.x);
      blockIdx.y = static_cast<unsigned>((m / g.x) % g.y);
      blockIdx.z = static_cast<unsigned>(m / (static_cast<long long>(g.x) * g.y));
      for (unsigned z = b.z; z-- > 0;)
        for (unsigned y = b.y; y-- > 0;)
          for (unsigned x = b.x; x-- > 0;) {
            threadIdx.x = x;
            threadIdx.y = y;
            threadIdx.z = z;
            k(args...);  // by value, as a launch copies its arguments
          }
    }
  }
};

template <class... Params>
launcher<Params...> launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared,
                           cudaStream_t) {
  // no dynamic shared memory either (the launch then fails as an invalid configuration)
  return {kernel, grid, block, shared != 0};
}

}  // namespace gt4py::cuda::emulation
