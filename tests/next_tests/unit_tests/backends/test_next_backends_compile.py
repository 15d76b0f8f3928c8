"""Ahead-of-time compilation: static arguments, enable_jit=False, asynchronous compilation."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import config, runners


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]


@gtx.field_operator
def scale(a: IField, n: gtx.int32) -> IField:
    return a * gtx.astype(n, gtx.float64)


def make_program(backend, **options):
    def scaled(a: IField, n: gtx.int32, out: IField):
        scale(a, n, out=out)

    return gtx.program(backend=backend, **options)(scaled)


def pool_of(program):
    (pool,) = program.__dict__["__gt_compiled_pools__"].values()
    return pool


def fields():
    return gtx.as_field([I], np.arange(5.0)), gtx.zeros({I: 5})


def test_static_params_become_constants_and_part_of_the_key(cache_dir):
    prog = make_program(gtx.itir_python, static_params=("n",))
    a, out = fields()
    prog(a, 2, out, offset_provider={})
    assert out.asnumpy().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    prog(a, 3, out, offset_provider={})
    assert out.asnumpy().tolist() == [0.0, 3.0, 6.0, 9.0, 12.0]
    pool = pool_of(prog)
    assert sorted(dict(k.static)["n"] for k in pool.variants) == [2, 3]
    for variant in pool.variants.values():
        # the static value is a literal of the IR, not a parameter of the generated code
        assert "n" not in [p.name for p in variant.stages["ir_optimized"].params]
        assert "def run(a, a_o0, out, out_o0)" in variant.stages["py"]


def test_aot_compile_with_static_lists_then_calls_do_not_compile(cache_dir):
    prog = make_program(gtx.itir_python, enable_jit=False)
    with config.overrides(async_compilation=False):
        assert prog.compile(n=[1, 4], offset_provider={}) is prog
    assert len(pool_of(prog).variants) == 2
    a, out = fields()
    prog(a, 4, out, offset_provider={})
    assert out.asnumpy().tolist() == [0.0, 4.0, 8.0, 12.0, 16.0]
    prog(a=a, n=1, out=out)  # keywords and a missing offset provider find the variant too
    assert out.asnumpy().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_without_jit_an_unknown_call_lists_compiled_and_asked(cache_dir):
    prog = make_program(gtx.itir_python, enable_jit=False)
    with config.overrides(async_compilation=False):
        prog.compile(n=[1, 2], offset_provider={})
    a, out = fields()
    with pytest.raises(RuntimeError) as info:
        prog(a, 7, out, offset_provider={})
    message = str(info.value)
    assert "n: int32 = 7" in message and "enable_jit=False" in message
    assert "n: int32 = 1" in message and "n: int32 = 2" in message
    # a wrong field is the argument contract's error, before any variant is looked up (a
    # float32 field would be widened to the declared float64 instead: ADR 0034)
    with pytest.raises(TypeError, match="argument 'a' must be a field over \\(I\\) of float64"):
        prog(gtx.as_field([gtx.Dimension("J")], np.zeros(5)), 1, out)


def test_without_jit_by_setting_nothing_compiled_says_so(cache_dir):
    prog = make_program(gtx.itir_python)
    a, out = fields()
    with config.overrides(enable_jit=False), pytest.raises(RuntimeError, match="nothing"):
        prog(a, 1, out)
    prog(a, 1, out)  # the decorator's default follows the setting, which is back on
    assert out.asnumpy()[1] == 1.0


def test_compile_errors_name_the_problem(cache_dir):
    prog = make_program(gtx.itir_python)
    with pytest.raises(TypeError, match="as a list"):
        prog.compile(n=3, offset_provider={})
    with pytest.raises(ValueError, match="no parameter 'm'"):
        prog.compile(m=[3], offset_provider={})
    with pytest.raises(TypeError, match="must be a scalar"):
        prog.compile(a=[3], offset_provider={})
    with pytest.raises(TypeError, match=r"declared int32, got 2\.5"):
        prog.compile(n=[2.5], offset_provider={})
    static = make_program(gtx.itir_python, static_params=("n",))
    with pytest.raises(TypeError, match="needs values for the static argument"):
        static.compile(offset_provider={})


def test_async_compile_on_threads_then_wait(cache_dir):
    prog = make_program(gtx.itir_python, enable_jit=False)
    with config.overrides(async_compilation=True, build_jobs_mode="thread", build_jobs=2):
        prog.compile(n=[1, 2, 3], offset_provider={})
        assert len(pool_of(prog).pending) == 3
        gtx.wait_for_compilation()
    pool = pool_of(prog)
    assert len(pool.variants) == 3 and not pool.pending
    a, out = fields()
    prog(a, 3, out)
    assert out.asnumpy()[2] == 6.0


def test_a_pending_variant_is_finished_by_the_call_that_needs_it(cache_dir):
    prog = make_program(gtx.itir_python, enable_jit=False)
    with config.overrides(async_compilation=True, build_jobs_mode="thread", build_jobs=1):
        prog.compile(n=[5], offset_provider={})
        a, out = fields()
        prog(a, 5, out)
    assert out.asnumpy()[1] == 5.0
    gtx.wait_for_compilation()  # already installed: returns at once


def test_the_build_task_carries_ir_and_pickles(cache_dir):
    from gt4py.next.backends import _compiled_programs, _variant_keys

    prog = make_program(gtx.itir_python)
    key = _variant_keys.VariantKey(
        tuple(p.type for p in prog.definition_stage.params), (), None, ()
    )
    pool = prog.backend.pool(prog)
    prepared = pool.prepare(key, {})
    task = (_compiled_programs.make_artifact, gtx.itir_python.compiler, prepared.optimized, {})
    restored = pickle.loads(pickle.dumps(task))
    artifact = restored[0](*restored[1:])
    assert "def run(" in artifact.values["py"]


@pytest.mark.slow
def test_async_aot_on_gtfn_in_worker_processes(cache_dir):
    prog = make_program(gtx.gtfn_cpu, enable_jit=False, static_params=("n",))
    with config.overrides(async_compilation=True, build_jobs_mode="process", build_jobs=2):
        assert isinstance(runners.default_runner(), runners.ProcessRunner)
        prog.compile(n=[1, 2, 3], offset_provider={})  # returns without blocking
        assert len(pool_of(prog).pending) == 3
        gtx.wait_for_compilation()
    pool = pool_of(prog)
    assert len(pool.variants) == 3
    a, out = fields()
    for n in (1, 2, 3):
        prog(a, n, out)
        assert out.asnumpy().tolist() == [float(n * i) for i in range(5)]
    assert all(v.stages["so"].is_file() for v in pool.variants.values())


def test_a_failed_background_build_is_raised_by_wait(cache_dir, monkeypatch):
    prog = make_program(gtx.itir_python)

    def broken(self, program, table_dtypes):
        raise RuntimeError("forced build failure")

    monkeypatch.setattr(type(gtx.itir_python.compiler), "make_artifact", broken)
    with config.overrides(async_compilation=True, build_jobs_mode="thread", build_jobs=1):
        prog.compile(n=[1], offset_provider={})
        with pytest.raises(RuntimeError, match="forced build failure"):
            gtx.wait_for_compilation()


# -- field operators ahead of time ----------------------------------------------------------------


@gtx.field_operator
def scale_and_shift(a: IField, n: gtx.int32) -> tuple[IField, IField]:
    return a * gtx.astype(n, gtx.float64), a + gtx.astype(n, gtx.float64)


def test_operator_aot_compile_serves_out_calls_without_jit(cache_dir):
    op = scale.with_backend(gtx.itir_python)
    with config.overrides(async_compilation=False):
        assert op.compile(n=[2, 3], offset_provider={}) is op
    pool = pool_of(op)
    assert sorted(dict(k.static)["n"] for k in pool.variants) == [2, 3]
    a, out = fields()
    with config.overrides(enable_jit=False):
        op(a, 3, out=out, offset_provider={})
        assert out.asnumpy().tolist() == [0.0, 3.0, 6.0, 9.0, 12.0]
        op(a, 2, out=out)
        assert out.asnumpy().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
        with pytest.raises(RuntimeError) as info:
            op(a, 7, out=out)
    message = str(info.value)
    assert "n: int32 = 7" in message and "n: int32 = 2" in message and "out: Field" in message
    assert len(pool.variants) == 2
    descriptions = sorted(v.description for v in op.compiled_variants)
    assert descriptions[0].startswith("(a: Field[[I], float64], n: int32 = 2, out: Field")
    assert scale.compiled_variants == ()  # embedded: nothing is compiled


def test_operator_aot_compile_of_a_tuple_result(cache_dir):
    op = scale_and_shift.with_backend(gtx.itir_python)
    with config.overrides(async_compilation=False):
        op.compile(offset_provider={})
    a, _ = fields()
    out = (gtx.zeros({I: 5}), gtx.zeros({I: 5}))
    with config.overrides(enable_jit=False):
        op(a, 2, out=out, offset_provider={})
    assert out[0].asnumpy().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert out[1].asnumpy().tolist() == [2.0, 3.0, 4.0, 5.0, 6.0]


def test_operator_compile_errors_name_the_problem(cache_dir):
    op = scale.with_backend(gtx.itir_python)
    with pytest.raises(ValueError, match="no parameter 'out'"):
        op.compile(out=[1], offset_provider={})
    with pytest.raises(TypeError, match="as a list"):
        op.compile(n=2, offset_provider={})
    assert scale.compile(offset_provider={}) is scale  # embedded: nothing to compile


@pytest.mark.slow
def test_operator_aot_compile_on_gtfn(cache_dir):
    op = scale.with_backend(gtx.gtfn_cpu)
    with config.overrides(async_compilation=False):
        op.compile(n=[4], offset_provider={})
    a, out = fields()
    with config.overrides(enable_jit=False):
        op(a, 4, out=out)
    assert out.asnumpy().tolist() == [0.0, 4.0, 8.0, 12.0, 16.0]


def test_a_warm_background_compile_is_installed_without_a_worker(cache_dir):
    """Issue 28: on a warm cache the artifact's steps are all hits; they run in the caller
    (no task for the runner, whose start would cost more than the lookups)."""
    cold = make_program(gtx.itir_python, enable_jit=False)
    with config.overrides(async_compilation=True, build_jobs_mode="thread", build_jobs=1):
        cold.compile(n=[1, 2], offset_provider={})
        assert len(pool_of(cold).pending) == 2  # misses: built in the background
        gtx.wait_for_compilation()
        warm = make_program(gtx.itir_python, enable_jit=False)  # a new pool, as in a new process
        warm.compile(n=[1, 2, 3], offset_provider={})
        pool = pool_of(warm)
        assert sorted(dict(k.static)["n"] for k in pool.variants) == [1, 2]  # hits: installed
        assert [dict(k.static)["n"] for k in pool.pending] == [3]  # the miss: in the background
        gtx.wait_for_compilation()
    a, out = fields()
    for n in (1, 2, 3):
        warm(a, n, out)
        assert out.asnumpy()[2] == 2.0 * n


def test_compile_lines_of_long_signatures_name_the_static_values_only():
    from gt4py.next.backends import _variant_keys

    names = [f"field_{i}" for i in range(40)] + ["flag", "n"]
    key = _variant_keys.VariantKey(
        ("Field[[Cell, K], float64]",) * 40 + ("bool", "int32"), (("flag", True), ("n", 3))
    )
    assert key.summary(names) == "(42 arguments; static flag=True, n=3)"
    assert "field_39" in key.describe(names)  # error messages keep the whole signature
    short = _variant_keys.VariantKey(("Field[[I], float64]",))
    assert short.summary(["a"]) == short.describe(["a"]) == "(a: Field[[I], float64])"
