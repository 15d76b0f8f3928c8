"""The backends model: default, None, with_backend, lazy GPU backends, compile, allocators."""

from __future__ import annotations

import importlib
import importlib.util
import logging

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import Field, backend as next_backend, float64


I = gtx.Dimension("I")


@gtx.field_operator
def copy(a: Field[[I], float64]) -> Field[[I], float64]:
    return a


@gtx.program
def copy_program(a: Field[[I], float64], out: Field[[I], float64]):
    copy(a, out=out)


def test_default_backend_is_embedded_numpy() -> None:
    assert copy_program.backend is gtx.embedded_numpy
    assert isinstance(gtx.embedded_numpy, next_backend.EmbeddedBackend)
    assert gtx.embedded_numpy.allocator is np
    assert (
        next_backend.execution_mode(gtx.embedded_numpy, "x") is next_backend.ExecutionMode.EMBEDDED
    )


def test_backend_none_means_embedded_numpy_with_a_deprecation() -> None:
    def definition(a: Field[[I], float64]) -> Field[[I], float64]:
        return a

    with pytest.warns(DeprecationWarning, match=r"gtx\.embedded_numpy"):
        assert gtx.field_operator(backend=None)(definition).backend is gtx.embedded_numpy
    with pytest.warns(DeprecationWarning, match=r"gtx\.embedded_numpy"):
        assert copy_program.with_backend(None).backend is gtx.embedded_numpy
    with pytest.raises(TypeError, match=r"not a gt4py\.next backend"):
        copy.with_backend("gtfn")


def test_with_backend_keeps_the_checked_definition() -> None:
    other = copy_program.with_backend(gtx.embedded_numpy)
    assert other.definition_stage is copy_program.definition_stage
    out = gtx.zeros({I: 3})
    other(gtx.as_field([I], np.array([1.0, 2.0, 3.0])), out)
    assert out.asnumpy().tolist() == [1.0, 2.0, 3.0]


def test_compiled_backend_dispatch() -> None:
    calls = []

    class Recording(next_backend.CompiledBackend):
        name = "recording"
        allocator = np
        compiler = None
        STAGES = ()

        def run(self, definition, args, kwargs, *, offset_provider):  # type: ignore[no-untyped-def]
            calls.append((definition.__name__, len(args)))

        def compile(self, definition, **static_arguments):  # type: ignore[no-untyped-def]
            return ("compiled", definition.__name__)

    compiled = copy_program.with_backend(Recording())
    compiled(1, 2)
    assert calls == [("copy_program", 2)]
    assert compiled.compile() == ("compiled", "copy_program")


def test_compile_on_embedded_program_is_a_no_op_with_a_debug_note(caplog) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.DEBUG, logger="gt4py.next.compile"):
        assert copy_program.compile() is copy_program
        assert copy.compile(offset_provider={}) is copy
    assert "does nothing" in caplog.text and "embedded_numpy" in caplog.text


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="cupy is installed")
def test_embedded_cupy_without_cupy_names_the_package() -> None:
    with pytest.raises(AttributeError, match=r"embedded_cupy needs cupy.*gt4py-next\[cuda12\]"):
        gtx.embedded_cupy  # noqa: B018


def test_allocate_through_program_and_backend() -> None:
    for allocator in (copy_program, gtx.embedded_numpy, copy):
        field = gtx.zeros({I: 4}, allocator=allocator)
        assert isinstance(field.ndarray, np.ndarray)


def test_wait_for_compilation_is_a_no_op_for_embedded() -> None:
    assert gtx.wait_for_compilation() is None
