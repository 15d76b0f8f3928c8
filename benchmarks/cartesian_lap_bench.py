"""Side by side: the GTScript Laplacian of ``workloads/cart_lap.py`` on ours and on released
gt4py 1.2.3, in one sitting, plus the time to ``import gt4py.cartesian.gtscript``.

    uv run python benchmarks/cartesian_lap_bench.py [--backend numpy] [--repeats 3]
        [--import-repeats 5] [--released-python $GT4PY_RELEASED_PYTHON]

Each workload run is a fresh process (the script prints one JSON line); runs of the two
implementations alternate so that load from other processes hits both alike. Released gt4py
runs from a neutral directory so that it imports the venv's gt4py, not this workspace's.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import _yardstick


ROOT = pathlib.Path(__file__).resolve().parent.parent
WORKLOAD = _yardstick.WORKLOADS / "cart_lap.py"
METRICS = ("build_s", "steady_median_s", "small_call_median_s")


def _ours() -> tuple[list[str], pathlib.Path]:
    return ["uv", "run", "--frozen", "python"], ROOT


def _released(python: str) -> tuple[list[str], pathlib.Path]:
    return [python], pathlib.Path(tempfile.gettempdir())


def _where_gtscript(command: list[str], cwd: pathlib.Path) -> str:
    probe = "import gt4py.cartesian.gtscript as g; print(g.__file__)"
    done = subprocess.run(
        [*command, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def _workload(command: list[str], cwd: pathlib.Path, backend: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as cache:
        # A fresh cache for each run: build_s is a cold build for both.
        env_cmd = ["env", f"GT4PY_BUILD_CACHE_DIR={cache}", f"GT_CACHE_ROOT={cache}"]
        done = subprocess.run(
            [*env_cmd, *command, str(WORKLOAD), backend],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    if not result["correct"]:
        raise RuntimeError(f"{command}: wrong result")
    return result


def _import_time(command: list[str], cwd: pathlib.Path) -> float:
    # Interpreter start-up is measured separately and taken off.
    code = "import time; t = time.perf_counter(); import gt4py.cartesian.gtscript; "
    code += "print(time.perf_counter() - t)"
    done = subprocess.run(
        [*command, "-c", code], cwd=cwd, capture_output=True, text=True, check=True
    )
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--import-repeats", type=int, default=5)
    parser.add_argument("--released-python", default=_yardstick.released_python())
    args = parser.parse_args()

    sides = {"ours": _ours(), "released": _released(args.released_python)}
    for name, (command, cwd) in sides.items():
        print(f"{name:9s} gt4py.cartesian.gtscript from {_where_gtscript(command, cwd)}")
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
    imports: dict[str, list[float]] = {name: [] for name in sides}
    started = time.perf_counter()
    for _ in range(args.repeats):
        for name, (command, cwd) in sides.items():
            runs[name].append(_workload(command, cwd, args.backend))
    for _ in range(args.import_repeats):
        for name, (command, cwd) in sides.items():
            imports[name].append(_import_time(command, cwd))

    print(
        f"\ncart_lap.py {args.backend}, n=256, nk=80; medians of {args.repeats} processes "
        f"(each already a median of its calls); import: median of {args.import_repeats} "
        "fresh processes"
    )
    header = f"{'':9s}" + "".join(f"{m:>22s}" for m in (*METRICS, "import_gtscript_s"))
    print(header)
    medians: dict[str, dict[str, float]] = {}
    for name in sides:
        medians[name] = {m: statistics.median(r[m] for r in runs[name]) for m in METRICS}
        medians[name]["import_gtscript_s"] = statistics.median(imports[name])
        print(f"{name:9s}" + "".join(f"{v:22.6f}" for v in medians[name].values()))
    ratio = {m: medians["ours"][m] / medians["released"][m] for m in medians["ours"]}
    print(f"{'ratio':9s}" + "".join(f"{v:21.2f}x" for v in ratio.values()))
    print(f"\n({time.perf_counter() - started:.0f} s)")
    json.dump({"medians": medians, "ratio_ours_over_released": ratio}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
