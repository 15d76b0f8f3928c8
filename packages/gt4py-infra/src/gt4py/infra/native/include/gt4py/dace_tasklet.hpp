// What the C++ tasklets of gt4py.cartesian's DaCe backends need: Python's operators, the
// checked K index of absolute and variable K reads and the checked data indices computed at
// run time. Each tasklet includes it in its global code.
//
// The error record (the SDFG's __gt_kerror, int64[4]): field number (-1: no error), index,
// size, data dimension (-1: a K index); the first bad index wins and reads index 0 instead.
// Callable in the kernels of dace:gpu (nvcc), where the record is in device memory.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>   // an orchestrated program's report of a bad index: stderr,
#include <cstdlib>  // abort,
#include <limits>
#include <string>   // and its message
#include "python_semantics.hpp"

// Set by a failed check in this thread: a while loop whose condition reads out of range stops.
// (Host code only: a GPU tasklet's loop stops once the record holds an error.)
static thread_local bool gt_kfailed = false;

// A bad index: recorded (the first one wins), and index 0 is accessed instead.
static inline GT4PY_HD std::int64_t gt_krecord(std::int64_t index, std::int64_t size,
                                               std::int64_t field, std::int64_t dim,
                                               std::int64_t* error) {
#ifdef __CUDA_ARCH__
  auto* const first = reinterpret_cast<unsigned long long*>(error);
  if (atomicCAS(first, ~0ull, static_cast<unsigned long long>(field)) == ~0ull) {
    error[1] = index;
    error[2] = size;
    error[3] = dim;
  }
#else
  gt_kfailed = true;
#pragma omp critical(gt_kindex_error)
  if (error[0] < 0) {
    error[0] = field;
    error[1] = index;
    error[2] = size;
    error[3] = dim;
  }
#endif
  return 0;
}

static inline GT4PY_HD std::int64_t gt_kcheck(std::int64_t index, std::int64_t size, std::int64_t field,
                                      std::int64_t* error) {
  if (index >= 0 && index < size) return index;
  return gt_krecord(index, size, field, -1, error);
}

// A data index computed at run time: negative ones count from the end, as in Python.
static inline GT4PY_HD std::int64_t gt_kcheck_data(std::int64_t index, std::int64_t size,
                                           std::int64_t field, std::int64_t dim,
                                           std::int64_t* error) {
  if (index >= 0 && index < size) return index;
  if (index < 0 && index >= -size) return index + size;
  return gt_krecord(index, size, field, dim, error);
}
