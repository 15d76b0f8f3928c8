"""Shared setup of the gt4py.next feature suite: the backend registry, a small mesh, helpers.

The suite is written against the public API of released gt4py.next 1.2.x only, so it runs on
our implementation and, for validation, on released gt4py 1.2.3 (whose embedded backend is
``backend=None``). Every test that executes a stencil takes the ``backend`` fixture and is
therefore run once per entry of ``BACKENDS``; a compiled backend joins the suite by being added
to that one list.

Markers registered here:
- ``released_defect``: a defect of released gt4py 1.2.3 that ours must not repeat (DESIGN §9).
  When the suite runs on released gt4py these tests are strict ``xfail``: if one passes there,
  the test no longer demonstrates the defect and the run fails.
- ``ours_only``: behaviour that differs from released on purpose (e.g. ``backend=None`` is a
  ``TypeError``); skipped on released gt4py.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gt4py.next as gtx


#: True when the suite runs against released gt4py (validation run), not against ours.
IS_RELEASED = not hasattr(gtx, "embedded_numpy")


class BackendUnavailable(Exception):
    """A registered backend cannot run here (missing package, no GPU, other implementation)."""


@dataclasses.dataclass(frozen=True)
class BackendEntry:
    """One backend the feature suite runs on.

    ``resolve`` is called lazily (at test setup), so that merely collecting the suite never
    imports cupy or starts a compiler; it returns the object passed as ``backend=`` /
    ``allocator=`` or raises :class:`BackendUnavailable` to skip.
    """

    name: str
    resolve: Callable[[], Any]
    marks: tuple[pytest.MarkDecorator, ...] = ()


def _embedded_numpy() -> Any:
    # Released gt4py's embedded execution is selected with ``backend=None``.
    return None if IS_RELEASED else gtx.embedded_numpy


def _gpu_present() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    import cupy

    try:
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no driver / no device: a CUDA runtime error of some kind
        return False


def _embedded_cupy() -> Any:
    if IS_RELEASED:
        raise BackendUnavailable("released gt4py has no embedded cupy backend object")
    if not _gpu_present():
        raise BackendUnavailable("embedded_cupy needs cupy and a GPU")
    return gtx.embedded_cupy


def _gtfn_gpu() -> Any:
    # every gtfn_gpu test compiles CUDA and runs it: a GPU and cupy (ADR 0019)
    if IS_RELEASED:
        raise BackendUnavailable("gtfn_gpu is validated against released gt4py separately")
    if not _gpu_present():
        raise BackendUnavailable("gtfn_gpu needs cupy and a GPU")
    return gtx.gtfn_gpu


def _gtfn_gpu_emulated() -> Any:
    # the gtfn_gpu code on the CPU (gt4py/cuda_emulation.hpp): its logic, without a GPU (ADR 0019)
    if IS_RELEASED:
        raise BackendUnavailable("released gt4py has no CUDA emulation")
    from gt4py.next.backends.gtfn import GTFNConfig, make_gtfn_backend

    global _EMULATED
    if _EMULATED is None:
        _EMULATED = make_gtfn_backend(GTFNConfig(device="emulated"), name="gtfn_gpu_emulated")
    return _EMULATED


_EMULATED: Any = None


def _compiled(name: str) -> Any:
    if IS_RELEASED:
        raise BackendUnavailable(f"{name} is validated against released gt4py separately")
    return getattr(gtx, name)


#: The registry. Add a compiled backend here, e.g.
#: ``BackendEntry("gtfn_cpu", lambda: gtx.gtfn_cpu, (pytest.mark.slow,))``.
BACKENDS: list[BackendEntry] = [
    BackendEntry("embedded_numpy", _embedded_numpy),
    BackendEntry("embedded_cupy", _embedded_cupy, (pytest.mark.requires_gpu,)),
    BackendEntry("itir_python", lambda: _compiled("itir_python")),
    BackendEntry("gtfn_cpu", lambda: _compiled("gtfn_cpu"), (pytest.mark.slow,)),
    BackendEntry("gtfn_gpu", _gtfn_gpu, (pytest.mark.slow, pytest.mark.requires_gpu)),
    BackendEntry(
        "gtfn_gpu_emulated", _gtfn_gpu_emulated, (pytest.mark.slow, pytest.mark.gpu_emulation)
    ),
]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "released_defect: a defect of released gt4py 1.2.3 (DESIGN §9) ours fixes"
    )
    config.addinivalue_line("markers", "ours_only: intended difference from released gt4py")


#: Tests a compiled backend cannot run yet: strict xfail, so a fix shows up as a failure here.
#: (Empty since temporaries and dataclass / NamedTuple arguments were lowered, ADR 0013.)
COMPILED_XFAIL: dict[str, str] = {}
XFAIL_BY_BACKEND: dict[str, dict[str, str]] = {
    "itir_python": COMPILED_XFAIL,
    "gtfn_cpu": COMPILED_XFAIL,
    "gtfn_gpu": COMPILED_XFAIL,
    "gtfn_gpu_emulated": COMPILED_XFAIL,
}


def _backend_name(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    if callspec is None or "backend" not in callspec.params:
        return None
    entry = callspec.params["backend"]
    return entry.name if isinstance(entry, BackendEntry) else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if not IS_RELEASED:
            name = _backend_name(item)
            reason = XFAIL_BY_BACKEND.get(name or "", {}).get(getattr(item, "originalname", ""))
            if reason is not None:
                item.add_marker(pytest.mark.xfail(reason=f"{name}: {reason}", strict=True))
            continue
        if item.get_closest_marker("ours_only") is not None:
            item.add_marker(pytest.mark.skip(reason="intended difference from released gt4py"))
        defect = item.get_closest_marker("released_defect")
        if defect is not None:
            reason = defect.args[0] if defect.args else "released gt4py defect"
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))


@pytest.fixture(params=[pytest.param(e, id=e.name, marks=e.marks) for e in BACKENDS])
def backend(request: pytest.FixtureRequest) -> Any:
    """The backend object under test (``None`` for released gt4py's embedded execution)."""
    entry: BackendEntry = request.param
    try:
        return entry.resolve()
    except BackendUnavailable as unavailable:
        pytest.skip(f"{entry.name}: {unavailable}")


# Dimensions of the mesh (dimensions compare by name and kind, so test modules define their own
# equal ones instead of importing these: importlib import mode has no conftest imports).
Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
Cell = gtx.Dimension("Cell")
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)


