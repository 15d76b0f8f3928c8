"""gtfn_cpu's Laplacian against this machine's limits, in one process and one sitting.

- ``workloads/stream.c``: hand-written C + OpenMP copy and Laplacian of the same size,
  compiled with the system C compiler: the practical limit;
- ours, ``cached``: back-to-back calls, as workloads/next_lap.py times them (the 84 MB
  working set may stay in a large L3);
- ours, ``evicted``: the input rewritten between calls (outside the timed region), so each call
  streams it from memory; beside it a numpy copy of the same array, also evicted.

Usage: uv run python benchmarks/next_gtfn_bandwidth.py [N] [K]   (medians of 25 calls)
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import _yardstick
import gt4py.next as gtx


STREAM = _yardstick.WORKLOADS / "stream.c"
I, J = gtx.Dimension("I"), gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
F3 = gtx.Field[gtx.Dims[I, J, K], gtx.float64]


@gtx.field_operator
def lap(a: F3) -> F3:
    return -4.0 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)


@gtx.program(backend=gtx.gtfn_cpu)
def lap_prog(a: F3, out: F3, i_end: gtx.int32, j_end: gtx.int32, k_end: gtx.int32):
    lap(a, out=out, domain={I: (1, i_end), J: (1, j_end), K: (0, k_end)})


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def stream_figures() -> dict:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not STREAM.exists():
        return {"stream": "not available"}
    with tempfile.TemporaryDirectory() as tmp:
        binary = pathlib.Path(tmp) / "stream"
        subprocess.run(
            [compiler, "-O3", "-march=native", "-fopenmp", str(STREAM), "-o", str(binary)],
            check=True,
        )
        return json.loads(
            subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout
        )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    nk = int(sys.argv[2]) if len(sys.argv) > 2 else 80
    rng = np.random.default_rng(0)
    dom = gtx.domain({I: n, J: n, K: nk})
    a = gtx.as_field(dom, rng.random((n, n, nk)))
    out = gtx.zeros(dom, dtype=gtx.float64)
    data = a.asnumpy()  # a view: rewriting it rewrites the field
    lap_prog(a, out, n - 1, n - 1, nk, offset_provider={})

    cached, evicted, copies = [], [], []
    scratch = np.empty_like(data)
    for _ in range(25):
        t0 = time.perf_counter()
        lap_prog(a, out, n - 1, n - 1, nk, offset_provider={})
        cached.append(time.perf_counter() - t0)
    for _ in range(25):
        data *= 1.0000001
        scratch += 1.0  # pushes `data` and `out` further out of the caches
        t0 = time.perf_counter()
        lap_prog(a, out, n - 1, n - 1, nk, offset_provider={})
        evicted.append(time.perf_counter() - t0)
        scratch += 1.0
        t0 = time.perf_counter()
        np.copyto(out.asnumpy(), data)
        copies.append(time.perf_counter() - t0)
    moved = 2 * n * n * nk * 8  # bytes read + written
    result = {
        "n": n,
        "nk": nk,
        "ours_cached_s": round(median(cached), 5),
        "ours_evicted_s": round(median(evicted), 5),
        "ours_evicted_GBps": round(moved / median(evicted) / 1e9, 1),
        "numpy_copy_evicted_s": round(median(copies), 5),
        **{f"stream_{k}": v for k, v in stream_figures().items()},
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
