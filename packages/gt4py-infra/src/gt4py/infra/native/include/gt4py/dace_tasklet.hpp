// What the C++ tasklets of gt4py.cartesian's DaCe backends need: Python's operators and the
// checked K index of absolute and variable K reads. Each tasklet includes it in its global code.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include "python_semantics.hpp"

// Set by a failed check in this thread: a while loop whose condition reads out of range stops.
static thread_local bool gt_kfailed = false;

static inline std::int64_t gt_kcheck(std::int64_t index, std::int64_t size, std::int64_t field,
                                      std::int64_t* error) {
  if (index >= 0 && index < size) return index;
  gt_kfailed = true;
#pragma omp critical(gt_kindex_error)
  if (error[0] < 0) {
    error[0] = field;
    error[1] = index;
    error[2] = size;
  }
  return 0;
}
