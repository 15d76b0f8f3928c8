"""Idioms of ICON's Python port (icon4py) that released gt4py 1.2.x accepts (issue 12).

Each runs on every backend and is checked against numpy: same-dimension neighbour tables
(C2E2C), reads of one neighbour of a local field (``a[E2CDim(0)]``), reflected domain
conditions (``1 <= K``), enum constants, number strings in dtype constructors, NamedTuple
constructors inside operators, generic field aliases and int32 literals.
"""

# ruff: noqa: SIM108  (if/else statements on purpose: they are what the frontend lowers)
from __future__ import annotations

import enum
import typing
from typing import NamedTuple

import numpy as np

import gt4py.next as gtx
from gt4py.next import neighbor_sum, where
from gt4py.next.experimental import concat_where


Cell = gtx.Dimension("Cell")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
C2E2CDim = gtx.Dimension("C2E2C", kind=gtx.DimensionKind.LOCAL)
C2E2C = gtx.FieldOffset("C2E2C", source=Cell, target=(Cell, C2E2CDim))

T = typing.TypeVar("T", gtx.float64, gtx.float32, gtx.int32)
CellKField: typing.TypeAlias = gtx.Field[gtx.Dims[Cell, K], T]  # type: ignore[valid-type]
CellC2E2CField: typing.TypeAlias = gtx.Field[gtx.Dims[Cell, C2E2CDim], T]  # type: ignore[valid-type]

N_CELLS, N_LEVELS = 12, 5
TABLE = np.array(
    [[(c + 1) % N_CELLS, (c - 1) % N_CELLS, (c + 5) % N_CELLS] for c in range(N_CELLS)]
)
rng = np.random.default_rng(11)


class Coefficients(gtx.float64, enum.Enum):
    HALF = 0.5


class Damping(int, enum.Enum):
    CLASSIC = 1
    KLEMP = 2


class Pair(NamedTuple):
    low: gtx.float64
    high: gtx.float64


@gtx.field_operator
def smooth(a: CellKField[gtx.float64], w: CellC2E2CField[gtx.float64]) -> CellKField[gtx.float64]:
    return neighbor_sum(a(C2E2C) * w, axis=C2E2CDim) * Coefficients.HALF + a(C2E2C[2])


@gtx.field_operator
def first_weight(w: CellC2E2CField[gtx.float64], second: bool) -> gtx.Field[[Cell], gtx.float64]:
    return w[C2E2CDim(0)] if not second else w[C2E2CDim(1)]


@gtx.field_operator
def above(a: CellKField[gtx.float64], n: gtx.int32, kind: gtx.int32) -> CellKField[gtx.float64]:
    scaled = a * gtx.float64("0.1") if kind == Damping.KLEMP else a
    return concat_where((1 + n) <= K, scaled, 0.0)


@gtx.field_operator
def flags(a: CellKField[gtx.float64]) -> CellKField[gtx.int32]:
    return where(a > 0.5, 1, 0)


@gtx.field_operator
def ordered(
    a: CellKField[gtx.float64], b: CellKField[gtx.float64]
) -> tuple[CellKField[gtx.float64], CellKField[gtx.float64]]:
    pair = Pair(low=gtx.minimum(a, b), high=gtx.maximum(a, b))
    return pair.low, pair.high


@gtx.program
def smooth_program(
    a: CellKField[gtx.float64], w: CellC2E2CField[gtx.float64], out: CellKField[gtx.float64]
) -> None:
    smooth(a, w, out=out)


def _provider(backend):
    return {"C2E2C": gtx.as_connectivity([Cell, C2E2CDim], Cell, TABLE, allocator=backend)}


def _cell_k(backend, values=None):
    values = rng.random((N_CELLS, N_LEVELS)) if values is None else values
    return gtx.as_field([Cell, K], values, allocator=backend)


def test_same_dimension_neighbour_table(backend):
    a, w = (
        _cell_k(backend),
        gtx.as_field([Cell, C2E2CDim], rng.random(TABLE.shape), allocator=backend),
    )
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    smooth_program.with_backend(backend)(a, w, out, offset_provider=_provider(backend))
    an, wn = a.asnumpy(), w.asnumpy()
    expected = (an[TABLE] * wn[:, :, None]).sum(axis=1) * 0.5 + an[TABLE[:, 2]]
    np.testing.assert_allclose(out.asnumpy(), expected)


