// Python's (numpy's) arithmetic for generated C++ and CUDA: where C++ differs from numpy on
// the same dtypes (// and % on negative operands, ** on integers, NaN in min/max, abs of the
// most negative integer, int / int), these helpers compute what numpy computes. No value of
// the data makes them trap or reach undefined behaviour (ADR 0036): integer // and % by zero
// give 0 as numpy's do, and float -> integer conversions (`convert`) saturate.
//
// Shipped with gt4py.infra.native, which puts its include directory on every build's include
// path and a digest of it in every build key. Header-only, C++17; every function is callable
// on the device when compiled by nvcc (GT4PY_HD), without --expt-relaxed-constexpr.
#pragma once

#include <cmath>
#include <type_traits>

#ifdef __CUDACC__
#define GT4PY_HD __host__ __device__
#else
#define GT4PY_HD
#endif

namespace gt4py {

template <class A, class B> using common_t = std::common_type_t<A, B>;

namespace detail {
// Integer arithmetic that wraps as numpy's does: done on the unsigned type of the same width,
// where C++ defines wrapping (signed overflow is undefined behaviour).
template <class T> using wrapping_t = std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>>;
template <class T> GT4PY_HD inline T negate(T a) { return static_cast<T>(wrapping_t<T>(0) - static_cast<wrapping_t<T>>(a)); }
}  // namespace detail

// +, -, * and unary - on signed integers wrap as numpy's (two's complement, in the operands'
// common type), computed on the unsigned type where C++ defines wrapping: generated code is
// compiled without -fwrapv, which keeps the compilers from optimising loops with int indices
// (DaCe's, NDSL's orchestrated programs: 2.1x slower with it). Other types: C++'s operators.
namespace detail {
template <class A, class B>
inline constexpr bool wraps_v = std::is_integral_v<common_t<A, B>> &&
                                std::is_signed_v<common_t<A, B>> &&
                                !std::is_same_v<A, bool> && !std::is_same_v<B, bool>;
// the unsigned type a product is computed in: at least unsigned int, so that narrow operands
// promoted to int never overflow it
template <class T> using product_t = std::common_type_t<wrapping_t<T>, unsigned>;
}  // namespace detail
template <class A, class B> GT4PY_HD inline auto add(A a, B b) {
  if constexpr (detail::wraps_v<A, B>) {
    using T = common_t<A, B>;
    using U = detail::wrapping_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(static_cast<T>(a)) + static_cast<U>(static_cast<T>(b))));
  } else {
    return a + b;
  }
}
template <class A, class B> GT4PY_HD inline auto sub(A a, B b) {
  if constexpr (detail::wraps_v<A, B>) {
    using T = common_t<A, B>;
    using U = detail::wrapping_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(static_cast<T>(a)) - static_cast<U>(static_cast<T>(b))));
  } else {
    return a - b;
  }
}
template <class A, class B> GT4PY_HD inline auto mul(A a, B b) {
  if constexpr (detail::wraps_v<A, B>) {
    using T = common_t<A, B>;
    using U = detail::wrapping_t<T>;
    using M = detail::product_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<M>(static_cast<U>(static_cast<T>(a))) * static_cast<M>(static_cast<U>(static_cast<T>(b)))));
  } else {
    return a * b;
  }
}
template <class T> GT4PY_HD inline auto neg(T a) {
  if constexpr (detail::wraps_v<T, T>) {
    return detail::negate(a);
  } else {
    return -a;
  }
}

// Python's //: rounds towards minus infinity. Floats as numpy's floor_divide (not
// floor(a / b), which is off by one where a / b rounds up to an integer: 1.0 // 0.1 == 9).
// Integer division by zero gives 0, as numpy's (in C++ it is undefined: x86 traps, SIGFPE);
// the most negative integer // -1 wraps, as numpy's.
template <class A, class B> GT4PY_HD inline common_t<A, B> floordiv(A a, B b) {
  using T = common_t<A, B>;
  const T x = static_cast<T>(a), y = static_cast<T>(b);
  if constexpr (std::is_integral_v<T>) {
    if (y == T(0)) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return detail::negate(x);  // x / -1 traps on x86 for the minimum
      const T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? T(q - 1) : q;
    } else {
      return x / y;
    }
  } else {
    if (y == T(0)) return x / y;
    T m = std::fmod(x, y);
    T d = (x - m) / y;  // exact up to rounding: x - m is a multiple of y
    if (m != T(0) && ((y < T(0)) != (m < T(0)))) d -= T(1);
    if (d == T(0)) return std::copysign(T(0), x / y);
    const T f = std::floor(d);
    return (d - f > T(0.5)) ? T(f + T(1)) : f;
  }
}

