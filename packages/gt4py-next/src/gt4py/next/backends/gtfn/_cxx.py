"""C++ spellings shared by the gtfn C++ and CUDA generators: the IR dtypes' C++ types and the
includes and scalar helpers every generated module starts with."""

from __future__ import annotations


CXX_TYPES = {
    "bool": "bool",
    "int8": "std::int8_t",
    "int16": "std::int16_t",
    "int32": "std::int32_t",
    "int64": "std::int64_t",
    "uint8": "std::uint8_t",
    "uint16": "std::uint16_t",
    "uint32": "std::uint32_t",
    "uint64": "std::uint64_t",
    "float32": "float",
    "float64": "double",
}

INCLUDES = r"""#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

namespace nb = nanobind;
using index_t = std::int64_t;

"""

# The scalar helpers, shared by the C++ and the CUDA generator (``GT_FN``: ``inline`` there,
# ``__host__ __device__ inline`` here).
HELPERS = r"""// Python semantics for // and % on integers (floor, sign of the divisor); floats as numpy.
template <class A, class B> GT_FN auto gt_floordiv(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_integral_v<T>) {
    T q = static_cast<T>(a) / static_cast<T>(b);
    if constexpr (std::is_signed_v<T>) { if ((a % b != 0) && ((a < 0) != (b < 0))) --q; }
    return q;
  } else { return std::floor(static_cast<T>(a) / static_cast<T>(b)); }
}
template <class A, class B> GT_FN auto gt_mod(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_integral_v<T>) {
    T r = static_cast<T>(a) % static_cast<T>(b);
    if constexpr (std::is_signed_v<T>) { if (r != 0 && ((r < 0) != (b < 0))) r += b; }
    return r;
  } else {
    T r = std::fmod(static_cast<T>(a), static_cast<T>(b));
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
}
template <class A, class B> GT_FN auto gt_power(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_integral_v<T>) {
    T result = 1, base = a; auto e = b;
    while (e > 0) { if (e & 1) result *= base; base *= base; e >>= 1; }
    return result;
  } else { return static_cast<T>(std::pow(static_cast<T>(a), static_cast<T>(b))); }
}
template <class A, class B> GT_FN auto gt_minimum(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<T>) { if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN(); }
  return std::min<T>(a, b);
}
template <class A, class B> GT_FN auto gt_maximum(A a, B b) {
  using T = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<T>) { if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN(); }
  return std::max<T>(a, b);
}
template <class A> GT_FN A gt_abs(A a) {
  if constexpr (std::is_unsigned_v<A>) { return a; } else { return static_cast<A>(a < 0 ? -a : a); }
}
"""
