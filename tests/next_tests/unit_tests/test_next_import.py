"""`import gt4py.next` stays light: no optional extras, no other DSL stack."""

from __future__ import annotations

import subprocess
import sys


def test_import_does_not_pull_optional_packages():
    code = (
        "import sys, gt4py.next as gtx\n"
        "heavy = [m for m in ('cupy', 'jax', 'dace', 'gt4py.cartesian') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == ""


def test_public_api_names():
    import gt4py.next as gtx

    for name in (
        "Dimension",
        "DimensionKind",
        "Dims",
        "Field",
        "FieldOffset",
        "Domain",
        "domain",
        "UnitRange",
        "Connectivity",
        "as_connectivity",
        "as_field",
        "zeros",
        "ones",
        "full",
        "empty",
        "GridType",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
        "astype",
        "broadcast",
        "where",
        "neighbor_sum",
        "max_over",
        "min_over",
        "minimum",
        "maximum",
        "gamma",
        "power",
        "experimental",
        "__version__",
    ):
        assert hasattr(gtx, name), name
    assert callable(gtx.experimental.concat_where) and callable(gtx.experimental.as_offset)
    from gt4py.next.ffront.fbuiltins import Dimension, FieldOffset  # downstream import paths

    assert Dimension is gtx.Dimension and FieldOffset is gtx.FieldOffset


def test_builtins_reexported_from_the_catalog():
    # gtx and fbuiltins re-export the builtins by star import of the catalog's literal __all__:
    # it names every builtin function and IndexType, and both faces expose and list each one.
    import gt4py.next as gtx
    from gt4py.next.ffront import _builtin_catalog as catalog, fbuiltins

    assert set(catalog.__all__) == {*catalog.BUILTINS, "IndexType"}
    assert len(catalog.__all__) == len(set(catalog.__all__))
    for face in (gtx, fbuiltins):
        assert set(catalog.__all__) <= set(face.__all__), face.__name__
        for name in catalog.__all__:
            assert getattr(face, name) is getattr(catalog, name), (face.__name__, name)
