"""Laplacian program on embedded execution: ours vs released gt4py 1.2.3 vs hand-written numpy.

    uv run python benchmarks/next_lap_compare.py [--repeats N]

Runs workloads/next_lap.py's ``embedded`` workload (a 5-point Laplacian program,
steady 256x256x80 calls and a tiny 8x8x1 call) in fresh processes: ours through ``uv run``
from the workspace, released gt4py from ``GT4PY_RELEASED_PYTHON`` (cwd=/tmp so its own gt4py is
imported). The same stencil hand-written in numpy (body plus assignment into the output) is
timed in this process. Prints the medians over the repeated runs and the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

import _yardstick


WORKLOAD = _yardstick.WORKLOADS / "next_lap.py"
ANCHOR_PYTHON = _yardstick.released_python()
REPO = pathlib.Path(__file__).resolve().parents[1]


def run_workload(command: list[str], cwd: pathlib.Path) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    completed = subprocess.run(
        [*command, str(WORKLOAD), "embedded"], cwd=cwd, capture_output=True, text=True, env=env
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{completed.stderr[-3000:]}")
    result = json.loads(completed.stdout.strip().splitlines()[-1])
    if not result["correct"]:
        raise RuntimeError(f"{' '.join(command)}: wrong Laplacian result")
    return result


def numpy_laplacian(a: np.ndarray, out: np.ndarray) -> None:
    out[1:-1, 1:-1] = -4.0 * a[1:-1, 1:-1] + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2]


def time_numpy(shape: tuple[int, int, int], calls: int) -> float:
    rng = np.random.default_rng(0)
    a = rng.random(shape)
    out = np.zeros(shape)
    numpy_laplacian(a, out)
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        numpy_laplacian(a, out)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="processes per implementation")
    args = parser.parse_args()

    implementations = {
        "ours": (["uv", "run", "--no-sync", "python"], REPO),
        "released 1.2.3": ([str(ANCHOR_PYTHON)], pathlib.Path("/tmp")),
    }
    medians: dict[str, dict[str, float]] = {}
    for label, (command, cwd) in implementations.items():
        runs = [run_workload(command, cwd) for _ in range(args.repeats)]
        medians[label] = {
            key: statistics.median(run[key] for run in runs)
            for key in ("first_call_s", "steady_median_s", "small_call_median_s")
        }
    numpy_steady = time_numpy((256, 256, 80), 15)
    numpy_small = time_numpy((8, 8, 1), 200)

    print(f"{'':16} {'first call':>12} {'256x256x80':>12} {'vs numpy':>9} {'8x8x1 call':>12}")
    for label, m in medians.items():
        print(
            f"{label:16} {m['first_call_s'] * 1e3:10.1f}ms {m['steady_median_s'] * 1e3:10.2f}ms "
            f"{m['steady_median_s'] / numpy_steady:8.2f}x {m['small_call_median_s'] * 1e6:10.1f}us"
        )
    print(
        f"{'numpy by hand':16} {'':>12} {numpy_steady * 1e3:10.2f}ms {1.0:8.2f}x "
        f"{numpy_small * 1e6:10.1f}us"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