def test_one_neighbour_of_a_local_field(backend):
    w = gtx.as_field([Cell, C2E2CDim], rng.random(TABLE.shape), allocator=backend)
    out = gtx.zeros({Cell: N_CELLS}, allocator=backend)
    first_weight.with_backend(backend)(w, True, out=out, offset_provider={})
    np.testing.assert_array_equal(out.asnumpy(), w.asnumpy()[:, 1])


def test_reflected_domain_condition_enum_and_number_string(backend):
    a = _cell_k(backend)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    above.with_backend(backend)(a, gtx.int32(1), gtx.int32(2), out=out, offset_provider={})
    expected = np.where(np.arange(N_LEVELS) >= 2, a.asnumpy() * np.float64("0.1"), 0.0)
    np.testing.assert_allclose(out.asnumpy(), expected)


def test_integer_literals_are_int32(backend):
    a = _cell_k(backend)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, dtype=gtx.int32, allocator=backend)
    flags.with_backend(backend)(a, out=out, offset_provider={})
    np.testing.assert_array_equal(out.asnumpy(), (a.asnumpy() > 0.5).astype(np.int32))


def test_named_tuple_constructed_in_an_operator(backend):
    a, b = _cell_k(backend), _cell_k(backend)
    low = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    high = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    ordered.with_backend(backend)(a, b, out=(low, high), offset_provider={})
    np.testing.assert_array_equal(low.asnumpy(), np.minimum(a.asnumpy(), b.asnumpy()))
    np.testing.assert_array_equal(high.asnumpy(), np.maximum(a.asnumpy(), b.asnumpy()))


@gtx.field_operator
def limited(k4: float, substeps: float) -> gtx.Field[[K], gtx.float64]:
    return gtx.broadcast(gtx.minimum(1.0 / 128.0, k4 * substeps / 3.0), (K,))


def test_numpy_float_scalars_broadcast(backend):
    """A numpy float64 argument is a float, not a bool (released accepts it)."""
    out = gtx.zeros({K: N_LEVELS}, allocator=backend)
    limited.with_backend(backend)(np.float64(0.125), gtx.float64(2.0), out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), np.full(N_LEVELS, min(1.0 / 128.0, 0.25 / 3.0)))


@gtx.field_operator
def below_top(k: gtx.Field[[K], gtx.int32], nlev: gtx.int32) -> gtx.Field[[K], bool]:
    return k <= nlev - 1


def test_int32_scalar_arithmetic_stays_int32(backend):
    """`nlev - 1` is int32 in the DSL (numpy 2's rule) also where numpy 1.x would widen it."""
    k = gtx.as_field([K], np.arange(N_LEVELS, dtype=np.int32), allocator=backend)
    out = gtx.zeros({K: N_LEVELS}, dtype=bool, allocator=backend)
    below_top.with_backend(backend)(k, np.int32(3), out=out, offset_provider={})
    np.testing.assert_array_equal(out.asnumpy(), np.arange(N_LEVELS) <= 2)


@gtx.field_operator
def growth(present: bool, amount: gtx.float64) -> gtx.float64:
    if present:
        return amount * 2.0
    return amount


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def accumulate(carry: gtx.float64, amount: gtx.float64, present: bool) -> gtx.float64:
    return carry + growth(present, amount)


def test_scan_calling_an_operator_that_branches_in_python(backend):
    amount = _cell_k(backend)
    present = gtx.as_field([Cell, K], rng.random((N_CELLS, N_LEVELS)) > 0.5, allocator=backend)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    accumulate.with_backend(backend)(amount, present, out=out, offset_provider={})
    step = np.where(present.asnumpy(), amount.asnumpy() * 2.0, amount.asnumpy())
    np.testing.assert_allclose(out.asnumpy(), np.cumsum(step, axis=1))


Koff = gtx.FieldOffset("Koff", source=K, target=(K,))


@gtx.field_operator
def from_below(
    a: CellKField[gtx.float64],
) -> tuple[CellKField[gtx.float64], CellKField[gtx.float64]]:
    return a(Koff[-1]) * 2.0, a + 1.0


@gtx.program
def into_upper_levels(
    a: CellKField[gtx.float64], lower: CellKField[gtx.float64], upper: CellKField[gtx.float64]
):
    from_below(a, out=(lower[:, 1:], upper[:, 1:]))


