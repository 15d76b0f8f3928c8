"""A stencil's build as declared stages: ``backend.STAGES``, ``stencil.stages``, the dumps
(``GT4PY_DUMP_STAGES``) and the ``gt4py.compile`` log line of every build."""

from __future__ import annotations

import logging
import pathlib

import numpy as np
import pytest

from gt4py.cartesian import _backends, gtscript
from gt4py.cartesian.gtscript import PARALLEL, StencilArgumentError, computation, interval
from gt4py.infra import config, pipeline


F = gtscript.Field[np.float64]


def make(backend: str, **kwargs):
    """A new function object of the same definition each time: the same cache key."""

    def scaled_shift(a: F, b: F, alpha: float):
        with computation(PARALLEL), interval(...):
            b = alpha * a[1, 0, 0]

    return gtscript.stencil(backend=backend, definition=scaled_shift, **kwargs)


@pytest.mark.parametrize(
    ("backend", "pipeline_text"),
    [
        ("numpy", "frontend → ir → analysis → py"),
        ("debug", "frontend → ir → analysis → py"),
        ("gt:cpu_ifirst", "frontend → ir → analysis → cpp → so"),
        ("gt:cpu_kfirst", "frontend → ir → analysis → cpp → so"),
        ("gt:gpu", "frontend → ir → analysis → cu → so"),
        ("cuda", "frontend → ir → analysis → cu → so"),
        ("gt:gpu_emulated", "frontend → ir → analysis → cu → so"),
        ("dace:cpu", "frontend → ir → analysis → sdfg → cpp → so"),
        ("dace:gpu", "frontend → ir → analysis → sdfg → cu → so"),
        ("dace:gpu_IJK", "frontend → ir → analysis → sdfg → cu → so"),
        ("dace:gpu_emulated", "frontend → ir → analysis → sdfg → cu → so"),
    ],
)
def test_each_backend_declares_its_stages(backend, pipeline_text):
    stages = _backends.get_backend(backend).STAGES
    assert pipeline.describe(stages) == pipeline_text
    assert all(isinstance(stage, pipeline.Stage) for stage in stages)


@pytest.mark.parametrize("backend", ["numpy", "debug"])
def test_built_stencil_has_every_stage_and_a_cached_one_its_module(backend):
    from gt4py.cartesian._analysis import AnalysedStencil
    from gt4py.cartesian._ir import Stencil

    built = make(backend)
    stages = built.stages
    assert list(stages) == ["frontend", "ir", "analysis", "py"]
    assert "b = alpha * a[1, 0, 0]" in stages["frontend"].source
    assert isinstance(stages["ir"], Stencil) and stages["ir"].name == "scaled_shift"
    assert isinstance(stages["analysis"], AnalysedStencil)
    assert stages["py"] == pathlib.Path(built.source_path).read_text()
    assert "METADATA = " in stages["py"]

    cached = make(backend)  # a cache hit: no frontend ran, the entry holds the module
    assert cached.source_path == built.source_path
    assert list(cached.stages) == ["py"]
    assert cached.stages["py"] == stages["py"]
    assert cached.stages.declared == _backends.get_backend(backend).STAGES


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["gt:cpu_ifirst", "gt:cpu_kfirst"])
def test_native_stages_live_in_the_entry(backend):
    built = make(backend)
    entry = pathlib.Path(built.source_path).parent
    assert list(built.stages) == ["frontend", "ir", "analysis", "cpp", "so"]
    assert "NB_MODULE(gtcpp_scaled_shift" in built.stages["cpp"]
    extension = built.stages["so"]
    assert isinstance(extension, pathlib.Path) and extension.parent == entry  # the copy loaded

    cached = make(backend)
    assert list(cached.stages) == ["cpp", "so"]
    assert cached.stages["cpp"] == built.stages["cpp"]
    assert cached.stages["so"] == extension
    a, b = np.arange(27.0).reshape(3, 3, 3), np.zeros((3, 3, 3))
    cached(a, b, 2.0, domain=(2, 3, 3))
    assert np.array_equal(b[:2], 2.0 * a[1:])


