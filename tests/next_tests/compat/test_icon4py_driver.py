"""icon4py 0.4.1's whole model runs on this gt4py.next through icon4py's own driver.

compat/icon4py/run_driver.py does what the ``icon4py-driver`` console script does, on a torus
grid file it writes itself (compat/icon4py/torus_gridfile.py: 240 cells, edge 500 m): the
GridManager reads it, ``driver.run_driver`` builds the vertical grid, the Gaussian-hill
topography, the geometry / interpolation / metrics field factories (every static field
computed by gt4py programs), Diffusion, SolveNonhydro and tracer Advection, the Gauss3D
initial condition (plus a tracer blob), and runs 3 time steps (5 dynamics substeps each) with
one advected tracer. The test runs it in subprocesses on ``embedded_numpy`` (the gt4py
backend object) and on ``gtfn_cpu`` (icon4py's backend name: ``model_options`` builds it with
``gtfn.GTFNBackendFactory``), requires every step to run with finite fields and the two to
agree at rtol 1e-10 on every step (compare_driver.py: relative to each field's magnitude), and
both to agree with the stored oracle of released gt4py 1.2.3 with ``gtx.gtfn_cpu``
(compat/icon4py/oracle/driver_released_gtfn_cpu.npz, made by make_driver_oracle.sh) after the
last step; that comparison is skipped while no oracle is stored. Released's own embedded
execution cannot run the driver (its concat_where).

Needs icon4py (``compat/icon4py/install.sh DIR``; ``ICON4PY_PATH=DIR``), as test_icon4py.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import pytest


HARNESS = pathlib.Path(__file__).resolve().parents[3] / "compat" / "icon4py"
ORACLE = HARNESS / "oracle" / "driver_released_gtfn_cpu.npz"
STEPS = 3
RTOL = 1e-10


def _compare():
    spec = importlib.util.spec_from_file_location(
        "icon4py_compat_driver", HARNESS / "compare_driver.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
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


@pytest.fixture(scope="module")
def icon4py_paths() -> list[str]:
    paths = _icon4py_path()
    if not paths or not any(
        (pathlib.Path(p) / "icon4py" / "model" / "driver").is_dir() for p in paths
    ):
        pytest.skip(
            "icon4py's driver is not available: run compat/icon4py/install.sh DIR and set "
            "ICON4PY_PATH=DIR"
        )
    return paths


def _run(backend: str, out: pathlib.Path, paths: list[str]) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    cmd = [
        sys.executable, "-W", "ignore", str(HARNESS / "run_driver.py"),
        "--backend", backend, "--steps", str(STEPS), "--out", str(out),
    ]  # fmt: skip
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    report_path = out / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    failures = [f"{f['stage']}: {f['type']}: {f['message']}" for f in report.get("failures", [])]
    assert proc.returncode == 0, (
        f"driver on {backend}: rc={proc.returncode} failures={failures} "
        f"nonfinite={report.get('nonfinite')}\n{proc.stderr[-4000:]}"
    )
    assert report["ok"] and report["steps_run"] == STEPS, report
    return report


@pytest.fixture(scope="module")
def driver_runs(tmp_path_factory, icon4py_paths) -> dict[str, pathlib.Path]:
    """The driver's 3 steps on embedded_numpy and on icon4py's gtfn_cpu (each checked)."""
    root = tmp_path_factory.mktemp("icon4py_driver")
    runs = {}
    for backend in ("embedded", "gtfn_cpu"):
        runs[backend] = root / backend
        _run(backend, runs[backend], icon4py_paths)
    return runs


@pytest.mark.slow
@pytest.mark.compat
@pytest.mark.timeout(3600)
def test_icon4py_driver_embedded_vs_gtfn_cpu(driver_runs):
    between = _compare().compare_runs(driver_runs["embedded"], driver_runs["gtfn_cpu"])
    assert {"vn", "w", "rho", "exner", "theta_v", "tracer.qv"} <= set(between)
    assert all(d <= RTOL for d in between.values()), between


@pytest.mark.slow
@pytest.mark.compat
@pytest.mark.timeout(3600)
def test_icon4py_driver_vs_released_oracle(driver_runs):
    if not ORACLE.exists():
        pytest.skip(f"no released oracle stored at {ORACLE} (compat/icon4py/make_driver_oracle.sh)")
    compare = _compare()
    for backend, out in driver_runs.items():
        diffs = compare.compare_with_oracle(out, ORACLE)
        assert all(d <= RTOL for d in diffs.values()), (backend, diffs)


def test_compare_driver_reports_differences(tmp_path):
    import numpy as np

    compare = _compare()
    a, b = tmp_path / "a", tmp_path / "b"
    for d, scale in ((a, 1.0), (b, 1.0 + 1e-6)):
        d.mkdir()
        np.savez(d / "step_000.npz", vn=np.ones(3), w=np.zeros(3))
        np.savez(d / "step_001.npz", vn=np.full(3, 2.0 * scale), w=np.zeros(3))
    diffs = compare.compare_runs(a, b)
    assert diffs["w"] == 0.0 and 1e-7 < diffs["vn"] < 1e-6
    np.savez(tmp_path / "oracle.npz", vn=np.full(3, 2.0))
    assert compare.compare_with_oracle(a, tmp_path / "oracle.npz") == {"vn": 0.0, "w": float("inf")}
    (b / "step_001.npz").unlink()
    with pytest.raises(ValueError, match="step files"):
        compare.compare_runs(a, b)