def test_sliced_outputs_in_a_program(backend):
    """`out=(f[:, 1:], ...)` writes the part of f the slices select (icon4py's turbulence)."""
    a = _cell_k(backend)
    lower = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    upper = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    into_upper_levels.with_backend(backend)(a, lower, upper, offset_provider={})
    an = a.asnumpy()
    expected_lower = np.zeros_like(an)
    expected_lower[:, 1:] = an[:, :-1] * 2.0
    np.testing.assert_allclose(lower.asnumpy(), expected_lower)
    assert not upper.asnumpy()[:, 0].any()
    np.testing.assert_allclose(upper.asnumpy()[:, 1:], an[:, 1:] + 1.0)


@gtx.program
def differently_sliced(
    a: CellKField[gtx.float64], lower: CellKField[gtx.float64], upper: CellKField[gtx.float64]
):
    from_below(a, out=(lower[:, 1:], upper[:, 1:-1]))


def test_outputs_sliced_differently_are_an_error():
    import pytest

    with pytest.raises(gtx.errors.DSLError, match="sliced alike"):
        _ = differently_sliced.definition_stage


Edge = gtx.Dimension("Edge")
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)
E2C = gtx.FieldOffset("E2C", source=Cell, target=(Edge, E2CDim))
E2C_TABLE = np.array([[e % N_CELLS, (e * 5 + 1) % N_CELLS] for e in range(18)])


@gtx.field_operator
def cell_anomaly(a: CellKField[gtx.float64]) -> CellKField[gtx.float64]:
    return a - neighbor_sum(a(C2E2C), axis=C2E2CDim) / 3.0


@gtx.field_operator
def edge_max_anomaly(
    a: CellKField[gtx.float64], floor: gtx.Field[[Edge, K], gtx.float64]
) -> gtx.Field[[Edge, K], gtx.float64]:
    return gtx.maximum(floor, gtx.max_over(cell_anomaly(a)(E2C), axis=E2CDim))


def test_reduction_over_an_operator_that_reduces(backend):
    """max_over(E2C) of a neighbor_sum(C2E2C) (icon4py's cold-pool diffusion enhancement)."""
    a = _cell_k(backend)
    floor = gtx.as_field([Edge, K], rng.random((18, N_LEVELS)) - 0.5, allocator=backend)
    out = gtx.zeros({Edge: 18, K: N_LEVELS}, allocator=backend)
    provider = {
        **_provider(backend),
        "E2C": gtx.as_connectivity([Edge, E2CDim], Cell, E2C_TABLE, allocator=backend),
    }
    edge_max_anomaly.with_backend(backend)(a, floor, out=out, offset_provider=provider)
    an = a.asnumpy()
    anomaly = an - an[TABLE].sum(axis=1) / 3.0
    expected = np.maximum(floor.asnumpy(), anomaly[E2C_TABLE].max(axis=1))
    np.testing.assert_allclose(out.asnumpy(), expected)


@gtx.field_operator
def accumulate_neighbour_sums(a: CellKField[gtx.float64]) -> CellKField[gtx.float64]:
    return accumulate(neighbor_sum(a(C2E2C), axis=C2E2CDim), a > 0.5)


def test_scan_over_a_neighbour_reduction(backend):
    """A reduction feeding a scan (icon4py's vertically implicit solver)."""
    a = _cell_k(backend)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    accumulate_neighbour_sums.with_backend(backend)(a, out=out, offset_provider=_provider(backend))
    an = a.asnumpy()
    sums = an[TABLE].sum(axis=1)
    np.testing.assert_allclose(
        out.asnumpy(), np.cumsum(np.where(an > 0.5, sums * 2.0, sums), axis=1)
    )


