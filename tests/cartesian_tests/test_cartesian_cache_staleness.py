"""A warm persistent cache never runs a stencil's old code after a module it reads changed.

Each test writes the stencil's helper modules into ``tmp_path``, runs the stencils in a new
process with the persistent cache, edits the helpers, and runs them again in another new
process: the new results must come out, and the cache diagnostics must name the key part
that changed. The cases are those GTScript code takes from other modules: a
``gtscript.function`` called as ``module.f`` or imported by name, helpers calling helpers of
a third module, module constants (``consts.ALPHA``, imported names, numpy scalars, class
attributes), axis indices, and externals that are functions.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest


# Each helper module in two versions; a run writes version 1 or 2 of all of them.
MODULES = {
    "mod_attr_f": (
        "@gtscript.function\ndef f(x):\n    return x * 2.0\n",
        "@gtscript.function\ndef f(x):\n    return x * 3.0\n",
    ),
    "mod_named_f": (
        "@gtscript.function\ndef f(x):\n    return x + 1.0\n",
        "@gtscript.function\ndef f(x):\n    return x + 5.0\n",
    ),
    # a helper calling a helper of a third module; only the third module changes
    "mod_outer": (
        "import mod_inner as inner\n\n@gtscript.function\ndef f(x):\n    return inner.g(x) + 1.0\n",
    )
    * 2,
    "mod_inner": (
        "@gtscript.function\ndef g(x):\n    return x * 10.0\n",
        "@gtscript.function\ndef g(x):\n    return x * 20.0\n",
    ),
    # a helper imported by name that calls a helper imported by name
    "mod_outer_named": (
        "from mod_inner_named import g\n\n@gtscript.function\ndef f(x):\n    return g(x) - 1.0\n",
    )
    * 2,
    "mod_inner_named": (
        "@gtscript.function\ndef g(x):\n    return x * 4.0\n",
        "@gtscript.function\ndef g(x):\n    return x * 8.0\n",
    ),
    "mod_alpha": ("ALPHA = 0.5\n", "ALPHA = 0.75\n"),
    "mod_beta": ("BETA = 4.0\n", "BETA = 6.0\n"),
    "mod_f32": ("GAMMA = np.float32(2.0)\n", "GAMMA = np.float32(3.0)\n"),
    "mod_i64": ("N = np.int64(3)\n", "N = np.int64(4)\n"),
    "mod_class": (
        "class Physics:\n    ALPHA = 0.1\n",
        "class Physics:\n    ALPHA = 0.2\n",
    ),
    "mod_edge": ("EDGE = I[0]\n", "EDGE = I[0] + 1\n"),
    "mod_flag": ("USE_SQUARE = False\n", "USE_SQUARE = True\n"),
    # the function passed as an external reads a constant of its own module
    "mod_ext_f": (
        "SCALE = 7.0\n\n@gtscript.function\ndef f(x):\n    return x * SCALE\n",
        "SCALE = 8.0\n\n@gtscript.function\ndef f(x):\n    return x * SCALE\n",
    ),
    # a module passed as an external, read as EXTERNAL.NAME
    "mod_ext_consts": ("DELTA = 1.5\n", "DELTA = 2.5\n"),
}
HEADER = "import numpy as np\nfrom gt4py.cartesian import gtscript\nfrom gt4py.cartesian.gtscript import I\n\n"

# name -> (the stencil body's assignment, the key part a change must name, result v1, v2)
# ``a`` holds i + 1 at point (i, j, k).
STENCILS: dict[str, tuple[str, str, str, str]] = {
    "module_function": ("out = mod_attr_f.f(a)", "global.mod_attr_f.f", "2 * a", "3 * a"),
    "imported_function": ("out = f_named(a)", "global.f_named", "a + 1", "a + 5"),
    "nested_module_functions": (
        "out = mod_outer.f(a)",
        "global.mod_outer.f",
        "10 * a + 1",
        "20 * a + 1",
    ),
    "nested_imported_functions": ("out = f_outer(a)", "global.f_outer", "4 * a - 1", "8 * a - 1"),
    "module_constant": ("out = mod_alpha.ALPHA * a", "global.mod_alpha.ALPHA", ".5*a", ".75*a"),
    "imported_constant": ("out = BETA * a", "global.BETA", "4 * a", "6 * a"),
    "numpy_float32_constant": ("out = mod_f32.GAMMA * a", "global.mod_f32.GAMMA", "2*a", "3*a"),
    "numpy_int64_constant": ("out = a * mod_i64.N", "global.mod_i64.N", "3 * a", "4 * a"),
    "class_attribute": (
        "out = mod_class.Physics.ALPHA * a",
        "global.mod_class.Physics.ALPHA",
        "0.1 * a",
        "0.2 * a",
    ),
    "compile_time_flag": (
        "if __INLINED(mod_flag.USE_SQUARE):\n            out = a * a\n"
        "        else:\n            out = a",
        "global.mod_flag.USE_SQUARE",
        "a",
        "a * a",
    ),
    "function_external": ("out = FN(a)", "external.FN", "7 * a", "8 * a"),
    "module_external": ("out = CONSTS.DELTA * a", "external.CONSTS.DELTA", "1.5*a", "2.5*a"),
}
# The stencils that take externals (each only its own: a change must miss only that one).
EXTERNALS = {"function_external": "FN=mod_ext_f.f", "module_external": "CONSTS=mod_ext_consts"}
REGION_STENCIL = "region_from_module"  # out = a on the column I = mod_edge.EDGE, else 0

SCRIPT = textwrap.dedent(
    """
    import json
    import sys

    import numpy as np
    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, computation, horizontal, interval, region

    import mod_alpha, mod_attr_f, mod_class, mod_ext_f, mod_f32, mod_flag, mod_i64, mod_outer
    import mod_edge, mod_ext_consts
    from mod_beta import BETA
    from mod_named_f import f as f_named
    from mod_outer_named import f as f_outer

    F = gtscript.Field[np.float64]
    BACKEND = sys.argv[1]

    {definitions}

    def region_from_module(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = 0.0
            with horizontal(region[mod_edge.EDGE, :]):
                out = a

    EXTERNALS = {externals}
    results = {{}}
    for definition in [{names}, region_from_module]:
        stencil = gtscript.stencil(
            backend=BACKEND,
            definition=definition,
            externals=EXTERNALS.get(definition.__name__, {{}}),
        )
        a = np.zeros((3, 2, 2)) + np.arange(1.0, 4.0)[:, None, None]
        out = np.zeros_like(a)
        stencil(a, out)
        results[definition.__name__] = out.tolist()
    print("RESULTS", json.dumps(results))
    """
)


def _definitions() -> str:
    blocks = []
    for name, (assignment, *_) in STENCILS.items():
        blocks.append(
            f"def {name}(a: F, out: F):\n"
            + (
                f"    from __externals__ import {EXTERNALS[name].partition('=')[0]}\n"
                if name in EXTERNALS
                else ""
            )
            + "    with computation(PARALLEL), interval(...):\n"
            f"        {assignment}\n"
        )
    return "\n\n".join(blocks)


def _write_modules(directory: pathlib.Path, version: int) -> None:
    for module, versions in MODULES.items():
        (directory / f"{module}.py").write_text(HEADER + versions[version - 1])


def _run(directory: pathlib.Path, backend: str) -> tuple[dict[str, np.ndarray], str]:
    script = directory / "stencils.py"
    script.write_text(
        SCRIPT.format(
            definitions=_definitions(),
            names=", ".join(STENCILS),
            externals="{" + ", ".join(f"{k!r}: dict({v})" for k, v in EXTERNALS.items()) + "}",
        )
    )
    env = {
        "HOME": os.environ.get("HOME", "/tmp"),
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(directory),
        # Python's own bytecode cache of the edited helper modules must not blur the test
        # (an edit within the same second keeping the size would load the old .pyc).
        "PYTHONDONTWRITEBYTECODE": "1",
        "GT4PY_BUILD_CACHE_DIR": str(directory / "cache"),
        "GT4PY_CACHE_DIAGNOSTICS": "1",
    }
    done = subprocess.run(
        [sys.executable, str(script), backend],
        env=env,
        capture_output=True,
        text=True,
        cwd=directory,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.split("RESULTS ", 1)[1])
    return {name: np.array(value) for name, value in results.items()}, done.stderr


def _expected(version: int) -> dict[str, np.ndarray]:
    a = np.zeros((3, 2, 2)) + np.arange(1.0, 4.0)[:, None, None]
    expected = {
        name: eval(formulas[version - 1], {"a": a})  # noqa: S307 -- the table's formulas
        for name, (_, _, *formulas) in STENCILS.items()
    }
    region = np.zeros_like(a)
    region[version - 1] = a[version - 1]  # EDGE: I[0], then I[0] + 1
    expected[REGION_STENCIL] = region
    return expected


def _check(results: dict[str, np.ndarray], version: int) -> None:
    expected = _expected(version)
    wrong = [name for name in expected if not np.allclose(results[name], expected[name])]
    assert not wrong, f"stale or wrong results (version {version}) of {wrong}"


def _edit_and_rerun(tmp_path: pathlib.Path, backend: str) -> None:
    _write_modules(tmp_path, 1)
    first, _ = _run(tmp_path, backend)
    _check(first, 1)
    again, log = _run(tmp_path, backend)
    _check(again, 1)
    assert "cache miss in 'cartesian/stencils'" not in log, log  # a warm cache is used

    _write_modules(tmp_path, 2)
    second, log = _run(tmp_path, backend)
    _check(second, 2)
    misses = [line for line in log.splitlines() if "cache miss in 'cartesian/stencils'" in line]
    assert len(misses) == len(STENCILS) + 1, log
    for name, (_, part, *_) in STENCILS.items():
        assert any(f"'{part}' changed" in line for line in misses), (name, part, log)
    assert any("'global.mod_edge.EDGE' changed" in line for line in misses), log


def test_edited_helper_modules_are_never_stale(tmp_path):
    _edit_and_rerun(tmp_path, "numpy")


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["debug", "gt:cpu_ifirst"])
def test_edited_helper_modules_are_never_stale_on(tmp_path, backend):
    _edit_and_rerun(tmp_path, backend)


def test_generator_part_is_the_digest_of_every_cartesian_source():
    from gt4py.cartesian._stencil_key import stencil_identity
    from gt4py.infra.caching import source_digest

    def definition(a: np.ndarray) -> None:
        pass

    key = stencil_identity(
        definition, backend="numpy", externals={}, dtypes={}, name="d", options={}
    ).key
    # any change to a file of gt4py.cartesian (frontend, analysis, any code generator,
    # templates) is a new key
    assert key.parts["generator"] == source_digest("gt4py.cartesian")


# A module constant for the in-process test below: reassigned while the process runs.
SCALE = 2.0


def test_sources_are_read_once_per_process_values_every_time(monkeypatch):
    from gt4py.cartesian import _stencil_key, gtscript
    from gt4py.cartesian.gtscript import PARALLEL, Field, computation, interval

    @gtscript.function
    def scaled(x):
        return x * SCALE

    def definition(a: Field[np.float64], b: Field[np.float64]):
        with computation(PARALLEL), interval(...):
            b = scaled(a)

    reads = []
    real = _stencil_key.source_info
    monkeypatch.setattr(_stencil_key, "source_info", lambda f: reads.append(f) or real(f))

    def key():
        return _stencil_key.stencil_identity(
            definition, backend="numpy", externals={}, dtypes={}, name="d", options={}
        ).key

    first = key()
    assert reads == [definition, scaled]  # the definition and its helper, parsed once
    assert key().digest == first.digest
    assert reads == [definition, scaled]  # not read again
    # the value a name resolves to is looked up for every key: a reassigned constant misses
    monkeypatch.setitem(globals(), "SCALE", 3.0)
    changed = key()
    assert changed.digest != first.digest
    assert changed.parts["global.scaled"] != first.parts["global.scaled"]
    assert reads == [definition, scaled]
