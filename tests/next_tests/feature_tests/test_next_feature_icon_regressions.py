"""Wrong results of the compiled backends on icon4py 0.4.1 programs, each reduced to a minimal
program and checked against numpy on every backend (embedded is the oracle).
"""

from __future__ import annotations

import typing

import numpy as np

import gt4py.next as gtx
from gt4py.next.experimental import concat_where


Cell = gtx.Dimension("Cell")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))
CellKField: typing.TypeAlias = gtx.Field[gtx.Dims[Cell, K], gtx.float64]

N_CELLS, N_LEVELS = 3, 5
rng = np.random.default_rng(17)


def _cell_k(backend, levels: int, values: np.ndarray | None = None):
    values = rng.random((N_CELLS, levels)) if values is None else values
    return gtx.as_field([Cell, K], values, allocator=backend)


# -- a scan read one level up under concat_where ------------------------------------------------
# icon4py's vertically_implicit_solver_at_{predictor,corrector}_step: the back substitution scan
# `concat_where(K < n, scan(...), next_w)` read at K + 1 (`w(K + 1)` for next_rho). The read
# under the branch needs the scan only where K + 1 < n; domain inference used to ignore the
# condition and sweep the backward scan from level n, where its input does not exist (next_rho
# NaN on gtfn_cpu).


@gtx.scan_operator(axis=K, forward=False, init=0.0)
def suffix_sum(carry: gtx.float64, a: gtx.float64) -> gtx.float64:
    return carry + a


@gtx.field_operator
def pair_of_levels(a: CellKField, w: CellKField, n: gtx.int32) -> CellKField:
    s = concat_where(K < n, suffix_sum(a), w)  # noqa: SIM300  (a domain condition)
    return s + s(Koff[1])


@gtx.program
def pair_of_levels_program(a: CellKField, w: CellKField, out: CellKField, n: gtx.int32):
    pair_of_levels(a, w, n, out=out, domain={Cell: (0, N_CELLS), K: (0, n)})


def test_scan_under_concat_where_read_one_level_up(backend):
    a = _cell_k(backend, N_LEVELS)  # model levels
    w = _cell_k(backend, N_LEVELS + 1)  # half levels
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS + 1}, allocator=backend)
    pair_of_levels_program.with_backend(backend)(
        a, w, out, gtx.int32(N_LEVELS), offset_provider={"Koff": K}
    )
    sums = np.cumsum(a.asnumpy()[:, ::-1], axis=1)[:, ::-1]
    s = np.concatenate([sums, w.asnumpy()[:, N_LEVELS:]], axis=1)
    expected = np.zeros((N_CELLS, N_LEVELS + 1))
    expected[:, :N_LEVELS] = s[:, :-1] + s[:, 1:]
    np.testing.assert_allclose(out.asnumpy(), expected)


# -- an input that is also an output, over per-output domains ------------------------------------
# icon4py's compute_perturbed_quantities_and_interpolation writes
# `perturbed_exner_at_cells_on_model_levels` (also an input) and, over another domain,
# `temporal_extrapolation_of_perturbed_exner`, computed from its old values by an operator
# call. The per-output statements were ordered by direct reads only; the temporaries pass then
# inlined the call after the statement overwriting the input.


@gtx.field_operator
def extrapolate(x: CellKField, old: CellKField) -> CellKField:
    return 2.0 * x - old


@gtx.field_operator
def replace_and_extrapolate(x: CellKField, old: CellKField) -> tuple[CellKField, CellKField]:
    return x, extrapolate(x, old)


@gtx.program
def replace_and_extrapolate_program(
    x: CellKField, old: CellKField, extrapolated: CellKField, n: gtx.int32
):
    replace_and_extrapolate(
        x,
        old,
        out=(old, extrapolated),
        domain=({Cell: (0, N_CELLS), K: (0, n)}, {Cell: (0, N_CELLS), K: (1, n)}),
    )