// Python's %: the result has the sign of the divisor. Floats as numpy's remainder (a zero
// result has the divisor's sign; x % 0.0 is NaN). Integer modulo by zero gives 0, as numpy's.
template <class A, class B> GT4PY_HD inline common_t<A, B> mod(A a, B b) {
  using T = common_t<A, B>;
  const T x = static_cast<T>(a), y = static_cast<T>(b);
  if constexpr (std::is_integral_v<T>) {
    if (y == T(0)) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return T(0);  // x % -1 traps on x86 for the minimum
      const T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? T(r + y) : r;
    } else {
      return x % y;
    }
  } else {
    T r = std::fmod(x, y);
    if (y == T(0)) return r;
    if (r == T(0)) return std::copysign(T(0), y);
    return ((y < T(0)) != (r < T(0))) ? T(r + y) : r;
  }
}

// A conversion between dtypes (astype, int32(x), a value stored into a field of another
// dtype): static_cast, except floating-point to integer, which C++ leaves undefined for NaN,
// the infinities and values out of the target's range (numpy's result there depends on the
// platform: x86 gives the most negative integer). Here those saturate, as CUDA's conversion
// instructions and numpy on AArch64 do: NaN -> 0, above the range -> the maximum, below -> the
// minimum (ADR 0036). In range, the value is truncated towards zero, as everywhere.
template <class To, class From> GT4PY_HD inline To convert(From x) {
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To> &&
                !std::is_same_v<To, bool>) {
    // the target's range, as constants (no std::numeric_limits call: device code as it is)
    using U = std::make_unsigned_t<To>;
    constexpr To top = std::is_signed_v<To> ? To(U(~U(0)) >> 1) : To(~U(0));
    constexpr To bottom = std::is_signed_v<To> ? To(-top - 1) : To(0);
    // 2^(bits) or 2^(bits-1): one past the maximum, a power of two, exact in From
    const From above = From(2) * static_cast<From>(top / 2 + 1);
    const From lowest = static_cast<From>(bottom);  // 0 or -2^(bits-1): exact
    if (x != x) return To(0);
    if (x >= above) return top;
    if (x <= lowest - From(1)) return bottom;  // for 64 bits this rounds to `lowest`: fine
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

// Python's /: two integers divide in double.
template <class A, class B> GT4PY_HD inline auto truediv(A a, B b) {
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    return static_cast<double>(a) / static_cast<double>(b);
  } else {
    return a / b;
  }
}

// ** : integers stay integral (by squaring, wrapping on overflow as numpy does); floats as
// std::pow. A negative integer exponent, which numpy rejects (ValueError) and a compiled
// stencil cannot, gives the exact power 1 / a^-b truncated towards zero (ADR 0044): 1 for
// a == 1, 1 or -1 for a == -1 (the exponent's parity), otherwise 0 (also for a == 0, as
// numpy's integer x // 0).
template <class A, class B> GT4PY_HD inline common_t<A, B> power(A a, B b) {
  using T = common_t<A, B>;
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<bool>(a) || !static_cast<bool>(b);
  } else if constexpr (std::is_integral_v<T>) {
    using U = detail::wrapping_t<T>;
    if constexpr (std::is_signed_v<T>) {
      const T x = static_cast<T>(a), e = static_cast<T>(b);
      if (e < T(0)) {
        if (x == T(1)) return T(1);
        if (x == T(-1)) return (e % T(2) == T(0)) ? T(1) : T(-1);
        return T(0);
      }
    }
    U result = 1, base = static_cast<U>(static_cast<T>(a));
    for (T e = static_cast<T>(b); e > 0; e >>= 1) {
      if (e & 1) result = static_cast<U>(result * base);
      base = static_cast<U>(base * base);
    }
    return static_cast<T>(result);
  } else {
    return std::pow(static_cast<T>(a), static_cast<T>(b));
  }
}

