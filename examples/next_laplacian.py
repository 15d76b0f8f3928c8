"""Diffusion on a Cartesian grid with gt4py.next, checked against numpy.

    uv run python examples/next_laplacian.py

A field operator computes the 5-point Laplacian with Cartesian shifts (``a(I + 1)``); a second
one takes an explicit diffusion step from it; a program applies the step to the interior of a
64 x 64 x 10 box (the domain comes from scalar arguments) for a few steps. The
result is compared with the same computation written in numpy; the script exits non-zero on a
mismatch. Runs on the default backend (embedded execution on numpy arrays).
"""

from __future__ import annotations

import sys

import numpy as np

import gt4py.next as gtx


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Field3D = gtx.Field[gtx.Dims[I, J, K], gtx.float64]


@gtx.field_operator
def laplacian(a: Field3D) -> Field3D:
    return -4.0 * a + a(I + 1) + a(I - 1) + a(J + 1) + a(J - 1)


@gtx.field_operator
def diffusion_step(a: Field3D, alpha: float) -> Field3D:
    return a + alpha * laplacian(a)


@gtx.program
def diffuse(a: Field3D, out: Field3D, alpha: float, i_end: gtx.int32, j_end: gtx.int32):
    diffusion_step(a, alpha, out=out, domain={I: (1, i_end), J: (1, j_end), K: (0, 10)})


def numpy_diffusion_step(a: np.ndarray, alpha: float) -> np.ndarray:
    result = a.copy()
    lap = -4.0 * a[1:-1, 1:-1] + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2]
    result[1:-1, 1:-1] = a[1:-1, 1:-1] + alpha * lap
    return result


def main() -> int:
    n, n_levels, steps, alpha = 64, 10, 20, 0.1
    rng = np.random.default_rng(0)
    initial = rng.random((n, n, n_levels))

    domain = gtx.domain({I: n, J: n, K: n_levels})
    a = gtx.as_field(domain, initial)
    b = gtx.as_field(domain, initial)  # boundary values stay as they are in both buffers
    for _ in range(steps):
        diffuse(a, b, alpha, n - 1, n - 1, offset_provider={})
        a, b = b, a

    expected = initial
    for _ in range(steps):
        expected = numpy_diffusion_step(expected, alpha)

    result = a.asnumpy()
    error = float(np.max(np.abs(result - expected)))
    print(f"diffusion, {steps} steps on {n}x{n}x{n_levels}: max |gt4py - numpy| = {error:.2e}")
    print(f"variance before {initial.var():.5f}, after {result.var():.5f}")
    if not np.allclose(result, expected, rtol=1e-12, atol=1e-12):
        print("MISMATCH against numpy", file=sys.stderr)
        return 1
    print("OK: matches numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
