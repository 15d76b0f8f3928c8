"""The stencil cache is infra's: reused across processes, self-healing, diagnosable."""

from __future__ import annotations

import os
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


#: What a warm process (``import gtscript`` and a decoration) needs none of: each is imported
#: where a miss, a lock, a session cache, an error message or a special function (gamma, erf)
#: needs it (issue 44.8: a warm process's first stencil paid for them). Nor does it import
#: the frontend, analysis or code generators.
MISS_ONLY_MODULES = (
    "gt4py.cartesian._frontend",
    "gt4py.cartesian._ir",
    "gt4py.cartesian._analysis",
    "gt4py.cartesian._numpy_codegen",
    "gt4py.cartesian._cpp_codegen",
    "gt4py.cartesian._released_passes",  # only for an oir_pipeline= option
    "gt4py.eve.datamodels",
    "gt4py.storage.special_functions",
    "shutil",
    "socket",
    "tempfile",
    "secrets",
    "difflib",
    "gt4py.infra.config._session_dirs",
)

WARM_SCRIPT = textwrap.dedent(
    """
    import os, sys
    import numpy as np
    before = set(sys.modules)  # gtscript's import loads what a hit needs (ADR 0010)
    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, computation, interval
    F = gtscript.Field[np.float64]

    def st(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = 2.0 * a

    import gt4py.cartesian, gt4py.infra.native
    packages = tuple(os.path.dirname(m.__file__) for m in (gt4py.cartesian, gt4py.infra.native))
    sources = []

    def audit(event, args):
        if event == "open" and isinstance(args[0], str) and args[0].startswith(packages):
            if args[0].endswith((".py", ".hpp", ".h", ".cpp", ".cu", ".j2", ".lark")):
                sources.append(args[0])

    sys.addaudithook(audit)
    gtscript.stencil(backend=sys.argv[1])(st)
    print("READ", " ".join(sources))
    print("IMPORTED", " ".join(sorted(set(sys.modules) - before)))
    """
)


#: What a warm gt:cpu_ifirst decoration needs none of: it loads the entry's extension, and its
#: key asks only for this CPU's identity; no toolchain, CMake driving, subprocesses, nor the
#: released ``config`` module (which locates the CUDA toolkit).
NATIVE_MISS_ONLY_MODULES = (
    "gt4py.infra.native._build",
    "gt4py.infra.native._tools",
    "gt4py.infra.native._toolchain",
    "gt4py.cartesian.config",
    "subprocess",
)


@pytest.mark.parametrize(
    ("backend", "not_needed"),
    [
        ("numpy", MISS_ONLY_MODULES),
        pytest.param(
            "gt:cpu_ifirst",
            MISS_ONLY_MODULES + NATIVE_MISS_ONLY_MODULES,
            marks=pytest.mark.slow,
        ),
    ],
)
def test_a_warm_decoration_imports_nothing_only_a_miss_needs(tmp_path, backend, not_needed):
    script = tmp_path / "cart_warm_script.py"
    script.write_text(WARM_SCRIPT)
    env = {
        "GT4PY_BUILD_CACHE_DIR": str(tmp_path / "cache"),
        "PATH": os.environ.get("PATH", ""),  # a C++ build finds its compiler
        "HOME": str(tmp_path),
    }

    def imported() -> tuple[set[str], list[str]]:
        run = subprocess.run(
            [sys.executable, "-I", str(script), backend],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        read, _, modules = run.stdout.partition("READ")[2].partition("IMPORTED")
        return set(modules.split()), read.split()

    cold, _ = imported()  # a miss builds and publishes: it may import them
    warm, read = imported()
    stencil_modules = {m for m in cold if m.startswith("gt4py_cartesian_stencil_")}
    assert stencil_modules and stencil_modules <= warm  # the warm process loaded the same entry
    # neither at gtscript's import nor at the decoration
    assert sorted(set(not_needed) & warm) == []
    # the generators' identity is recalled from the cache, not read again (source_digest)
    assert read == []


def test_extra_build_flags_are_read_from_the_released_config_once_imported(monkeypatch):
    from gt4py.cartesian import _cpp_backend

    monkeypatch.delitem(sys.modules, "gt4py.cartesian.config", raising=False)
    assert _cpp_backend.extra_build_flags("gt:cpu_ifirst") == ((), ())  # defaults, not imported
    assert "gt4py.cartesian.config" not in sys.modules

    import gt4py.cartesian.config as gt_config

    monkeypatch.setitem(
        gt_config.build_settings, "extra_compile_args", {"cxx": ["-DX=1"], "cuda": ["-DY"]}
    )
    monkeypatch.setitem(gt_config.build_settings, "extra_link_args", ["-lm"])
    assert _cpp_backend.extra_build_flags("gt:cpu_ifirst") == (("-DX=1",), ("-lm",))
