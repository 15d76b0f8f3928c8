"""icon4py 0.4.1's diffusion granule runs on this gt4py.next the way icon4py's driver runs it.

compat/icon4py/run_granules.py builds icon4py's own IconGrid (the torus of grid.py, 240 cells),
vertical grid, DiffusionConfig defaults and ``diffusion.Diffusion`` (every program through
icon4py's ``model_options.setup_program``: with_backend, with_compilation_options(
enable_jit=False), compile, partial), and runs ``Diffusion.run`` for 3 steps, in a subprocess,
on embedded and on gtfn_cpu. The test asserts that both run every step with finite fields and
that they agree field by field, every step, at rtol 1e-10 (compare_granules.py).

Needs icon4py (``compat/icon4py/install.sh DIR``, which also installs DaCe and the other
module-level dependencies of the granules): ``ICON4PY_PATH=DIR`` as for test_icon4py.py.
``ICON4PY_GRANULE_REFERENCE=DIR``: a ``run_granules.py --granule diffusion --steps 3 --out
DIR`` directory (or DIR/diffusion, the layout ``nox -s compat`` reads) written under released
gt4py 1.2.3 (gtfn_cpu, at least 3 steps); then both runs are compared to it as well.

Run time on 2 cores: 187 s measured with a cold gtfn build cache on a loaded 2-core machine
(the C++ builds of the diffusion programs dominate; each of the two subprocesses also pays
~15-30 s for importing icon4py, DaCe, xarray and sympy); 16 s with a warm cache (idle machine).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest


HARNESS = pathlib.Path(__file__).resolve().parents[3] / "compat" / "icon4py"
STEPS = 3
RTOL = 1e-10


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"icon4py_compat_{name}", HARNESS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _icon4py_path() -> list[str] | None:
    env = os.environ.get("ICON4PY_PATH")
    if env:
        return [p for p in env.split(os.pathsep) if p]
    spec = importlib.util.find_spec("icon4py")
    if spec is not None and spec.submodule_search_locations:
        return [str(pathlib.Path(next(iter(spec.submodule_search_locations))).parent)]
    return None


def _run(granule: str, backend: str, out: pathlib.Path, paths: list[str]) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    cmd = [
        sys.executable, "-W", "ignore", str(HARNESS / "run_granules.py"),
        "--granule", granule, "--backend", backend, "--steps", str(STEPS), "--out", str(out),
    ]  # fmt: skip
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    report_path = out / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    failures = [f"{f['stage']}: {f['type']}: {f['message']}" for f in report.get("failures", [])]
    assert proc.returncode == 0, (
        f"{granule} on {backend}: rc={proc.returncode} failures={failures} "
        f"nonfinite={report.get('nonfinite')}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    )
    return report


@pytest.fixture(scope="module")
def icon4py_paths() -> list[str]:
    paths = _icon4py_path()
    if not paths or not any((pathlib.Path(p) / "icon4py").is_dir() for p in paths):
        pytest.skip(
            "icon4py is not available: run compat/icon4py/install.sh DIR and set ICON4PY_PATH=DIR"
        )
    return paths


@pytest.mark.slow
@pytest.mark.compat
@pytest.mark.timeout(3600)
def test_diffusion_granule_embedded_vs_gtfn_cpu(tmp_path, icon4py_paths):
    compare = _load("compare_granules")
    runs = {}
    for backend in ("embedded", "gtfn_cpu"):
        out = tmp_path / backend
        report = _run("diffusion", backend, out, icon4py_paths)
        assert report["ok"] and report["steps_run"] == STEPS, report
        for step in range(STEPS + 1):
            with np.load(out / f"step_{step:03d}.npz") as f:
                bad = [k for k in f.files if f[k].dtype.kind == "f" and not np.isfinite(f[k]).all()]
            assert not bad, f"{backend} step {step}: non-finite {bad}"
        runs[backend] = out

    result = compare.compare(runs["embedded"], runs["gtfn_cpu"], RTOL)
    assert result["inputs_identical"], result["problems"]
    assert result["ok"], (result["problems"], result["max_rel_diff"])

    reference = os.environ.get("ICON4PY_GRANULE_REFERENCE")
    if reference:
        ref = pathlib.Path(reference)
        ref = ref / "diffusion" if (ref / "diffusion").is_dir() else ref
        assert (ref / "report.json").exists(), f"no run_granules.py output in {ref}"
        for backend, out in runs.items():
            result = compare.compare(ref, out, RTOL)
            assert result["inputs_identical"], (backend, result["problems"])
            assert result["ok"], (backend, result["problems"], result["max_rel_diff"])
