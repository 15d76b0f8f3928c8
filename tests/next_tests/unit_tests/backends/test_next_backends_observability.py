"""Metrics, stage dumps, stages in Python, warm persistent cache, cache diagnostics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import config
from gt4py.next import metrics


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]


@gtx.field_operator
def add_one(a: IField) -> IField:
    return a + 1.0


def make_program(backend):
    def plus_one(a: IField, out: IField):
        add_one(a, out=out)

    return gtx.program(backend=backend)(plus_one)


def pool_of(program):
    (pool,) = program.__dict__["__gt_compiled_pools__"].values()
    return pool


def test_metrics_off_by_default_adds_nothing_to_calls(cache_dir):
    prog = make_program(gtx.itir_python)
    a, out = gtx.as_field([I], np.zeros(3)), gtx.zeros({I: 3})
    prog(a, out)
    (variant,) = pool_of(prog).variants.values()
    assert type(variant).__name__ == "Variant"


def test_metrics_count_calls_and_time(cache_dir, tmp_path):
    prog = make_program(gtx.itir_python)
    prog.__name__ = name = f"metrics_{uuid.uuid4().hex[:8]}"
    a, out = gtx.as_field([I], np.zeros(3)), gtx.zeros({I: 3})
    with config.overrides(collect_metrics_level=1):
        for _ in range(4):
            prog(a, out)
    row = metrics.program_metrics()[name]
    assert row["calls"] == 4 and row["variants"] == 1
    assert row["compute_time_s"] > 0 and row["compile_time_s"] > 0
    metrics.dump(tmp_path / "m.json")
    assert json.loads((tmp_path / "m.json").read_text())[name]["calls"] == 4
    assert name in metrics.table()
    metrics.reset()  # nothing left for the at-exit dump of the test process
    assert name not in metrics.program_metrics()


@pytest.mark.slow
def test_metrics_are_dumped_at_exit(tmp_path):
    target = tmp_path / "metrics.json"
    script = tmp_path / "run_metrics.py"
    script.write_text(SCRIPT.format(backend="itir_python", value="1.0", calls=3))
    env = {
        **os.environ,
        "GT4PY_COLLECT_METRICS_LEVEL": "1",
        "GT4PY_DUMP_METRICS_AT_EXIT": str(target),
    }
    subprocess.run([sys.executable, str(script)], env=env, check=True)
    assert json.loads(target.read_text())["shifted"]["calls"] == 3


def test_stages_are_exposed_and_dumped(cache_dir, tmp_path):
    prog = make_program(gtx.itir_python)
    a, out = gtx.as_field([I], np.zeros(3)), gtx.zeros({I: 3})
    with config.overrides(dump_stages=tmp_path / "stages"):
        prog(a, out)
    (variant,) = prog.compiled_variants
    assert variant.description.startswith("(a: Field[[I], float64]")
    assert list(variant.stages) == ["frontend", "ir", "ir_optimized", "py"]
    assert "def run(" in variant.stages["py"]
    (directory,) = (tmp_path / "stages" / "plus_one" / "itir_python").iterdir()
    written = sorted(p.name for p in directory.iterdir())
    assert written == ["frontend.txt", "ir.ir", "ir_optimized.ir", "py.py"]
    assert "plus(" in (directory / "ir.ir").read_text()


SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import gt4py.next as gtx

    I = gtx.Dimension("I")
    IField = gtx.Field[gtx.Dims[I], gtx.float64]

    @gtx.field_operator
    def op(a: IField) -> IField:
        return a + {value}

    @gtx.program(backend=gtx.{backend})
    def shifted(a: IField, out: IField):
        op(a, out=out)

    a, out = gtx.as_field([I], np.zeros(4)), gtx.zeros({{I: 4}})
    for _ in range({calls}):
        shifted(a, out)
    assert out.asnumpy().tolist() == [{value}] * 4, out.asnumpy()
    (pool,) = shifted.__dict__["__gt_compiled_pools__"].values()
    (variant,) = pool.variants.values()
    print("compile_seconds", variant.compile_seconds)
    """
)


# Counts every program the process starts (compilers, ninja, cmake, `--version` probes).
_COUNT_SUBPROCESSES = textwrap.dedent(
    """
    import atexit, sys
    _launched = []
    sys.addaudithook(lambda event, args: _launched.append(args) if event == "subprocess.Popen" else None)
    atexit.register(lambda: print("subprocesses", len(_launched)))
    """
)


@pytest.mark.slow
def test_new_process_with_warm_cache_runs_no_program(tmp_path):
    # A value no other test uses, so the first process really translates and builds. The warm
    # process must neither translate (no cache miss) nor start any program (no compiler).
    value = f"{np.random.default_rng().integers(1, 10**6)}.25"
    script = tmp_path / "warm.py"
    script.write_text(_COUNT_SUBPROCESSES + SCRIPT.format(backend="gtfn_cpu", value=value, calls=1))
    env = {
        **os.environ,
        "GT4PY_BUILD_CACHE_LIFETIME": "persistent",
        "GT4PY_CACHE_DIAGNOSTICS": "1",
        "GT4PY_ASYNC_COMPILATION": "0",
    }
    cold = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert cold.returncode == 0, cold.stderr
    assert "subprocesses 0" not in cold.stdout  # the cold process did build something
    assert "cache miss" in cold.stderr, cold.stderr  # so the check on the warm one means something
    warm = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert warm.returncode == 0, warm.stderr
    assert "subprocesses 0" in warm.stdout, warm.stdout
    assert "miss" not in warm.stderr.lower(), warm.stderr


@pytest.mark.slow
def test_cache_diagnostics_name_the_changed_key_part(tmp_path):
    script = tmp_path / "diag.py"
    env = {
        **os.environ,
        "GT4PY_BUILD_CACHE_DIR": str(tmp_path / "cache"),
        "GT4PY_BUILD_CACHE_LIFETIME": "persistent",
        "GT4PY_CACHE_DIAGNOSTICS": "1",
    }
    script.write_text(SCRIPT.format(backend="itir_python", value="1.0", calls=1))
    first = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=True
    )
    assert "first build" in first.stderr, first.stderr
    script.write_text(SCRIPT.format(backend="itir_python", value="2.0", calls=1))
    changed = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, check=True
    )
    lines = [line for line in changed.stderr.splitlines() if "next/itir_python" in line]
    assert lines and "program" in lines[0], changed.stderr
