"""gtfn_cpu, ours vs released gt4py 1.2.3, in one sitting: workloads/next_lap.py.

Ours (``uv run python`` from the repository root):
  cold (toolchain set up too)  - a fresh GT4PY_BUILD_CACHE_DIR;
  cold (toolchain warm)        - the same directory with everything but native/toolchains and
                                 native/tool-versions removed;
  warm (new process)           - the same directory again, as it is.
Released (``GT4PY_RELEASED_PYTHON``, cwd=/tmp, its own fresh cache dir with
GT4PY_BUILD_CACHE_LIFETIME=persistent): cold, then warm in a new process.

Ours runs REPEATS times (default 3, each in a fresh cache; the median first call is shown with
its range) with the default nanobind split mode, and once with GT4PY_NANOBIND_MODE=static.

Usage: python benchmarks/next_gtfn_compare.py [N] [K]
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import _yardstick


BENCH = str(_yardstick.WORKLOADS / "next_lap.py")
ANCHOR = _yardstick.released_python()
ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(command: list[str], cache: str, cwd: str, extra_env: dict[str, str]) -> dict:
    env = {**os.environ, "GT4PY_BUILD_CACHE_DIR": cache, **extra_env}
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1:] or ["?"]}
    return json.loads(result.stdout.strip().splitlines()[-1])


def keep_only_toolchain(cache: str) -> None:
    for entry in pathlib.Path(cache).iterdir():
        if entry.name != "native":
            shutil.rmtree(entry, ignore_errors=True)
    for entry in (pathlib.Path(cache) / "native").iterdir():
        if entry.name not in ("toolchains", "tool-versions"):
            shutil.rmtree(entry, ignore_errors=True)


def median_row(rows: list[dict]) -> dict:
    """The run with the median first call (its other figures are of the same run)."""
    good = sorted((r for r in rows if "error" not in r), key=lambda r: r["first_call_s"])
    if not good:
        return rows[0]
    row = dict(good[len(good) // 2])
    row["first_call_s"] = (
        f"{row['first_call_s']} ({good[0]['first_call_s']}-{good[-1]['first_call_s']})"
    )
    return row


def main() -> None:
    sizes = sys.argv[1:]
    repeats = int(os.environ.get("REPEATS", "3"))
    rows: dict[str, dict] = {}
    ours = ["uv", "run", "python", BENCH, "gtfn_cpu", *sizes]
    for label, env in (("", {}), (", static nanobind", {"GT4PY_NANOBIND_MODE": "static"})):
        cold, cold_warm_toolchain, warm = [], [], []
        for _ in range(repeats if not env else 1):
            with tempfile.TemporaryDirectory() as cache:
                cold.append(run(ours, cache, str(ROOT), env))
                keep_only_toolchain(cache)
                cold_warm_toolchain.append(run(ours, cache, str(ROOT), env))
                warm.append(run(ours, cache, str(ROOT), env))
        rows[f"ours cold{label}"] = median_row(cold)
        rows[f"ours cold, toolchain ready{label}"] = median_row(cold_warm_toolchain)
        rows[f"ours warm new process{label}"] = median_row(warm)
    if ANCHOR is None:
        print(_yardstick.missing_released_hint())
    else:
        released = [ANCHOR, BENCH, "gtfn_cpu", *sizes]
        env = {
            "PATH": f"{pathlib.Path(ANCHOR).parent}:{os.environ['PATH']}",
            "GT4PY_BUILD_CACHE_LIFETIME": "persistent",
        }
        with tempfile.TemporaryDirectory() as cache:
            rows["released cold"] = run(released, cache, "/tmp", env)
            rows["released warm new process"] = run(released, cache, "/tmp", env)
    print(f"{'run':42} {'first call s':>22} {'steady s':>10} {'8x8x1 call s':>13} correct")
    for name, row in rows.items():
        if "error" in row:
            print(f"{name:42} error: {row['error']}")
            continue
        print(
            f"{name:42} {row['first_call_s']!s:>22} {row['steady_median_s']:>10} "
            f"{row['small_call_median_s']:>13} {row['correct']}"
        )


if __name__ == "__main__":
    main()
