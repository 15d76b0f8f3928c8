"""Run icon4py 0.4.1's driver (``icon4py.model.driver``) on a small torus, as its console
script does, and record the prognostic state after every time step.

The steps of ``icon4py.model.driver.main.main`` (the ``icon4py-driver`` console script), with
an :class:`ExperimentConfig` built in Python instead of read from serialized Fortran
namelists: the backend from icon4py's name (``driver_utils.get_backend_from_name`` +
``model_options.customize_backend``) or a gt4py backend object, ``model_backends.
get_allocator``, single-rank process properties, ``driver_utils.create_grid_manager`` on a
grid file written by ``torus_gridfile.py``, then ``driver.run_driver``: ``initialize_driver``
(vertical grid, Gaussian-hill topography, the geometry / interpolation / metrics field
factories, Diffusion + SolveNonhydro + tracer Advection granules), the Gauss3D analytic initial
condition, ``Icon4pyDriver.time_integration``.

Experiment: torus ``--nx`` x ``--ny`` (12 x 10: 240 cells), edge 500 m, ``--nlev`` 10 levels
(model top 23.5 km, Rayleigh damping from 12.5 km), Gaussian hill 100 m high, 1 km wide in the
domain's centre, Gauss3D atmosphere (T0 300 K, N 0.01/s) with ``u0`` 10 m/s, one advected
tracer (qv, which Gauss3D leaves 0: a Gaussian blob of 1 g/kg, 1.5 km wide, in the domain's
centre, decreasing upwards, is put in after the initial condition; 2nd-order horizontal advection with the positive-definite limiter, PPM vertical
advection with the semi-monotonic limiter), dtime 4 s, 5 dynamics substeps, ``--steps`` time steps.

``--backend``: ``embedded`` (``gtx.embedded_numpy``), ``none`` (Python ``None``, icon4py's
"embedded"), ``gtfn_cpu`` / ``itir_python`` (icon4py's backend name where icon4py has one,
``gtfn_cpu``: ``model_options.customize_backend`` -> ``gtfn.GTFNBackendFactory``), or
``gtx.gtfn_cpu`` / ``gtx.itir_python`` (the gt4py backend object; released gt4py 1.2.3 has no
``GTFNBackendFactory``, so its reference run uses ``gtx.gtfn_cpu``).

Output (``--out DIR``): ``step_000.npz`` (the state the time loop starts from) to
``step_NNN.npz`` (after each step): ``vn, w, rho, exner, theta_v`` and every tracer
(``tracer.<name>``); with ``--oracle FILE``, the same for the last step only, float64,
compressed. ``report.json``: versions, timings (``import_s``, ``grid_manager_s``,
``initialize_driver_s`` (the factories and granules, every compile of the static-field
programs included), ``to_first_step_s`` (from after the imports to the end of the first time
step), ``to_first_step_cpu_s`` (its CPU time, every thread of this process; a measure
that a loaded machine inflates less), ``step_s`` per step), failures with tracebacks. ``--profile FILE``: a cProfile (CPU time) of the time
to the first step (the imports excluded). Exit status 0 when every step ran with
finite fields.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib.util
import json
import logging
import pathlib
import sys
import time
import traceback


T_START = time.perf_counter()
CPU_START = time.process_time()
HERE = pathlib.Path(__file__).resolve().parent

import numpy as np  # noqa: E402


PROGNOSTIC = ("vn", "w", "rho", "exner", "theta_v")


def _ensure_output_modules() -> None:
    """icon4py.model.common.io imports uxarray and zarr at module level (output only); where
    either is missing, the placeholders in shims/ (any use raises; output stays off here)."""
    if any(importlib.util.find_spec(name) is None for name in ("uxarray", "zarr")):
        sys.path.append(str(HERE / "shims"))


def _backend(name: str):
    from icon4py.model.common import model_options
    from icon4py.model.driver import driver_utils

    import gt4py.next as gtx

    if name == "embedded":
        return gtx.embedded_numpy
    if name == "none":
        return None
    if name.startswith("gtx."):
        return getattr(gtx, name[4:])
    return model_options.customize_backend(
        program=None, backend=driver_utils.get_backend_from_name(name)
    )


def _config(args, grid):
    from icon4py.model.atmosphere.diffusion import diffusion
    from icon4py.model.atmosphere.dycore import solve_nonhydro as solve_nh
    from icon4py.model.atmosphere.tracer_advection import tracer_advection
    from icon4py.model.common import prescribed_tendencies
    from icon4py.model.common.grid import geometry_config, vertical as v_grid
    from icon4py.model.common.initial_condition import config as ic_config
    from icon4py.model.common.initial_condition.analytical import gauss3d
    from icon4py.model.common.interpolation import interpolation_factory
    from icon4py.model.common.metrics import metrics_factory
    from icon4py.model.common.states import tracer_states
    from icon4py.model.common.topography import config as topo_config
    from icon4py.model.common.topography.analytical import gaussian_hill
    from icon4py.model.driver import config as driver_config

    attrs = grid["attributes"]
    start = datetime.datetime(2021, 6, 20, 12, 0, 0)
    driver = driver_config.DriverConfig.make_initial(
        experiment_name="gt4py_compat_torus",
        profiling_options=None,
        dtime=datetime.timedelta(seconds=args.dtime),
        start_of_simulation=start,
        end_of_simulation=args.steps,
        ndyn_substeps=5,
        do_prep_adv=True,
        output_path=pathlib.Path(args.out) / "icon4py_output",
    )
    return driver_config.ExperimentConfig(
        geometry=geometry_config.GeometryConfig(use_analytical_means=True),
        metrics=metrics_factory.MetricsConfig(),
        interpolation=interpolation_factory.InterpolationConfig(),
        vertical_grid=v_grid.VerticalGridConfig(
            num_levels=args.nlev, rayleigh_damping_height=12500.0
        ),
        topography=topo_config.TopographyConfig(
            config=gaussian_hill.GaussianHillConfig(
                mount_x=attrs["domain_length"] / 2,
                mount_y=attrs["domain_height"] / 2,
                mount_height=100.0,
                mount_width=1000.0,
            )
        ),
        initial_condition=ic_config.InitialConditionConfig(
            config=gauss3d.Gauss3DConfig(u0=10.0, t0=300.0, brunt_vais=0.01)
        ),
        prescribed_tendencies=prescribed_tendencies.PrescribedTendenciesConfig(),
        driver=driver,
        nonhydrostatic=solve_nh.NonHydrostaticConfig(),
        diffusion=diffusion.DiffusionConfig(),
        tracer_config=tracer_states.TracerConfig.from_ntracer(1),
        tracer_advection=tracer_advection.AdvectionConfig(
            horizontal_advection_type=tracer_advection.HorizontalAdvectionType.LINEAR_2ND_ORDER,
            horizontal_advection_limiter=tracer_advection.HorizontalAdvectionLimiter.POSITIVE_DEFINITE,
            vertical_advection_type=tracer_advection.VerticalAdvectionType.PPM_3RD_ORDER,
            vertical_advection_limiter=tracer_advection.VerticalAdvectionLimiter.SEMI_MONOTONIC,
        ),
    )


def _arrays(state, prefix: str = "") -> dict[str, np.ndarray]:
    out = {}
    for field in dataclasses.fields(state) if dataclasses.is_dataclass(state) else ():
        value = getattr(state, field.name)
        if hasattr(value, "asnumpy"):
            # a copy: asnumpy() may be a view of a buffer the next step overwrites
            out[prefix + field.name] = np.array(value.asnumpy(), copy=True)
    return out


def _snapshot(prognostic_states, tracers) -> dict[str, np.ndarray]:
    current = prognostic_states.current
    fields = {k: v for k, v in _arrays(current).items() if k in PROGNOSTIC}
    tracer_now = getattr(tracers, "current", tracers)
    if tracer_now is not None:
        fields.update(_arrays(tracer_now, "tracer."))
    return fields


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="embedded")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--nlev", type=int, default=10)
    parser.add_argument("--nx", type=int, default=12)
    parser.add_argument("--ny", type=int, default=10)
    parser.add_argument("--dtime", type=float, default=4.0)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--oracle", type=pathlib.Path, default=None)
    parser.add_argument("--log-level", default="WARNING")
    parser.add_argument(
        "--profile",
        type=pathlib.Path,
        default=None,
        help="write a cProfile of the time to the first step (after the imports) to this file",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict = {"args": {k: str(v) for k, v in vars(args).items()}, "failures": []}
    stage = "import"
    timings: dict = {}
    steps: list[dict[str, np.ndarray]] = []
    step_times: list[float] = []
    try:
        _ensure_output_modules()
        from icon4py.model.common import model_backends
        from icon4py.model.common.decomposition import definitions as decomposition_defs
        from icon4py.model.driver import driver, driver_utils

        import gt4py.next as gtx

        sys.path.insert(0, str(HERE))
        import torus_gridfile

        logging.basicConfig(level=getattr(logging, args.log_level.upper()))
        report["gt4py"] = getattr(gtx, "__version__", "?")
        t0 = time.perf_counter()
        timings["import_s"] = t0 - T_START
        cpu0 = time.process_time()
        timings["import_cpu_s"] = cpu0 - CPU_START
        profiler = None
        if args.profile is not None:
            import cProfile

            # CPU time, not wall time: on a loaded machine the wall clock counts other processes
            profiler = cProfile.Profile(time.process_time)
            profiler.enable()

        stage = "grid file"
        grid_path = args.out / "torus.nc"
        grid = torus_gridfile.write(grid_path, args.nx, args.ny)
        stage = "backend"
        backend = _backend(args.backend)
        report["backend"] = repr(getattr(backend, "name", backend))
        allocator = model_backends.get_allocator(backend)
        process_props = decomposition_defs.get_process_properties(
            decomposition_defs.get_runtype(with_mpi=False)
        )
        config = _config(args, grid)
        stage = "grid manager"
        t = time.perf_counter()
        grid_manager = driver_utils.create_grid_manager(
            grid_file_path=grid_path,
            vertical_grid_config=config.vertical_grid,
            allocator=allocator,
            process_props=process_props,
        )
        timings["grid_manager_s"] = time.perf_counter() - t

        original_init = driver.initialize_driver
        original_step = driver.Icon4pyDriver._integrate_one_time_step

        def timed_init(**kwargs):
            t = time.perf_counter()
            result = original_init(**kwargs)
            timings["initialize_driver_s"] = time.perf_counter() - t
            return result

        def recorded_step(self, **kwargs):
            nonlocal stage
            stage = f"time step {len(step_times) + 1}"
            if not steps:
                steps.append(_snapshot(kwargs["prognostic_states"], kwargs["tracers"]))
            t = time.perf_counter()
            original_step(self, **kwargs)
            from icon4py.model.common.utils import device_utils

            device_utils.sync(self.backend)
            step_times.append(time.perf_counter() - t)
            if len(step_times) == 1:
                timings["to_first_step_s"] = time.perf_counter() - t0
                timings["to_first_step_cpu_s"] = time.process_time() - cpu0
                if profiler is not None:
                    profiler.disable()
                    profiler.dump_stats(args.profile)
            steps.append(_snapshot(kwargs["prognostic_states"], kwargs["tracers"]))

        original_ic = driver.initial_condition.create
        cell_x = grid["fields"][("cell",)]["cell_circumcenter_cartesian_x"]
        cell_y = grid["fields"][("cell",)]["cell_circumcenter_cartesian_y"]

        def ic_with_tracer_blob(**kwargs):
            original_ic(**kwargs)
            qv = kwargs["tracer_state_now"].qv
            r2 = (cell_x - cell_x.mean()) ** 2 + (cell_y - cell_y.mean()) ** 2
            levels = np.linspace(1.0, 0.2, qv.shape[1])
            blob = 1e-3 * np.exp(-r2 / (2 * 1500.0**2))[:, None] * levels[None, :]
            qv.ndarray[...] = qv.array_ns.asarray(blob)

        driver.initial_condition.create = ic_with_tracer_blob
        driver.initialize_driver = timed_init
        driver.Icon4pyDriver._integrate_one_time_step = recorded_step
        stage = "initialize_driver"
        driver.run_driver(
            config=config, grid_manager=grid_manager, process_props=process_props, backend=backend
        )
    except Exception as error:  # reported
        report["failures"].append(
            {
                "stage": stage,
                "type": type(error).__name__,
                "message": str(error)[:2000],
                "traceback": traceback.format_exc()[-6000:],
            }
        )
    for n, fields in enumerate(steps):
        np.savez(args.out / f"step_{n:03d}.npz", **fields)
    if args.oracle is not None and steps:
        np.savez_compressed(args.oracle, **steps[-1])
    nonfinite = sorted(
        {f"{k}@{n}" for n, fields in enumerate(steps) for k, v in fields.items()
         if v.dtype.kind == "f" and not np.isfinite(v).all()}
    )  # fmt: skip
    timings["step_s"] = step_times
    report.update(
        timings=timings,
        steps_run=len(step_times),
        nonfinite=nonfinite,
        ok=not report["failures"] and not nonfinite and len(step_times) == args.steps,
    )
    (args.out / "report.json").write_text(json.dumps(report, indent=2))
    print(json.dumps({k: report[k] for k in ("ok", "steps_run", "timings", "nonfinite")}))
    for failure in report["failures"]:
        print(f"FAILED at {failure['stage']}:\n{failure['traceback']}", file=sys.stderr)
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
