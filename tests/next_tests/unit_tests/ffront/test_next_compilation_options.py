"""Released gt4py's compilation options: ``with_compilation_options``, the decorators' options,
``with_static_params``, ``with_bound_args``, ``enable_jit=`` per call, and icon4py's
``setup_program`` sequence (with_backend → with_compilation_options(enable_jit=False) →
compile(static value lists) → functools.partial) on every backend."""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import config


I = gtx.Dimension("I")
IField = gtx.Field[gtx.Dims[I], gtx.float64]


@gtx.field_operator
def scale(a: IField, n: gtx.int32) -> IField:
    return a * gtx.astype(n, gtx.float64)


@gtx.program
def scaled(a: IField, n: gtx.int32, out: IField):
    scale(a, n, out=out)


def fields(size: int = 5):
    return gtx.as_field([I], np.arange(float(size))), gtx.zeros({I: size})


def test_unknown_option_is_a_type_error_naming_the_options():
    with pytest.raises(
        TypeError, match=r"unknown compilation option\(s\) 'enable_jitt'.*enable_jit"
    ):
        scaled.with_compilation_options(enable_jitt=False)
    with pytest.raises(TypeError, match="unknown compilation option"):
        scale.with_compilation_options(foo=1)
    with pytest.raises(TypeError, match="unknown compilation option"):
        gtx.program(backend=gtx.itir_python, jit=False)(scaled.definition)


def test_option_values_are_checked():
    with pytest.raises(TypeError, match="enable_jit must be"):
        scaled.with_compilation_options(enable_jit="no")
    with pytest.raises(TypeError, match="static_params must be a sequence"):
        scaled.with_compilation_options(static_params="n")
    with pytest.raises(TypeError, match="static_domains must be"):
        scaled.with_compilation_options(static_domains=1)


def test_with_compilation_options_returns_a_new_object_with_its_own_variants(cache_dir):
    jit = scaled.with_backend(gtx.itir_python)
    a, out = fields()
    jit(a, 2, out, offset_provider={})
    assert len(jit.compiled_variants) == 1
    no_jit = jit.with_compilation_options(enable_jit=False)
    assert no_jit is not jit and no_jit.compilation_options.enable_jit is False
    assert jit.compilation_options.enable_jit is None  # the original is unchanged
    assert no_jit.compiled_variants == ()  # as released: a new program, a new pool
    with pytest.raises(RuntimeError, match=r"enable_jit=False"):
        no_jit(a, 2, out, offset_provider={})
    jit(a, 3, out, offset_provider={})  # the original still compiles on demand
    assert out.asnumpy().tolist() == [0.0, 3.0, 6.0, 9.0, 12.0]


def test_enable_jit_per_call_overrides_the_option(cache_dir):
    prog = scaled.with_backend(gtx.itir_python).with_compilation_options(enable_jit=False)
    a, out = fields()
    prog(a, 2, out, offset_provider={}, enable_jit=True)
    assert out.asnumpy().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    prog(a, 2, out, offset_provider={})  # compiled now
    fresh = scaled.with_backend(gtx.itir_python).with_compilation_options(enable_jit=False)
    # the option beats the setting
    with config.overrides(enable_jit=True), pytest.raises(RuntimeError, match="enable_jit=False"):
        fresh(a, 2, out, offset_provider={})
    with config.overrides(enable_jit=False):  # and the call's beats both
        fresh(a, 2, out, offset_provider={}, enable_jit=True)
    op = scale.with_backend(gtx.itir_python).with_compilation_options(enable_jit=False)
    with pytest.raises(RuntimeError, match="enable_jit=False"):
        op(a, 2, out=out, offset_provider={})
    op(a, 4, out=out, offset_provider={}, enable_jit=True)
    assert out.asnumpy().tolist() == [0.0, 4.0, 8.0, 12.0, 16.0]


def test_decorator_options_and_static_params(cache_dir):
    prog = gtx.program(backend=gtx.itir_python, static_params=["n"], enable_jit=True)(
        scaled.definition
    )
    assert prog.compilation_options.static_params == ("n",)
    a, out = fields()
    prog(a, 2, out, offset_provider={})
    prog(a, 3, out, offset_provider={})
    assert sorted(dict(v.key.static)["n"] for v in prog.compiled_variants) == [2, 3]
    assert prog.with_static_params().compilation_options.static_params == ()
    assert prog.with_static_params(None).compilation_options.static_params == ()
    assert scaled.with_static_params("n").static_params == ("n",)
    op = gtx.field_operator(scale.definition, backend=gtx.itir_python, enable_jit=False)
    assert op.compilation_options.enable_jit is False


