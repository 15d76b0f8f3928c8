"""Embedded gt4py.next fields against hand-written numpy: a 5-point Laplacian.

    uv run python benchmarks/next_embedded_lap.py [--n 256] [--nk 80] [--runs 15] [--xp cupy]

Both sides compute ``-4 a + a(I+1) + a(I-1) + a(J+1) + a(J-1)`` on the interior of an
n x n x nk float64 field and write it into an output, as a program would; the embedded side
uses fields and shifts inside ``embedded_context(lazy=True)`` (how embedded execution runs an
operator body: dead temporaries are reused in place), and also eagerly; the numpy side slices. Reported: median seconds of each, their ratio,
and the median time of the same call on a tiny 8 x 8 x 1 field (where the per-operation
overhead of embedded fields dominates). ``--xp cupy`` runs both sides on the GPU.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import gt4py.next as gtx
from gt4py.next.embedded import embedded_context


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)


def laplacian(a: gtx.Field) -> gtx.Field:
    """The operator body, as embedded execution runs it."""
    return -4.0 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)


def embedded_call(a: gtx.Field, out: gtx.Field, interior: gtx.Domain) -> None:
    with embedded_context(lazy=True):
        out[interior] = laplacian(a)


def eager_embedded_call(a: gtx.Field, out: gtx.Field, interior: gtx.Domain) -> None:
    out[interior] = laplacian(a)


def numpy_call(a: Any, out: Any) -> None:
    out[1:-1, 1:-1] = -4.0 * a[1:-1, 1:-1] + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2]


def median_seconds(call: Callable[[], None], runs: int, synchronize: Callable[[], None]) -> float:
    call()  # warm-up
    synchronize()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        synchronize()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def case(n: int, nk: int, runs: int, xp: Any) -> tuple[float, float, float]:
    data = np.random.default_rng(0).random((n, n, nk))
    a = gtx.as_field([I, J, K], data, allocator=xp)
    out = gtx.zeros({I: n, J: n, K: nk}, allocator=xp)
    interior = gtx.domain({I: (1, n - 1), J: (1, n - 1), K: nk})
    a_np = xp.asarray(data.copy())
    out_np = xp.zeros_like(a_np)
    cuda = getattr(xp, "cuda", None)
    synchronize = cuda.Device().synchronize if cuda is not None else lambda: None
    embedded = median_seconds(lambda: embedded_call(a, out, interior), runs, synchronize)
    hand_written = median_seconds(lambda: numpy_call(a_np, out_np), runs, synchronize)
    if not np.allclose(out.asnumpy(), gtx.as_field([I, J, K], out_np).asnumpy()):
        raise AssertionError("embedded and hand-written results differ")
    eager = median_seconds(lambda: eager_embedded_call(a, out, interior), runs, synchronize)
    return embedded, eager, hand_written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=256)
    parser.add_argument("--nk", type=int, default=80)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--xp", default="numpy", help="array namespace: numpy, cupy, ...")
    args = parser.parse_args()
    xp = importlib.import_module(args.xp)
    embedded, eager, hand_written = case(args.n, args.nk, args.runs, xp)
    print(
        f"[{args.xp}] {args.n}x{args.n}x{args.nk} float64: embedded {embedded * 1e3:.2f} ms "
        f"(eager {eager * 1e3:.2f} ms), hand-written {hand_written * 1e3:.2f} ms, "
        f"ratio {embedded / hand_written:.2f} (eager {eager / hand_written:.2f})"
    )
    small, small_eager, small_hand_written = case(8, 1, max(args.runs, 2000), xp)
    print(
        f"[{args.xp}] 8x8x1 call: embedded {small * 1e6:.1f} us (eager {small_eager * 1e6:.1f} "
        f"us), hand-written {small_hand_written * 1e6:.1f} us"
    )


if __name__ == "__main__":
    main()
