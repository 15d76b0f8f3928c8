"""The stencil cache is infra's: reused across processes, self-healing, diagnosable."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import pytest


SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, computation, interval
    F = gtscript.Field[np.float64]
    ALPHA = float(sys.argv[1])

    def st(a: F, out: F):
        from __externals__ import ALPHA
        with computation(PARALLEL), interval(...):
            out = ALPHA * a

    s = gtscript.stencil(backend="numpy", externals={"ALPHA": ALPHA})(st)
    a = np.ones((2, 2, 2)); out = np.zeros_like(a)
    s(a, out)
    assert (out == ALPHA).all()
    print("PATH", s.source_path)
    """
)


def _run(tmp_path: pathlib.Path, cache: pathlib.Path, alpha: str) -> subprocess.CompletedProcess:
    script = tmp_path / "cart_cache_script.py"
    script.write_text(SCRIPT)
    env = {"GT4PY_BUILD_CACHE_DIR": str(cache), "GT4PY_CACHE_DIAGNOSTICS": "1", "PATH": ""}
    import os

    env["HOME"] = os.environ.get("HOME", "/tmp")
    return subprocess.run(
        [sys.executable, str(script), alpha], env=env, capture_output=True, text=True, check=True
    )


@pytest.mark.slow
def test_second_process_loads_without_rebuilding_and_heals_and_explains(tmp_path):
    cache = tmp_path / "cache"
    first = _run(tmp_path, cache, "2.0")
    assert "first build" in first.stderr
    second = _run(tmp_path, cache, "2.0")
    assert "cache miss" not in second.stderr  # loaded, not rebuilt
    path = pathlib.Path(first.stdout.split("PATH ")[1].strip())
    path.write_text(path.read_text() + "\n# damaged\n")
    third = _run(tmp_path, cache, "2.0")
    assert "entry corrupt, rebuilt" in third.stderr
    fourth = _run(tmp_path, cache, "3.0")
    assert "'external.ALPHA' changed" in fourth.stderr


def test_no_cache_or_config_code_under_cartesian():
    from gt4py import cartesian

    root = pathlib.Path(cartesian.__file__).parent
    forbidden = ("os.replace", "filelock", "hashlib", "xxhash", "os.environ", "getenv")
    for path in root.rglob("*.py"):
        text = path.read_text()
        for word in forbidden:
            assert word not in text, f"{path.name} contains {word}"