@gtx.field_operator
def many_branches(a: CellKField[gtx.float64], flag: bool) -> CellKField[gtx.float64]:
    x = a
    if flag:
        x = x + 1.0
    else:
        x = x * 1.0
    if flag:
        x = x + 2.0
    else:
        x = x * 1.0
    if flag:
        x = x + 3.0
    else:
        x = x * 1.0
    if flag:
        x = x + 4.0
    else:
        x = x * 1.0
    if flag:
        x = x + 5.0
    else:
        x = x * 1.0
    if flag:
        x = x + 6.0
    else:
        x = x * 1.0
    if flag:
        x = x + 7.0
    else:
        x = x * 1.0
    if flag:
        x = x + 8.0
    else:
        x = x * 1.0
    if flag:
        x = x + 9.0
    else:
        x = x * 1.0
    if flag:
        x = x + 10.0
    else:
        x = x * 1.0
    if flag:
        x = x + 11.0
    else:
        x = x * 1.0
    if flag:
        x = x + 12.0
    else:
        x = x * 1.0
    if flag:
        x = x + 13.0
    else:
        x = x * 1.0
    if flag:
        x = x + 14.0
    else:
        x = x * 1.0
    if flag:
        x = x + 15.0
    else:
        x = x * 1.0
    if flag:
        x = x + 16.0
    else:
        x = x * 1.0
    if flag:
        x = x + 17.0
    else:
        x = x * 1.0
    if flag:
        x = x + 18.0
    else:
        x = x * 1.0
    if flag:
        x = x + 19.0
    else:
        x = x * 1.0
    if flag:
        x = x + 20.0
    else:
        x = x * 1.0
    if flag:
        x = x + 21.0
    else:
        x = x * 1.0
    if flag:
        x = x + 22.0
    else:
        x = x * 1.0
    if flag:
        x = x + 23.0
    else:
        x = x * 1.0
    if flag:
        x = x + 24.0
    else:
        x = x * 1.0
    return x


def test_branches_in_a_row_lower_once_each(backend):
    """24 `if`s in a row (icon4py's graupel has dozens): lowered once each, not 2**24 paths."""
    a = _cell_k(backend)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    many_branches.with_backend(backend)(a, True, out=out, offset_provider={})
    np.testing.assert_allclose(out.asnumpy(), a.asnumpy() + sum(range(1, 25)))


@gtx.field_operator
def doubled_and_sum(
    a: CellKField[gtx.float64], b: CellKField[gtx.float64]
) -> tuple[CellKField[gtx.float64], CellKField[gtx.float64]]:
    return a * 2.0, a + b


@gtx.program
def in_place_per_output_domains(
    a: CellKField[gtx.float64], b: CellKField[gtx.float64], total: CellKField[gtx.float64]
):
    doubled_and_sum(
        a, b, out=(a, total), domain=({Cell: (0, 6), K: (1, 4)}, {Cell: (2, 8), K: (0, 3)})
    )


@gtx.program
def in_place_update(
    a: CellKField[gtx.float64], b: CellKField[gtx.float64], total: CellKField[gtx.float64]
):
    doubled_and_sum(a, b, out=(a, total))


def test_each_output_over_its_own_domain_in_place(backend):
    """domain=({...}, {...}) per output, one output also an input (icon4py's diagnostics):
    every value is computed from the inputs before any output is written."""
    an, bn = rng.random((N_CELLS, N_LEVELS)), rng.random((N_CELLS, N_LEVELS))
    a, b = _cell_k(backend, an.copy()), _cell_k(backend, bn)
    total = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    in_place_per_output_domains.with_backend(backend)(a, b, total, offset_provider={})
    expected_a, expected_total = an.copy(), np.zeros_like(an)
    expected_a[0:6, 1:4] = an[0:6, 1:4] * 2.0
    expected_total[2:8, 0:3] = an[2:8, 0:3] + bn[2:8, 0:3]
    np.testing.assert_allclose(a.asnumpy(), expected_a)
    np.testing.assert_allclose(total.asnumpy(), expected_total)

    a = _cell_k(backend, an.copy())
    in_place_update.with_backend(backend)(a, b, total, offset_provider={})
    np.testing.assert_allclose(a.asnumpy(), an * 2.0)
    np.testing.assert_allclose(total.asnumpy(), an + bn)


@gtx.field_operator
def smoothed_twice(
    w: CellKField[gtx.float64], weights: CellC2E2CField[gtx.float64]
) -> CellKField[gtx.float64]:
    z = neighbor_sum(w(C2E2C) * weights, axis=C2E2CDim)
    return neighbor_sum(z(C2E2C) * weights, axis=C2E2CDim)


def test_reduction_of_a_reduction_over_the_same_neighbours(backend):
    """The outer C2E2C neighbour is not the inner one (icon4py's diffusion of w)."""
    a = _cell_k(backend)
    weights = gtx.as_field([Cell, C2E2CDim], rng.random(TABLE.shape), allocator=backend)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    smoothed_twice.with_backend(backend)(a, weights, out=out, offset_provider=_provider(backend))
    an, wn = a.asnumpy(), weights.asnumpy()[:, :, None]
    z = (an[TABLE] * wn).sum(axis=1)
    np.testing.assert_allclose(out.asnumpy(), (z[TABLE] * wn).sum(axis=1))


