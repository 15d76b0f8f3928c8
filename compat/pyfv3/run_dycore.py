"""Run pyFV3's dynamical core through NDSL's StencilFactory on 6 MPI ranks.

    VENV/bin/mpirun -n 6 VENV/bin/python compat/pyfv3/run_dycore.py \
        --backend numpy --steps 2 --out DIR

The Jablonowski-Williamson baroclinic analytic initial state (``pyFV3.initialization``), c12
cubed sphere (npx = npy = 13), one tile per rank (layout 1x1, 6 ranks), 9 levels. The objects
are built the way pyFV3's own test of the dycore does (tests/mpi/test_doubly_periodic.py), with
the cubed-sphere partitioner and communicator instead of the doubly periodic tile:
TilePartitioner -> CubedSpherePartitioner -> CubedSphereCommunicator, SubtileGridSizer,
GridIndexing, QuantityFactory, MetricTerms (hybrid pressure coefficients from an eta file) ->
GridData / DampingCoefficients, StencilConfig(CompilationConfig(backend, communicator)) ->
StencilFactory -> DynamicalCore.

NDSL 2024.03.01 reads the hybrid coordinate (ak, bk) from a netCDF "eta file" and ships none;
this script writes a 9-level one (deterministic: ``eta_coefficients``) into the output folder.

Each rank writes DIR/rank{r}.npz (compressed: every Quantity of the DycoreState after the steps,
its compute domain without halos, under its state name) and DIR/timings-rank{r}.json (seconds: import of NDSL +
pyFV3, grid and initial state, DynamicalCore construction -- where NDSL builds the stencils --
and each step).

Stencil caches: ``--cache-root`` (default: the output folder) is gt4py's cache root. With
``--shared-cache`` (the default) NDSL's minimal caching is on and all ranks use one cache folder
(``GT_CACHE_DIR_NAME=.gt_cache``): rank 0 builds each stencil and the five other ranks, whose
tiles need the same stencils, wait and load it. ``--no-shared-cache`` lets every rank build its
own (``.gt_cache_{rank:06}``, NDSL's default).

This file is run by the compat test (tests/cartesian_tests/compat/test_pyfv3_dycore.py) and by
make_oracle.sh; it imports nothing of the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time


N_TILE = 12  # c12
N_LEVELS = 9
N_RANKS = 6
DT_ATMOS = 225  # seconds

# mpich's progress engine busy-polls in a blocking receive: the five ranks that wait while
# rank 0 builds the stencils (NDSL's minimal caching) would take most of a small machine's
# cores from the build (measured: 3.2 s of CPU per rank in a 5 s wait; throttled 0.8 s).
# Throttled progress sleeps between polls; results are the same bits. An explicit setting in
# the environment wins.
MPICH_QUIET_WAIT = {
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT": "1",
    "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--backend", default="numpy", help="gt4py backend (numpy, gt:cpu_ifirst, ...)"
    )
    parser.add_argument("--steps", type=int, default=2, help="dycore steps (default 2)")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="output folder")
    parser.add_argument(
        "--cache-root", type=pathlib.Path, default=None, help="gt4py cache root (default: --out)"
    )
    parser.add_argument(
        "--shared-cache",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="rank 0 builds, the others load (NDSL minimal caching); default on",
    )
    parser.add_argument(
        "--validate-args",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="NDSL's CompilationConfig(validate_args=...): on (the default, as pyFV3's dycore test)"
        " stencils are called with validate_args=True; off, through StencilObject.run",
    )
    args = parser.parse_args(argv)
    if args.steps < 0:
        parser.error(f"--steps must be >= 0, got {args.steps}")
    return args


def eta_coefficients(km: int, ptop: float = 100.0, p_ref: float = 1.0e5):
    """Hybrid coefficients (ak [Pa], bk) of km layers: interfaces evenly spaced in pressure at
    the reference surface pressure, pure pressure above the first interface below the top
    (bk = 0 there, so NDSL finds ks = 1), terrain-following below, bk = 1 at the surface.
    The layer-mid eta is monotonic, as NDSL checks.

    ptop = 100 Pa puts the top layer (pfull ~ 2350 Pa) inside rf_cutoff = 3000 Pa and the next
    one (~16100 Pa) outside rf_cutoff + min(100, 10 ptop): pyFV3's Rayleigh friction (ray_fast)
    reads its column sum `dmdir` uninitialised on a layer between rf_cutoff and that nudging
    cutoff (a layer there turned u and v into NaN in one step with ptop = 300 Pa)."""
    import numpy as np

    s = np.arange(km + 1, dtype=np.float64) / km
    p = ptop + (p_ref - ptop) * s
    bk = np.clip((s - s[1]) / (1.0 - s[1]), 0.0, 1.0)
    ak = p - bk * p_ref
    ak[-1] = 0.0
    return ak, bk


def write_eta_file(path: pathlib.Path, km: int) -> None:
    import xarray as xr

    ak, bk = eta_coefficients(km)
    xr.Dataset({"ak": ("km1", ak), "bk": ("km1", bk)}).to_netcdf(path)


def dycore_config(layout: tuple[int, int]):
    from pyFV3 import DynamicalCoreConfig

    # The namelist of pyFV3's own dycore test (tests/mpi/test_doubly_periodic.py), on the
    # c12 cubed sphere with 9 levels.
    return DynamicalCoreConfig(
        layout=layout,
        npx=N_TILE + 1,
        npy=N_TILE + 1,
        npz=N_LEVELS,
        ntiles=6,
        nwat=6,
        dt_atmos=DT_ATMOS,
        a_imp=1.0,
        beta=0.0,
        consv_te=False,
        d2_bg=0.0,
        d2_bg_k1=0.2,
        d2_bg_k2=0.1,
        d4_bg=0.15,
        d_con=1.0,
        d_ext=0.0,
        dddmp=0.5,
        delt_max=0.002,
        do_sat_adj=True,
        do_vort_damp=True,
        fill=True,
        hord_dp=6,
        hord_mt=6,
        hord_tm=6,
        hord_tr=8,
        hord_vt=6,
        hydrostatic=False,
        k_split=1,
        ke_bg=0.0,
        kord_mt=9,
        kord_tm=-9,
        kord_tr=9,
        kord_wz=9,
        n_split=1,
        nord=3,
        p_fac=0.05,
        rf_fast=True,
        rf_cutoff=3000.0,
        tau=10.0,
        vtdm4=0.06,
        z_tracer=True,
        do_qa=True,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out: pathlib.Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    cache_root = (args.cache_root or out).resolve()
    cache_root.mkdir(parents=True, exist_ok=True)
    if args.shared_cache:
        # read by ndsl.dsl at import, before it picks the per-rank folder
        os.environ["GT_CACHE_DIR_NAME"] = ".gt_cache"
    for name, value in MPICH_QUIET_WAIT.items():  # read by MPI_Init, when mpi4py is imported
        os.environ.setdefault(name, value)
    timings: dict[str, object] = {"backend": args.backend, "steps_requested": args.steps}

    t0 = time.perf_counter()
    import ndsl  # noqa: F401  (NDSL's first import configures gt4py's cache and precision)
    import pyFV3  # noqa: F401
    from mpi4py import MPI

    import gt4py.cartesian.config as gt_config

    timings["import_s"] = time.perf_counter() - t0

    import numpy as np
    from ndsl import (
        CompilationConfig,
        CubedSphereCommunicator,
        CubedSpherePartitioner,
        GridIndexing,
        QuantityFactory,
        StencilConfig,
        StencilFactory,
        SubtileGridSizer,
        TilePartitioner,
    )
    from ndsl.grid import DampingCoefficients, GridData, MetricTerms
    from pyFV3 import DynamicalCore
    from pyFV3.initialization import init_analytic_state

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() != N_RANKS:
        print(
            f"run_dycore.py: needs {N_RANKS} MPI ranks (one c12 tile each), got {comm.Get_size()}",
            file=sys.stderr,
        )
        return 2
    gt_config.cache_settings["root_path"] = str(cache_root)

    t0 = time.perf_counter()
    eta_file = out / f"eta{N_LEVELS}.nc"
    if rank == 0:
        write_eta_file(eta_file, N_LEVELS)
    comm.Barrier()

    layout = (1, 1)
    config = dycore_config(layout)
    partitioner = CubedSpherePartitioner(TilePartitioner(layout))
    communicator = CubedSphereCommunicator(comm, partitioner)
    stencil_config = StencilConfig(
        compilation_config=CompilationConfig(
            backend=args.backend,
            rebuild=False,
            validate_args=args.validate_args,
            use_minimal_caching=args.shared_cache,
            communicator=communicator,
        )
    )
    sizer = SubtileGridSizer.from_tile_params(
        nx_tile=config.npx - 1,
        ny_tile=config.npy - 1,
        nz=config.npz,
        n_halo=3,
        extra_dim_lengths={},
        layout=layout,
        tile_partitioner=partitioner.tile,
        tile_rank=communicator.tile.rank,
    )
    grid_indexing = GridIndexing.from_sizer_and_communicator(sizer=sizer, comm=communicator)
    quantity_factory = QuantityFactory.from_backend(sizer=sizer, backend=args.backend)
    metric_terms = MetricTerms(
        quantity_factory=quantity_factory, communicator=communicator, eta_file=str(eta_file)
    )
    grid_data = GridData.new_from_metric_terms(metric_terms)
    damping_coefficients = DampingCoefficients.new_from_metric_terms(metric_terms)
    state = init_analytic_state(
        analytic_init_case="baroclinic",
        grid_data=grid_data,
        quantity_factory=quantity_factory,
        adiabatic=config.adiabatic,
        hydrostatic=config.hydrostatic,
        moist_phys=config.moist_phys,
        comm=communicator,
    )
    stencil_factory = StencilFactory(config=stencil_config, grid_indexing=grid_indexing)
    timings["grid_and_initial_state_s"] = time.perf_counter() - t0

    from datetime import timedelta

    t0 = time.perf_counter()
    dycore = DynamicalCore(
        comm=communicator,
        grid_data=grid_data,
        stencil_factory=stencil_factory,
        quantity_factory=quantity_factory,
        damping_coefficients=damping_coefficients,
        config=config,
        phis=state.phis,
        state=state,
        timestep=timedelta(seconds=config.dt_atmos),
    )
    comm.Barrier()
    timings["construction_s"] = time.perf_counter() - t0

    step_s = []
    for _ in range(args.steps):
        t0 = time.perf_counter()
        dycore.step_dynamics(state)
        comm.Barrier()
        step_s.append(time.perf_counter() - t0)
    timings["step_s"] = step_s
    timings["steps_done"] = len(step_s)
    timings["numpy"] = np.__version__
    timings["gt4py"] = _gt4py_version()

    # The compute domain only: the halos hold values no stencil defined (two released runs
    # differ there, e.g. NaN or not in ua/va corners).
    fields = {
        name: np.ascontiguousarray(quantity.view[:])
        for name, quantity in state.as_dict(quantity_only=True).items()
    }
    np.savez_compressed(out / f"rank{rank}.npz", **fields)
    (out / f"timings-rank{rank}.json").write_text(json.dumps(timings, indent=1) + "\n")
    comm.Barrier()
    if rank == 0:
        print(
            f"run_dycore.py: {len(step_s)} steps on {args.backend}, {len(fields)} fields per rank"
            f" written to {out}; construction {timings['construction_s']:.1f} s, steps "
            + ", ".join(f"{s:.2f}" for s in step_s)
            + " s"
        )
    return 0


def _gt4py_version() -> str:
    from importlib import metadata

    for dist in ("gt4py", "gt4py-cartesian"):
        try:
            return f"{dist} {metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


if __name__ == "__main__":
    sys.exit(main())
