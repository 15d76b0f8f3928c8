"""The compile pipeline as declared stages: STAGES, variant.stages, dumps, the compile log,
and backends as objects (pickling and copying)."""

from __future__ import annotations

import copy
import logging
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import config, pipeline
from gt4py.next import ir, lowering
from gt4py.next.backends import _compiled_backend
from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend, make_gtfn_translation
from gt4py.next.backends.python_numpy import make_itir_python_backend


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]


@gtx.field_operator
def add_two(a: IField) -> IField:
    return a + 2.0


def make_program(backend, name="plus_two"):
    def plus_two(a: IField, out: IField):
        add_two(a, out=out)

    plus_two.__name__ = name
    return gtx.program(backend=backend)(plus_two)


def run(program):
    a, out = gtx.as_field([I], np.arange(3.0)), gtx.zeros({I: 3})
    program(a, out)
    assert out.asnumpy().tolist() == [2.0, 3.0, 4.0]


# -- declared stages ------------------------------------------------------------------------------


def test_each_backend_declares_its_pipeline():
    assert pipeline.describe(gtx.gtfn_cpu.STAGES) == "frontend → ir → ir_optimized → cpp → so"
    assert pipeline.describe(gtx.gtfn_gpu.STAGES) == "frontend → ir → ir_optimized → cu → so"
    assert pipeline.describe(gtx.itir_python.STAGES) == "frontend → ir → ir_optimized → py"
    assert [s.suffix for s in gtx.gtfn_cpu.STAGES] == ["txt", "ir", "ir", "cpp", "so"]


def test_variant_stages_are_exactly_the_declared_ones(cache_dir):
    program = make_program(gtx.itir_python)
    run(program)
    (variant,) = program.compiled_variants
    assert isinstance(variant.stages, pipeline.StageValues)
    assert variant.stages.declared == gtx.itir_python.STAGES
    assert list(variant.stages) == ["frontend", "ir", "ir_optimized", "py"]
    assert "plus_two" in variant.stages["frontend"]
    assert isinstance(variant.stages["ir"], ir.Program)
    assert isinstance(variant.stages["ir_optimized"], ir.Program)
    assert variant.stages["py"].startswith(("import", "from", '"""', "#"))
    assert "def run(" in variant.stages["py"]
    assert variant.compile_seconds > 0  # a metric, not a stage
    assert "compile_seconds" not in variant.stages


@pytest.mark.slow
def test_gtfn_variant_stages_and_dump(cache_dir, tmp_path):
    program = make_program(gtx.gtfn_cpu, name="plus_two_gtfn")
    with config.overrides(dump_stages=tmp_path / "dump"):
        run(program)
    (variant,) = program.compiled_variants
    assert list(variant.stages) == ["frontend", "ir", "ir_optimized", "cpp", "so"]
    assert "#pragma omp" in variant.stages["cpp"] or "for (" in variant.stages["cpp"]
    assert variant.stages["so"].is_file()
    (directory,) = (tmp_path / "dump" / "plus_two_gtfn" / "gtfn_cpu").iterdir()
    assert directory.name.startswith("variant-")
    written = sorted(p.name for p in directory.iterdir())
    assert written == ["cpp.cpp", "frontend.txt", "ir.ir", "ir_optimized.ir", "so.so"]
    assert (directory / "cpp.cpp").read_text() == variant.stages["cpp"]
    assert (directory / "ir_optimized.ir").read_text() == ir.to_text(variant.stages["ir_optimized"])
    assert (directory / "so.so").read_bytes() == variant.stages["so"].read_bytes()


def test_the_itir_python_module_is_published_in_a_cache_entry(cache_dir):
    program = make_program(gtx.itir_python, name="plus_two_entry")
    run(program)
    modules = list((cache_dir / "next" / "itir_python").rglob("itir_*.py"))
    assert len(modules) == 1 and modules[0].read_text() == program.compiled_variants[0].stages["py"]
    assert not list(cache_dir.rglob("__pycache__"))  # imported from source only
    assert not (cache_dir / "next" / "itir_python_modules").exists()


def test_generation_options_go_into_the_generator():
    program = gtx.gtfn_cpu.optimize(lowering.lower_program(make_program(gtx.embedded_numpy)))
    plain = make_gtfn_translation(GTFNConfig())(program, {})
    tuned = make_gtfn_translation(GTFNConfig(), parallel_threshold=7)(program, {})
    serial = make_gtfn_translation(GTFNConfig(), openmp=False)(program, {})
    (plain_source,) = plain.sources.values()
    (tuned_source,) = tuned.sources.values()
    (serial_source,) = serial.sources.values()
    assert "#pragma omp" in plain_source and plain.openmp
    assert "> 7)" in tuned_source and "> 7)" not in plain_source  # if(points > 7)
    assert "omp" not in serial_source and not serial.openmp


# -- the compile log ------------------------------------------------------------------------------


def _compile_lines(caplog):
    return [r for r in caplog.records if r.name == "gt4py.compile"]


def test_one_log_line_per_variant_compile(cache_dir, caplog):
    program = make_program(gtx.itir_python, name="logged")
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    with config.overrides(compile_log_threshold_s=600.0):
        run(program)
        run(program)  # the variant exists: no second line
    (record,) = _compile_lines(caplog)
    assert record.levelno == logging.INFO  # fast: below the threshold, quiet by default
    message = record.getMessage()
    assert message.startswith("compiling logged(a: Field[[I], float64], out: Field[[I], float64])")
    assert " for itir_python … " in message
    assert "next/itir_python miss" in message


