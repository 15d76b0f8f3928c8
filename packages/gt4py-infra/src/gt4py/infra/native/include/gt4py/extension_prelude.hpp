// The headers the generated extension modules of gt4py.next (gtfn) and gt4py.cartesian
// start with: the standard library parts they use, nanobind and gt4py's Python arithmetic.
// Parsing these takes most of a small module's compile (0.45 of 0.62 s with GCC at -O3), so
// a build with BuildOptions(precompiled_prelude=True) compiles this header once per toolchain
// and flags and force-includes the result; the sources keep their own #include lines (no-ops
// then).
#ifndef GT4PY_EXTENSION_PRELUDE_HPP
#define GT4PY_EXTENSION_PRELUDE_HPP
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/tuple.h>
#include <gt4py/python_semantics.hpp>
#endif
