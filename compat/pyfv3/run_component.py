"""Run one pyFV3 component through NDSL's StencilFactory, plain or DaCe-orchestrated.

    VENV/bin/python compat/pyfv3/run_component.py --backend numpy --out DIR
    FV3_DACEMODE=BuildAndRun VENV/bin/python compat/pyfv3/run_component.py \
        --backend dace:cpu --out DIR

The component is pyFV3's ``FillNegativeTracerValues`` (Fortran ``fillz``: per column, borrow
mass from the layers above and below to remove negative tracer values), built as pyFV3 builds
it: its ``__init__`` calls NDSL's ``orchestrate``, so with ``FV3_DACEMODE=BuildAndRun`` and a
``dace:*`` backend NDSL parses its ``__call__`` (a loop over the tracers calling the stencil)
into one SDFG through gt4py's SDFG-convertible stencils, compiles and runs it; with
``FV3_DACEMODE=Python`` (or a non-DaCe backend) each stencil runs on its own.

One tile (c12, 9 levels, 3 halo points) on one rank (NDSL's ``NullComm``: the component
exchanges no halos), every tracer of NDSL's list filled from a seeded generator with about a
third of the values negative, layer thicknesses positive. Writes DIR/result.npz (each tracer's
compute domain after the call) and DIR/timings.json (seconds: the component's construction,
the first call -- NDSL's build of the orchestrated program included --, and the median of
--calls further calls, on fresh copies of the input each time). Imports nothing of the
repository.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import time


N_TILE, N_LEVELS, N_HALO = 12, 9, 3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", required=True)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261207)
    args = parser.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)

    import ndsl.dsl.gt4py_utils as utils
    import numpy as np
    from ndsl import (
        CompilationConfig,
        GridIndexing,
        QuantityFactory,
        StencilConfig,
        StencilFactory,
        SubtileGridSizer,
        TileCommunicator,
        TilePartitioner,
    )
    from ndsl.comm.null_comm import NullComm
    from ndsl.constants import X_DIM, Y_DIM, Z_DIM
    from ndsl.dsl.dace.dace_config import DaceConfig
    from pyFV3.stencils.fillz import FillNegativeTracerValues

    import gt4py.cartesian.config as gt_config

    gt_config.cache_settings["root_path"] = str(out)
    layout = (1, 1)
    partitioner = TilePartitioner(layout)
    communicator = TileCommunicator(NullComm(0, 1), partitioner)
    sizer = SubtileGridSizer.from_tile_params(
        nx_tile=N_TILE,
        ny_tile=N_TILE,
        nz=N_LEVELS,
        n_halo=N_HALO,
        extra_dim_lengths={},
        layout=layout,
        tile_partitioner=partitioner,
        tile_rank=0,
    )
    config = StencilConfig(
        compilation_config=CompilationConfig(
            backend=args.backend, rebuild=False, validate_args=True, communicator=communicator
        ),
        # orchestration as FV3_DACEMODE says (NDSL's own switch; StencilConfig's default
        # DaceConfig would never orchestrate)
        dace_config=DaceConfig(communicator=communicator, backend=args.backend),
    )
    grid_indexing = GridIndexing.from_sizer_and_communicator(sizer=sizer, comm=communicator)
    quantity_factory = QuantityFactory.from_backend(sizer=sizer, backend=args.backend)
    stencil_factory = StencilFactory(config=config, grid_indexing=grid_indexing)

    names = list(utils.tracer_variables)
    rng = np.random.default_rng(args.seed)
    dims = [X_DIM, Y_DIM, Z_DIM]
    shape = quantity_factory.zeros(dims, units="").data.shape
    initial = {name: rng.uniform(-0.5, 1.0, shape) for name in names}
    thickness = rng.uniform(50.0, 150.0, shape)

    def fresh() -> tuple[object, dict[str, object]]:
        dp2 = quantity_factory.zeros(dims, units="Pa")
        dp2.data[...] = thickness
        tracers = {}
        for name in names:
            tracers[name] = quantity_factory.zeros(dims, units="kg/kg")
            tracers[name].data[...] = initial[name]
        return dp2, tracers

    timings: dict[str, object] = {
        "backend": args.backend,
        "orchestrated": config.dace_config.is_dace_orchestrated(),
    }
    t0 = time.perf_counter()
    dp2, tracers = fresh()
    fillz = FillNegativeTracerValues(
        stencil_factory, quantity_factory, nq=len(names), tracers=tracers
    )
    timings["construction_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    fillz(dp2, tracers)
    timings["first_call_s"] = time.perf_counter() - t0
    domain = (slice(N_HALO, N_HALO + N_TILE), slice(N_HALO, N_HALO + N_TILE), slice(0, N_LEVELS))
    result = {name: np.asarray(tracers[name].data)[domain].copy() for name in names}
    calls = []
    for _ in range(args.calls):
        dp2_again, tracers_again = fresh()
        # the orchestrated program is keyed on the objects it was parsed with: update in place
        for name in names:
            tracers[name].data[...] = tracers_again[name].data
        dp2.data[...] = dp2_again.data
        t0 = time.perf_counter()
        fillz(dp2, tracers)
        calls.append(time.perf_counter() - t0)
        for name in names:
            again = np.asarray(tracers[name].data)[domain]
            if not np.array_equal(again, result[name]):
                print(f"run_component.py: call differs from the first on {name}", file=sys.stderr)
                return 1
    timings["call_s"] = statistics.median(calls) if calls else None
    negative_before = int(sum((initial[n][domain] < 0).sum() for n in names))
    negative_after = int(sum((result[n] < 0).sum() for n in names))
    timings["negative_values_before_after"] = [negative_before, negative_after]
    np.savez_compressed(out / "result.npz", **result)
    (out / "timings.json").write_text(json.dumps(timings, indent=1))
    print(json.dumps(timings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