def test_dumps_are_stage_files_written_only_by_a_build(tmp_path):
    make("numpy")  # in the cache now
    with config.overrides(dump_stages=tmp_path / "hit"):
        make("numpy")
    assert not (tmp_path / "hit").exists()
    with config.overrides(dump_stages=tmp_path / "rebuilt"):
        built = make("numpy", rebuild=True)
    target = tmp_path / "rebuilt" / "cartesian_scaled_shift_numpy"
    assert sorted(p.name for p in target.iterdir()) == [
        "analysis.txt",
        "frontend.py",
        "ir.txt",
        "py.py",
    ]
    assert (target / "py.py").read_text() == built.stages["py"]
    assert (target / "frontend.py").read_text().startswith(f"# {__file__}:")


def test_every_build_is_one_compile_log_line(caplog):
    call = "scaled_shift(a: Field[IJK, float64], b: Field[IJK, float64], alpha: float64)"
    with caplog.at_level(logging.INFO, logger="gt4py.compile"):
        make("numpy")
        make("numpy")
        make("numpy", rebuild=True)
    lines = [r.getMessage() for r in caplog.records if r.name == "gt4py.compile"]
    assert len(lines) == 3, lines
    assert all(line.startswith(f"compiling {call} for numpy … ") for line in lines), lines
    assert lines[0].endswith("(cartesian/stencils miss)")
    assert lines[1].endswith("(cartesian/stencils hit)")
    assert lines[2].endswith("(cartesian/stencils bypassed (rebuild=True))")


def test_a_failed_build_logs_no_compile_line(caplog):
    def broken(a: F, b: F):
        with computation(PARALLEL), interval(...):
            b = a + undefined_name  # noqa: F821

    with (
        caplog.at_level(logging.INFO, logger="gt4py.compile"),
        pytest.raises(gtscript.GTScriptSymbolError),
    ):
        gtscript.stencil(backend="numpy", definition=broken)
    assert not [r for r in caplog.records if r.name == "gt4py.compile"]


def test_definition_and_field_types_are_checked():
    with pytest.raises(TypeError, match="must be a Python function"):
        gtscript.stencil(backend="numpy", definition=np.add)
    stencil = make("numpy")
    with pytest.raises(StencilArgumentError, match="field 'a' must be an array"):
        stencil([[[1.0]]], np.zeros((2, 1, 1)), 1.0, domain=(1, 1, 1))


def test_host_tuning_is_part_of_a_native_stencil_key():
    from gt4py.cartesian._stencil_key import stencil_identity

    def scaled_shift(a: F, b: F, alpha: float):
        with computation(PARALLEL), interval(...):
            b = alpha * a[1, 0, 0]

    def key(backend: str) -> str:
        args = {"externals": {}, "dtypes": {}, "name": "s", "options": {}}
        return stencil_identity(scaled_shift, backend=backend, **args).key.digest

    keys = {}
    for tuned in (True, False):
        with config.overrides(native_host_tuned=tuned):
            keys[tuned] = {
                b: key(b) for b in ("numpy", "gt:cpu_ifirst", "gt:gpu_emulated", "gt:gpu")
            }
    assert keys[True]["numpy"] == keys[False]["numpy"]  # Python code runs anywhere
    assert keys[True]["gt:cpu_ifirst"] != keys[False]["gt:cpu_ifirst"]
    assert keys[True]["gt:gpu_emulated"] != keys[False]["gt:gpu_emulated"]  # host-compiled
    # nvcc's device code does not follow the host tuning; it is keyed by the GPU architecture
    # (test_cartesian_gpu_backend)
    assert keys[True]["gt:gpu"] == keys[False]["gt:gpu"]


@pytest.mark.slow
def test_a_host_tuned_stencil_is_not_served_to_a_portable_build(caplog):
    with caplog.at_level(logging.INFO, logger="gt4py.compile"):  # noqa: SIM117 - three phases
        with config.overrides(native_host_tuned=True):
            tuned = make("gt:cpu_ifirst")
        with config.overrides(native_host_tuned=False):
            portable = make("gt:cpu_ifirst")
            again = make("gt:cpu_ifirst")
    assert tuned.source_path != portable.source_path == again.source_path
    messages = [
        r.getMessage()
        for r in caplog.records
        if "scaled_shift" in r.getMessage() and "… started (" not in r.getMessage()
    ]  # the end lines; each C++ build also has a start line (test_infra_compile_feedback)
    assert len(messages) == 3, messages
    assert "cartesian/stencils miss" in messages[0]
    assert "build miss" in messages[1] and "cartesian/stencils miss" in messages[1]
    assert "cartesian/stencils hit" in messages[2]
