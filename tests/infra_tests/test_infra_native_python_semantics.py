"""The shipped header ``<gt4py/python_semantics.hpp>``: its helpers compute what numpy computes,
every build finds it, its contents are in every build key, and the wheel ships it.

The semantics are checked through a small extension exposing each helper on int32, int64 and
float64 arrays, compared element-wise with numpy on grids of operands (negatives, zeros,
extremes, NaN and infinities, integer zero divisors: numpy's 0 where C++ is undefined and x86
traps), and float -> integer conversions, which saturate where numpy's result depends on the
platform (ADR 0036).
"""

from __future__ import annotations

import itertools
import textwrap
import warnings
import zipfile

import numpy as np
import pytest

from gt4py.infra import native
from gt4py.infra.native import _build, _module_build, _tools


pytestmark = pytest.mark.slow

DTYPES = {"int32": "std::int32_t", "int64": "std::int64_t", "float64": "double"}
BINARY = ("floordiv", "mod", "power", "minimum", "maximum", "truediv")
UNARY = ("abs", "round_half_even", "is_nan")
# gt4py::convert<To>(From): float -> every integer width (and bool), both float widths
CONVERT_TO = {
    "int8": "std::int8_t", "int16": "std::int16_t", "int32": "std::int32_t",
    "int64": "std::int64_t", "uint8": "std::uint8_t", "uint16": "std::uint16_t",
    "uint32": "std::uint32_t", "uint64": "std::uint64_t", "bool": "bool",
}  # fmt: skip
CONVERT_FROM = {"float32": "float", "float64": "double"}

_SOURCE = textwrap.dedent(
    """\
    #include <nanobind/nanobind.h>
    #include <nanobind/ndarray.h>
    #include <cstdint>
    #include <gt4py/python_semantics.hpp>
    namespace nb = nanobind;
    template <class T> using vec = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

    template <class T, class R, R (*f)(T, T)>
    void binary(vec<const T> a, vec<const T> b, vec<R> out) {
      for (std::size_t i = 0; i < a.shape(0); ++i) out(i) = f(a(i), b(i));
    }
    template <class T, class R, R (*f)(T)> void unary(vec<const T> a, vec<R> out) {
      for (std::size_t i = 0; i < a.shape(0); ++i) out(i) = f(a(i));
    }

    NB_MODULE(gt4py_python_semantics_probe, m) {
    BINDINGS}
    """
)


def _bindings() -> str:
    lines = []
    for (dtype, cxx), name in itertools.product(DTYPES.items(), BINARY):
        result = "double" if name == "truediv" else cxx
        lines.append(
            f'  m.def("{name}_{dtype}", &binary<{cxx}, {result}, &gt4py::{name}<{cxx}, {cxx}>>);'
        )
    for (dtype, cxx), name in itertools.product(DTYPES.items(), UNARY):
        result = {"abs": cxx, "is_nan": "bool"}.get(name, "double")
        lines.append(f'  m.def("{name}_{dtype}", &unary<{cxx}, {result}, &gt4py::{name}<{cxx}>>);')
    for (to, to_cxx), (src, src_cxx) in itertools.product(CONVERT_TO.items(), CONVERT_FROM.items()):
        lines.append(
            f'  m.def("convert_{src}_{to}", '
            f"&unary<{src_cxx}, {to_cxx}, &gt4py::convert<{to_cxx}, {src_cxx}>>);"
        )
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def probe():
    for tool in ("nanobind", "cmake", "ninja"):
        pytest.importorskip(tool)
    name = "gt4py_python_semantics_probe"
    path = native.build_extension(name, {f"{name}.cpp": _SOURCE.replace("BINDINGS", _bindings())})
    return native.load_extension(path)


@pytest.fixture(scope="module")
def cuda_probe():
    """The same probe compiled by nvcc, with both headers and a kernel that instantiates every
    helper on the device (GT4PY_HD); its host functions run without a GPU."""
    for tool in ("nanobind", "cmake", "ninja"):
        pytest.importorskip(tool)
    try:
        _tools.find_nvcc()
    except native.ToolchainError as error:
        pytest.skip(str(error))
    name = "gt4py_python_semantics_cuda_probe"
    kernel = textwrap.dedent(
        """\
        #include <gt4py/cuda_launch.hpp>
        __global__ void every_helper(double* d, std::int64_t* l) {
          d[0] = gt4py::floordiv(d[1], d[2]) + gt4py::mod(d[1], d[2]) + gt4py::power(d[1], d[2])
              + gt4py::minimum(d[1], d[2]) + gt4py::maximum(d[1], d[2]) + gt4py::abs(d[1])
              + gt4py::truediv(l[1], l[2]) + gt4py::is_nan(d[1]) + gt4py::round_half_even(d[1]);
          l[0] = gt4py::floordiv(l[1], l[2]) + gt4py::mod(l[1], l[2]) + gt4py::power(l[1], l[2])
              + gt4py::abs(l[1]) + gt4py::minimum(l[1], l[2])
              + gt4py::convert<std::int64_t>(d[1]) + gt4py::convert<std::uint8_t>(d[2]);
        }
        // host code of cuda_launch.hpp instantiated (not run: no GPU needed)
        [[maybe_unused]] static void allocate(cudaStream_t stream) {
          gt4py::cuda::device_buffer buffer(8, stream, "probe", /*zeroed=*/true);
          every_helper<<<1, 1>>>(static_cast<double*>(buffer.ptr), nullptr);
          gt4py::cuda::check(cudaGetLastError(), "probe", "launch");
        }
        """
    )
    source = _SOURCE.replace("gt4py_python_semantics_probe", name).replace("BINDINGS", _bindings())
    source = source.replace("namespace nb = nanobind;", kernel + "namespace nb = nanobind;")
    path = native.build_extension(name, {f"{name}.cu": source}, native.BuildOptions(cuda=True))
    return native.load_extension(path)


