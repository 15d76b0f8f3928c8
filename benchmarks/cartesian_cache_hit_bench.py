"""What a warm persistent cache costs a new process: ``import gt4py.cartesian.gtscript``, then
the first call of a stencil (key, cache look-up with validation, loading the generated module).

    uv run python benchmarks/cartesian_cache_hit_bench.py [--backend numpy] [--runs 9]
        [--src OTHER/packages/gt4py-cartesian/src]

One process warms a fresh cache; then ``--runs`` fresh processes each measure themselves and
print one JSON line; the medians are reported. ``--src`` measures another checkout's
gt4py.cartesian (e.g. a ``git worktree`` of an older commit) with this workspace's other
packages, for before/after comparisons in one sitting.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile


WORKLOAD = """
import json, sys, time
start = time.perf_counter()
import numpy as np
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
imported = time.perf_counter()
import helpers

F = gtscript.Field[np.float64]

def lap(a: F, out: F):
    with computation(PARALLEL), interval(...):
        out = helpers.weight(-4.0 * a[0, 0, 0] + a[1, 0, 0] + a[-1, 0, 0] + a[0, 1, 0] + a[0, -1, 0])

a = np.ones((10, 10, 4)); out = np.zeros_like(a)
stencil = gtscript.stencil(backend=sys.argv[1], definition=lap)
stencil(a, out, origin=(1, 1, 0), domain=(8, 8, 4))
done = time.perf_counter()
gtscript_module = sys.modules["gt4py.cartesian.gtscript"].__file__
print(json.dumps({"import_s": imported - start, "first_call_s": done - imported,
                  "total_s": done - start, "gtscript": gtscript_module}))
"""

HELPERS = """
from gt4py.cartesian import gtscript
SCALE = 0.25

@gtscript.function
def weight(x):
    return SCALE * x
"""


def _run(directory: pathlib.Path, backend: str, src: str | None) -> dict[str, float | str]:
    env = {**os.environ, "GT4PY_BUILD_CACHE_DIR": str(directory / "cache")}
    # As users run: Python's bytecode cache on (the first, cold process writes the .pyc files
    # of gt4py's modules), so that compiling gt4py's own modules does not drown the figures.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join([*([src] if src else []), str(directory)])
    done = subprocess.run(
        [sys.executable, str(directory / "workload.py"), backend],
        env=env,
        capture_output=True,
        text=True,
        cwd=directory,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    result: dict[str, float | str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--src", help="a gt4py-cartesian src directory to measure instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gt4py_cart_hit_") as tmp:
        directory = pathlib.Path(tmp)
        (directory / "workload.py").write_text(WORKLOAD)
        (directory / "helpers.py").write_text(HELPERS)
        cold = _run(directory, args.backend, args.src)
        runs = [_run(directory, args.backend, args.src) for _ in range(args.runs)]
    print(f"gt4py.cartesian.gtscript from {cold['gtscript']}")
    print(f"backend {args.backend}; cold first call {float(cold['first_call_s']) * 1e3:.1f} ms")
    for metric in ("import_s", "first_call_s", "total_s"):
        values = [float(run[metric]) for run in runs]
        print(
            f"warm {metric:<13} median {statistics.median(values) * 1e3:7.1f} ms "
            f"(min {min(values) * 1e3:.1f}, max {max(values) * 1e3:.1f}, {len(values)} processes)"
        )


if __name__ == "__main__":
    main()