// numpy's minimum/maximum: NaN if either operand is NaN (std::min/max depend on the order);
// of equal operands (0.0 and -0.0), the second (as numpy 2).
namespace detail {
template <class T> GT4PY_HD inline T extremum(T x, T y, bool largest) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x)) return x;
    if (std::isnan(y)) return y;
  }
  return (largest ? y < x : x < y) ? x : y;
}
}  // namespace detail
template <class A, class B> GT4PY_HD inline common_t<A, B> minimum(A a, B b) {
  using T = common_t<A, B>;
  return detail::extremum(static_cast<T>(a), static_cast<T>(b), false);
}
template <class A, class B> GT4PY_HD inline common_t<A, B> maximum(A a, B b) {
  using T = common_t<A, B>;
  return detail::extremum(static_cast<T>(a), static_cast<T>(b), true);
}

// abs: unsigned and bool unchanged; the most negative integer stays itself, as in numpy.
template <class T> GT4PY_HD inline T abs(T a) {
  if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
    return a;
  } else if constexpr (std::is_integral_v<T>) {
    return a < 0 ? detail::negate(a) : a;
  } else {
    return std::fabs(a);
  }
}

// Float functions applied to integers compute in double, as numpy's ufuncs do. (is_nan, not
// isnan: C headers may define isnan, isinf and isfinite as macros.)
template <class T> GT4PY_HD inline auto as_float(T a) {
  if constexpr (std::is_floating_point_v<T>) return a;
  else return static_cast<double>(a);
}
template <class T> GT4PY_HD inline bool is_finite(T a) { return std::isfinite(as_float(a)); }
template <class T> GT4PY_HD inline bool is_inf(T a) { return std::isinf(as_float(a)); }
template <class T> GT4PY_HD inline bool is_nan(T a) { return std::isnan(as_float(a)); }
template <class T> GT4PY_HD inline auto floor(T a) { return std::floor(as_float(a)); }
template <class T> GT4PY_HD inline auto ceil(T a) { return std::ceil(as_float(a)); }
template <class T> GT4PY_HD inline auto trunc(T a) { return std::trunc(as_float(a)); }
// Python's and numpy's round: half to even (the default floating-point rounding mode).
template <class T> GT4PY_HD inline auto round_half_even(T a) { return std::nearbyint(as_float(a)); }
// C's round: half away from zero.
template <class T> GT4PY_HD inline auto round_away(T a) { return std::round(as_float(a)); }

// The operands of a binary operator, evaluated left to right as Python evaluates them: the
// elements of a braced list are, a call's arguments are not (GCC evaluates them right to
// left). It matters where both read out of range: the first bad index recorded is then the
// leftmost one, as numpy's backends report it. Generated code writes
// `gt4py::add(gt4py::operands{a, b})`.
template <class A, class B> struct operands {
  A a;
  B b;
  GT4PY_HD operands(A x, B y) : a(x), b(y) {}
};
template <class A, class B> GT4PY_HD inline auto add(operands<A, B> o) { return add(o.a, o.b); }
template <class A, class B> GT4PY_HD inline auto sub(operands<A, B> o) { return sub(o.a, o.b); }
template <class A, class B> GT4PY_HD inline auto mul(operands<A, B> o) { return mul(o.a, o.b); }
template <class A, class B> GT4PY_HD inline auto truediv(operands<A, B> o) { return truediv(o.a, o.b); }
template <class A, class B> GT4PY_HD inline auto floordiv(operands<A, B> o) { return floordiv(o.a, o.b); }
template <class A, class B> GT4PY_HD inline auto mod(operands<A, B> o) { return mod(o.a, o.b); }
template <class A, class B> GT4PY_HD inline auto power(operands<A, B> o) { return power(o.a, o.b); }

}  // namespace gt4py
