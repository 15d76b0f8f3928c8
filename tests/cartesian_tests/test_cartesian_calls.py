"""Calling a stencil: argument binding, origins, domains, validation, exec_info, rebuild,
lazy stencils and the stage dump."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from gt4py.infra import config


F = gtscript.Field[np.float64]
rng = np.random.default_rng(7)


def _line_of(func, text: str) -> str:
    lines, first = inspect.getsourcelines(func)
    offset = next(n for n, line in enumerate(lines) if text in line)
    return f"{__file__}:{first + offset}"


def _shift_stencil(backend: str):
    @gtscript.stencil(backend=backend)
    def shift(a: F, out: F, scale: float):
        with computation(PARALLEL), interval(...):
            out = scale * a[1, 0, 0]

    return shift


def test_keyword_arguments_bind_by_name(backend):
    shift = _shift_stencil(backend)
    a, out = rng.random((5, 3, 2)), np.zeros((5, 3, 2))
    shift(scale=2.0, out=out, a=a, origin=(0, 0, 0), domain=(4, 3, 2))
    np.testing.assert_allclose(out[:4], 2.0 * a[1:5])


def test_wrong_argument_names_and_missing_arguments(backend):
    shift = _shift_stencil(backend)
    a, out = np.zeros((5, 3, 2)), np.zeros((5, 3, 2))
    with pytest.raises(TypeError, match=r"shift\(\) got an unexpected argument 'b'"):
        shift(a, out, 1.0, b=a)
    with pytest.raises(TypeError, match=r"shift\(\) is missing argument\(s\): scale"):
        shift(a, out)
    with pytest.raises(TypeError, match=r"shift\(\) is missing argument\(s\): out, scale"):
        shift(a=a)
    with pytest.raises(TypeError, match=r"multiple values for argument 'a'"):
        shift(a, out, 1.0, a=a)
    with pytest.raises(TypeError, match=r"shift\(\) takes 3 arguments, got 4"):
        shift(a, out, 1.0, 2.0)


def test_per_field_origin_dict(backend):
    shift = _shift_stencil(backend)
    a, out = rng.random((6, 4, 3)), np.zeros((6, 4, 3))
    shift(a, out, 1.0, origin={"a": (2, 1, 1), "out": (0, 0, 0)}, domain=(3, 3, 2))
    np.testing.assert_allclose(out[:3, :3, :2], a[3:6, 1:4, 1:3])
    assert not out[3:].any() and not out[:, 3:].any() and not out[:, :, 2:].any()
    # "_all_" gives the default for fields not named.
    out2 = np.zeros((6, 4, 3))
    shift(a, out2, 1.0, origin={"_all_": (1, 0, 0), "a": (0, 0, 0)}, domain=(4, 4, 3))
    np.testing.assert_allclose(out2[1:5], a[1:5])
    with pytest.raises(gtscript.StencilArgumentError, match=r"unknown field\(s\) \['b'\]"):
        shift(a, out, 1.0, origin={"b": (0, 0, 0)}, domain=(3, 3, 2))
    with pytest.raises(gtscript.StencilArgumentError, match="origin of field 'a' must have 3"):
        shift(a, out, 1.0, origin={"a": (0, 0)}, domain=(3, 3, 2))


def test_domain_too_large_names_field_axis_and_amount(backend):
    shift = _shift_stencil(backend)
    a, out = np.zeros((6, 4, 3)), np.zeros((8, 8, 8))
    # a is read at i+1: domain 6 from origin 0 needs 7 points along I.
    with pytest.raises(
        gtscript.StencilArgumentError,
        match=r"field 'a' is too small along axis I by 1 point\(s\): origin 0 \+ domain 6 "
        r"\+ halo 1 needs 7, but the size is 6",
    ):
        shift(a, out, 1.0, origin=(0, 0, 0), domain=(6, 4, 3))
    with pytest.raises(
        gtscript.StencilArgumentError, match=r"field 'a' is too small along axis K by 2 point"
    ):
        shift(a, out, 1.0, origin=(0, 0, 0), domain=(5, 4, 5))
    with pytest.raises(
        gtscript.StencilArgumentError, match=r"field 'out' is too small along axis J by 1 point"
    ):
        shift(np.zeros((9, 9, 9)), out, 1.0, origin=(0, 0, 0), domain=(5, 9, 5))
    with pytest.raises(gtscript.StencilArgumentError, match="domain must be 3 positive integers"):
        shift(a, out, 1.0, origin=(0, 0, 0), domain=(0, 4, 3))


def test_a_remembered_call_plan_never_skips_a_failing_check(backend):
    # The second of each pair would pass if the first call's validated plan were reused.
    shift = _shift_stencil(backend)
    a, out = rng.random((8, 4, 3)), np.zeros((8, 4, 3))
    for _ in range(2):  # the repeat hits the remembered plan and still computes right
        out[:] = 0
        shift(a, out, 2.0, origin=(0, 0, 0), domain=(6, 4, 3))
        np.testing.assert_allclose(out[:6], 2.0 * a[1:7])
    with pytest.raises(gtscript.StencilArgumentError, match=r"field 'a' is too small along axis I"):
        shift(np.zeros((6, 4, 3)), out, 2.0, origin=(0, 0, 0), domain=(6, 4, 3))
    with pytest.raises(gtscript.StencilArgumentError, match="field 'a' must have dtype float64"):
        shift(a.astype(np.float32), out, 2.0, origin=(0, 0, 0), domain=(6, 4, 3))
    with pytest.raises(gtscript.StencilArgumentError, match="parameter 'scale' must be a scalar"):
        shift(a, out, [2.0], origin=(0, 0, 0), domain=(6, 4, 3))
    with pytest.raises(gtscript.StencilArgumentError, match="domain must be 3 positive integers"):
        shift(a, out, 2.0, origin=(0, 0, 0), domain=(6.0, 4, 3))
    # Inferred domains follow the shapes of each call.
    shift(a, out, 1.0)
    shift(rng.random((5, 4, 3)), np.zeros((5, 4, 3)), 1.0)
    out[:] = 0
    shift(a, out, 1.0)
    np.testing.assert_allclose(out[:7], a[1:8])
    assert not out[7:].any()


def test_validate_args_false_skips_the_checks(backend):
    shift = _shift_stencil(backend)
    a, out = rng.random((5, 3, 2)), np.zeros((5, 3, 2))
    shift(a, out, 2.0, origin=(0, 0, 0), domain=(4, 3, 2), validate_args=False)
    np.testing.assert_allclose(out[:4], 2.0 * a[1:5])
    # A wrong dtype is rejected when validating ...
    with pytest.raises(gtscript.StencilArgumentError, match="must have dtype float64"):
        shift(a.astype(np.float32), out, 1.0, origin=(0, 0, 0), domain=(4, 3, 2))
    if backend in ("numpy", "debug"):
        # ... and not checked without validation: the Python backends compute anyway (the
        # compiled ones may refuse the array in their bindings).
        shift(
            a.astype(np.float32), out, 1.0, origin=(0, 0, 0), domain=(4, 3, 2), validate_args=False
        )
        np.testing.assert_allclose(out[:4], a[1:5].astype(np.float32))


def test_exec_info_keys(backend):
    shift = _shift_stencil(backend)
    a, out = rng.random((5, 3, 2)), np.zeros((5, 3, 2))
    info: dict = {}
    shift(a, out, 1.0, origin=(0, 0, 0), domain=(4, 3, 2), exec_info=info)
    assert {
        "call_start_time",
        "run_start_time",
        "run_end_time",
        "call_end_time",
        "origin",
        "domain",
    } <= set(info)
    assert info["domain"] == (4, 3, 2)
    assert info["origin"] == {"a": (0, 0, 0), "out": (0, 0, 0)}
    assert (
        info["call_start_time"]
        <= info["run_start_time"]
        <= info["run_end_time"]
        <= info["call_end_time"]
    )
    run_info: dict = {}
    shift.run(
        a=a, out=out, scale=1.0, _domain_=(4, 3, 2), _origin_=info["origin"], exec_info=run_info
    )
    assert run_info["run_start_time"] <= run_info["run_end_time"]


def test_rebuild_regenerates_instead_of_loading(backend, tmp_path):
    def copy(a: F, b: F):
        with computation(PARALLEL), interval(...):
            b = a

    cached = gtscript.stencil(backend=backend)(copy)
    again = gtscript.stencil(backend=backend)(copy)
    assert again.source_path == cached.source_path  # the same cache entry
    rebuilt = gtscript.stencil(backend=backend, rebuild=True)(copy)
    assert rebuilt.source_path != cached.source_path
    a, b = rng.random((3, 3, 3)), np.zeros((3, 3, 3))
    rebuilt(a, b)
    np.testing.assert_array_equal(a, b)


def test_lazy_stencil_error_surfaces_at_first_use_with_user_line(backend):
    def bad(a: F, out: F):
        with computation(PARALLEL), interval(...):
            out = a + not_defined_anywhere  # noqa: F821

    lazy = gtscript.lazy_stencil(backend=backend, check_syntax=False)(bad)  # no error yet
    with pytest.raises(gtscript.GTScriptSymbolError, match="not_defined_anywhere") as info:
        lazy(np.zeros((2, 2, 2)), np.zeros((2, 2, 2)))
    assert _line_of(bad, "not_defined_anywhere") in str(info.value)
    with pytest.raises(gtscript.GTScriptSymbolError):
        lazy.implementation  # noqa: B018 - every use reports it again
    # released's default, check_syntax=True: the definition is parsed at decoration
    with pytest.raises(gtscript.GTScriptSymbolError, match="not_defined_anywhere") as info:
        gtscript.lazy_stencil(backend=backend)(bad)
    assert _line_of(bad, "not_defined_anywhere") in str(info.value)


def test_dump_stages_writes_every_stage(backend, tmp_path):
    with config.overrides(dump_stages=tmp_path):

        @gtscript.stencil(backend=backend, name="dumped")
        def copy(a: F, b: F):
            with computation(PARALLEL), interval(...):
                b = a[1, 0, 0]

    target = tmp_path / f"cartesian_dumped_{backend}"
    files = sorted(p.name for p in target.iterdir())
    generated = {
        "gt:cpu_ifirst": "cpp.cpp",
        "gt:cpu_kfirst": "cpp.cpp",
        "gt:gpu": "cu.cu",
        "gt:gpu_emulated": "cu.cu",
    }
    if backend.startswith("dace:"):  # the SDFG (DaCe's JSON), its C++ (CUDA) and the extension
        source = "cu.cu" if backend.startswith("dace:gpu") else "cpp.cpp"
        assert files == ["analysis.txt", source, "frontend.py", "ir.txt", "sdfg.sdfg", "so.so"]
        assert "NB_MODULE(" in (target / source).read_text()
        assert json.loads((target / "sdfg.sdfg").read_text())["type"] == "SDFG"
        assert (target / "so.so").read_bytes().startswith(b"\x7fELF")
    elif backend in generated:
        assert files == ["analysis.txt", generated[backend], "frontend.py", "ir.txt", "so.so"]
        assert "NB_MODULE(gtcpp_dumped" in (target / generated[backend]).read_text()
        assert (target / "so.so").read_bytes().startswith(b"\x7fELF")
    else:
        assert files == ["analysis.txt", "frontend.py", "ir.txt", "py.py"]
        module = (target / "py.py").read_text()
        assert module.startswith(f'"""Generated by gt4py.cartesian ({backend} backend).')
        compile(module, "py.py", "exec")
    assert "b = a[1, 0, 0]" in (target / "frontend.py").read_text()
    assert "FieldRef" in (target / "ir.txt").read_text()
    assert "param a: in, extent Extent(i_lo=0, i_hi=1" in (target / "analysis.txt").read_text()


def test_changed_type_alias_is_a_different_stencil(backend):
    # Same source text, different meaning of the annotation: must not load the cached one.
    def make(dtype):
        T = gtscript.Field[dtype]

        def copy(a: T, b: T):
            with computation(PARALLEL), interval(...):
                b = a

        return gtscript.stencil(backend=backend)(copy)

    as64, as32 = make(np.float64), make(np.float32)
    assert as64.field_info["a"].dtype == np.float64
    assert as32.field_info["a"].dtype == np.float32
    a = rng.random((2, 2, 2)).astype(np.float32)
    b = np.zeros_like(a)
    as32(a, b)
    np.testing.assert_array_equal(a, b)
