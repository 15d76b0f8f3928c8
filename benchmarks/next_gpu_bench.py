"""gtfn_gpu figures (ADR 0019), for a machine with a GPU: one JSON line per case.

- lap 256x256x80 (the shape of workloads/next_lap.py) with device fields: first call
  (cold or warm cache, as the environment gives it), steady median (stream synchronized);
- tiny call 8x8x1: host time per call (launch included, not synchronized), the call overhead;
- bandwidth: a copy and a 3-point K-average over 1024x1024x80 float64, against cupy copying
  the same bytes (``b[...] = a``): achieved GB/s and the fraction of cupy's.

Usage: python benchmarks/next_gpu_bench.py [lap|tiny|bandwidth ...] (default: all)
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

import gt4py.next as gtx


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
F3 = gtx.Field[gtx.Dims[I, J, K], gtx.float64]


@gtx.field_operator
def _lap(a: F3) -> F3:
    return -4.0 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)


@gtx.program
def lap(a: F3, out: F3, i_end: gtx.int32, j_end: gtx.int32, k_end: gtx.int32):
    _lap(a, out=out, domain={I: (1, i_end), J: (1, j_end), K: (0, k_end)})


@gtx.field_operator
def _copy(a: F3) -> F3:
    return a


@gtx.program
def copy(a: F3, out: F3):
    _copy(a, out=out)


@gtx.field_operator
def _k_average(a: F3) -> F3:
    return (a(K - 1) + a + a(K + 1)) / 3.0


@gtx.program
def k_average(a: F3, out: F3, k_end: gtx.int32):
    _k_average(a, out=out, domain={I: (0, 1024), J: (0, 1024), K: (1, k_end)})


def _median(times: list[float]) -> float:
    return sorted(times)[len(times) // 2]


def _timed(call, repeat: int, sync) -> float:
    times = []
    for _ in range(repeat):
        sync()
        started = time.perf_counter()
        call()
        sync()
        times.append(time.perf_counter() - started)
    return _median(times)


def main(cases: list[str]) -> None:
    import cupy

    backend = gtx.gtfn_gpu
    sync = cupy.cuda.get_current_stream().synchronize
    rng = np.random.default_rng(0)
    if "lap" in cases:
        n, nk = 256, 80
        dom = gtx.domain({I: n, J: n, K: nk})
        data = rng.random((n, n, nk))
        a = gtx.as_field(dom, data, allocator=backend)
        out = gtx.zeros(dom, allocator=backend)
        program = lap.with_backend(backend)
        started = time.perf_counter()
        program(a, out, n - 1, n - 1, nk, offset_provider={})
        sync()
        first = time.perf_counter() - started
        steady = _timed(lambda: program(a, out, n - 1, n - 1, nk, offset_provider={}), 30, sync)
        ref = -4 * data[1:-1, 1:-1] + data[2:, 1:-1] + data[:-2, 1:-1] + data[1:-1, 2:]
        ref += data[1:-1, :-2]
        ok = bool(np.allclose(out.asnumpy()[1:-1, 1:-1], ref))
        print(json.dumps({"case": "lap", "n": n, "nk": nk, "first_call_s": round(first, 4),
                          "steady_median_s": round(steady, 6), "correct": ok}))  # fmt: skip
    if "tiny" in cases:
        dom = gtx.domain({I: 8, J: 8, K: 1})
        a = gtx.as_field(dom, rng.random((8, 8, 1)), allocator=backend)
        out = gtx.zeros(dom, allocator=backend)
        program = lap.with_backend(backend)
        program(a, out, 7, 7, 1, offset_provider={})
        sync()
        times = []
        for _ in range(500):
            started = time.perf_counter()
            program(a, out, 7, 7, 1, offset_provider={})
            times.append(time.perf_counter() - started)
        sync()
        print(json.dumps({"case": "tiny_call", "host_median_us": round(_median(times) * 1e6, 2)}))
    if "bandwidth" in cases:
        shape = (1024, 1024, 80)
        dom = gtx.domain({I: shape[0], J: shape[1], K: shape[2]})
        data = rng.random(shape)
        a = gtx.as_field(dom, data, allocator=backend)
        out = gtx.zeros(dom, allocator=backend)
        moved = 2 * data.nbytes  # read + write
        src, dst = cupy.asarray(data), cupy.empty(shape)
        reference = _timed(lambda: dst.__setitem__(Ellipsis, src), 30, sync)
        copy_program = copy.with_backend(backend)
        copy_program(a, out, offset_provider={})
        copied = _timed(lambda: copy_program(a, out, offset_provider={}), 30, sync)
        average = k_average.with_backend(backend)
        average(a, out, shape[2] - 1, offset_provider={})
        averaged = _timed(lambda: average(a, out, shape[2] - 1, offset_provider={}), 30, sync)
        print(json.dumps({
            "case": "bandwidth", "shape": shape, "cupy_copy_GBps": round(moved / reference / 1e9, 1),
            "gtfn_copy_GBps": round(moved / copied / 1e9, 1),
            "gtfn_copy_fraction": round(reference / copied, 3),
            "gtfn_k_average_GBps": round(moved / averaged / 1e9, 1),
            "gtfn_k_average_fraction": round(reference / averaged, 3),
        }))  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:] or ["lap", "tiny", "bandwidth"])