def test_a_slow_compile_is_a_warning_and_a_cache_hit_is_named(cache_dir, caplog):
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    run(make_program(gtx.itir_python, name="warm_one"))
    caplog.clear()
    with config.overrides(compile_log_threshold_s=0.0):
        run(make_program(gtx.itir_python, name="warm_one"))  # a new program object: new variant
    (record,) = _compile_lines(caplog)
    assert record.levelno == logging.WARNING
    assert "next/itir_python hit" in record.getMessage()


def test_notes_of_a_background_build_are_replayed(cache_dir, caplog):
    program = make_program(gtx.itir_python, name="in_background")
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    with config.overrides(
        async_compilation=True,
        build_jobs_mode="thread",
        build_jobs=1,
        compile_log_threshold_s=600.0,
    ):
        program.compile(offset_provider={})
        gtx.wait_for_compilation()
    (record,) = _compile_lines(caplog)
    assert "in_background(" in record.getMessage()
    assert "next/itir_python miss" in record.getMessage()  # noted in the worker thread


def test_a_failed_compile_logs_no_line(cache_dir, caplog, monkeypatch):
    program = make_program(gtx.itir_python, name="broken")

    def broken(self, program, metadata):
        raise RuntimeError("no code today")

    monkeypatch.setattr(type(gtx.itir_python.compiler), "generate", broken)
    caplog.set_level(logging.INFO, logger="gt4py.compile")
    with pytest.raises(RuntimeError, match="no code today"):
        run(program)
    assert _compile_lines(caplog) == []


# -- backends are objects -------------------------------------------------------------------------


def test_a_custom_backend_pickles_and_copies_as_itself():
    debug = make_gtfn_backend(GTFNConfig(build_type="Debug"))
    assert debug.name == gtx.gtfn_cpu.name  # same label as the stock one ...
    for restored in (pickle.loads(pickle.dumps(debug)), copy.deepcopy(debug), copy.copy(debug)):
        assert restored is not gtx.gtfn_cpu  # ... but not looked up by that name
        assert restored.config.build_type == "Debug"
        assert restored == debug
        assert restored.compiler == debug.compiler and restored.optimize == debug.optimize
        assert restored.STAGES == debug.STAGES
    assert debug != gtx.gtfn_cpu


def test_stock_backends_unpickle_to_the_singleton():
    for backend in (gtx.gtfn_cpu, gtx.gtfn_gpu, gtx.itir_python):
        assert pickle.loads(pickle.dumps(backend)) is backend
        assert copy.deepcopy(backend) is backend
    assert pickle.loads(pickle.dumps(gtx.embedded_numpy)) is gtx.embedded_numpy


def test_a_custom_backend_reaches_another_process_as_itself(cache_dir):
    custom = make_itir_python_backend(name="itir_python_no_cse", cse=False)
    script = textwrap.dedent(
        """
        import pickle, sys
        backend = pickle.loads(sys.stdin.buffer.read())
        print(backend.name, backend.optimize.cse, type(backend).__name__)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        input=pickle.dumps(custom),
        capture_output=True,
        check=True,
    )
    assert result.stdout.decode().split() == ["itir_python_no_cse", "False", "StepBackend"]
    run(make_program(pickle.loads(pickle.dumps(custom)), name="custom_copy"))


def test_the_compiler_must_be_a_pipeline():
    with pytest.raises(TypeError, match="ArtifactPipeline"):
        _compiled_backend.StepBackend(
            "broken", config=None, optimize=lambda p: p, compiler=object()
        )  # type: ignore[arg-type]


def test_released_factory_names_give_the_stock_backends():
    from gt4py.next.program_processors.runners import gtfn

    assert gtfn.GTFNBackendFactory() is gtx.gtfn_cpu
    assert gtfn.GTFNBackendFactory(gpu=True) is gtx.gtfn_gpu
    assert gtfn.run_gtfn is gtx.gtfn_cpu and gtfn.run_gtfn_gpu is gtx.gtfn_gpu
    with pytest.raises(TypeError, match="make_gtfn_backend"):
        gtfn.GTFNBackendFactory(otf_workflow=None)


# -- the passes' persistent cache (issue 28) ------------------------------------------------------


def test_the_passes_run_once_per_program_and_settings(cache_dir, monkeypatch):
    from gt4py.infra import caching
    from gt4py.next.backends import _pipeline

    program = lowering.lower_program(make_program(gtx.itir_python))
    runs: list[_pipeline.Passes] = []
    real_run = _pipeline.Passes.run

    def counted(self, program):
        runs.append(self)
        return real_run(self, program)

    monkeypatch.setattr(_pipeline.Passes, "run", counted)
    passes = _pipeline.Passes()
    first = passes(program)
    again = _pipeline.Passes()(program)  # an equal object, as in a new process: a hit
    assert len(runs) == 1 and ir.to_text(again) == ir.to_text(first)
    _pipeline.Passes(cse=False)(program)  # other settings: run again
    assert len(runs) == 2
    assert list((cache_dir / "next" / "passes").iterdir())
    with caching.hits_only():  # the hit needs no build
        assert ir.to_text(passes(program)) == ir.to_text(first)
