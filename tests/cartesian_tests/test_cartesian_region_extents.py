"""The halo a read inside horizontal regions needs (``_analysis.read_extent`` and
``large_domain_read_extent``), checked against brute force: every point of every region
chain, for every domain size, must read inside the computed halo."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gt4py.cartesian import _ir as ir, gtscript
from gt4py.cartesian._analysis import Extent, large_domain_read_extent, read_extent
from gt4py.cartesian.gtscript import PARALLEL, computation, horizontal, interval, region
from gt4py.eve import SourceLocation


LOC = SourceLocation(filename="<test>", line=1, column=1)


def _pos(rng: random.Random) -> ir.AxisPosition | None:
    if rng.random() < 0.25:
        return None
    return ir.AxisPosition(level=rng.choice(["start", "end"]), offset=rng.randint(-4, 4))


def _region(rng: random.Random) -> ir.HorizontalRegion:
    return ir.HorizontalRegion(
        i_start=_pos(rng), i_end=_pos(rng), j_start=_pos(rng), j_end=_pos(rng), body=[], loc=LOC
    )


def _at(pos: ir.AxisPosition, n: int) -> int:
    return pos.offset if pos.level == "start" else n + pos.offset


def _points(lo_ext: int, hi_ext: int, bounds, n: int) -> range:
    lo, hi = lo_ext, n + hi_ext
    for start, end in bounds:
        if start is not None:
            lo = max(lo, _at(start, n))
        if end is not None:
            hi = min(hi, _at(end, n))
    return range(lo, hi)


def _needed(ext: Extent, regions, di: int, dj: int, n: int) -> tuple[int, int, int, int] | None:
    """(low I, high I, low J, high J) halo the reads at domain size n x n actually touch."""
    ii = _points(ext.i_lo, ext.i_hi, [(r.i_start, r.i_end) for r in regions], n)
    jj = _points(ext.j_lo, ext.j_hi, [(r.j_start, r.j_end) for r in regions], n)
    if not ii or not jj:
        return None
    return (
        max(0, -(ii[0] + di)),
        max(0, ii[-1] + 1 + di - n),
        max(0, -(jj[0] + dj)),
        max(0, jj[-1] + 1 + dj - n),
    )


def _covers(halo: Extent | None, need: tuple[int, int, int, int] | None) -> bool:
    if need is None:
        return True
    if halo is None:
        return False
    return (
        -halo.i_lo >= need[0]
        and halo.i_hi >= need[1]
        and -halo.j_lo >= need[2]
        and halo.j_hi >= need[3]
    )


@pytest.mark.parametrize("seed", range(8))
def test_region_read_halos_cover_every_point(seed):
    rng = random.Random(seed)
    for _ in range(300):
        ext = Extent(-rng.randint(0, 2), rng.randint(0, 2), -rng.randint(0, 2), rng.randint(0, 2))
        regions = tuple(_region(rng) for _ in range(rng.randint(1, 2)))
        di, dj = rng.randint(-6, 6), rng.randint(-6, 6)
        halo = read_extent(ext, regions, di, dj)
        large, (ni_min, nj_min) = large_domain_read_extent(ext, regions, di, dj)
        for n in range(1, 30):
            need = _needed(ext, regions, di, dj, n)
            assert _covers(halo, need), (ext, regions, di, dj, n, halo, need)
            if n >= max(ni_min, nj_min):
                assert _covers(large, need), (ext, regions, di, dj, n, large, need)


def test_corner_copy_outside_the_domain_reads_nothing():
    # FV3's corner copies: region[I[0] - 3, J[0] - 3] reading q[5, 0, 0] on a domain without
    # its halo computes no point, so it needs no halo at all.
    corner = ir.HorizontalRegion(
        i_start=ir.AxisPosition(level="start", offset=-3),
        i_end=ir.AxisPosition(level="start", offset=-2),
        j_start=ir.AxisPosition(level="start", offset=-3),
        j_end=ir.AxisPosition(level="start", offset=-2),
        body=[],
        loc=LOC,
    )
    assert read_extent(Extent(), (corner,), 5, 0) is None


def test_edge_region_halo_shrinks_on_a_large_domain():
    # region[I[-1], :] reading q[-5, 0, 0]: nothing before the domain once it has 5+ points.
    edge = ir.HorizontalRegion(
        i_start=ir.AxisPosition(level="end", offset=-1),
        i_end=ir.AxisPosition(level="end", offset=0),
        j_start=None,
        j_end=None,
        body=[],
        loc=LOC,
    )
    assert read_extent(Extent(), (edge,), -5, 0) == Extent(-5, 0, 0, 0)
    large, sizes = large_domain_read_extent(Extent(), (edge,), -5, 0)
    assert large == Extent(0, 0, 0, 0) and sizes == (6, 1)


def _edge_copies(q_in: gtscript.Field[np.float64], q_out: gtscript.Field[np.float64]):
    from __externals__ import i_end, i_start

    with computation(PARALLEL), interval(...):
        with horizontal(region[i_start - 3, :]):
            q_out = q_in[5, 0, 0]
        with horizontal(region[i_end + 3, :]):
            q_out = q_in[-5, 0, 0]


@pytest.mark.parametrize("backend", ["numpy", "debug"])
def test_edge_regions_on_an_extended_domain_read_inside_it(backend):
    # NDSL computes corner/edge fills on the domain extended by its halo (i_start = I[0] + 3):
    # the reads stay inside the array, so the call needs no halo beyond it (the large-domain
    # halo); on a domain too small for that, the conservative halo is checked instead.
    stencil = gtscript.stencil(
        backend=backend,
        definition=_edge_copies,
        externals={"i_start": gtscript.I[0] + 3, "i_end": gtscript.I[-1] - 3},
    )
    q_in = np.arange(18.0)[:, None, None] * np.ones((18, 4, 2))
    q_out = np.zeros_like(q_in)
    stencil(q_in, q_out, origin=(0, 0, 0), domain=(18, 4, 2))
    expected = np.zeros_like(q_in)
    expected[0] = q_in[5]
    expected[17] = q_in[12]
    np.testing.assert_array_equal(q_out, expected)
    with pytest.raises(gtscript.StencilArgumentError, match="too small"):
        stencil(q_in[:4], q_out[:4], origin=(0, 0, 0), domain=(4, 4, 2))
