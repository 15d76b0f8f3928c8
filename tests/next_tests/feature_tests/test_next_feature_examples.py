"""The gt4py.next examples run as scripts and confirm their results against numpy."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest


EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.slow
@pytest.mark.parametrize(
    "script", ["next_laplacian.py", "next_unstructured.py", "next_vertical_solve.py"]
)
def test_example_runs_and_matches_numpy(script):
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / script)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OK: matches numpy" in result.stdout
