"""gamma/erf/erfc on the numpy paths of both stacks: speed and accuracy against ``math``.

Usage: special_functions.py STACK FUNCTION N  (STACK: cartesian (the numpy backend) or next
(embedded); FUNCTION: gamma, erf or erfc; next has gamma only). Prints one JSON line: call_s
(median of 7 calls over N points), max_rel_error against ``math.<FUNCTION>`` on those points.
Public API only (runs on released gt4py too).
"""

from __future__ import annotations

import json
import math
import statistics
import sys
import time

import numpy as np


STACK, FUNCTION, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
DOMAIN = {"gamma": (-170.0, 170.0), "erf": (-6.0, 6.0), "erfc": (-6.0, 26.0)}[FUNCTION]


def points() -> np.ndarray:
    values = np.random.default_rng(0).uniform(*DOMAIN, N)
    return values[values != np.round(values)]  # no poles


def cartesian_call(values: np.ndarray):
    from gt4py.cartesian import gtscript

    stencil = gtscript.stencil(backend="numpy", definition=_CARTESIAN[FUNCTION])
    a = values.reshape(1, 1, -1).copy()
    out = np.zeros_like(a)
    return lambda: stencil(a, out) or out.ravel()


if STACK == "cartesian":
    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, computation, erf, erfc, gamma, interval

    F = gtscript.Field[np.float64]

    def apply_gamma(a: F, out: F):  # type: ignore[valid-type]
        with computation(PARALLEL), interval(...):
            out = gamma(a)  # noqa: F841

    def apply_erf(a: F, out: F):  # type: ignore[valid-type]
        with computation(PARALLEL), interval(...):
            out = erf(a)  # noqa: F841

    def apply_erfc(a: F, out: F):  # type: ignore[valid-type]
        with computation(PARALLEL), interval(...):
            out = erfc(a)  # noqa: F841

    _CARTESIAN = {"gamma": apply_gamma, "erf": apply_erf, "erfc": apply_erfc}


def next_call(values: np.ndarray):
    import gt4py.next as gtx

    K = gtx.Dimension("K")
    a = gtx.as_field([K], values)
    return lambda: gtx.gamma(a).asnumpy()


values = points()
call = {"cartesian": cartesian_call, "next": next_call}[STACK](values)
result = call()
times = []
for _ in range(7):
    start = time.perf_counter()
    call()
    times.append(time.perf_counter() - start)
reference = np.array([getattr(math, FUNCTION)(v) for v in values.tolist()])
usable = np.isfinite(reference) & (np.abs(reference) > 1e-300)
error = np.abs(result[usable] - reference[usable]) / np.abs(reference[usable])
print(json.dumps({"call_s": statistics.median(times), "max_rel_error": float(error.max())}))