def test_connectivities_is_the_offset_provider_compile_uses(cache_dir):
    prog = (
        scaled.with_backend(gtx.itir_python)
        .with_compilation_options(enable_jit=False, connectivities={})
        .with_static_params("n")
    )
    with config.overrides(async_compilation=False):
        assert prog.compile(n=[2]) is prog  # no offset_provider=: the option's
    a, out = fields()
    prog(a, 2, out, offset_provider={})
    assert out.asnumpy().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_static_domains_key_variants_on_the_domains_and_bind_them(cache_dir):
    prog = scaled.with_backend(gtx.itir_python).with_compilation_options(static_domains=True)
    a5, out5 = fields(5)
    a7, out7 = fields(7)
    prog(a5, 2, out5, offset_provider={})
    prog(a7, 2, out7, offset_provider={})
    prog(a5, 3, out5, offset_provider={})  # n is not static: the 5-point variant serves it
    assert out5.asnumpy().tolist() == [0.0, 3.0, 6.0, 9.0, 12.0]
    assert out7.asnumpy().tolist() == [2.0 * i for i in range(7)]
    variants = prog.compiled_variants
    assert len(variants) == 2
    assert sorted(dict(v.key.domains)["out"][0][2] for v in variants) == [5, 7]
    for variant in variants:
        assert "FieldBound" not in repr(variant.stages["ir_optimized"])  # bounds are literals
        assert "static domains" in variant.description
    with pytest.raises(TypeError, match="static_domains=True"):
        prog.compile(offset_provider={})
    # a field on other bounds (an offset origin) is another variant, never the 5-point one
    shifted = gtx.as_field(gtx.domain({I: (1, 6)}), np.arange(5.0))
    out_shifted = gtx.as_field(gtx.domain({I: (1, 6)}), np.zeros(5))
    prog(shifted, 2, out_shifted, offset_provider={})
    assert out_shifted.asnumpy().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    assert len(prog.compiled_variants) == 3


def test_with_bound_args_fixes_parameters_on_every_backend(cache_dir):
    a, out = fields()
    for backend in (gtx.embedded_numpy, gtx.itir_python):
        bound = scaled.with_backend(backend).with_bound_args(n=3)
        bound(a, out=out, offset_provider={})
        assert out.asnumpy().tolist() == [0.0, 3.0, 6.0, 9.0, 12.0]
    compiled = scaled.with_backend(gtx.itir_python).with_bound_args(n=3)
    compiled(a, out=out, offset_provider={})
    assert compiled.compilation_options.static_params == ("n",)  # a constant of the code
    assert dict(compiled.compiled_variants[0].key.static) == {"n": 3}
    with pytest.raises(TypeError, match="'m' is not a parameter"):
        scaled.with_bound_args(m=1)


def setup_program_like_icon4py(program, backend, constant_args, variants, offset_provider):
    """The sequence of icon4py 0.4.1's model_options.setup_program (written here, not copied:
    the calls it makes on a gt4py program, in its order)."""
    static = {k: v for k, v in constant_args.items() if gtx.is_scalar_type(v)}
    prepared = program.with_backend(backend)
    if backend is not None:
        prepared = prepared.with_compilation_options(enable_jit=False)
        prepared.compile(
            **variants, **{k: [v] for k, v in static.items()}, offset_provider=offset_provider
        )
    return functools.partial(prepared, **constant_args, offset_provider=offset_provider)


@pytest.mark.parametrize("backend_name", ["none", "embedded_numpy", "itir_python", "gtfn_cpu"])
def test_icon4py_setup_program_sequence(backend_name, cache_dir):
    if backend_name == "gtfn_cpu":
        pytest.importorskip("nanobind")
    backend = None if backend_name == "none" else getattr(gtx, backend_name)
    a, out = fields()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # backend=None's
        with config.overrides(async_compilation=False):
            run = setup_program_like_icon4py(scaled, backend, {"n": gtx.int32(4)}, {}, {})
    run(a=a, out=out)
    assert out.asnumpy().tolist() == [0.0, 4.0, 8.0, 12.0, 16.0]
    if backend_name in ("itir_python", "gtfn_cpu"):
        program = run.func
        assert program.compilation_options.enable_jit is False
        assert len(program.compiled_variants) == 1  # compiled ahead of time, nothing more
        with pytest.raises(RuntimeError, match="enable_jit=False"):
            run(a=a, out=out, n=gtx.int32(5))  # another static value: not compiled
