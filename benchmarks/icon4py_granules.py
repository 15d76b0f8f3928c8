"""icon4py's granules built by icon4py's own driver path, cold and warm, ours vs released (issue 28).

Each run is ``compat/icon4py/run_granules.py`` in a new process: icon4py 0.4.1 builds every
program of the granule through ``model_options.setup_program`` (``with_backend``,
``with_compilation_options``, ``.compile``), then the steps run. Per granule and interpreter,
on a fresh persistent cache: one cold run (construction + first step pay every build), then
``--runs`` warm runs on the same cache (a new process each: what a restarted model pays).
Reported: cold construction and first step; the medians over the warm runs of construction,
first step and steady step (``Diffusion.run`` / one ``SolveNonhydro.time_step``: a substep).

Ours is the interpreter running this script (Python >= 3.12 for icon4py); released gt4py 1.2.3
comes from ``GT4PY_RELEASED_PYTHON``. icon4py comes from ``--site`` (or ``ICON4PY_PATH``),
installed by ``compat/icon4py/install.sh``::

    bash compat/icon4py/install.sh /tmp/icon4py .venv-3.12/bin/python
    GT4PY_RELEASED_PYTHON=... .venv-3.12/bin/python benchmarks/icon4py_granules.py \
        --site /tmp/icon4py --granules diffusion,dycore --runs 3

Released's cold dycore takes about 12 minutes on 2 cores; ``--only ours`` skips it.
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
from typing import Any

import _yardstick


RUN_GRANULES = pathlib.Path(__file__).resolve().parent.parent / "compat/icon4py/run_granules.py"
BACKEND = "gtfn_cpu"


def run_once(python: str, site: str, granule: str, steps: int, cache: str) -> dict[str, Any]:
    """One new process: the granule built and stepped; its report (raises on a failure)."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = f"{pathlib.Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(
        PYTHONPATH=site, GT4PY_BUILD_CACHE_LIFETIME="persistent", GT4PY_BUILD_CACHE_DIR=cache
    )
    with tempfile.TemporaryDirectory(prefix="gt4py-granule-") as out:
        command = [python, str(RUN_GRANULES), "--granule", granule, "--backend", BACKEND]
        command += ["--steps", str(steps), "--out", out]
        completed = subprocess.run(
            command, cwd=out, env=env, capture_output=True, text=True, timeout=3600
        )
        report_file = pathlib.Path(out) / "report.json"
        if completed.returncode != 0 or not report_file.is_file():
            raise RuntimeError(f"{' '.join(command)}:\n{completed.stderr[-3000:]}")
        report: dict[str, Any] = json.loads(report_file.read_text())
    if report["failures"]:
        raise RuntimeError(f"{granule} on {python}: {report['failures'][0]}")
    return report


def measure(python: str, site: str, granule: str, steps: int, runs: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gt4py-granule-cache-") as cache:
        cold = run_once(python, site, granule, steps, cache)
        warm = [run_once(python, site, granule, steps, cache) for _ in range(runs)]
    return {
        "cold construction": cold["construction_s"],
        "cold first step": cold["first_step_s"],
        "warm construction": statistics.median(r["construction_s"] for r in warm),
        "warm first step": statistics.median(r["first_step_s"] for r in warm),
        "steady step": statistics.median(r["steady_step_median_s"] for r in warm),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=os.environ.get("ICON4PY_PATH"))
    parser.add_argument("--granules", default="diffusion,dycore")
    parser.add_argument("--runs", type=int, default=3, help="warm runs (new process each)")
    parser.add_argument(
        "--steps", type=int, default=8, help="steps per run (a dycore step is one substep)"
    )
    parser.add_argument("--only", choices=("ours", "released"))
    parser.add_argument("--json", type=pathlib.Path, help="also write the figures here")
    args = parser.parse_args()
    if not args.site:
        raise SystemExit("icon4py not found: pass --site DIR or set ICON4PY_PATH")
    pythons = _yardstick.interpreters()
    if "released 1.2.3" not in pythons:
        print(_yardstick.missing_released_hint())
    if args.only:
        pythons = {k: v for k, v in pythons.items() if k.startswith(args.only)}
    results: dict[str, dict[str, dict[str, float]]] = {}
    print(f"{'granule':10} {'':16} {'measure':18} {'seconds':>10}   ({BACKEND}, warm = median)")
    for granule in args.granules.split(","):
        for label, python in pythons.items():
            figures = measure(python, args.site, granule, args.steps, args.runs)
            results.setdefault(granule, {})[label] = figures
            for what, seconds in figures.items():
                print(f"{granule:10} {label:16} {what:18} {seconds:10.4f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
