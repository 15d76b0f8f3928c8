"""What the side-by-side benchmarks share: the workload scripts and the interpreters to run.

The workloads are our own scripts in ``workloads/`` (public API only, so they also run on
released gt4py). Interpreters come from environment variables, never from one machine's paths:

- ``GT4PY_RELEASED_PYTHON``: a Python with released gt4py 1.2.3 installed (its ``bin`` goes first
  on PATH, since its C++ builds need the cmake and ninja of that environment);
- ``GT4PY_BASELINE_PYTHON``: optionally, another checkout of this project (before/after a change).

Ours is the interpreter running the benchmark (``uv run python benchmarks/...``).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile
from typing import Any


WORKLOADS = pathlib.Path(__file__).resolve().parent / "workloads"
RELEASED_VARIABLE = "GT4PY_RELEASED_PYTHON"
BASELINE_VARIABLE = "GT4PY_BASELINE_PYTHON"


def released_python() -> str | None:
    """The released-gt4py interpreter, or None (the caller says how to set it)."""
    return _interpreter(RELEASED_VARIABLE)


def baseline_python() -> str | None:
    return _interpreter(BASELINE_VARIABLE)


def _interpreter(variable: str) -> str | None:
    value = os.environ.get(variable)
    if not value:
        return None
    if not pathlib.Path(value).is_file():
        raise SystemExit(f"{variable}={value!r} is not an interpreter")
    return value


def missing_released_hint() -> str:
    return (
        f"released gt4py not measured: set {RELEASED_VARIABLE} to a Python with gt4py==1.2.3 "
        "(e.g. uv venv -p 3.12 R && uv pip install -p R/bin/python 'gt4py[standard]==1.2.3')"
    )


def interpreters() -> dict[str, str]:
    """label -> interpreter: ours, then the baseline and released ones that are set."""
    found = {"ours": sys.executable}
    if baseline := baseline_python():
        found["baseline"] = baseline
    if released := released_python():
        found["released 1.2.3"] = released
    return found


def run_workload(
    python: str,
    workload: str,
    *args: str,
    cache_dir: str | os.PathLike[str] | None = None,
    extra_env: dict[str, str] | None = None,
    timeout: float = 1800,
) -> dict[str, Any]:
    """Run ``workloads/<workload>.py`` with ``python`` in a fresh process; its JSON line.

    With ``cache_dir`` the build caches are persistent there (a fresh directory: cold; the same
    again: warm), for both stacks and for released GTScript too (``GT_CACHE_ROOT``). The
    process starts in a scratch directory, so nothing of the repository's working directory is
    importable by accident.
    """
    # The interpreter variables are the harness's, not the workload's: left in, ours would see
    # two unknown GT4PY_* variables and warn on its first setting read (with a did-you-mean
    # search), which cost its first decoration ~150-250 ms at load 14 (issue 44.8).
    harness = {"VIRTUAL_ENV", "PYTHONPATH", RELEASED_VARIABLE, BASELINE_VARIABLE}
    env = {k: v for k, v in os.environ.items() if k not in harness}
    env["PATH"] = f"{pathlib.Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
    if cache_dir is not None:
        env.update(GT4PY_BUILD_CACHE_LIFETIME="persistent", GT4PY_BUILD_CACHE_DIR=str(cache_dir))
        if python == released_python():
            # Released GTScript ignores GT4PY_BUILD_CACHE_DIR: its cache is
            # $GT_CACHE_ROOT/.gt_cache*, the root defaulting to the working directory, which is
            # a fresh scratch directory per run below. Without this every released GTScript run
            # would be a cold build (ours reads GT_CACHE_ROOT only as a deprecated alias).
            env["GT_CACHE_ROOT"] = str(cache_dir)
    env.update(extra_env or {})
    script = WORKLOADS / f"{workload}.py"
    with tempfile.TemporaryDirectory(prefix="gt4py-bench-") as scratch:
        completed = subprocess.run(
            [python, str(script), *args],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    if completed.returncode != 0:
        raise RuntimeError(f"{python} {script.name} {' '.join(args)}:\n{completed.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    if not result.get("correct", True):
        raise RuntimeError(f"{python} {script.name} {' '.join(args)}: wrong result {result}")
    return result
