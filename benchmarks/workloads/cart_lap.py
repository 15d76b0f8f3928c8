"""5-point Laplacian as a GTScript stencil (public API only; runs on released gt4py too).

    python cart_lap.py BACKEND [N] [NK]      BACKEND: numpy | gt:cpu_ifirst | gt:cpu_kfirst | ...

One JSON line: ``build_s`` (decoration, compile included), ``steady_median_s``,
``small_call_median_s`` (8 x 8 x 1) and ``correct``.
"""

import json
import statistics
import sys
import time

import numpy as np

import gt4py.storage as gt_storage
from gt4py.cartesian import gtscript


FloatField = gtscript.Field[np.float64]


def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main():
    backend = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    nk = int(sys.argv[3]) if len(sys.argv) > 3 else 80
    started = time.perf_counter()

    @gtscript.stencil(backend=backend)
    def laplacian(a: FloatField, out: FloatField, weight: float):
        with computation(PARALLEL), interval(...):  # noqa: F821
            out = weight * (a[1, 0, 0] + a[-1, 0, 0] + a[0, 1, 0] + a[0, -1, 0] - 4.0 * a)  # noqa: F841

    build = time.perf_counter() - started
    rng = np.random.default_rng(42)

    def storages(size, levels):
        a = gt_storage.from_array(
            rng.random((size, size, levels)), backend=backend, aligned_index=(1, 1, 0)
        )
        out = gt_storage.zeros(
            (size, size, levels), np.float64, backend=backend, aligned_index=(1, 1, 0)
        )
        return a, out

    a, out = storages(n, nk)
    big = lambda: laplacian(a, out, 2.0, origin=(1, 1, 0), domain=(n - 2, n - 2, nk))  # noqa: E731
    big()
    steady = statistics.median(seconds(big) for _ in range(15))
    x = np.asarray(a)
    expected = 2.0 * (x[2:, 1:-1] + x[:-2, 1:-1] + x[1:-1, 2:] + x[1:-1, :-2] - 4.0 * x[1:-1, 1:-1])
    correct = bool(np.allclose(np.asarray(out)[1:-1, 1:-1], expected))
    small_a, small_out = storages(8, 1)
    small = lambda: laplacian(small_a, small_out, 2.0, origin=(1, 1, 0), domain=(6, 6, 1))  # noqa: E731
    small()
    tiny = statistics.median(seconds(small) for _ in range(200))
    print(
        json.dumps(
            {
                "backend": backend,
                "build_s": round(build, 4),
                "steady_median_s": round(steady, 6),
                "small_call_median_s": round(tiny, 7),
                "correct": correct,
            }
        )
    )


if __name__ == "__main__":
    main()
