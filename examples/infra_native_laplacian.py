"""A real C++ stencil through gt4py-infra, checked against numpy.

    uv run python examples/infra_native_laplacian.py

A 5-point Laplacian is generated as C++ (OpenMP over the horizontal), compiled into a nanobind
extension by a compilation worker process (``gt4py.infra.runners``) through the shared build
cache (``gt4py.infra.native`` on ``gt4py.infra.caching``), loaded here and run on a
256x256x80 field. Run it twice: the second process finds the module in the persistent cache
and compiles nothing. ``GT4PY_CACHE_DIAGNOSTICS=1`` says why a build missed the cache.

This exercises the shared infrastructure end to end (config, runners, native builds, caches).
"""

from __future__ import annotations

import functools
import statistics
import time

import numpy as np

from gt4py.infra import config, native, runners


SHAPE = (256, 256, 80)

LAPLACIAN_CPP = r"""
#include <cstddef>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

namespace nb = nanobind;
using Field = nb::ndarray<double, nb::ndim<3>, nb::c_contig, nb::device::cpu>;

// out[i, j, k] = -4 in[i, j, k] + in[i+1, j, k] + in[i-1, j, k] + in[i, j+1, k] + in[i, j-1, k]
// on the interior of the horizontal plane; the one-point halo of `out` is left untouched.
static void laplacian(Field in, Field out) {
    const std::ptrdiff_t ni = in.shape(0), nj = in.shape(1), nk = in.shape(2);
    if (out.shape(0) != in.shape(0) || out.shape(1) != in.shape(1) || out.shape(2) != in.shape(2))
        throw nb::value_error("laplacian: `in` and `out` must have the same shape");
    const double* a = in.data();
    double* b = out.data();
    const std::ptrdiff_t si = nj * nk, sj = nk;
    #pragma omp parallel for collapse(2)
    for (std::ptrdiff_t i = 1; i < ni - 1; ++i)
        for (std::ptrdiff_t j = 1; j < nj - 1; ++j) {
            const std::ptrdiff_t c = i * si + j * sj;
            #pragma omp simd
            for (std::ptrdiff_t k = 0; k < nk; ++k)
                b[c + k] = -4.0 * a[c + k] + a[c + si + k] + a[c - si + k]
                         + a[c + sj + k] + a[c - sj + k];
        }
}

NB_MODULE(quickstart_laplacian, m) {
    m.def("laplacian", &laplacian, nb::arg("in_field"), nb::arg("out_field"));
}
"""


def numpy_laplacian(a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a)
    out[1:-1, 1:-1] = -4.0 * a[1:-1, 1:-1] + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2]
    return out


def main() -> None:
    build = functools.partial(
        native.build_extension,
        "quickstart_laplacian",
        {"laplacian.cpp": LAPLACIAN_CPP},
        native.BuildOptions(openmp=True),
    )
    start = time.perf_counter()
    # The worker produces the artifact (a path in the cache); only this process loads it.
    with runners.ProcessRunner(max_workers=1) as runner:
        module_path = runner.submit(build).result()
    build_seconds = time.perf_counter() - start
    module = native.load_extension(module_path)

    rng = np.random.default_rng(42)
    field = rng.standard_normal(SHAPE)
    result = np.zeros_like(field)
    timings = []
    for _ in range(10):
        t0 = time.perf_counter()
        module.laplacian(field, result)
        timings.append(time.perf_counter() - t0)

    expected = numpy_laplacian(field)
    error = float(np.max(np.abs(result - expected)))
    if not np.allclose(result, expected, rtol=1e-12, atol=1e-12):
        raise SystemExit(f"FAILED: C++ Laplacian differs from numpy (max error {error:.3e})")

    print(
        f"cache root:           {config.cache_root()}  [{config.resolve('build_cache_dir').source}]"
    )
    print(f"module:               {module_path}")
    print(f"build or cache lookup (worker process, incl. its start): {build_seconds:.2f} s")
    print(f"laplacian {SHAPE}:  median {statistics.median(timings) * 1e3:.2f} ms over 10 calls")
    print(f"checked against numpy: max |error| = {error:.1e}  OK")


if __name__ == "__main__":
    main()
