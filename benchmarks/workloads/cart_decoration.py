"""Warm GTScript decoration in a new process: import, then three stencils decorated in turn.

Prints one JSON line: import_s (``gt4py.cartesian.gtscript``), first_s (the first decoration,
which pays what the package imports on first use), next_s (the median of the two after it).
Public API only (runs on released gt4py too). Usage: cart_decoration.py BACKEND
"""

from __future__ import annotations

import json
import statistics
import sys
import time


started = time.perf_counter()
import numpy as np  # noqa: E402

from gt4py.cartesian import gtscript  # noqa: E402
from gt4py.cartesian.gtscript import PARALLEL, computation, interval  # noqa: E402


imported = time.perf_counter()
F = gtscript.Field[np.float64]


def lap(a: F, out: F):  # type: ignore[valid-type]
    with computation(PARALLEL), interval(...):
        out = a[-1, 0, 0] + a[1, 0, 0] + a[0, -1, 0] + a[0, 1, 0] - 4.0 * a  # noqa: F841


def laplace_i(a: F, out: F):  # type: ignore[valid-type]
    with computation(PARALLEL), interval(...):
        out = a[-1, 0, 0] + a[1, 0, 0] - 2.0 * a  # noqa: F841


def laplace_j(a: F, out: F):  # type: ignore[valid-type]
    with computation(PARALLEL), interval(...):
        out = a[0, -1, 0] + a[0, 1, 0] - 2.0 * a  # noqa: F841


times = []
for definition in (lap, laplace_i, laplace_j):
    start = time.perf_counter()
    gtscript.stencil(backend=sys.argv[1], definition=definition)
    times.append(time.perf_counter() - start)
print(
    json.dumps(
        {
            "import_s": imported - started,
            "first_s": times[0],
            "next_s": statistics.median(times[1:]),
        }
    )
)
