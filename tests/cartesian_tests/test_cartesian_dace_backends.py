"""The dace:* GTScript backends (issue 42, ADR 0041): GTScript -> SDFG (DaCe's Python API) ->
DaCe's C++ -> infra's native build -> the stencil's cache entry. The feature suites run on
dace:cpu and dace:cpu_kfirst through conftest's BACKENDS; these are the backends' own checks."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import FORWARD, PARALLEL, Field, computation, interval


needs_dace = pytest.mark.skipif(
    importlib.util.find_spec("dace") is None, reason="needs the dace extra"
)


def copy(a: Field[np.float64], b: Field[np.float64]):
    with computation(PARALLEL), interval(...):
        b = a


def test_importing_gt4py_cartesian_imports_no_dace() -> None:
    code = (
        "import sys\n"
        "import gt4py.cartesian, gt4py.cartesian.gtscript, gt4py.cartesian.backend as b\n"
        "b.from_name('dace:cpu'); b.from_name('dace:gpu')\n"
        "print('dace' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


def test_dace_gpu_backends_say_they_have_no_gpu_build_path() -> None:
    for name in ("dace:gpu", "dace:gpu_IJK"):
        with pytest.raises(gtscript.GTScriptError, match=rf"'{name}'.*CPUs only"):
            gtscript.stencil(name, copy)


def test_without_dace_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "dace" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(
        gtscript.GTScriptError, match=r"'dace:cpu' needs DaCe.*pip install 'gt4py-cartesian\[dace\]'"
    ):
        gtscript.stencil("dace:cpu", copy)


def _analysed(definition, backend):
    from gt4py.cartesian import _pipeline as p

    request = p.BuildRequest(
        func=definition,
        name=definition.__name__,
        backend=backend,
        externals={},
        dtypes={},
        annotation_locals=None,
    )
    return p.analysis(p.definition_ir(p.parse_definition(request, request), request), request)


def scaled_column(a: Field[np.float64], out: Field[np.float64], alpha: float):
    with computation(PARALLEL), interval(...):
        tmp = alpha * a[1, 0, 0]
    with computation(FORWARD), interval(1, None):
        out = tmp[-1, 0, 0] + out[0, 0, -1]


@needs_dace
@pytest.mark.parametrize(
    ("backend", "outer", "inner"), [("dace:cpu", "__k", "__j"), ("dace:cpu_kfirst", "__i", "__k")]
)
def test_sdfg_argument_convention_and_loop_order(backend: str, outer: str, inner: str) -> None:
    import dace
    from dace.sdfg.state import LoopRegion

    from gt4py.cartesian._dace import sdfg_of

    sdfg = sdfg_of(_analysed(scaled_column, backend), backend)
    assert isinstance(sdfg, dace.SDFG)
    args = sdfg.arglist()
    assert {"a", "out", "alpha", "__I", "__J", "__K"} <= set(args)
    assert not args["a"].transient and not args["alpha"].transient
    assert str(args["a"].strides[0]) == "__a_stride_I"
    assert {"__a_origin_I", "__out_origin_K"} <= set(args)
    assert sdfg.arrays["tmp"].transient  # the temporary
    # the PARALLEL map walks the backend's layout (outermost first), FORWARD is a loop
    maps = [
        n.map for state in sdfg.states() for n in state.nodes() if isinstance(n, dace.nodes.MapEntry)
    ]
    parallel = [m for m in maps if "__k" in m.params]
    assert parallel and parallel[0].params[0] == outer and parallel[0].params[-1] == inner
    assert any(isinstance(node, LoopRegion) for node in sdfg.all_control_flow_regions())


@needs_dace
def test_sdfg_of_rejects_names_that_clash_in_cpp() -> None:
    from gt4py.cartesian._dace import sdfg_of

    def clash(int: Field[np.float64], b: Field[np.float64]):  # noqa: A002
        with computation(PARALLEL), interval(...):
            b = int

    with pytest.raises(gtscript.GTScriptError, match=r"SDFG argument 'int'"):
        sdfg_of(_analysed(clash, "dace:cpu"), "dace:cpu")


BUILD_AND_CALL = textwrap.dedent(
    """
    import numpy as np, sys
    from gt4py.cartesian import gtscript
    from gt4py.cartesian.gtscript import PARALLEL, Field, computation, interval

    def lap(a: Field[np.float64], b: Field[np.float64]):
        with computation(PARALLEL), interval(...):
            b = a[1, 0, 0] + a[-1, 0, 0] + a[0, 1, 0] + a[0, -1, 0] - 4.0 * a

    stencil = gtscript.stencil("dace:cpu", lap)
    a = np.random.default_rng(0).random((8, 7, 3))
    b = np.zeros_like(a)
    stencil(a, b, origin=(1, 1, 0), domain=(6, 5, 3))
    ref = a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2] - 4 * a[1:-1, 1:-1]
    assert np.array_equal(b[1:-1, 1:-1], ref)
    print("dace" in sys.modules)
    """
)


@needs_dace
@pytest.mark.slow
def test_built_through_infra_into_the_cache_entry_never_a_dacecache(tmp_path: pathlib.Path) -> None:
    cache = tmp_path / "cache"
    work = tmp_path / "work"
    work.mkdir()
    script = tmp_path / "lap_script.py"
    script.write_text(BUILD_AND_CALL)
    env = dict(os.environ, GT4PY_BUILD_CACHE_DIR=str(cache))

    def run() -> str:
        result = subprocess.run(
            [sys.executable, str(script)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    cold = run()
    warm = run()  # a new process: the entry is loaded, DaCe is not imported
    assert cold[0] == "True" and warm[0] == "False"
    assert list(work.iterdir()) == []  # no .dacecache, no _dacegraphs in the cwd
    sdfgs = list(cache.rglob("*.sdfg"))
    assert len(sdfgs) == 1
    assert json.loads(sdfgs[0].read_text())["type"] == "SDFG"
    assert list(cache.rglob("gtdace_lap*.so"))
    assert not list(cache.rglob(".dacecache"))


@needs_dace
@pytest.mark.slow
def test_a_bad_call_fails_as_on_gt_cpu_ifirst() -> None:
    errors = []
    for backend in ("gt:cpu_ifirst", "dace:cpu"):
        stencil = gtscript.stencil(backend, copy)
        a = np.zeros((4, 4, 4))
        with pytest.raises(Exception) as info:
            stencil(a, np.zeros((4, 4, 4), dtype=np.float32))
        errors.append((type(info.value), str(info.value).replace(backend, "<backend>")))
        with pytest.raises(Exception) as info:
            stencil(a, np.zeros((3, 4, 4)), domain=(4, 4, 4))
        errors.append((type(info.value), str(info.value).replace(backend, "<backend>")))
    assert errors[:2] == errors[2:]
