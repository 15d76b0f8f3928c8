"""Implicit vertical diffusion: a tridiagonal solve per column with two gt4py.next scans.

    uv run python examples/next_vertical_solve.py

Each column of a 16 x 16 x 40 field is diffused implicitly in the vertical,
(1 + 2r) x_k - r x_(k-1) - r x_(k+1) = d_k, with the top and bottom rows cut off. The
tridiagonal systems are solved by the Thomas algorithm written as two scan operators: a
forward sweep carrying the tuple (c*, d*) and a backward substitution. The result is checked
against numpy's dense solver column by column; the script exits non-zero on a mismatch.
"""

from __future__ import annotations

import sys

import numpy as np

import gt4py.next as gtx


I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Field3D = gtx.Field[gtx.Dims[I, J, K], gtx.float64]


@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0.0))
def eliminate(
    carry: tuple[float, float], lower: float, diagonal: float, upper: float, rhs: float
) -> tuple[float, float]:
    c_above, d_above = carry
    pivot = diagonal - lower * c_above
    return upper / pivot, (rhs - lower * d_above) / pivot


@gtx.scan_operator(axis=K, forward=False, init=0.0)
def substitute(x_below: float, c_star: float, d_star: float) -> float:
    return d_star - c_star * x_below


@gtx.field_operator
def solve_tridiagonal(lower: Field3D, diagonal: Field3D, upper: Field3D, rhs: Field3D) -> Field3D:
    c_star, d_star = eliminate(lower, diagonal, upper, rhs)
    return substitute(c_star, d_star)


@gtx.program
def implicit_diffusion(
    lower: Field3D, diagonal: Field3D, upper: Field3D, rhs: Field3D, out: Field3D
):
    solve_tridiagonal(lower, diagonal, upper, rhs, out=out)


def main() -> int:
    ni, nj, nk, r = 16, 16, 40, 0.8
    rng = np.random.default_rng(1)
    rhs = rng.random((ni, nj, nk))
    lower = np.full((ni, nj, nk), -r)
    upper = np.full((ni, nj, nk), -r)
    lower[:, :, 0] = 0.0
    upper[:, :, -1] = 0.0
    diagonal = np.full((ni, nj, nk), 1.0 + 2.0 * r)

    domain = gtx.domain({I: ni, J: nj, K: nk})
    out = gtx.zeros(domain)
    lower_f, diagonal_f, upper_f, rhs_f = (
        gtx.as_field(domain, x) for x in (lower, diagonal, upper, rhs)
    )
    implicit_diffusion(lower_f, diagonal_f, upper_f, rhs_f, out, offset_provider={})
    result = out.asnumpy()

    matrix = np.diag(diagonal[0, 0]) + np.diag(lower[0, 0, 1:], -1) + np.diag(upper[0, 0, :-1], 1)
    expected = np.linalg.solve(matrix, rhs.reshape(-1, nk).T).T.reshape(ni, nj, nk)
    error = float(np.max(np.abs(result - expected)))
    print(f"{ni * nj} tridiagonal systems of size {nk}: max |gt4py - numpy| = {error:.2e}")
    if not np.allclose(result, expected, rtol=1e-10, atol=1e-12):
        print("MISMATCH against numpy", file=sys.stderr)
        return 1
    print("OK: matches numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
