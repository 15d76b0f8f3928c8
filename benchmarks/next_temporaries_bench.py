"""lap(lap(a)) on gtfn_cpu: the inner Laplacian recomputed inline vs materialized in a temporary.

Two backends differ only in the ``temporaries`` setting of their passes step
(``functools.partial(make_gtfn_passes, temporaries=...)``); each runs the same program on the
same fields, the results are compared, and the median of the steady-state calls is printed.
ADR 0013 records the figures and the default this chose.

Usage: uv run python benchmarks/next_temporaries_bench.py [N] [K] [REPEATS]
"""

from __future__ import annotations

import functools
import statistics
import sys
import time

import numpy as np

import gt4py.next as gtx
from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend, make_gtfn_passes


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
IJKField = gtx.Field[gtx.Dims[I, J, K], gtx.float64]


@gtx.field_operator
def lap(a: IJKField) -> IJKField:
    return -4.0 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)


@gtx.field_operator
def lap_lap(a: IJKField) -> IJKField:
    return lap(lap(a))


@gtx.program
def lap_lap_program(a: IJKField, out: IJKField, n: gtx.int32, m: gtx.int32):
    lap_lap(a, out=out, domain={I: (2, n - 2), J: (2, m - 2)})


def measure(policy: str, a: gtx.Field, out: gtx.Field, repeats: int) -> tuple[float, np.ndarray]:
    backend = make_gtfn_backend(
        GTFNConfig(),
        name=f"gtfn_cpu[{policy}]",
        passes=functools.partial(make_gtfn_passes, temporaries=policy),
    )
    run = lap_lap_program.with_backend(backend)
    n, m = a.domain.shape[0], a.domain.shape[1]
    run(a, out, n, m, offset_provider={})  # compile
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run(a, out, n, m, offset_provider={})
        times.append(time.perf_counter() - start)
    return statistics.median(times), out.asnumpy().copy()


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 80
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    rng = np.random.default_rng(0)
    a = gtx.as_field([I, J, K], rng.random((n, n, k)))
    results = {}
    for policy in ("recompute", "materialize", "auto"):
        out = gtx.zeros(a.domain)
        results[policy] = measure(policy, a, out, repeats)
    reference = results["recompute"][1]
    for policy, (median, values) in results.items():
        np.testing.assert_allclose(values, reference, rtol=1e-12, atol=1e-12)
        print(f"lap(lap(a)) {n}x{n}x{k} {policy:12s} median {median * 1e3:8.3f} ms")


if __name__ == "__main__":
    main()