@pytest.fixture
def is_released() -> bool:
    return IS_RELEASED


# ---------------------------------------------------------------------------------------------
# A small unstructured mesh, built here from first principles
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TriangleMesh:
    """A rectangle of ``nx`` x ``ny`` quads, each split into two triangles (not periodic).

    Boundary vertices have fewer than 6 edges and boundary edges only one cell, so ``v2e``
    and ``e2c`` are padded with the skip value -1.
    """

    num_vertices: int
    e2v: np.ndarray  # (edges, 2)
    c2e: np.ndarray  # (cells, 3)
    v2e: np.ndarray  # (vertices, 6), -1 padded
    e2c: np.ndarray  # (edges, 2), -1 padded

    @property
    def num_edges(self) -> int:
        return self.e2v.shape[0]

    @property
    def num_cells(self) -> int:
        return self.c2e.shape[0]

    def offset_provider(self, backend: Any) -> dict[str, Any]:
        def table(domain: list[gtx.Dimension], codomain: gtx.Dimension, data: np.ndarray) -> Any:
            skip = -1 if (data == -1).any() else None
            return gtx.as_connectivity(
                domain, codomain, data.astype(np.int32), skip_value=skip, allocator=backend
            )

        return {
            "E2V": table([Edge, E2VDim], Vertex, self.e2v),
            "C2E": table([Cell, C2EDim], Edge, self.c2e),
            "V2E": table([Vertex, V2EDim], Edge, self.v2e),
            "E2C": table([Edge, E2CDim], Cell, self.e2c),
        }


def build_triangle_mesh(nx: int, ny: int) -> TriangleMesh:
    def vertex(i: int, j: int) -> int:
        return i * (ny + 1) + j

    edge_ids: dict[tuple[int, int], int] = {}
    e2v: list[tuple[int, int]] = []

    def edge(a: int, b: int) -> int:
        key = (min(a, b), max(a, b))
        if key not in edge_ids:
            edge_ids[key] = len(e2v)
            e2v.append(key)
        return edge_ids[key]

    c2e: list[tuple[int, int, int]] = []
    for i in range(nx):
        for j in range(ny):
            v00, v10, v01, v11 = (
                vertex(i, j),
                vertex(i + 1, j),
                vertex(i, j + 1),
                vertex(i + 1, j + 1),
            )
            c2e.append((edge(v00, v10), edge(v10, v11), edge(v00, v11)))
            c2e.append((edge(v00, v11), edge(v01, v11), edge(v00, v01)))
    num_vertices = (nx + 1) * (ny + 1)
    e2v_arr = np.array(e2v, dtype=np.int64)
    c2e_arr = np.array(c2e, dtype=np.int64)
    v2e_arr = np.full((num_vertices, 6), -1, dtype=np.int64)
    fill = np.zeros(num_vertices, dtype=np.int64)
    for e, (a, b) in enumerate(e2v):
        for v in (a, b):
            v2e_arr[v, fill[v]] = e
            fill[v] += 1
    e2c_arr = np.full((len(e2v), 2), -1, dtype=np.int64)
    efill = np.zeros(len(e2v), dtype=np.int64)
    for c, edges in enumerate(c2e):
        for e in edges:
            e2c_arr[e, efill[e]] = c
            efill[e] += 1
    return TriangleMesh(num_vertices, e2v_arr, c2e_arr, v2e_arr, e2c_arr)


@pytest.fixture(scope="session")
def build_mesh() -> Callable[[int, int], TriangleMesh]:
    return build_triangle_mesh


@pytest.fixture(scope="session")
def mesh() -> TriangleMesh:
    return build_triangle_mesh(3, 2)
