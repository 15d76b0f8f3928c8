// What the C++ tasklets of gt4py.cartesian's DaCe backends need: Python's operators, the
// checked K index of absolute and variable K reads and the checked data indices computed at
// run time. Each tasklet includes it in its global code.
//
// The error record (the SDFG's __gt_kerror, int64[4]): field number (-1: no error), index,
// size, data dimension (-1: a K index); the first bad index wins and reads index 0 instead.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include "python_semantics.hpp"

// Set by a failed check in this thread: a while loop whose condition reads out of range stops.
static thread_local bool gt_kfailed = false;

// A bad index: recorded (the first one wins), and index 0 is accessed instead.
static inline std::int64_t gt_krecord(std::int64_t index, std::int64_t size, std::int64_t field,
                                      std::int64_t dim, std::int64_t* error) {
  gt_kfailed = true;
#pragma omp critical(gt_kindex_error)
  if (error[0] < 0) {
    error[0] = field;
    error[1] = index;
    error[2] = size;
    error[3] = dim;
  }
  return 0;
}

static inline std::int64_t gt_kcheck(std::int64_t index, std::int64_t size, std::int64_t field,
                                      std::int64_t* error) {
  if (index >= 0 && index < size) return index;
  return gt_krecord(index, size, field, -1, error);
}

// A data index computed at run time: negative ones count from the end, as in Python.
static inline std::int64_t gt_kcheck_data(std::int64_t index, std::int64_t size,
                                           std::int64_t field, std::int64_t dim,
                                           std::int64_t* error) {
  if (index >= 0 && index < size) return index;
  if (index < 0 && index >= -size) return index + size;
  return gt_krecord(index, size, field, dim, error);
}
