"""Module-level values for cross-process fingerprint checks (imported by name in every process).

Loaded as the top-level module ``infra_fingerprint_samples`` both by the tests and by
``infra_fingerprint_probe.py`` in fresh interpreters, so classes and functions here have the
same verified qualified names everywhere.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import pathlib
from typing import Any, NamedTuple

import attrs
import numpy as np


class Axis(enum.Enum):
    I = "I"
    J = "J"
    K = "K"


class Extent(NamedTuple):
    lower: int
    upper: int


@dataclasses.dataclass(frozen=True)
class Symbol:
    name: str
    dtype: np.dtype[Any]


@dataclasses.dataclass(frozen=True)
class Stencil:
    name: str
    params: tuple[Symbol, ...]
    body: tuple[Any, ...]
    options: dict[str, Any]
    axes: frozenset[Axis]
    extent: Extent
    source_line: int = dataclasses.field(default=0, metadata={"fingerprint": False})


@attrs.frozen
class Config:
    backend: str
    opt_level: int
    callback: Any
    cache_note: str = attrs.field(default="", metadata={"fingerprint": False})


@dataclasses.dataclass(eq=False)
class GraphNode:
    name: str
    edges: list[GraphNode] = dataclasses.field(default_factory=list)


def laplacian(field: Any) -> Any:
    return field


def build_sample() -> Stencil:
    """The same nested value, built afresh, in any process."""
    return Stencil(
        name="lap",
        params=(Symbol("in_field", np.dtype("float64")), Symbol("out_field", np.dtype("<f4"))),
        body=(
            ("assign", "out_field", ("call", laplacian, "in_field")),
            np.arange(6, dtype=np.int32).reshape(2, 3),
            [1, 1.0, True, None, -0.0, float("nan"), 2 + 3j, b"\x00\xff", Ellipsis],
            {"z": 1, "a": (2, 3), 7: {Axis.J, Axis.I}},
            slice(1, None, 2),
            range(0, 10, 3),
            pathlib.PurePosixPath("/tmp/a/b.py"),
            functools.partial(laplacian, field=3),
            Config("gtfn", 3, np.add),
            (int, np.float64, dict, list[int], int | None, Stencil, np.sqrt, len, np),
        ),
        options={"unroll": 4, "openmp": True, "tile": (8, 8)},
        axes=frozenset({Axis.K, Axis.I, Axis.J}),
        extent=Extent(-1, 1),
        source_line=17,
    )


def build_variants() -> dict[str, Any]:
    """The sample with exactly one thing changed each; all must fingerprint differently."""
    base = build_sample()
    params = base.params
    body = list(base.body)
    config = body[8]
    variants: dict[str, Any] = {
        "name": dataclasses.replace(base, name="lap2"),
        "param dtype": dataclasses.replace(
            base, params=(params[0], Symbol("out_field", np.dtype(">f4")))
        ),
        "param order": dataclasses.replace(base, params=(params[1], params[0])),
        "options value": dataclasses.replace(base, options={**base.options, "unroll": 8}),
        "axes": dataclasses.replace(base, axes=frozenset({Axis.I, Axis.J})),
        "extent": dataclasses.replace(base, extent=Extent(-1, 2)),
        "config field": dataclasses.replace(
            base, body=(*body[:8], attrs.evolve(config, opt_level=2), *body[9:])
        ),
        "config callback": dataclasses.replace(
            base, body=(*body[:8], attrs.evolve(config, callback=np.subtract), *body[9:])
        ),
        "array content": dataclasses.replace(
            base, body=(*body[:1], np.arange(1, 7, dtype=np.int32).reshape(2, 3), *body[2:])
        ),
        "array shape": dataclasses.replace(
            base, body=(*body[:1], np.arange(6, dtype=np.int32).reshape(3, 2), *body[2:])
        ),
        "function": dataclasses.replace(
            base, body=(("assign", "out_field", ("call", build_sample, "in_field")), *body[1:])
        ),
    }
    return variants


def build_cyclic() -> Any:
    """Self-referencing values: a list containing itself, two nodes referring to each other."""
    loop: list[Any] = [1, "x"]
    loop.append(loop)
    a, b = GraphNode("a"), GraphNode("b")
    a.edges.append(b)
    b.edges.extend([a, b])
    return (loop, a, {"graph": [a, b]})
