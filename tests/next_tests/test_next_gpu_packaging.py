"""`pip install gt4py-next[cuda12]` (or [cuda13]) is the whole GPU story (ADR 0019): the extra
pulls cupy and nvcc with the CUDA runtime headers and library as wheels. Checked by resolving
the built wheels with ``uv pip install --dry-run`` (the package index is needed)."""

from __future__ import annotations

import subprocess
import sys

import pytest


pytestmark = pytest.mark.slow

EXPECTED = {
    "cuda12": {"cupy-cuda12x", "nvidia-cuda-nvcc-cu12", "nvidia-cuda-runtime-cu12"},
    "cuda13": {"cupy-cuda13x", "nvidia-cuda-nvcc", "nvidia-cuda-crt", "nvidia-cuda-runtime"},
}


@pytest.mark.parametrize("extra", sorted(EXPECTED))
def test_the_cuda_extra_pulls_cupy_nvcc_and_the_runtime(dist_dir, tmp_path, extra):
    venv = tmp_path / "venv"
    subprocess.run(["uv", "venv", "--quiet", "-p", sys.executable, str(venv)], check=True)
    result = subprocess.run(
        [
            "uv",
            "pip",
            "install",
            "--dry-run",
            "-p",
            str(venv / "bin" / "python"),
            "--find-links",
            str(dist_dir),
            f"gt4py-next[{extra}]",
        ],
        capture_output=True,
        text=True,
    )
    output = result.stdout + result.stderr
    if result.returncode != 0 and ("connect" in output.lower() or "network" in output.lower()):
        pytest.skip(f"the package index is not reachable: {output[-300:]}")
    assert result.returncode == 0, output
    installed = {
        line.split()[1].split("==")[0]
        for line in output.splitlines()
        if line.strip().startswith("+ ")
    }
    assert EXPECTED[extra] <= installed, output
    assert "gt4py-next" in installed
