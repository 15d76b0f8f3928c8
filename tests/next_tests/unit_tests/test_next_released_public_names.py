"""Released gt4py.next 1.2.3's public names (``gtx.__all__``, ``common``, ``typing``, ``fbuiltins``).

Every name of released ``gtx.__all__`` is here with its meaning, or fails with an
``AttributeError`` that names what to use instead (never a silent stand-in). The released list
is written out below: released gt4py is not installed next to this one.
"""

from __future__ import annotations

import builtins
import importlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.next import common, typing as gtx_typing
from gt4py.next.ffront import fbuiltins


# released gt4py.next 1.2.3's `__all__`
RELEASED_ALL = [
    "common",
    "ffront",
    "iterator",
    "program_processors",
    "typing",
    "CUPY_DEVICE_TYPE",
    "Device",
    "DeviceType",
    "is_scalar_type",
    "Dimension",
    "DimensionKind",
    "Dims",
    "Field",
    "CartesianConnectivity",
    "Connectivity",
    "GridType",
    "domain",
    "Domain",
    "unit_range",
    "UnitRange",
    "is_staggered",
    "flip_staggered",
    "as_non_staggered",
    "FieldConstructor",
    "empty",
    "zeros",
    "ones",
    "full",
    "as_field",
    "as_connectivity",
    "FieldOffset",
    "field_operator",
    "program",
    "scan_operator",
    "wait_for_compilation",
    "gtfn_cpu",
    "gtfn_gpu",
    "itir_python",
    "IndexType",
    "abs",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctanh",
    "astype",
    "bool",
    "broadcast",
    "cbrt",
    "ceil",
    "cos",
    "cosh",
    "exp",
    "float",
    "float32",
    "float64",
    "floor",
    "fmod",
    "gamma",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "isfinite",
    "isinf",
    "isnan",
    "log",
    "max_over",
    "min_over",
    "maximum",
    "minimum",
    "neg",
    "neighbor_sum",
    "power",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
    "tuple",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "where",
]

# released names without a counterpart here -> what the error must name
GONE_TOP_LEVEL = {
    "FieldConstructor": "gtx.empty / zeros / ones / full / as_field",
    "is_staggered": "staggered dimensions",
    "flip_staggered": "staggered dimensions",
    "as_non_staggered": "staggered dimensions",
    "iterator": "field_operator / program",
}


def test_every_released_top_level_name_is_here_or_gone():
    assert set(RELEASED_ALL) - set(gtx.__all__) == set(GONE_TOP_LEVEL)
    for name in set(RELEASED_ALL) - set(GONE_TOP_LEVEL):
        assert hasattr(gtx, name), name
        assert name in dir(gtx), name


@pytest.mark.parametrize("name", sorted(GONE_TOP_LEVEL))
def test_gone_top_level_names_name_their_replacement(name):
    with pytest.raises(AttributeError, match=f"gt4py.next.{name}: ") as info:
        getattr(gtx, name)
    assert GONE_TOP_LEVEL[name] in str(info.value)
    assert "; use " in str(info.value)


def test_python_builtins_are_reexported():
    assert gtx.bool is builtins.bool
    assert gtx.int is builtins.int
    assert gtx.float is builtins.float
    assert gtx.tuple is builtins.tuple
    for name in ("bool", "int", "float", "tuple"):
        assert getattr(fbuiltins, name) is getattr(builtins, name)
    assert (bool, int, float, tuple) == fbuiltins.PYTHON_TYPE_BUILTINS
    assert fbuiltins.PYTHON_TYPE_BUILTIN_NAMES == ("bool", "int", "float", "tuple")


def test_python_builtins_as_annotations():
    I = gtx.Dimension("I")

    @gtx.field_operator
    def scale(a: gtx.Field[gtx.Dims[I], gtx.float], k: gtx.float) -> gtx.Field[[I], gtx.float]:
        return a * k

    a = gtx.as_field([I], np.arange(3.0))
    out = gtx.zeros({I: 3})
    scale(a, 2.0, out=out, offset_provider={})
    assert np.array_equal(out.asnumpy(), [0.0, 2.0, 4.0])


def test_index_type_is_int32():
    assert gtx.IndexType is np.int32
    assert fbuiltins.IndexType is np.int32
    assert fbuiltins.TYPE_ALIAS_NAMES == ("IndexType",)


