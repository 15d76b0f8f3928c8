"""The yardstick measures, side by side in one sitting: ours, a baseline checkout, released.

    uv run python benchmarks/side_by_side.py [--repeats 3] [--quick] [--json out.json]

Interpreters: ours (this one), ``GT4PY_BASELINE_PYTHON`` (e.g. the venv of a checkout before a
change) and ``GT4PY_RELEASED_PYTHON`` (released gt4py 1.2.3) when set. Each repeat runs every
interpreter in turn (interleaved, so machine drift hits all alike), each workload in a fresh
process:

- next gtfn_cpu Laplacian 256x256x80: cold first call (fresh cache dir), warm first call (new
  process, same cache dir), steady median, tiny 8x8x1 call;
- next embedded: steady, tiny;
- cartesian gt:cpu_ifirst: cold build, warm build (new process), steady, tiny; numpy steady, tiny
  (released GTScript's cache is put in the same directory through ``GT_CACHE_ROOT``, so its warm
  build is warm too; before issue 44.8 it was a second cold build);
- next gtfn_cpu unstructured (20 000 cells x 80): div cold first call, div and grad steady;
- cartesian dace:cpu (issue 42): cold build, warm build (new process), steady, tiny, where the
  interpreter has DaCe (``--only dace`` runs this and gt:cpu_ifirst alone).

Prints the median over repeats of every figure, per interpreter.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections import defaultdict

import _yardstick


def cartesian_figures(python: str, backend: str, lap: list[str], cache: str) -> dict[str, float]:
    """Cold build, warm build (a new process, same cache), steady and tiny call of the GTScript
    Laplacian on ``backend``; none where the interpreter cannot build for it (no DaCe)."""
    label = backend.replace("gt:", "").replace(":", " ")
    try:
        cold = _yardstick.run_workload(python, "cart_lap", backend, *lap, cache_dir=cache)
        warm = _yardstick.run_workload(python, "cart_lap", backend, *lap, cache_dir=cache)
    except Exception as error:  # e.g. released without dace installed
        print(f"{python}: {backend} skipped ({type(error).__name__})")
        return {}
    return {
        f"cartesian {label} cold build s": cold["build_s"],
        f"cartesian {label} warm build s": warm["build_s"],
        f"cartesian {label} steady ms": 1e3 * warm["steady_median_s"],
        f"cartesian {label} tiny µs": 1e6 * warm["small_call_median_s"],
    }


def one_repeat(python: str, quick: bool, only: str | None = None) -> dict[str, float]:
    lap = ["64", "8"] if quick else []
    mesh = ["20", "8"] if quick else []
    figures: dict[str, float] = {}
    if only == "dace":
        with tempfile.TemporaryDirectory(prefix="gt4py-cache-") as cache:
            figures.update(cartesian_figures(python, "dace:cpu", lap, cache))
            figures.update(cartesian_figures(python, "gt:cpu_ifirst", lap, cache))
        return figures
    with tempfile.TemporaryDirectory(prefix="gt4py-cache-") as cache:
        cold = _yardstick.run_workload(python, "next_lap", "gtfn_cpu", *lap, cache_dir=cache)
        warm = _yardstick.run_workload(python, "next_lap", "gtfn_cpu", *lap, cache_dir=cache)
        figures["next gtfn cold first call s"] = cold["first_call_s"]
        figures["next gtfn warm first call s"] = warm["first_call_s"]
        figures["next gtfn steady ms"] = 1e3 * statistics.median(
            [cold["steady_median_s"], warm["steady_median_s"]]
        )
        figures["next gtfn tiny µs"] = 1e6 * statistics.median(
            [cold["small_call_median_s"], warm["small_call_median_s"]]
        )
        embedded = _yardstick.run_workload(python, "next_lap", "embedded", *lap, cache_dir=cache)
        figures["next embedded steady ms"] = 1e3 * embedded["steady_median_s"]
        figures["next embedded tiny µs"] = 1e6 * embedded["small_call_median_s"]
        cart_cold = _yardstick.run_workload(
            python, "cart_lap", "gt:cpu_ifirst", *lap, cache_dir=cache
        )
        cart_warm = _yardstick.run_workload(
            python, "cart_lap", "gt:cpu_ifirst", *lap, cache_dir=cache
        )
        figures["cartesian cpu_ifirst cold build s"] = cart_cold["build_s"]
        figures["cartesian cpu_ifirst warm build s"] = cart_warm["build_s"]
        figures["cartesian cpu_ifirst steady ms"] = 1e3 * cart_warm["steady_median_s"]
        figures["cartesian cpu_ifirst tiny µs"] = 1e6 * cart_warm["small_call_median_s"]
        numpy = _yardstick.run_workload(python, "cart_lap", "numpy", *lap, cache_dir=cache)
        figures["cartesian numpy steady ms"] = 1e3 * numpy["steady_median_s"]
        figures["cartesian numpy tiny µs"] = 1e6 * numpy["small_call_median_s"]
        mesh_run = _yardstick.run_workload(
            python, "next_unstructured", "gtfn_cpu", *mesh, cache_dir=cache
        )
        figures["unstructured div cold first call s"] = mesh_run["div_first_s"]
        figures["unstructured div steady ms"] = 1e3 * mesh_run["div_steady_s"]
        figures["unstructured grad steady ms"] = 1e3 * mesh_run["grad_steady_s"]
        figures.update(cartesian_figures(python, "dace:cpu", lap, cache))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--json", help="also write the medians here")
    parser.add_argument(
        "--only", choices=["dace"], help="dace: only the GTScript dace:cpu / gt:cpu_ifirst rows"
    )
    args = parser.parse_args()
    interpreters = _yardstick.interpreters()
    if "released 1.2.3" not in interpreters:
        print(_yardstick.missing_released_hint())
    samples: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for repeat in range(args.repeats):
        for label, python in interpreters.items():
            figures = one_repeat(python, args.quick, args.only)
            for name, value in figures.items():
                samples[label][name].append(value)
            print(f"repeat {repeat + 1}/{args.repeats}: {label} {json.dumps(figures)}", flush=True)
    medians = {
        label: {name: statistics.median(values) for name, values in figures.items()}
        for label, figures in samples.items()
    }
    labels = list(interpreters)
    names = list(dict.fromkeys(n for figures in medians.values() for n in figures))
    width = max(len(n) for n in names)
    print(f"\nmedians over {args.repeats} repeats")
    print(f"{'':{width}}  " + "  ".join(f"{label:>15}" for label in labels))
    for name in names:
        print(
            f"{name:{width}}  "
            + "  ".join(f"{medians[label].get(name, float('nan')):15.3f}" for label in labels)
        )
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"repeats": args.repeats, "medians": medians}, handle, indent=2)


if __name__ == "__main__":
    main()