@pytest.mark.parametrize("name", BINARY)
def test_the_helpers_compile_with_nvcc_and_compute_as_numpy(cuda_probe, name):
    for dtype in DTYPES:
        _check_binary(cuda_probe, name, dtype)


def _grid(dtype: str) -> np.ndarray:
    if dtype == "float64":
        values = [-7.5, -3.0, -1.0, -0.5, -0.0, 0.0, 0.1, 0.5, 1.0, 2.5, 3.0, 7.0, 1e300]
        return np.array([*values, np.inf, -np.inf, np.nan], dtype=dtype)
    info = np.iinfo(dtype)
    return np.array([info.min, info.min + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7, info.max], dtype)


def _pairs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    values = _grid(dtype)
    a, b = (x.ravel() for x in np.meshgrid(values, values))
    return a, b


def _expected(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if name == "power" and a.dtype.kind == "i":
            # numpy rejects negative integer exponents; the header gives 1 / a^-b truncated
            # towards zero (ADR 0044): 1 for 1, +-1 for -1 (the parity), otherwise 0
            positive = np.power(a, np.maximum(b, 0))
            odd = np.where(b % 2 == 0, 1, -1).astype(a.dtype)
            negative = np.where(a == 1, 1, np.where(a == -1, odd, 0)).astype(a.dtype)
            return np.where(b < 0, negative, positive)
        ufunc = {
            "floordiv": np.floor_divide,
            "mod": np.remainder,
            "power": np.power,
            "minimum": np.minimum,
            "maximum": np.maximum,
            "truediv": np.true_divide,
        }[name]
        return ufunc(a, b)


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", BINARY)
def test_binary_helpers_compute_as_numpy(probe, name, dtype):
    _check_binary(probe, name, dtype)


def _check_binary(probe, name: str, dtype: str) -> None:
    a, b = _pairs(dtype)
    expected = _expected(name, a, b)
    out = np.empty_like(expected)
    getattr(probe, f"{name}_{dtype}")(a, b, out)
    if name == "power" and dtype == "float64":
        # std::pow is glibc's (as Python's **); numpy's may be a SIMD one, up to 1 ulp apart
        finite = np.isfinite(expected)
        np.testing.assert_array_max_ulp(out[finite], expected[finite], maxulp=2)
        out[finite] = expected[finite]
    mismatch = ~((out == expected) | (np.isnan(out) & np.isnan(expected)))
    if name not in ("minimum", "maximum"):  # which of 0.0 and -0.0 wins varies with numpy
        # the sign of a zero matters too (numpy: x % y == 0 has y's sign)
        mismatch |= (out == 0) & (np.signbit(out) != np.signbit(expected))
    assert not mismatch.any(), list(
        zip(a[mismatch], b[mismatch], out[mismatch], expected[mismatch], strict=True)
    )


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("name", UNARY)
def test_unary_helpers_compute_as_numpy(probe, name, dtype):
    a = _grid(dtype)
    expected = {"abs": np.abs, "round_half_even": np.rint, "is_nan": np.isnan}[name](a)
    if name == "round_half_even":
        expected = expected.astype(np.float64)
    out = np.empty_like(expected)
    getattr(probe, f"{name}_{dtype}")(a, out)
    np.testing.assert_array_equal(out, expected)
    if name == "abs":
        assert not np.signbit(out[out == 0]).any()  # abs(-0.0) is +0.0


def test_floor_division_of_floats_is_numpys_not_floor_of_the_quotient(probe):
    # 1.0 / 0.1 rounds up to 10.0; Python and numpy give 9.0 (and 1.0 % 0.1 ~ 0.1).
    out = np.empty(1)
    probe.floordiv_float64(np.array([1.0]), np.array([0.1]), out)
    assert out[0] == 9.0 == 1.0 // 0.1


def test_min_and_max_propagate_nan_whatever_the_order(probe):
    a, b = np.array([np.nan, 1.0]), np.array([1.0, np.nan])
    for name in ("minimum", "maximum"):
        out = np.empty(2)
        getattr(probe, f"{name}_float64")(a, b, out)
        assert np.isnan(out).all(), name


def test_shipped_headers_are_in_every_build_key(monkeypatch, tmp_path):
    """Changing a shipped header must never let the cache serve a module built with the old
    one: its digest is part of the key (and of the warm lookup that precedes it)."""
    pytest.importorskip("nanobind")
    from gt4py.infra import config

    keys: list[object] = []

    def record(key, build):
        keys.append(key)
        raise _Stop

    sources = {"digest_probe.cpp": "#include <gt4py/python_semantics.hpp>\n"}
    monkeypatch.setattr(_build.caching.BuildDirCache, "get_or_build", staticmethod(record))
    with config.overrides(build_cache_dir=tmp_path, build_cache_lifetime="persistent"):
        for digest in ("a" * 64, "b" * 64):
            monkeypatch.setattr(_build, "shipped_headers_digest", lambda d=digest: d)
            with pytest.raises(_Stop):
                native.build_extension("digest_probe", sources)
    assert len(keys) == 2 and keys[0] != keys[1]


class _Stop(Exception):
    pass


def test_header_digest_covers_names_and_contents():
    digest = _module_build.shipped_headers_digest()
    assert len(digest) == 64
    headers = sorted(p.name for p in (_module_build.SHIPPED_INCLUDE_DIR / "gt4py").iterdir())
    assert headers == [
        "cuda_emulation.hpp",
        "cuda_launch.hpp",
        "dace_cuda.hpp",
        "dace_tasklet.hpp",
        "extension_prelude.hpp",
        "python_semantics.hpp",
    ]


def test_the_wheel_ships_the_headers(wheel_of):
    names = zipfile.ZipFile(wheel_of("gt4py_infra")).namelist()
    for header in (
        "python_semantics.hpp",
        "cuda_launch.hpp",
        "cuda_emulation.hpp",
        "dace_cuda.hpp",
        "dace_tasklet.hpp",
        "extension_prelude.hpp",
    ):
        assert f"gt4py/infra/native/include/gt4py/{header}" in names


def test_integer_division_and_modulo_by_zero_give_numpys_zero(probe):
    """x // 0 and x % 0 on integers: 0, as numpy's (C++'s is undefined; x86 raises SIGFPE,
    which killed the process)."""
    for dtype in ("int32", "int64"):
        info = np.iinfo(dtype)
        a = np.array([info.min, -7, -1, 0, 1, 7, info.max], dtype)
        for name in ("floordiv", "mod"):
            out = np.full_like(a, 99)
            getattr(probe, f"{name}_{dtype}")(a, np.zeros_like(a), out)
            assert out.tolist() == [0] * len(a), (name, dtype)
        # and the most negative integer by -1: numpy wraps (C++ traps on x86)
        q, m = np.empty(1, dtype), np.empty(1, dtype)
        getattr(probe, f"floordiv_{dtype}")(a[:1], np.array([-1], dtype), q)
        getattr(probe, f"mod_{dtype}")(a[:1], np.array([-1], dtype), m)
        assert (q[0], m[0]) == (info.min, 0)


def saturated(values: np.ndarray, to: str) -> np.ndarray:
    """ADR 0036: float -> integer as the compiled backends convert (numpy's result in range,
    NaN -> 0, beyond the range the nearest end of it)."""
    if to == "bool":
        return values.astype(bool)
    info = np.iinfo(to)
    wide = np.nan_to_num(values.astype(np.float64), nan=0.0)
    inside = (wide > float(info.min) - 1) & (wide < float(info.max) + 1)
    result = np.full(values.shape, info.min, dtype=to)
    result[wide > 0] = info.max
    with np.errstate(invalid="ignore"):
        result[inside] = np.trunc(wide[inside]).astype(to)
    return result


def test_saturated_reference_of_the_tests():
    assert saturated(np.array([np.nan, np.inf, -np.inf, 300.0, -300.0, -0.9]), "int8").tolist() == [
        0, 127, -128, 127, -128, 0,
    ]  # fmt: skip
    assert saturated(np.array([2.0**64, 2.0**63, -1.0, 5.5]), "uint64").tolist() == [
        2**64 - 1, 2**63, 0, 5,
    ]  # fmt: skip


@pytest.mark.parametrize("src", sorted(CONVERT_FROM))
@pytest.mark.parametrize("to", sorted(CONVERT_TO))
def test_float_to_integer_conversion_is_numpys_in_range_and_saturates_beyond(probe, to, src):
    """C++ leaves a float -> integer conversion of NaN, the infinities and out-of-range values
    undefined (x86's instruction gives the most negative integer, whatever the target)."""
    edges = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.5, -2.5, 1e-310]
    if to != "bool":
        info = np.iinfo(to)
        for end in (float(info.min), float(info.max)):
            edges += [end, end + 1, end - 1, end * 2, np.nextafter(end, 0), np.nextafter(end, -end)]
    edges += [1e20, -1e20, 3e38, -3e38, 1e300, -1e300]
    with np.errstate(all="ignore"):
        values = np.array(edges, dtype=np.float64).astype(src)
    expected = saturated(values, to)
    out = np.empty(values.shape, dtype=to)
    getattr(probe, f"convert_{src}_{to}")(values, out)
    mismatch = out != expected
    assert not mismatch.any(), list(
        zip(values[mismatch], out[mismatch], expected[mismatch], strict=True)
    )