@gtx.program
def from_level_at_least_one(a: CellKField[gtx.float64], out: CellKField[gtx.float64], n: gtx.int32):
    doubled_and_sum(
        a, a, out=(out, out), domain={Cell: (0, N_CELLS), K: (gtx.maximum(1, n), N_LEVELS)}
    )


def test_builtin_in_a_domain_bound(backend):
    """domain={K: (maximum(1, nflatlev), ...)} (icon4py's dycore diagnostics)."""
    a = _cell_k(backend)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    from_level_at_least_one.with_backend(backend)(a, out, gtx.int32(0), offset_provider={})
    expected = np.zeros((N_CELLS, N_LEVELS))
    expected[:, 1:] = a.asnumpy()[:, 1:] * 2.0
    np.testing.assert_allclose(out.asnumpy(), expected)


@gtx.field_operator
def interpolated_squared(
    w: CellKField[gtx.float64], c: CellKField[gtx.float64]
) -> CellKField[gtx.float64]:
    c_wp = c * 1.0
    x = c * w + (1.0 - c_wp) * w(Koff[-1])
    x = x * x
    return x


@gtx.program
def interpolate_to_half_levels(
    w: CellKField[gtx.float64], c: CellKField[gtx.float64], out: CellKField[gtx.float64]
):
    interpolated_squared(w, c, out=out[:, 1:])


def test_locals_used_twice_and_shifted(backend):
    """A bound local next to a shifted read, squared (icon4py's turbulence diagnostics)."""
    w, c = _cell_k(backend), _cell_k(backend)
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    interpolate_to_half_levels.with_backend(backend)(w, c, out, offset_provider={})
    wn, cn = w.asnumpy(), c.asnumpy()
    x = cn[:, 1:] * wn[:, 1:] + (1.0 - cn[:, 1:]) * wn[:, :-1]
    np.testing.assert_allclose(out.asnumpy()[:, 1:], x * x)


def test_released_helper_names():
    """Names icon4py's grid and state modules use (released gt4py 1.2.x)."""
    from gt4py import eve
    from gt4py.next import common

    table = gtx.as_connectivity([Cell, C2E2CDim], Cell, TABLE)
    assert common.is_neighbor_table(table) and not common.is_neighbor_table(3)
    assert common.DimsT.__bound__ is gtx.Dims
    assert issubclass(eve.StrEnum, str)


# -- muphys' graupel: NamedTuple scan carries, NamedTuple outputs, `~flag` on bool parameters --


class Precip(NamedTuple):
    x: gtx.float64
    on: bool


class Column(NamedTuple):
    r: Precip
    total: gtx.float64


class Moisture(NamedTuple):
    v: CellKField[gtx.float64]
    c: CellKField[gtx.float64]


@gtx.field_operator
def precip_update(previous: Precip, q: gtx.float64, mask: bool) -> Precip:
    active = previous.on | mask
    if active:
        x = previous.x + q
    else:
        x = q
    return Precip(x=x, on=active)


@gtx.scan_operator(axis=K, forward=True, init=Column(r=Precip(x=0.0, on=False), total=0.0))
def column_sweep(previous: Column, q: gtx.float64, mask: bool, doubled: bool) -> Column:
    if doubled:
        r = precip_update(previous.r, 2.0 * q, mask)
    else:
        r = precip_update(previous.r, q, mask)
    return Column(r=r, total=previous.total + r.x)


@gtx.field_operator
def moisture_sweep(
    q: Moisture, mask: gtx.Field[gtx.Dims[Cell, K], bool], masking: bool
) -> tuple[CellKField[gtx.float64], Moisture]:
    column = column_sweep(q.v, mask | ~masking, False)
    return column.total, Moisture(v=column.r.x, c=q.c + column.total)


@gtx.program
def moisture_program(
    q: Moisture,
    mask: gtx.Field[gtx.Dims[Cell, K], bool],
    masking: bool,
    total: CellKField[gtx.float64],
    q_out: Moisture,
    n: gtx.int32,
):
    moisture_sweep(
        q,
        mask,
        masking,
        out=(total, q_out),
        domain=(
            {Cell: (0, n), K: (0, N_LEVELS)},
            ({Cell: (0, n), K: (0, N_LEVELS)}, {Cell: (0, n), K: (0, N_LEVELS)}),
        ),
    )


