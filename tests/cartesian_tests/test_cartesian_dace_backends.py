"""The dace:* GTScript backends (issue 42, ADR 0041): GTScript -> SDFG (DaCe's Python API) ->
DaCe's C++ -> infra's native build -> the stencil's cache entry. The feature suites run on
dace:cpu, dace:cpu_kfirst and dace:gpu_emulated (the dace:gpu source on the host, ADR 0047)
through conftest's BACKENDS; these are the backends' own checks."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import FORWARD, IJ, PARALLEL, Field, K, computation, interval


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


def test_without_dace_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: object) -> object:
        return None if name == "dace" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(
        gtscript.GTScriptError,
        match=r"'dace:cpu' needs DaCe.*pip install 'gt4py-cartesian\[dace\]'",
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
        n.map
        for state in sdfg.states()
        for n in state.nodes()
        if isinstance(n, dace.nodes.MapEntry)
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


needs_nvcc = pytest.mark.skipif(
    shutil.which("nvcc") is None and not os.environ.get("CUDACXX"), reason="needs nvcc"
)


def k_search(a: Field[np.float64], out: Field[np.float64], n0: int):
    """An absolute K read and a while loop whose variable K read may leave the field."""
    with computation(PARALLEL), interval(...):
        n = n0
        while a[0, 0, n] < 0.5:
            n = n + 1
        out = a.at(K=1) + n


def weighted_column(a: Field[np.float64], total: Field[IJ, np.float64]):
    """A sequential loop's tasklet that reads the level only in its code (no memlet has K)."""
    with computation(FORWARD), interval(...):
        total = total + a / (K + 1)


@needs_dace
@pytest.mark.parametrize("backend", ["dace:gpu", "dace:gpu_IJK"])
def test_dace_gpu_sdfgs_keep_arrays_on_the_device_and_run_maps_as_kernels(backend: str) -> None:
    import dace
    from dace import dtypes

    from gt4py.cartesian._dace import sdfg_of

    sdfg = sdfg_of(_analysed(scaled_column, backend), backend)
    assert {sdfg.arrays[n].storage for n in ("a", "out", "tmp")} == {dtypes.StorageType.GPU_Global}
    maps = [n.map for n, _ in sdfg.all_nodes_recursive() if isinstance(n, dace.nodes.MapEntry)]
    assert maps and all(m.schedule == dtypes.ScheduleType.GPU_Device for m in maps)
    # 32 threads along the stride-1 axis (the map's last parameter, DaCe's x)
    inner = {"dace:gpu": "__i", "dace:gpu_IJK": "__k"}[backend]
    parallel = [m for m in maps if "__k" in m.params and str(m.range[0][0]) != "__gt_level"]
    assert parallel[0].params[-1] == inner and parallel[0].gpu_block_size == [32, 8, 1]
    # a sequential loop's level is a map parameter over one level of the loop's variable, so
    # that DaCe passes it to the kernel (its tasklets' C++ may read __k where no memlet does)
    sdfg = sdfg_of(_analysed(weighted_column, backend), backend)
    (level,) = [n.map for n, _ in sdfg.all_nodes_recursive() if isinstance(n, dace.nodes.MapEntry)]
    assert level.params[0] == "__k" and str(level.range[0][0]) == "__gt_level"
    assert level.range[0][0] == level.range[0][1]


@needs_dace
@needs_nvcc
@pytest.mark.slow
def test_dace_gpu_stencils_compile_with_nvcc() -> None:
    """Built without a GPU (as into a cache on a login node): nvcc compiles DaCe's kernels, its
    frame and the binding as one source; the extension loads. Running needs a device."""
    from gt4py.infra import config as infra_config

    with infra_config.overrides(gpu_build_without_device=True):
        stencils = [
            gtscript.stencil("dace:gpu", d) for d in (scaled_column, k_search, weighted_column)
        ]
    for stencil in stencils:
        assert stencil.backend == "dace:gpu"
        source = stencil.stages["cu"]
        assert "__global__" in source and "GT4PY_DACE_LAUNCH(" in source
        assert "#include <gt4py/dace_cuda.hpp>" in source
        assert "nb::device::cuda" in source or "GT4PY_ARRAY_DEVICE" in source


@needs_dace
@pytest.mark.slow
def test_dace_gpu_emulated_checks_k_reads_in_device_memory() -> None:
    """The dace:gpu source on the host: the K-index record is the device buffer of the
    binding, and a while loop reading past the field stops and raises as on gt:cpu_ifirst."""
    stencil = gtscript.stencil("dace:gpu_emulated", k_search)
    reference = gtscript.stencil("numpy", k_search)
    a = np.full((4, 3, 5), 0.25)
    a[:, :, 3:] = 0.75
    out, expected = np.zeros_like(a), np.zeros_like(a)
    stencil(a, out, n0=0)
    reference(a, expected, n0=0)
    assert np.array_equal(out, expected)
    a[:, :, 3:] = 0.25  # no level >= 0.5: the loop reads K = 5, past the field
    with pytest.raises(
        IndexError, match=r"K index 5 of field 'a' is outside the field \(K size 5\)"
    ):
        stencil(a, out, n0=0)


@needs_dace
@pytest.mark.slow
def test_dace_gpu_emulated_reads_the_level_inside_sequential_loops() -> None:
    a = np.random.default_rng(1).random((5, 4, 6))
    total, expected = np.zeros((5, 4)), np.zeros((5, 4))
    gtscript.stencil("dace:gpu_emulated", weighted_column)(a, total)
    gtscript.stencil("numpy", weighted_column)(a, expected)
    assert np.array_equal(total, expected)
