"""The bit width of untyped literals in GTScript (``1`` and ``1.0`` without a cast): 64 by
default, 32 with ``GT4PY_LITERAL_INT_PRECISION=32`` / ``GT4PY_LITERAL_FLOAT_PRECISION=32`` (as
in released gt4py; NDSL sets both from ``NDSL_LITERAL_PRECISION``). Settings of infra's one
registry, read when a stencil is built and part of its cache key."""

from __future__ import annotations

from typing import Literal

from gt4py.infra import config


LITERAL_INT_PRECISION = config.register(
    config.Setting(
        name="literal_int_precision",
        type=int,
        default=64,
        choices=(32, 64),
        doc="bit width of untyped int literals in GTScript stencils (32 or 64)",
        env="GT4PY_LITERAL_INT_PRECISION",
    )
)
LITERAL_FLOAT_PRECISION = config.register(
    config.Setting(
        name="literal_float_precision",
        type=int,
        default=64,
        choices=(32, 64),
        doc="bit width of untyped float literals in GTScript stencils (32 or 64)",
        env="GT4PY_LITERAL_FLOAT_PRECISION",
    )
)


def literal_precision(kind: Literal["int", "float"]) -> int:
    """The current bit width of untyped ``kind`` literals."""
    setting = LITERAL_INT_PRECISION if kind == "int" else LITERAL_FLOAT_PRECISION
    return int(setting.get())


def literal_dtype(kind: Literal["int", "float"]) -> str:
    """The dtype of an untyped ``kind`` literal: ``"int64"``, ``"float32"``..."""
    return f"{kind}{literal_precision(kind)}"