def test_field_model_and_submodules():
    assert gtx.CartesianConnectivity is common.CartesianConnectivity
    I = gtx.Dimension("I")
    assert gtx.CartesianConnectivity(I, 1) == common.CartesianConnectivity(I, 1)
    import gt4py.next.ffront
    import gt4py.next.program_processors
    import gt4py.next.typing

    assert gtx.ffront is gt4py.next.ffront
    assert gtx.typing is gt4py.next.typing
    assert gtx.program_processors is gt4py.next.program_processors


def test_lazy_backends_are_listed():
    for name in ("gtfn_cpu", "gtfn_gpu", "itir_python", "CUPY_DEVICE_TYPE"):
        assert name in gtx.__all__
        assert name in dir(gtx)
    assert gtx.gtfn_cpu.name == "gtfn_cpu"


_TYPO_PROBE = """
import importlib, sys
for module, typo in [
    ("gt4py.next", "gtfn_cpx"),
    ("gt4py.next", "field_operatr"),
    ("gt4py.next.backends", "gtfn_cpx"),
    ("gt4py.next.common", "Dimensio"),
    ("gt4py.next.ffront.fbuiltins", "neighbor_sun"),
    ("gt4py.next.typing", "FieldOperatr"),
    ("gt4py.next.config", "DEBUx"),
]:
    try:
        getattr(importlib.import_module(module), typo)
    except AttributeError:
        sys.excepthook(*sys.exc_info())  # the interpreter's own display, with its suggestion
"""


def test_a_typo_in_a_public_module_gets_did_you_mean():
    # Python computes "Did you mean" from the module's dir(): a lazy name missing there, or an
    # AttributeError without name=/obj=, loses it. Python 3.11 adds it only when it prints.
    result = subprocess.run(
        [sys.executable, "-c", _TYPO_PROBE], capture_output=True, text=True, check=True
    )
    lines = [line for line in result.stderr.splitlines() if line.startswith("AttributeError")]
    assert len(lines) == 7, result.stderr
    for line, expected in zip(
        lines,
        [
            "gtfn_cpu",
            "field_operator",
            "gtfn_cpu",
            "Dimension",
            "neighbor_sum",
            "FieldOperator",
            "DEBUG",
        ],
        strict=True,
    ):
        assert f"Did you mean: '{expected}'?" in line, line


def test_import_and_star_import_do_not_warn():
    code = (
        "import gt4py.next\n"
        "ns = {}\n"
        "exec('from gt4py.next import *', ns)\n"
        "assert ns['float'] is float and ns['neg'] is gt4py.next.neg\n"
    )
    subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        check=True,
        timeout=120,
    )


# -- neg: the builtin of unary minus ----------------------------------------------------------


def test_neg_on_scalars_and_embedded_fields():
    assert gtx.neg is fbuiltins.neg
    assert "neg" in fbuiltins.BUILTINS
    assert gtx.neg(2.5) == -2.5
    assert gtx.neg(np.int32(3)) == np.int32(-3)
    I = gtx.Dimension("I")
    field = gtx.as_field([I], np.array([1.0, -2.0, 0.5]))
    assert np.array_equal(gtx.neg(field).asnumpy(), [-1.0, 2.0, -0.5])


def _neg_operator() -> tuple[Any, Any]:
    I = gtx.Dimension("I")

    @gtx.field_operator
    def negate(
        a: gtx.Field[gtx.Dims[I], gtx.float64], b: gtx.Field[gtx.Dims[I], gtx.int32]
    ) -> tuple[gtx.Field[gtx.Dims[I], gtx.float64], gtx.Field[gtx.Dims[I], gtx.int32]]:
        return gtx.neg(a), fbuiltins.neg(b)

    return I, negate


def _run_neg(backend: Any) -> None:
    I, negate = _neg_operator()
    a = gtx.as_field([I], np.array([1.5, -2.0, 0.0, 4.0]), allocator=backend)
    b = gtx.as_field([I], np.array([3, -7, 0, 1], dtype=np.int32), allocator=backend)
    out = (gtx.zeros({I: 4}, allocator=backend), gtx.zeros({I: 4}, np.int32, allocator=backend))
    negate.with_backend(backend)(a, b, out=out, offset_provider={})
    assert np.array_equal(out[0].asnumpy(), [-1.5, 2.0, -0.0, -4.0])
    assert np.array_equal(out[1].asnumpy(), [-3, 7, 0, -1])
    assert out[1].asnumpy().dtype == np.int32


