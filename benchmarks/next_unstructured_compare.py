"""Unstructured programs (div over cell->edge, grad over edge->cell), ours vs released gt4py
1.2.3, in one sitting: workloads/next_unstructured.py (periodic triangular mesh, 20 000
cells x 80 levels by default).

Runs, each in a new process with its own fresh GT4PY_BUILD_CACHE_DIR:
  ours gtfn_cpu       - ``uv run python`` from the repository root;
  ours embedded       - the same, embedded_numpy (the reference semantics);
  released gtfn_cpu   - ``GT4PY_RELEASED_PYTHON``, cwd=/tmp, its bin first on PATH.
Prints first-call times and steady medians side by side, and the ours/released ratios.

Usage: python benchmarks/next_unstructured_compare.py [NX] [K]
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile
from typing import Any

import _yardstick


BENCH = str(_yardstick.WORKLOADS / "next_unstructured.py")
ANCHOR = _yardstick.released_python()
ROOT = pathlib.Path(__file__).resolve().parents[1]
COLUMNS = ("div_first_s", "div_steady_s", "grad_first_s", "grad_steady_s", "correct")


def run(command: list[str], cwd: str, extra_env: dict[str, str]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "GT4PY_BUILD_CACHE_DIR": cache, **extra_env}
        result = subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, check=False
        )
    if result.returncode != 0:
        return {"error": "\n".join(result.stderr.strip().splitlines()[-5:]) or "?"}
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def main() -> None:
    sizes = sys.argv[1:]
    rows: dict[str, dict[str, Any]] = {}
    rows["ours gtfn_cpu"] = run(["uv", "run", "python", BENCH, "gtfn_cpu", *sizes], str(ROOT), {})
    if ANCHOR is None:
        print(_yardstick.missing_released_hint())
    else:
        env = {"PATH": f"{pathlib.Path(ANCHOR).parent}:{os.environ['PATH']}"}
        rows["released gtfn_cpu"] = run([ANCHOR, BENCH, "gtfn_cpu", *sizes], "/tmp", env)
    rows["ours embedded"] = run(["uv", "run", "python", BENCH, "embedded", *sizes], str(ROOT), {})

    print(f"{'run':20} " + " ".join(f"{c:>14}" for c in COLUMNS))
    for name, row in rows.items():
        if "error" in row:
            print(f"{name:20} error:\n{row['error']}")
            continue
        print(f"{name:20} " + " ".join(f"{row[c]!s:>14}" for c in COLUMNS))
    ours, released = rows.get("ours gtfn_cpu", {}), rows.get("released gtfn_cpu", {})
    if "error" not in ours and ours and "error" not in released and released:
        for column in ("div_steady_s", "grad_steady_s", "div_first_s"):
            print(f"ours/released {column}: {ours[column] / released[column]:.2f}x")


if __name__ == "__main__":
    main()
