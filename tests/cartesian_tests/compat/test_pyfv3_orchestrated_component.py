"""A pyFV3 component DaCe-orchestrated by NDSL on this gt4py.cartesian equals its numpy run.

compat/pyfv3/run_component.py builds pyFV3's ``FillNegativeTracerValues`` (``fillz``) through
NDSL 2024.03.01's StencilFactory, in the environment compat/pyfv3/install.sh makes
(``PYFV3_VENV``; skipped when unset), twice in new processes: on ``numpy``, and on ``dace:cpu``
with ``FV3_DACEMODE=BuildAndRun``, where NDSL's ``orchestrate`` parses the component's
``__call__`` (a loop over nine tracers calling one stencil) into one SDFG through the stencils'
SDFG-convertible protocol, compiles it with DaCe and runs it. Every tracer must be bitwise
equal (issue 42). Cost: about 60 s on 2 cores (the orchestrated build about 35 s).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest


pytestmark = [pytest.mark.compat, pytest.mark.slow]

HARNESS = pathlib.Path(__file__).resolve().parents[3] / "compat" / "pyfv3"


def _run(venv: pathlib.Path, backend: str, out: pathlib.Path, mode: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GT4PY_", "GT_", "FV3_"))}
    env["FV3_DACEMODE"] = mode
    result = subprocess.run(
        [str(venv / "bin" / "python"), str(HARNESS / "run_component.py"), "--backend", backend,
         "--out", str(out), "--calls", "2"],
        cwd=out.parent, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    return json.loads((out / "timings.json").read_text())


def test_fillz_orchestrated_by_ndsl_on_dace_cpu_equals_numpy(tmp_path: pathlib.Path) -> None:
    venv = os.environ.get("PYFV3_VENV")
    if not venv:
        pytest.skip("PYFV3_VENV is unset (compat/pyfv3/install.sh VENV makes one)")
    plain = _run(pathlib.Path(venv), "numpy", tmp_path / "numpy", "Python")
    orchestrated = _run(pathlib.Path(venv), "dace:cpu", tmp_path / "orch", "BuildAndRun")
    assert not plain["orchestrated"] and orchestrated["orchestrated"]
    # the component did its work: most negative values are gone
    before, after = plain["negative_values_before_after"]
    assert after < before / 4
    want, got = np.load(tmp_path / "numpy/result.npz"), np.load(tmp_path / "orch/result.npz")
    assert sorted(want.files) == sorted(got.files) and len(want.files) >= 2
    for name in want.files:
        assert np.array_equal(want[name], got[name]), name
    assert not list(tmp_path.glob("*/.dacecache")) and not (tmp_path / ".dacecache").exists()
