"""pyFV3's DynamicalCore through NDSL on 6 MPI ranks, this gt4py against released gt4py 1.2.3,
side by side in one script: ``import ndsl``, the dycore's construction with an empty stencil
cache (cold) and with the cache the cold run left (warm, a new set of processes), and the step.

Both environments are made by ``compat/pyfv3/install.sh`` (ours: this repository's packages;
released: ``released``) and named by environment variables:

    PYFV3_OURS_VENV=/tmp/pyfv3-ours PYFV3_RELEASED_VENV=/tmp/pyfv3-rel \\
        python benchmarks/pyfv3_dycore_vs_released.py --backend numpy [--warm-runs 2] \\
        [--work DIR] [--skip-cold]

Each run is ``mpirun -n 6 python compat/pyfv3/run_dycore.py`` (c12, 9 levels, 2 steps, NDSL's
minimal caching: rank 0 builds, the others load); the figures are rank 0's
``timings-rank0.json``. Equal work: each side keeps its own stencil cache under ``--work`` (for
released that is its ``GT_CACHE_ROOT``-equivalent cache root: run_dycore.py's ``--cache-root``),
the cold run starts from an empty one, the warm runs reuse it. ``--skip-cold`` reuses the
caches a former run of this script left in ``--work`` (warm figures only).

Waiting ranks: run_dycore.py sets mpich's throttled progress for both sides (its
``MPICH_QUIET_WAIT``: waiting ranks sleep between polls instead of spinning).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time


HARNESS = pathlib.Path(__file__).resolve().parent.parent / "compat" / "pyfv3" / "run_dycore.py"


def _import_seconds(venv: pathlib.Path) -> float:
    start = time.perf_counter()
    subprocess.run([str(venv / "bin" / "python"), "-c", "import ndsl"], check=True)
    return time.perf_counter() - start


def _run(venv: pathlib.Path, backend: str, out: pathlib.Path, cache: pathlib.Path) -> dict:
    shutil.rmtree(out, ignore_errors=True)
    command = [str(venv / "bin" / "mpirun"), "-n", "6", str(venv / "bin" / "python")]
    command += [str(HARNESS), "--backend", backend, "--steps", "2"]
    command += ["--out", str(out), "--cache-root", str(cache)]
    log = out.with_suffix(".log")
    with log.open("w") as stream:
        result = subprocess.run(command, stdout=stream, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({result.returncode}); see {log}")
    timings: dict = json.loads((out / "timings-rank0.json").read_text())
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--warm-runs", type=int, default=2)
    parser.add_argument("--import-runs", type=int, default=3)
    parser.add_argument("--work", type=pathlib.Path, default=pathlib.Path("pyfv3-bench"))
    parser.add_argument("--skip-cold", action="store_true")
    args = parser.parse_args()
    venvs = {
        "ours": os.environ.get("PYFV3_OURS_VENV"),
        "released 1.2.3": os.environ.get("PYFV3_RELEASED_VENV"),
    }
    missing = [name for name, venv in venvs.items() if not venv]
    if missing:
        print(f"set PYFV3_OURS_VENV and PYFV3_RELEASED_VENV ({', '.join(missing)} unset)")
        return 2
    rows: dict[str, dict[str, str]] = {}
    for side, venv_text in venvs.items():
        assert venv_text is not None
        venv = pathlib.Path(venv_text)
        work = args.work / side.split()[0] / args.backend.replace(":", "_")
        work.mkdir(parents=True, exist_ok=True)
        cache = work / "cache"
        _import_seconds(venv)  # file system cache and bytecode
        imports = [_import_seconds(venv) for _ in range(args.import_runs)]
        row = {"import ndsl": f"{statistics.median(imports):.1f} s"}
        steps: list[float] = []
        if not args.skip_cold:
            shutil.rmtree(cache, ignore_errors=True)
            cold = _run(venv, args.backend, work / "cold", cache)
            row["construction, cold"] = f"{cold['construction_s']:.1f} s"
            steps += cold["step_s"]
        warm = [_run(venv, args.backend, work / f"warm{i}", cache) for i in range(args.warm_runs)]
        if warm:
            construction = statistics.median(w["construction_s"] for w in warm)
            row["construction, warm (new processes)"] = f"{construction:.1f} s"
            steps += [s for w in warm for s in w["step_s"]]
        if steps:
            row["step (median)"] = f"{statistics.median(steps):.2f} s"
        rows[side] = row
        print(f"{side}: {json.dumps(row)}", flush=True)
    print(f"\nbackend {args.backend}, load {os.getloadavg()[0]:.1f}")
    keys = list(dict.fromkeys(k for row in rows.values() for k in row))
    print("| | " + " | ".join(rows) + " |")
    print("| --- |" + " --- |" * len(rows))
    for key in keys:
        print(f"| {key} | " + " | ".join(row.get(key, "-") for row in rows.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
