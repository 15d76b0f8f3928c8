"""`pip install gt4py-next` pulls infra, eve and storage only, and the main job runs there."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest


REPO = pathlib.Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def test_next_wheel_installs_with_its_dependencies_only(dist_dir, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["uv", "venv", "--quiet", "-p", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            "uv",
            "pip",
            "install",
            "--quiet",
            "-p",
            str(python),
            "--find-links",
            str(dist_dir),
            "gt4py-next",
        ],
        check=True,
    )
    listed = subprocess.run(
        ["uv", "pip", "list", "-p", str(python), "--format", "freeze"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installed = {line.split("==")[0].lower() for line in listed.split()}
    assert {"gt4py-next", "gt4py-infra", "gt4py-eve", "gt4py-storage"} <= installed
    for unwanted in ("gt4py-cartesian", "dace", "jax"):
        assert unwanted not in installed
    assert not [name for name in installed if name.startswith("cupy")]
    # The README's main job runs from the installed wheel, outside the source tree.
    example = tmp_path / "next_laplacian.py"
    example.write_text((REPO / "examples" / "next_laplacian.py").read_text())
    out = subprocess.run(
        [str(python), str(example)], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "OK" in out.stdout