def test_output_computed_from_the_old_values_of_another_output(backend):
    x, old = _cell_k(backend, N_LEVELS), _cell_k(backend, N_LEVELS)
    extrapolated = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    xn, old_n = x.asnumpy().copy(), old.asnumpy().copy()
    replace_and_extrapolate_program.with_backend(backend)(
        x, old, extrapolated, gtx.int32(N_LEVELS), offset_provider={}
    )
    expected = np.zeros_like(xn)
    expected[:, 1:] = 2.0 * xn[:, 1:] - old_n[:, 1:]
    np.testing.assert_allclose(extrapolated.asnumpy(), expected)
    np.testing.assert_array_equal(old.asnumpy(), xn)


@gtx.field_operator
def cross_extrapolate(a: CellKField, b: CellKField) -> tuple[CellKField, CellKField]:
    return extrapolate(a, b), extrapolate(b, a)


@gtx.program
def cross_extrapolate_program(a: CellKField, b: CellKField, n: gtx.int32):
    cross_extrapolate(
        a, b, out=(a, b), domain=({Cell: (0, N_CELLS), K: (0, n)}, {Cell: (0, N_CELLS), K: (1, n)})
    )


def test_outputs_computed_from_the_old_values_of_each_other(backend):
    """No order of the two writes works when the calls are inlined: they stay temporaries."""
    a, b = _cell_k(backend, N_LEVELS), _cell_k(backend, N_LEVELS)
    an, bn = a.asnumpy().copy(), b.asnumpy().copy()
    cross_extrapolate_program.with_backend(backend)(a, b, gtx.int32(N_LEVELS), offset_provider={})
    np.testing.assert_allclose(a.asnumpy(), 2.0 * an - bn)
    expected_b = bn.copy()
    expected_b[:, 1:] = 2.0 * bn[:, 1:] - an[:, 1:]
    np.testing.assert_allclose(b.asnumpy(), expected_b)


# -- a full-level field read only in the branches of a half-level result -------------------------
# icon4py's metrics factory, compute_ddqz_z_half (`with_boundaries_on_half_levels_on_cells`):
# the top / interior / bottom values, passed as arguments to the nested operator, read the
# full-level z_mc unshifted, but each is selected only on its own levels; z_mc has no level
# nlev. The arguments were computed at every point (an unshifted read counted as safe
# anywhere) and the call was refused (z_mc "read" on K=[0, nlev + 1)).


@gtx.field_operator
def _with_boundaries(
    top: CellKField, interior: CellKField, bottom: CellKField, nlev: gtx.int32
) -> CellKField:
    result = concat_where((K > 0) & (nlev > K), interior, 0.0)
    result = concat_where(K == 0, top, result)
    return concat_where(nlev == K, bottom, result)


@gtx.field_operator
def _half_level_thickness(z_ifc: CellKField, z_mc: CellKField, nlev: gtx.int32) -> CellKField:
    return _with_boundaries(
        top=2.0 * (z_ifc - z_mc),
        interior=z_mc(Koff[-1]) - z_mc,
        bottom=2.0 * (z_mc(Koff[-1]) - z_ifc),
        nlev=nlev,
    )


@gtx.program
def half_level_thickness(z_ifc: CellKField, z_mc: CellKField, out: CellKField, nlev: gtx.int32):
    _half_level_thickness(z_ifc, z_mc, nlev, out=out, domain={Cell: (0, N_CELLS), K: (0, nlev + 1)})


def test_full_level_read_only_in_branches_of_a_half_level_result(backend):
    z_ifc = _cell_k(backend, N_LEVELS + 1)
    z_mc = _cell_k(backend, N_LEVELS)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS + 1}, allocator=backend)
    half_level_thickness.with_backend(backend)(
        z_ifc, z_mc, out, gtx.int32(N_LEVELS), offset_provider={"Koff": K}
    )
    zi, zm = z_ifc.asnumpy(), z_mc.asnumpy()
    expected = np.empty_like(zi)
    expected[:, 0] = 2.0 * (zi[:, 0] - zm[:, 0])
    expected[:, 1:N_LEVELS] = zm[:, :-1] - zm[:, 1:]
    expected[:, N_LEVELS] = 2.0 * (zm[:, -1] - zi[:, N_LEVELS])
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-14)
