"""Calls alternating between gtfn variants of one program vs repeated calls of one (issue 28).

Two variants of one program (static scalar ``s`` = 1.0 or 2.0, ``static_params``), each
compiled once; then, in one process, the median time per call of: repeated calls of one
variant, calls alternating between two, and cycling through four. Target: alternating within
1.5x of repeated. Run: ``uv run python benchmarks/next_variant_dispatch.py``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import gt4py.next as gtx


I = gtx.Dimension("I")
F = gtx.Field[gtx.Dims[I], gtx.float64]


@gtx.field_operator
def scaled(a: F, s: gtx.float64) -> F:
    return a * s


@gtx.program(backend=gtx.gtfn_cpu, static_params=("s",))
def scale(a: F, s: gtx.float64, out: F):
    scaled(a, s, out=out)


def per_call_us(values: list[float], calls: int = 20000, repeats: int = 7) -> float:
    a, out = gtx.as_field([I], np.ones(8)), gtx.as_field([I], np.zeros(8))
    cycle = [values[n % len(values)] for n in range(calls)]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for s in cycle:
            scale(a, s, out, offset_provider={})
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main() -> None:
    for s in (1.0, 2.0, 3.0, 4.0):  # compile the four variants first
        per_call_us([s], calls=3, repeats=1)
    one = per_call_us([1.0])
    two = per_call_us([1.0, 2.0])
    four = per_call_us([1.0, 2.0, 3.0, 4.0])
    print(f"repeated calls of one variant : {one:6.2f} us/call")
    print(f"alternating between two       : {two:6.2f} us/call ({two / one:.2f}x)")
    print(f"cycling through four          : {four:6.2f} us/call ({four / one:.2f}x)")


if __name__ == "__main__":
    main()
