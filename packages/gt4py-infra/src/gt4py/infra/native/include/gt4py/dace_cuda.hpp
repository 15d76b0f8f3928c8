// The CUDA runtime of gt4py.cartesian's dace:gpu modules (DaCe's CUDA file, its frame and the
// binding, one source), in place of DaCe's `#include <cuda_runtime.h>`. Under nvcc: CUDA's
// runtime, and DaCe's own cudaLaunchKernel launches. With -DGT4PY_CUDA_EMULATION (the test-only
// dace:gpu_emulated backend, host compiler): cuda_emulation.hpp, the few runtime calls DaCe's
// code adds (streams, events, devices), DaCe's own error macros and context
// (<dace/cuda/cudacommon.cuh>), and every launch typed again so that its packed arguments can
// be passed to the kernel, which then runs on the CPU.
#pragma once

#include <gt4py/cuda_launch.hpp>

#ifndef GT4PY_CUDA_EMULATION

// GT4PY_DACE_LAUNCH(kernel, grid, block, args, shared, stream): DaCe's launch, unchanged.
#define GT4PY_DACE_LAUNCH(kernel, ...) cudaLaunchKernel((void*)kernel, __VA_ARGS__)

#else

#include <cstdio>
#include <type_traits>
#include <utility>

struct CUevent_st;
using cudaEvent_t = CUevent_st*;
enum : unsigned { cudaStreamNonBlocking = 1, cudaEventDisableTiming = 2 };
enum cudaFuncAttribute : int { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaDeviceAttr : int { cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };

namespace gt4py::cuda::emulation {
// Streams and events are distinct non-null handles; launches complete before they return, so
// nothing ever waits on them.
inline CUstream_st* const stream_handle = reinterpret_cast<CUstream_st*>(0x1);
inline CUevent_st* const event_handle = reinterpret_cast<CUevent_st*>(0x1);
}  // namespace gt4py::cuda::emulation

inline cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : gt4py::cuda::emulation::fail(cudaErrorInvalidValue);
}
inline cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) {
  *stream = gt4py::cuda::emulation::stream_handle;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) {
  *event = gt4py::cuda::emulation::event_handle;
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) {
  return cudaSuccess;
}
// No dynamic shared memory under the emulation (a launch asking for it fails).
inline cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) {
  return gt4py::cuda::emulation::fail(cudaErrorInvalidValue);
}
inline cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr, int) {
  *value = 0;
  return cudaSuccess;
}

#include <dace/cuda/cudacommon.cuh>

namespace gt4py::cuda::emulation {
template <class... Params, std::size_t... N>
void launch_packed(void (*kernel)(Params...), dim3 grid, dim3 block, void** args,
                   std::size_t shared, cudaStream_t stream, std::index_sequence<N...>) {
  launch(kernel, grid, block, shared, stream)(
      *static_cast<std::remove_cv_t<std::remove_reference_t<Params>>*>(args[N])...);
}
}  // namespace gt4py::cuda::emulation

// DaCe's launch (the kernel, its grid and block, its arguments as an array of pointers, the
// dynamic shared memory and the stream), run to its end on the host: its error, as
// cudaLaunchKernel returns a launch's.
template <class... Params>
inline cudaError_t gt4py_dace_launch(void (*kernel)(Params...), dim3 grid, dim3 block,
                                     void** args, std::size_t shared, cudaStream_t stream) {
  namespace emulation = gt4py::cuda::emulation;
  const cudaError_t pending = emulation::last_error;  // kept for cudaGetLastError, as CUDA's
  emulation::last_error = cudaSuccess;
  emulation::launch_packed(kernel, grid, block, args, shared, stream,
                           std::index_sequence_for<Params...>{});
  const cudaError_t error = emulation::last_error;
  emulation::last_error = pending != cudaSuccess ? pending : error;
  return error;
}
#define GT4PY_DACE_LAUNCH(kernel, ...) gt4py_dace_launch(kernel, __VA_ARGS__)

#endif
