"""icon4py's driver, side by side: this gt4py.next vs released gt4py 1.2.3, in one run.

For each implementation, two processes of compat/icon4py/run_driver.py (the ``icon4py-driver``
steps on the 240-cell torus, Gaussian hill, one advected tracer) on the gtfn C++ backend:

* cold: a new, empty build cache (``GT4PY_BUILD_CACHE_DIR``, persistent) — every static-field
  program of the factories and every granule program is translated and built;
* warm: new processes on the same cache (``--repeats`` of them; medians reported).

Python's bytecode is cached as a normal installation does it (``PYTHONDONTWRITEBYTECODE`` is
removed from the children's environment, for both implementations: some CI images set it, and
then every process compiles gt4py's, icon4py's and their dependencies' sources again).
Each run records the 1-minute load average before it (``load``): on a shared machine the
wall-clock figures scale with it, so ``to_first_step_cpu_s`` (the CPU time of the same span)
is reported beside them.

Reported per run (from run_driver.py's report.json): the time from the end of the imports to
the end of the first time step (grid file, grid manager, ``initialize_driver``, the initial
condition, the first step with its remaining builds; ``to_first_step_s``), the import time,
and the steady step time (median of steps 2..N). Ours runs icon4py's backend name ``gtfn_cpu``
(``model_options`` -> ``gtfn.GTFNBackendFactory``); released runs ``gtx.gtfn_cpu`` (it has no
``GTFNBackendFactory``).

    ICON4PY_PATH=DIR GT4PY_RELEASED_PYTHON=/venv/bin/python \\
        uv run --python 3.12 python benchmarks/icon4py_driver_vs_released.py [--steps 8]

``DIR``: compat/icon4py/install.sh's directory. Without ``GT4PY_RELEASED_PYTHON`` only ours
runs. The released interpreter's directory goes first on PATH (its cmake/ninja). Released's
cold run takes hours on a loaded 2-core machine: ``--released-cache DIR`` (the build cache
``compat/icon4py/make_driver_oracle.sh`` filled, its ``SCRATCH_DIR/cache``) with
``--released-cold-report FILE`` (that run's report.json) take its cold figure from there and
run only the warm ones. Issue 43's
targets: warm <= 2 s to the first step, cold <= 1/10 of released's, steady step <= 0.5x
released's.
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


RUN_DRIVER = pathlib.Path(__file__).resolve().parents[1] / "compat" / "icon4py" / "run_driver.py"


def _load() -> float:
    try:
        return float(pathlib.Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


def _summary(report: dict, load: float) -> dict:
    t = report["timings"]
    return {
        "import_s": t["import_s"],
        "to_first_step_s": t["to_first_step_s"],
        "to_first_step_cpu_s": t.get("to_first_step_cpu_s"),
        "initialize_driver_s": t.get("initialize_driver_s"),
        "steady_step_s": statistics.median(t["step_s"][1:]),
        "load": load,
    }


def _run(python: str, backend: str, cache: pathlib.Path, out: pathlib.Path, steps: int) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.environ.get("ICON4PY_PATH", ""), env.get("PYTHONPATH", "")) if p
    )
    env["GT4PY_BUILD_CACHE_DIR"] = str(cache)
    env["GT4PY_BUILD_CACHE_LIFETIME"] = "persistent"
    env["PATH"] = f"{pathlib.Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    cmd = [python, "-W", "ignore", str(RUN_DRIVER), "--backend", backend]
    cmd += ["--steps", str(steps), "--out", str(out)]
    load = _load()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else {}
    if proc.returncode != 0:
        failures = [f"{f['stage']}: {f['message'][:300]}" for f in report.get("failures", [])]
        raise RuntimeError(f"{' '.join(cmd)} failed: {failures}\n{proc.stderr[-3000:]}")
    return _summary(report, load)


def _median(runs: list[dict]) -> dict:
    return {
        k: statistics.median(r[k] for r in runs)
        for k in runs[0]
        if all(isinstance(r[k], float | int) for r in runs)
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3, help="warm runs per implementation")
    parser.add_argument("--released-cache", type=pathlib.Path, default=None)
    parser.add_argument("--released-cold-report", type=pathlib.Path, default=None)
    args = parser.parse_args()
    if not os.environ.get("ICON4PY_PATH"):
        parser.error("set ICON4PY_PATH to compat/icon4py/install.sh's directory")
    if (args.released_cache is None) != (args.released_cold_report is None):
        parser.error("--released-cache and --released-cold-report go together")
    if args.repeats < 1 or args.steps < 2:
        parser.error("--repeats must be >= 1 and --steps >= 2 (the steady step is steps 2..N)")
    impls = {"ours": (sys.executable, "gtfn_cpu")}
    released = os.environ.get("GT4PY_RELEASED_PYTHON")
    if released:
        impls["released"] = (released, "gtx.gtfn_cpu")
    else:
        print("GT4PY_RELEASED_PYTHON unset: released gt4py is not run", file=sys.stderr)
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (python, backend) in impls.items():
            cache = pathlib.Path(tmp) / f"cache-{name}"
            if name == "released" and args.released_cache is not None:
                cache = args.released_cache
                report = json.loads(args.released_cold_report.read_text())
                cold = _summary(report, float("nan"))
                cold["from"] = str(args.released_cold_report)
            else:
                cold = _run(python, backend, cache, pathlib.Path(tmp) / f"{name}-cold", args.steps)
            print(f"{name:8} cold: {json.dumps(cold)}", flush=True)
            warm = []
            for n in range(args.repeats):
                out = pathlib.Path(tmp) / f"{name}-warm{n}"
                warm.append(_run(python, backend, cache, out, args.steps))
                print(f"{name:8} warm: {json.dumps(warm[-1])}", flush=True)
            results[name] = {"cold": cold, "warm": _median(warm), "warm_runs": warm}
    print(
        f"\n{'':8} {'cold to 1st step':>17} {'warm to 1st step':>17} {'(CPU)':>8} "
        f"{'steady step':>12} {'load':>6}   (warm: medians of {args.repeats})"
    )
    for name, r in results.items():
        cold, warm = r["cold"], r["warm"]
        print(
            f"{name:8} {cold['to_first_step_s']:>16.1f}s {warm['to_first_step_s']:>16.2f}s "
            f"{warm.get('to_first_step_cpu_s', float('nan')):>7.2f}s "
            f"{warm['steady_step_s'] * 1e3:>10.1f}ms {warm['load']:>6.1f}"
        )
    if "released" in results:
        ours, rel = results["ours"], results["released"]
        print(
            f"ratios ours/released: cold {ours['cold']['to_first_step_s'] / rel['cold']['to_first_step_s']:.3f} "
            f"(target <= 0.1), warm to first step {ours['warm']['to_first_step_s']:.2f} s "
            f"(target <= 2 s), steady {ours['warm']['steady_step_s'] / rel['warm']['steady_step_s']:.2f} "
            "(target <= 0.5)"
        )
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