def test_neg_in_operator_embedded():
    _run_neg(gtx.embedded_numpy)


@pytest.mark.slow
@pytest.mark.parametrize("backend_name", ["itir_python", "gtfn_cpu"])
def test_neg_in_operator_compiled(backend_name, cache_dir):
    _run_neg(getattr(gtx, backend_name))


def test_neg_rejects_bool():
    I = gtx.Dimension("I")
    with pytest.raises(Exception, match="neg"):

        @gtx.field_operator
        def bad(a: gtx.Field[gtx.Dims[I], gtx.bool]) -> gtx.Field[gtx.Dims[I], gtx.bool]:
            return gtx.neg(a)

        bad.__gt_signature__  # noqa: B018  (checks the definition if the decorator did not)


# -- submodules ----------------------------------------------------------------------------------

COMMON_GONE = [
    "AnyIndexSpec",
    "BufferInfo",
    "ConnectivityType",
    "DimT",
    "FiniteDomain",
    "GTFieldInterface",
    "MutableField",
    "NeighborConnectivityType",
    "NumericValue",
    "OffsetProviderType",
    "Tag",
    "as_non_staggered",
    "check_dims",
    "connectivity_for_cartesian_shift",
    "flip_staggered",
    "get_offset",
    "is_staggered",
    "offset_provider_to_type",
    "order_dimensions",
]


@pytest.mark.parametrize("name", COMMON_GONE)
def test_released_common_names_name_their_replacement(name):
    with pytest.raises(AttributeError, match=f"gt4py.next.common.{name}: .*; use "):
        getattr(common, name)


def test_common_names_icon4py_uses():
    assert common.NeighborTable is common.Connectivity
    assert callable(common.is_neighbor_table) and callable(common._field)
    assert common.DimsT.__name__ == "DimsT"
    assert "OffsetProvider" in common.__all__


def test_typing_names():
    assert gtx_typing.DSLDefinition is not None
    assert isinstance(_neg_operator()[1], gtx_typing.GTEntryPoint)
    with pytest.raises(AttributeError, match=r"CompiledProgramsKey: .*; use .*compile"):
        gtx_typing.CompiledProgramsKey  # noqa: B018
    for name in ("Allocator", "Backend", "FieldOperator", "OffsetProvider", "Program", "Scalar"):
        assert name in gtx_typing.__all__


@pytest.mark.parametrize(
    ("name", "replacement"),
    [
        ("BUILTIN_NAMES", "fbuiltins.BUILTINS"),
        ("WhereBuiltinFunction", "fbuiltins.BuiltInFunction"),
        ("is_cartesian_offset", "FieldOffset"),
    ],
)
def test_released_fbuiltins_names_name_their_replacement(name, replacement):
    with pytest.raises(AttributeError, match=f"fbuiltins.{name}: .*; use .*{replacement}"):
        getattr(fbuiltins, name)


def test_fbuiltins_released_all():
    released = {"IndexType", "bool", "float", "int", "neg", "tuple"}  # beyond what was here
    assert released <= set(fbuiltins.__all__)


def test_experimental_names():
    assert set(gtx.experimental.__all__) >= {"as_offset", "concat_where"}


# released gt4py.next modules without a counterpart here -> what the error must name
GONE_MODULES = {
    "gt4py.next.iterator": "field_operator / program",
    "gt4py.next.iterator.builtins": "field_operator / program",
    "gt4py.next.iterator.ir": "gt4py.next.ir",
    "gt4py.next.otf.workflow": "gt4py.next.backends",
    "gt4py.next.field_utils": "Field.asnumpy()",
    "gt4py.next.fingerprinting": "gt4py.infra.fingerprinting",
    "gt4py.next.named_collections": "tuples of fields",
    "gt4py.next.utils": "the public API of gt4py.next",
}


@pytest.mark.parametrize("module", sorted(GONE_MODULES))
def test_gone_modules_fail_to_import_naming_their_replacement(module):
    with pytest.raises(ModuleNotFoundError, match="; use ") as info:
        importlib.import_module(module)
    assert GONE_MODULES[module] in str(info.value)
    # as Python's own error: `name` is the first missing package (the parent of a submodule)
    assert module.startswith(info.value.name) and info.value.name.count(".") == 2


def test_other_missing_modules_keep_pythons_error():
    with pytest.raises(ModuleNotFoundError, match=r"^No module named 'gt4py.next.no_such'$"):
        importlib.import_module("gt4py.next.no_such")
