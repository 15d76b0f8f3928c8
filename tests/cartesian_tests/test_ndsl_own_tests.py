"""NOAA-GFDL's NDSL (develop 3bd38245) runs its own stencil tests on this gt4py.cartesian.

NDSL is the framework every production GTScript model goes through (pyFV3, pySHiELD, GEOS).
Its tests run in a scratch environment made by ``compat/ndsl/install.sh VENV`` (NDSL from
``../shared/thirdparty``, this repository's packages editable), pointed at by ``NDSL_VENV``;
without it the test skips. What released gt4py 1.2.3 passes of the same selection is in
``compat/ndsl/released_counts.txt`` (ours must pass at least that, and fail nothing): the test
files of the stencil factory, stencil config, compilation config, basic operations,
boilerplate, 4-D fields and field bundles (and of NDSL's stencil, stencil wrapper, skip_passes
and partitioner), their DaCe-parametrised cases included (issue 42: 30 cases, ``dace:cpu`` and
``orch:dace:cpu``, pass on ours as on released), and NDSL's orchestration and DaCe folders
(``tests/dsl/orchestration``, ``tests/dsl/dace``: orchestrated programs, NDSL's
schedule-tree round trip and its map-merge and transient-refinement passes).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess

import pytest


pytestmark = [pytest.mark.compat, pytest.mark.slow]

REPO = pathlib.Path(__file__).resolve().parents[2]
SELECTION = [
    "tests/dsl/test_stencil_factory.py",
    "tests/dsl/test_stencil_config.py",
    "tests/dsl/test_compilation_config.py",
    "tests/dsl/test_stencil.py",
    "tests/dsl/test_stencil_wrapper.py",
    "tests/dsl/test_skip_passes.py",
    "tests/test_basic_operations.py",
    "tests/test_boilerplate.py",
    "tests/test_4d_fields.py",
    "tests/quantity/test_fieldbundle.py",
    "tests/test_partitioner.py",
    "tests/dsl/orchestration",
    "tests/dsl/dace",
]


def _counts(output: str) -> dict[str, int]:
    summary = output.strip().splitlines()[-1]
    return {kind: int(n) for n, kind in re.findall(r"(\d+) (\w+)", summary)}


def run_ndsl_tests(venv: pathlib.Path, cache: pathlib.Path) -> tuple[dict[str, int], str]:
    """NDSL's selected tests in ``venv`` with a fresh gt4py cache; (counts, output)."""
    source = venv / "ndsl-src"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GT4PY_", "GT_"))}
    env["GT4PY_BUILD_CACHE_DIR"] = str(cache / "gt4py")  # NDSL moves it to .gt_cache_000000
    command = [str(venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    result = subprocess.run(
        [*command, "-m", "not gpu", *SELECTION],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    return _counts(result.stdout), result.stdout[-6000:] + result.stderr[-3000:]


def test_ndsl_passes_its_own_stencil_tests(tmp_path: pathlib.Path) -> None:
    venv = os.environ.get("NDSL_VENV")
    if not venv:
        pytest.skip("NDSL_VENV is unset (compat/ndsl/install.sh VENV makes one)")
    counts, output = run_ndsl_tests(pathlib.Path(venv), tmp_path)
    expected = {
        kind: int(n)
        for kind, n in (
            line.split()
            for line in (REPO / "compat/ndsl/released_counts.txt").read_text().splitlines()
            if line and not line.startswith("#")
        )
    }
    assert counts.get("failed", 0) == 0 and counts.get("error", 0) == 0, output
    assert counts.get("passed", 0) >= expected["passed"], (counts, expected, output)
