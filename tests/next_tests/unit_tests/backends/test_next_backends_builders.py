"""gtfn builders and the C++ error path."""

from __future__ import annotations

import functools

import pytest

import gt4py.next as gtx
from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend, make_gtfn_translation


def test_misspelled_step_setting_is_a_type_error_when_building():
    with pytest.raises(TypeError, match="parallel_treshold"):
        make_gtfn_backend(
            GTFNConfig(), translation=functools.partial(make_gtfn_translation, parallel_treshold=1)
        )


def test_a_customized_step_is_used():
    backend = make_gtfn_backend(
        GTFNConfig(cached_translation=False),
        translation=functools.partial(make_gtfn_translation, openmp=False),
    )
    assert backend.compiler.translation.openmp is False


def test_bad_config_value_is_an_error():
    with pytest.raises(ValueError, match="device"):
        GTFNConfig(device="tpu")  # type: ignore[arg-type]
    assert GTFNConfig(device="gpu").device == "gpu"  # gtfn_gpu (ADR 0019)


@pytest.mark.parametrize(
    ("values", "error", "names"),
    [
        ({"device": ["cpu"]}, ValueError, "device=['cpu']"),
        ({"build_type": 3}, ValueError, "build_type=3"),
        ({"build_type": "release"}, ValueError, "'Release'"),
        ({"cached_translation": "no"}, TypeError, "cached_translation='no' is not a bool"),
        ({"cached_translation": 1}, TypeError, "(a int)"),
    ],
)
def test_config_values_of_the_wrong_type_are_refused_at_construction(values, error, names):
    """Issue 44: GTFNConfig accepted them until the first compile (build_type's check was
    unreachable code)."""
    with pytest.raises(error) as caught:
        GTFNConfig(**values)
    assert names in str(caught.value)


def test_backends_are_reached_lazily_through_gtx():
    assert gtx.gtfn_cpu.name == "gtfn_cpu"
    assert gtx.itir_python.name == "itir_python"
    assert gtx.gtfn_cpu is gtx.gtfn_cpu


@pytest.mark.slow
def test_error_in_generated_cpp_is_one_exception_with_message_and_sources():
    from gt4py.infra import native
    from gt4py.next.backends.gtfn._steps import GTFNCompiler, TranslatedModule

    module = TranslatedModule(
        "gtfn_forced_error",
        {"gtfn_forced_error.cpp": "int f() { return undeclared_name; }\n"},
        True,
    )
    with pytest.raises(native.CompilationError) as info:
        GTFNCompiler(GTFNConfig())(module)
    assert "undeclared_name" in str(info.value)
    assert info.value.source_dir.exists()
