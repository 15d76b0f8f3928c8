"""A warm gtfn cache needs no C++ compiler (ADR 0018): a new process on a filled cache, with
no compiler on PATH and CXX pointing nowhere, runs a program built by an earlier process."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest


pytestmark = pytest.mark.slow

PROGRAM = textwrap.dedent(
    """\
    import numpy as np
    import gt4py.next as gtx

    I = gtx.Dimension("I")

    @gtx.field_operator
    def add(a: gtx.Field[[I], gtx.float64], b: gtx.Field[[I], gtx.float64]) -> gtx.Field[[I], gtx.float64]:
        return a + 2.0 * b

    @gtx.program(backend=gtx.gtfn_cpu)
    def program(a: gtx.Field[[I], gtx.float64], b: gtx.Field[[I], gtx.float64], out: gtx.Field[[I], gtx.float64]):
        add(a, b, out=out)

    a = gtx.as_field([I], np.arange(5.0))
    out = gtx.zeros({I: 5})
    program(a, a, out, offset_provider={})
    print(out.asnumpy().tolist())
    """
)


def test_warm_gtfn_cache_runs_without_a_compiler(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("nanobind")
    environment = {**os.environ, "GT4PY_BUILD_CACHE_DIR": str(tmp_path / "cache")}
    environment.pop("GT4PY_BUILD_CACHE_LIFETIME", None)
    environment.pop("GT4PY_CXX", None)

    script = tmp_path / "program.py"  # the frontend reads the operator's source file
    script.write_text(PROGRAM)

    def run(**env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script)],
            env={**environment, **env},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    cold = run()
    assert cold.returncode == 0, cold.stderr
    empty = tmp_path / "bin"
    empty.mkdir()
    warm = run(PATH=str(empty), CXX="/nonexistent/c++")
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout == cold.stdout == "[0.0, 3.0, 6.0, 9.0, 12.0]\n"
