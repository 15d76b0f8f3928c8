"""icon4py's driver, side by side: this gt4py.next vs released gt4py 1.2.3, in one run.

For each implementation, two processes of compat/icon4py/run_driver.py (the ``icon4py-driver``
steps on the 240-cell torus, Gaussian hill, one advected tracer) on the gtfn C++ backend:

* cold: a new, empty build cache (``GT4PY_BUILD_CACHE_DIR``, persistent) — every static-field
  program of the factories and every granule program is translated and built;
* warm: a new process on the same cache.

Reported per run (from run_driver.py's report.json): the time from the end of the imports to
the end of the first time step (grid file, grid manager, ``initialize_driver``, the initial
condition, the first step with its remaining builds; ``to_first_step_s``), the import time,
and the steady step time (median of steps 2..N). Ours runs icon4py's backend name ``gtfn_cpu``
(``model_options`` -> ``gtfn.GTFNBackendFactory``); released runs ``gtx.gtfn_cpu`` (it has no
``GTFNBackendFactory``).

    ICON4PY_PATH=DIR GT4PY_RELEASED_PYTHON=/venv/bin/python \\
        uv run --python 3.12 python benchmarks/icon4py_driver_vs_released.py [--steps 8]

``DIR``: compat/icon4py/install.sh's directory. Without ``GT4PY_RELEASED_PYTHON`` only ours
runs. The released interpreter's directory goes first on PATH (its cmake/ninja). Issue 43's
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


RUN_DRIVER = pathlib.Path(__file__).resolve().parents[1] / "compat" / "icon4py" / "run_driver.py"


def _run(python: str, backend: str, cache: pathlib.Path, out: pathlib.Path, steps: int) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.environ.get("ICON4PY_PATH", ""), env.get("PYTHONPATH", "")) if p
    )
    env["GT4PY_BUILD_CACHE_DIR"] = str(cache)
    env["GT4PY_BUILD_CACHE_LIFETIME"] = "persistent"
    env["PATH"] = f"{pathlib.Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    cmd = [python, "-W", "ignore", str(RUN_DRIVER), "--backend", backend]
    cmd += ["--steps", str(steps), "--out", str(out)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else {}
    if proc.returncode != 0:
        failures = [f"{f['stage']}: {f['message'][:300]}" for f in report.get("failures", [])]
        raise RuntimeError(f"{' '.join(cmd)} failed: {failures}\n{proc.stderr[-3000:]}")
    t = report["timings"]
    return {
        "import_s": t["import_s"],
        "to_first_step_s": t["to_first_step_s"],
        "initialize_driver_s": t.get("initialize_driver_s"),
        "steady_step_s": statistics.median(t["step_s"][1:]),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=8)
    args = parser.parse_args()
    if not os.environ.get("ICON4PY_PATH"):
        parser.error("set ICON4PY_PATH to compat/icon4py/install.sh's directory")
    impls = {"ours": (sys.executable, "gtfn_cpu")}
    released = os.environ.get("GT4PY_RELEASED_PYTHON")
    if released:
        impls["released"] = (released, "gtx.gtfn_cpu")
    else:
        print("GT4PY_RELEASED_PYTHON unset: released gt4py is not run", file=sys.stderr)
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (python, backend) in impls.items():
            cache = pathlib.Path(tmp) / f"cache-{name}"
            for kind in ("cold", "warm"):
                out = pathlib.Path(tmp) / f"{name}-{kind}"
                results.setdefault(name, {})[kind] = r = _run(
                    python, backend, cache, out, args.steps
                )
                print(f"{name:8} {kind}: {json.dumps(r)}", flush=True)
    print(f"\n{'':8} {'cold to 1st step':>17} {'warm to 1st step':>17} {'steady step':>12}")
    for name, r in results.items():
        print(
            f"{name:8} {r['cold']['to_first_step_s']:>16.1f}s {r['warm']['to_first_step_s']:>16.2f}s "
            f"{r['warm']['steady_step_s'] * 1e3:>10.1f}ms"
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
