"""An NDSL-orchestrated component on ``orch:dace:cpu`` with this gt4py against released gt4py
1.2.3, side by side: its cold build, its warm start in a new process, and its call time.

Both interpreters are NDSL (develop) environments made by ``compat/ndsl/install.sh`` (ours:
this repository's packages; released: ``GT4PY=released``), named by environment variables:

    NDSL_OURS_PYTHON=/tmp/ndsl-ours/bin/python NDSL_RELEASED_PYTHON=/tmp/ndsl-rel/bin/python \\
        python benchmarks/ndsl_orchestration_vs_released.py [--size 48] [--levels 40]

The component (``WORKLOAD`` below) is written as pyFV3 writes one: a class whose
``__init__`` calls NDSL's ``orchestrate`` and builds its stencils through NDSL's
``StencilFactory``, and whose ``__call__`` runs a substep loop of a Laplacian and an update,
then a FORWARD column pass. NDSL turns ``__call__`` into one SDFG (DaCe parses it and asks
each stencil for its SDFG), compiles it and runs it.

Per side, three new processes in one fresh working directory (both sides' caches live there:
``GT_CACHE_ROOT`` and NDSL's ``.gt_cache_*``):

1. cold: empty caches, NDSL's ``BuildAndRun``;
2. warm, ``BuildAndRun`` again (NDSL re-parses and re-generates; the stencils are cached);
3. warm, NDSL's ``Run`` (what a production run does once built: load the program).

Reported: construction (the stencils), the first call (NDSL's build of the program included),
the median call, and a checksum of the result (the two sides must agree).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap


WORKLOAD = textwrap.dedent(
    """
    import json, statistics, sys, time, warnings

    warnings.filterwarnings("ignore", "Quantity.data accessor")
    start = time.perf_counter()
    import numpy as np
    from ndsl.boilerplate import get_factories_single_tile_orchestrated
    from ndsl.constants import I_DIM, J_DIM, K_DIM
    from ndsl.dsl.dace.dace_config import DaCeOrchestration
    from ndsl.dsl.dace.orchestration import orchestrate
    from ndsl.dsl.gt4py import FORWARD, PARALLEL, computation, interval
    from ndsl.dsl.typing import FloatField
    imported = time.perf_counter() - start


    def laplacian(q: FloatField, out: FloatField):
        with computation(PARALLEL), interval(...):
            out = q[1, 0, 0] + q[-1, 0, 0] + q[0, 1, 0] + q[0, -1, 0] - 4.0 * q


    def update(q: FloatField, lap: FloatField):
        with computation(PARALLEL), interval(...):
            q = q + 0.05 * lap


    def smooth_column(q: FloatField):
        with computation(FORWARD), interval(1, None):
            q = 0.5 * (q + q[0, 0, -1])


    class Diffusion:
        def __init__(self, factory, substeps):
            orchestrate(obj=self, config=factory.config.dace_config)
            dims = [I_DIM, J_DIM, K_DIM]
            self.laplacian = factory.from_dims_halo(laplacian, compute_dims=dims)
            self.update = factory.from_dims_halo(update, compute_dims=dims)
            self.smooth_column = factory.from_dims_halo(smooth_column, compute_dims=dims)
            self.substeps = substeps

        def __call__(self, q, lap):
            for _ in range(self.substeps):
                self.laplacian(q, lap)
                self.update(q, lap)
            self.smooth_column(q)


    size, levels, mode, calls = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    stencils, quantities = get_factories_single_tile_orchestrated(
        size, size, levels, 3, orchestration_mode=DaCeOrchestration[mode]
    )
    start = time.perf_counter()
    component = Diffusion(stencils, substeps=4)
    construction = time.perf_counter() - start
    q = quantities.zeros([I_DIM, J_DIM, K_DIM], "q")
    lap = quantities.zeros([I_DIM, J_DIM, K_DIM], "lap")
    initial = np.random.default_rng(7).random(q.data.shape)
    q.data[...] = initial
    start = time.perf_counter()
    component(q, lap)
    first = time.perf_counter() - start
    checksum = float(np.asarray(q.data).sum())
    times = []
    for _ in range(calls):
        q.data[...] = initial
        start = time.perf_counter()
        component(q, lap)
        times.append(time.perf_counter() - start)
    print("RESULT " + json.dumps({
        "import_s": imported, "construction_s": construction, "first_call_s": first,
        "call_s": statistics.median(times), "checksum": checksum,
    }))
    """
)

RUNS = (("cold", "BuildAndRun"), ("warm, BuildAndRun", "BuildAndRun"), ("warm, Run", "Run"))


def _run(python: str, work: pathlib.Path, args: argparse.Namespace, mode: str) -> dict:
    env = dict(os.environ, GT_CACHE_ROOT=str(work / "gt_cache"))
    command = [python, "workload.py", str(args.size), str(args.levels), mode, str(args.calls)]
    result = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    lines = [line for line in result.stdout.splitlines() if line.startswith("RESULT ")]
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"{python} ({mode}) failed:\n{result.stderr[-3000:]}")
    return json.loads(lines[-1].removeprefix("RESULT "))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=48, help="points per horizontal axis")
    parser.add_argument("--levels", type=int, default=40)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    pythons = {
        "ours": os.environ.get("NDSL_OURS_PYTHON"),
        "released 1.2.3": os.environ.get("NDSL_RELEASED_PYTHON"),
    }
    missing = [name for name, python in pythons.items() if not python]
    if missing:
        print(f"set NDSL_OURS_PYTHON and NDSL_RELEASED_PYTHON ({', '.join(missing)} unset)")
        return 2
    results: dict[str, dict[str, dict]] = {}
    for name, python in pythons.items():
        assert python is not None
        with tempfile.TemporaryDirectory(prefix="ndsl-orch-") as directory:
            work = pathlib.Path(directory)
            (work / "workload.py").write_text(WORKLOAD)
            results[name] = {label: _run(python, work, args, mode) for label, mode in RUNS}
    print(f"Diffusion component, {args.size}x{args.size}x{args.levels}, orch:dace:cpu")
    print(f"| | {' | '.join(pythons)} |")
    print(f"| --- | {' | '.join('---' for _ in pythons)} |")
    for label, _ in RUNS:
        for key, unit in (("construction_s", "s"), ("first_call_s", "s"), ("call_s", "ms")):
            scale = 1000.0 if unit == "ms" else 1.0
            cells = [f"{results[n][label][key] * scale:.3g} {unit}" for n in pythons]
            print(f"| {label}: {key.removesuffix('_s').replace('_', ' ')} | {' | '.join(cells)} |")
    sums = {n: results[n]["cold"]["checksum"] for n in pythons}
    print(f"checksums: {sums}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
