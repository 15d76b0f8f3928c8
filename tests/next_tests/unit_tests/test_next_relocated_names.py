"""Released gt4py.next names at their old paths (DESIGN §8, docs/migration.md "Relocated names").

Each released name that icon4py 0.4.1 or the released docs use and that lives elsewhere here
either resolves to the same thing with a ``DeprecationWarning`` naming the new spelling, or
raises naming what to use instead; never a silent stand-in.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import gt4py.next as gtx
from gt4py.next import _relocated


RUNNERS = "gt4py.next.program_processors.runners"
GTFN = f"{RUNNERS}.gtfn"
DACE = f"{RUNNERS}.dace"
MAKE_GTFN_BACKEND = "gt4py.next.backends.gtfn.make_gtfn_backend"


def _factory() -> Any:
    return importlib.import_module(GTFN)._gtfn_backend_factory


# (module, released name, new spelling in the warning, the object it must be)
MOVED: list[tuple[str, str, str, Callable[[], Any]]] = [
    (GTFN, "run_gtfn", "gtx.gtfn_cpu", lambda: gtx.gtfn_cpu),
    (GTFN, "run_gtfn_cached", "gtx.gtfn_cpu", lambda: gtx.gtfn_cpu),
    (GTFN, "run_gtfn_gpu", "gtx.gtfn_gpu", lambda: gtx.gtfn_gpu),
    (GTFN, "run_gtfn_gpu_cached", "gtx.gtfn_gpu", lambda: gtx.gtfn_gpu),
    (GTFN, "GTFNBackendFactory", MAKE_GTFN_BACKEND, _factory),
    (f"{RUNNERS}.roundtrip", "default", "gtx.itir_python", lambda: gtx.itir_python),
]

# (module, released name, what the error must name)
GONE: list[tuple[str, str, str]] = [
    (GTFN, "run_gtfn_imperative", "gtx.gtfn_cpu"),
    (GTFN, "run_gtfn_no_transforms", MAKE_GTFN_BACKEND),
    (GTFN, "GTFNConfig", MAKE_GTFN_BACKEND),
    (GTFN, "GTFNCompileWorkflowFactory", MAKE_GTFN_BACKEND),
    (GTFN, "make_gtfn_toolchain", MAKE_GTFN_BACKEND),
    (DACE, "make_dace_backend", "gtx.gtfn_cpu"),
    (DACE, "run_dace_cpu", "gtx.gtfn_cpu"),
    (DACE, "run_dace_gpu", "gtx.gtfn_gpu"),
    (DACE, "run_dace_cpu_noopt", "gtx.gtfn_cpu"),
    (DACE, "run_dace_gpu_noopt", "gtx.gtfn_gpu"),
    (DACE, "get_sdfg_args", "gtx.gtfn_cpu"),
    (f"{DACE}.transformations", "GT4PyAutoOptHook", "gtx.gtfn_cpu"),
    (f"{DACE}.transformations", "RemoveAccessNodeCopies", "gtx.gtfn_cpu"),
    (f"{DACE}.transformations", "gt_propagate_strides_from_access_node", "gtx.gtfn_cpu"),
    (f"{DACE}.transformations", "utils", "gtx.gtfn_cpu"),
    (f"{RUNNERS}.roundtrip", "Roundtrip", "gtx.itir_python"),
    (f"{RUNNERS}.roundtrip", "with_temporaries", "gtx.itir_python"),
    (f"{RUNNERS}.roundtrip", "no_transforms", "gtx.itir_python"),
    (f"{RUNNERS}.roundtrip", "gtir", "gtx.itir_python"),
    (f"{RUNNERS}.double_roundtrip", "backend", "gtx.itir_python"),
    ("gt4py.next.backend", "Transforms", MAKE_GTFN_BACKEND),
    ("gt4py.next.backend", "DEFAULT_TRANSFORMS", MAKE_GTFN_BACKEND),
    ("gt4py.next.backend", "DEFAULT_PROG_TRANSFORMS", MAKE_GTFN_BACKEND),
    ("gt4py.next.backend", "ToolchainConfig", MAKE_GTFN_BACKEND),
    ("gt4py.next.type_system.type_specifications", "ScalarKind", "gtx.float64"),
    ("gt4py.next.type_system.type_specifications", "ScalarType", "gtx.float64"),
    ("gt4py.next.type_system", "type_info", "gtx.float64"),
]


@pytest.mark.parametrize(("module", "name", "spelling", "expected"), MOVED)
def test_moved_name_warns_with_the_new_spelling(
    module: str, name: str, spelling: str, expected: Callable[[], Any]
) -> None:
    imported = importlib.import_module(module)
    with pytest.warns(DeprecationWarning) as record:
        value = getattr(imported, name)
    assert value is expected()
    (warning,) = record
    assert str(warning.message).startswith(f"{module}.{name} is ")
    assert spelling in str(warning.message)
    assert warning.filename == __file__  # points at the code that used the old name


@pytest.mark.parametrize(("module", "name", "replacement"), GONE)
def test_gone_name_raises_naming_the_replacement(module: str, name: str, replacement: str) -> None:
    imported = importlib.import_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unmapped name never warns and maps
        with pytest.raises(AttributeError, match=f"{module}.{name}") as info:
            getattr(imported, name)
    assert replacement in str(info.value)
    assert not hasattr(imported, name)


def test_from_import_of_a_moved_name_warns() -> None:
    with pytest.warns(DeprecationWarning, match="run_gtfn is gtx.gtfn_cpu now"):
        from gt4py.next.program_processors.runners.gtfn import run_gtfn
    assert run_gtfn is gtx.gtfn_cpu


# -- GTFNBackendFactory: icon4py's model_backends.py calls GTFNBackendFactory(gpu=on_gpu) -------


def _gtfn_factory(**keywords: Any) -> Any:
    from gt4py.next.program_processors.runners import gtfn

    with pytest.warns(DeprecationWarning, match="GTFNBackendFactory is gtx.gtfn_cpu"):
        factory = gtfn.GTFNBackendFactory
    return factory(**keywords)


@pytest.mark.parametrize(
    ("keywords", "stock"),
    [
        ({}, "gtfn_cpu"),
        ({"gpu": False}, "gtfn_cpu"),
        ({"gpu": True}, "gtfn_gpu"),
        ({"cached": True}, "gtfn_cpu"),
        ({"gpu": True, "cached": True}, "gtfn_gpu"),
        ({"otf_workflow__cached_translation": True}, "gtfn_cpu"),
        ({"otf_workflow__cmake_build_type": "Release"}, "gtfn_cpu"),
    ],
)
def test_gtfn_factory_defaults_are_the_stock_backends(keywords: dict[str, Any], stock: str) -> None:
    assert _gtfn_factory(**keywords) is getattr(gtx, stock)


class _CMakeBuildType:  # released gt4py's config.CMakeBuildType.DEBUG, by value
    value = "Debug"


def test_gtfn_factory_options_with_the_same_meaning_map() -> None:
    from gt4py.next.backends.gtfn import GTFNConfig

    debug = _gtfn_factory(otf_workflow__cmake_build_type=_CMakeBuildType())
    assert debug.config == GTFNConfig(build_type="Debug")
    assert debug is _gtfn_factory(otf_workflow__cmake_build_type="Debug")  # one per setting
    uncached = _gtfn_factory(gpu=True, otf_workflow__cached_translation=False)
    assert uncached.config == GTFNConfig(device="gpu", cached_translation=False)
    named = _gtfn_factory(name_postfix="_icon")
    assert named.name == "gtfn_cpu_icon" and named.config == GTFNConfig()


@pytest.mark.parametrize(
    "keywords",
    [
        {"otf_workflow__translation__use_imperative_backend": True},
        {"otf_workflow__bare_translation__enable_itir_transforms": False},
        {"otf_workflow": None},
        {"device_type": None},
        {"allocator": None},
        {"name": "run_gtfn_cpu"},
    ],
)
def test_gtfn_factory_options_without_equivalent_raise(keywords: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match=MAKE_GTFN_BACKEND) as info:
        _gtfn_factory(**keywords)
    assert next(iter(keywords)) in str(info.value)


def test_gtfn_factory_rejects_an_unknown_build_type() -> None:
    with pytest.raises(TypeError, match="cmake_build_type"):
        _gtfn_factory(otf_workflow__cmake_build_type="Fast")


# -- what keeps working without a warning ---------------------------------------------------------

# Modules icon4py 0.4.1 imports at module level: they import silently.
SILENT_IMPORTS = """
import gt4py.next as gtx
import gt4py.next.typing as gtx_typing
import gt4py.next.custom_layout_allocators as gtx_allocators
import gt4py.next.common as gt_common
import gt4py._core.definitions as gt_coredefs
from gt4py.next import backend as gtx_backend, common as gtx_common
from gt4py.next.program_processors.runners import dace as gtx_dace, gtfn
from gt4py.next.program_processors.runners.dace import transformations as gtx_transformations
from gt4py.next.program_processors.runners import roundtrip, double_roundtrip
from gt4py.next.type_system import type_specifications as gtx_ts
from gt4py.next.ffront.decorator import FieldOperator
from gt4py.next.ffront.fbuiltins import int32
from gt4py.next.common import DimsT
from gt4py.next.experimental import as_offset, concat_where
assert isinstance(gtx.embedded_numpy, gtx_backend.Backend)
"""


@pytest.mark.parametrize("code", ["import gt4py.next", SILENT_IMPORTS], ids=["gtx", "icon4py"])
def test_imports_do_not_warn(code: str) -> None:
    result = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_still_valid_released_names_do_not_warn() -> None:
    from gt4py.next import backend, common

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert backend.Backend is gtx.Backend
        assert backend.embedded_numpy is gtx.embedded_numpy
        assert common.NeighborTable is gtx.Connectivity
        assert callable(common.is_neighbor_table)
        with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
            backend.no_such_name  # noqa: B018


# -- the helper ------------------------------------------------------------------------------------


def test_helper_resolves_on_access_and_leaves_dunders_alone() -> None:
    getattr_ = _relocated.module_getattr(
        "pkg.old",
        {"moved": _relocated.Moved("gtx.zeros", "gt4py.next:zeros")},
        otherwise=_relocated.Gone(replacement="gtx.ones", why="gone"),
    )
    with pytest.warns(DeprecationWarning, match=r"^pkg\.old\.moved is gtx\.zeros now$"):
        assert getattr_("moved") is gtx.zeros
    with pytest.raises(AttributeError, match=r"^pkg\.old\.anything: gone; use gtx\.ones$"):
        getattr_("anything")
    with pytest.raises(AttributeError, match="has no attribute '__path__'"):
        getattr_("__path__")