def _moisture_reference(v, c, mask):
    x = np.zeros_like(v)
    total = np.zeros_like(v)
    for cell in range(v.shape[0]):
        previous_x, on, running = 0.0, False, 0.0
        for k in range(v.shape[1]):
            on = on or bool(mask[cell, k])
            previous_x = previous_x + v[cell, k] if on else v[cell, k]
            running += previous_x
            x[cell, k], total[cell, k] = previous_x, running
    return total, x, c + total


def test_namedtuple_scan_carry_and_namedtuple_out(backend):
    v, c = rng.random((N_CELLS, N_LEVELS)), rng.random((N_CELLS, N_LEVELS))
    mask = rng.random((N_CELLS, N_LEVELS)) > 0.6
    q = Moisture(v=_cell_k(backend, v), c=_cell_k(backend, c))
    for masking in (True, False):
        total = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
        q_out = Moisture(
            v=gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend),
            c=gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend),
        )
        moisture_program.with_backend(backend)(
            q, gtx.as_field([Cell, K], mask, allocator=backend), masking, total, q_out, N_CELLS
        )
        # `~masking` is logical on a Python bool too: without masking every level is active
        expected = _moisture_reference(v, c, mask | (not masking))
        np.testing.assert_allclose(total.asnumpy(), expected[0])
        np.testing.assert_allclose(q_out.v.asnumpy(), expected[1])
        np.testing.assert_allclose(q_out.c.asnumpy(), expected[2])


# -- muphys' graupel: a costly update read by a scan at K and, under concat_where, at K + 1 --
# `t_kp1 = concat_where(K < last_level, t(K + 1), t)` on the result of `_q_t_update`: the
# compiled backends materialize the update once (the read under the index condition needs it
# on the levels the condition selects only) instead of inlining it twice into the scan body.


@gtx.field_operator
def _relax(t: CellKField[gtx.float64], q: CellKField[gtx.float64]) -> CellKField[gtx.float64]:
    warm = t > 0.5
    return where(warm, 0.9 * t + 0.1 * q * q, 0.8 * t + 0.2 * (q + 1.0) / (q + 2.0))


@gtx.field_operator
def _update(t: CellKField[gtx.float64], q: CellKField[gtx.float64]) -> CellKField[gtx.float64]:
    return _relax(_relax(_relax(_relax(t, q), q), q), q)


@gtx.scan_operator(axis=K, forward=True, init=0.0)
def _flux(previous: gtx.float64, t: gtx.float64, t_kp1: gtx.float64) -> gtx.float64:
    return 0.5 * previous + t * t_kp1


@gtx.field_operator
def _update_then_flux(
    t: CellKField[gtx.float64], q: CellKField[gtx.float64], last_level: gtx.int32
) -> CellKField[gtx.float64]:
    updated = _update(t, q)
    t_kp1 = concat_where(K < last_level, updated(K + 1), updated)  # noqa: SIM300
    return _flux(updated, t_kp1)


@gtx.program
def update_then_flux(
    t: CellKField[gtx.float64],
    q: CellKField[gtx.float64],
    out: CellKField[gtx.float64],
    k_end: gtx.int32,
):
    _update_then_flux(t, q, k_end - 1, out=out, domain={Cell: (0, N_CELLS), K: (0, k_end)})


def _update_reference(t, q):
    for _ in range(4):
        t = np.where(t > 0.5, 0.9 * t + 0.1 * q * q, 0.8 * t + 0.2 * (q + 1.0) / (q + 2.0))
    return t


def test_scan_reading_an_update_one_level_up_under_concat_where(backend):
    t, q = rng.random((N_CELLS, N_LEVELS)), rng.random((N_CELLS, N_LEVELS))
    out = gtx.zeros({Cell: N_CELLS, K: N_LEVELS}, allocator=backend)
    update_then_flux.with_backend(backend)(
        _cell_k(backend, t), _cell_k(backend, q), out, gtx.int32(N_LEVELS)
    )
    updated = _update_reference(t, q)
    above = np.concatenate([updated[:, 1:], updated[:, -1:]], axis=1)
    expected = np.zeros_like(t)
    previous = np.zeros(N_CELLS)
    for k in range(N_LEVELS):
        previous = 0.5 * previous + updated[:, k] * above[:, k]
        expected[:, k] = previous
    np.testing.assert_allclose(out.asnumpy(), expected)
