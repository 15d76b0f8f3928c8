"""5-point Laplacian as a gt4py.next program (public API only; runs on released gt4py too).

    python next_lap.py BACKEND [N] [NK]      BACKEND: embedded | gtfn_cpu | itir_python | ...

One JSON line: ``first_call_s`` (JIT included), ``steady_median_s`` (N x N x NK),
``small_call_median_s`` (8 x 8 x 1: the per-call overhead) and ``correct``.
"""

import json
import statistics
import sys
import time

import numpy as np

import gt4py.next as gtx


IDim = gtx.Dimension("I")
JDim = gtx.Dimension("J")
KDim = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Field3 = gtx.Field[gtx.Dims[IDim, JDim, KDim], gtx.float64]


@gtx.field_operator
def laplacian(a: Field3) -> Field3:
    return a(IDim + 1) + a(IDim - 1) + a(JDim + 1) + a(JDim - 1) - 4.0 * a


@gtx.program
def laplacian_program(
    a: Field3, out: Field3, i_stop: gtx.int32, j_stop: gtx.int32, k_stop: gtx.int32
):
    laplacian(a, out=out, domain={IDim: (1, i_stop), JDim: (1, j_stop), KDim: (0, k_stop)})


def backend_named(name):
    # released gt4py runs embedded with backend=None; ours names it gtx.embedded_numpy
    return getattr(gtx, "embedded_numpy", None) if name == "embedded" else getattr(gtx, name)


def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main():
    name = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    nk = int(sys.argv[3]) if len(sys.argv) > 3 else 80
    program = laplacian_program.with_backend(backend_named(name))
    rng = np.random.default_rng(42)

    def fields(size, levels):
        domain = gtx.domain({IDim: size, JDim: size, KDim: levels})
        return gtx.as_field(domain, rng.random((size, size, levels))), gtx.zeros(
            domain, dtype=gtx.float64
        )

    a, out = fields(n, nk)
    big = lambda: program(a, out, n - 1, n - 1, nk, offset_provider={})  # noqa: E731
    first = seconds(big)
    steady = statistics.median(seconds(big) for _ in range(15))
    x = a.asnumpy()
    expected = x[2:, 1:-1] + x[:-2, 1:-1] + x[1:-1, 2:] + x[1:-1, :-2] - 4.0 * x[1:-1, 1:-1]
    correct = bool(np.allclose(out.asnumpy()[1:-1, 1:-1], expected))
    small_a, small_out = fields(8, 1)
    small = lambda: program(small_a, small_out, 7, 7, 1, offset_provider={})  # noqa: E731
    small()
    tiny = statistics.median(seconds(small) for _ in range(200))
    print(
        json.dumps(
            {
                "backend": name,
                "first_call_s": round(first, 4),
                "steady_median_s": round(steady, 6),
                "small_call_median_s": round(tiny, 7),
                "correct": correct,
            }
        )
    )


if __name__ == "__main__":
    main()
