"""icon4py 0.4.1 (ICON's Python port) runs unchanged on this gt4py.next.

The slow test runs compat/icon4py/run_programs.py in a subprocess on every ``gtx.program`` of
icon4py, on embedded, gtfn_cpu and itir_python, and checks that every module imports and that
the compiled backends agree with embedded on every program embedded runs. It needs icon4py
unpacked somewhere (``compat/icon4py/install.sh DIR``): ``ICON4PY_PATH=DIR`` (several
directories separated by os.pathsep are all put on the path), or icon4py importable.
``ICON4PY_COMPAT_BACKENDS`` narrows the backends (comma list; embedded is always run),
``ICON4PY_COMPAT_MODULES`` the modules (a regular expression on module names).

The fast tests check the synthetic torus grid the harness runs on.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest


HARNESS = pathlib.Path(__file__).resolve().parents[3] / "compat" / "icon4py"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"icon4py_compat_{name}", HARNESS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


grid = _load("grid")


# ------------------------------------------------------------------------------------------
# The synthetic grid


@pytest.fixture(scope="module")
def torus():
    return grid.build_grid(nx=6, ny=5, nlev=4)


def test_grid_sizes_and_no_skip_values(torus):
    sizes = torus.sizes
    assert sizes["Cell"] == 2 * sizes["Vertex"]
    assert sizes["Edge"] == 3 * sizes["Vertex"]
    assert sizes["Vertex"] - sizes["Edge"] + sizes["Cell"] == 0  # Euler characteristic: torus
    n = {"Cell": sizes["Cell"], "Edge": sizes["Edge"], "Vertex": sizes["Vertex"]}
    for name, (origin, _local, target) in grid.TABLE_SPECS.items():
        table = torus.tables[name]
        assert table.dtype == np.int32, name
        assert table.shape[0] == n[origin], name
        assert table.min() >= 0 and table.max() < n[target], name


def test_grid_tables_consistent(torus):
    t = torus.tables
    n_c, n_e, n_v = t["C2E"].shape[0], t["E2C"].shape[0], t["V2E"].shape[0]
    # every edge's two cells each list that edge; every cell's edges list that cell
    for e in range(n_e):
        cells = t["E2C"][e]
        assert cells[0] != cells[1]
        for c in cells:
            assert e in t["C2E"][c]
        assert set(t["E2V"][e]) <= set(t["C2V"][cells[0]]) & set(t["C2V"][cells[1]])
    for c in range(n_c):
        assert len(set(t["C2E"][c])) == 3 and len(set(t["C2V"][c])) == 3
        for e in t["C2E"][c]:
            assert c in t["E2C"][e]
        # C2E2C: the neighbour across each side, symmetric
        for k, nb in enumerate(t["C2E2C"][c]):
            assert t["C2E"][c][k] in t["C2E"][nb]
            assert c in t["C2E2C"][nb]
    # each edge is the side of exactly two cells, each vertex touches six edges and six cells
    assert np.all(np.bincount(t["C2E"].ravel(), minlength=n_e) == 2)
    assert np.all(np.bincount(t["V2E"].ravel(), minlength=n_e) == 2)
    assert np.all(np.bincount(t["V2C"].ravel(), minlength=n_c) == 3)
    for v in range(n_v):
        for e, w in zip(t["V2E"][v], t["V2E2V"][v], strict=True):
            assert v in t["E2V"][e] and w in t["E2V"][e] and v != w
        for c in t["V2C"][v]:
            assert v in t["C2V"][c]


def test_grid_derived_tables(torus):
    t = torus.tables
    n_c, n_e = t["C2E"].shape[0], t["E2C"].shape[0]
    assert np.array_equal(t["E2C2EO"][:, 0], np.arange(n_e))
    assert np.array_equal(t["E2C2EO"][:, 1:], t["E2C2E"])
    assert np.array_equal(t["C2E2CO"][:, 0], np.arange(n_c))
    assert np.array_equal(t["C2E2CO"][:, 1:], t["C2E2C"])
    assert np.array_equal(t["C2E2C2E"], t["C2E"][t["C2E2C"]].reshape(n_c, 9))
    assert np.array_equal(t["E2C2V"][:, :2], t["E2V"])
    for e in range(n_e):
        c0, c1 = t["E2C"][e]
        # the far vertices are the third vertex of each adjacent cell
        assert set(t["C2V"][c0]) == {*t["E2V"][e], t["E2C2V"][e, 2]}
        assert set(t["C2V"][c1]) == {*t["E2V"][e], t["E2C2V"][e, 3]}
        # E2C2E: the other edges of both cells
        assert set(t["E2C2E"][e]) == (set(t["C2E"][c0]) | set(t["C2E"][c1])) - {e}
    for c in range(n_c):
        ring = t["C2E2C2E2C"][c].reshape(3, 3)
        assert np.array_equal(ring[:, 0], t["C2E2C"][c])
        for nb, second in zip(ring[:, 0], ring[:, 1:], strict=True):
            assert set(second) == set(t["C2E2C"][nb]) - {c}


def test_offset_provider_builds_connectivities(torus):
    import gt4py.next as gtx

    dims = {name: gtx.Dimension(name) for name in ("Cell", "Edge", "Vertex")}
    offsets = {}
    for name, (origin, local, target) in grid.TABLE_SPECS.items():
        local_dim = gtx.Dimension(local, gtx.DimensionKind.LOCAL)
        offsets[name] = gtx.FieldOffset(name, source=dims[target], target=(dims[origin], local_dim))
    provider = grid.offset_provider(torus, offsets, gtx)
    assert set(provider) == set(grid.TABLE_SPECS)
    for name, conn in provider.items():
        assert np.array_equal(conn.asnumpy(), torus.tables[name])


# ------------------------------------------------------------------------------------------
# icon4py on every backend


def _icon4py_path() -> list[str] | None:
    env = os.environ.get("ICON4PY_PATH")
    if env:
        return [p for p in env.split(os.pathsep) if p]
    spec = importlib.util.find_spec("icon4py")
    if spec is not None and spec.submodule_search_locations:
        return [str(pathlib.Path(next(iter(spec.submodule_search_locations))).parent)]
    return None


def _optional_dependency_missing(error: dict) -> bool:
    """An import that failed only for an optional third-party package icon4py uses in a few
    modules (xarray), not for anything of gt4py or icon4py."""
    if error["type"] != "ModuleNotFoundError":
        return False
    missing = error["message"].removeprefix("No module named ").strip("'\"")
    return not missing.startswith(("gt4py", "icon4py"))


@pytest.mark.slow
@pytest.mark.compat
@pytest.mark.timeout(6 * 3600)
def test_icon4py_runs_unchanged(tmp_path):
    paths = _icon4py_path()
    if not paths:
        pytest.skip(
            "icon4py is not available: run compat/icon4py/install.sh DIR and set ICON4PY_PATH=DIR"
        )
    site = next((p for p in paths if (pathlib.Path(p) / "icon4py").is_dir()), None)
    if site is None:
        pytest.skip(f"no icon4py package under ICON4PY_PATH={os.pathsep.join(paths)}")
    backends = ["embedded"] + [
        b
        for b in os.environ.get("ICON4PY_COMPAT_BACKENDS", "gtfn_cpu,itir_python").split(",")
        if b and b != "embedded"
    ]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    cmd = [
        sys.executable, "-W", "ignore", str(HARNESS / "run_programs.py"),
        "--site", site, "--out", str(tmp_path), "--tag", "ours",
        "--backends", ",".join(backends), "--isolate",
        "--timeout", os.environ.get("ICON4PY_COMPAT_TIMEOUT", "600"),
    ]  # fmt: skip
    if os.environ.get("ICON4PY_COMPAT_MODULES"):
        cmd += ["--modules", os.environ["ICON4PY_COMPAT_MODULES"]]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((tmp_path / "report-ours.json").read_text())

    not_imported = {
        name: f"{m['error']['type']}: {m['error']['message']}"
        for name, m in report["modules"].items()
        if m["status"] != "ok" and not _optional_dependency_missing(m["error"])
    }
    assert not not_imported, not_imported

    compare = _load("compare")
    run = compare.Run(tmp_path, "ours")
    disagreements = {}
    for b in backends[1:]:
        for q in run.programs:
            if not run.ok(q, "embedded"):
                continue
            if not run.ok(q, b):
                err = run.result(q, b).get("error") or {}
                disagreements[f"{q} [{b}]"] = f"{err.get('type')}: {err.get('message')}"
                continue
            same, fields = compare.compare_outputs(run, b, run, "embedded", q)
            if not same:
                disagreements[f"{q} [{b}]"] = f"values differ from embedded in {fields}"
    known = _known_failures()
    unexpected = {k: v for k, v in disagreements.items() if k not in known}
    assert not unexpected, unexpected


def _known_failures() -> set[str]:
    """``module:program [backend]`` entries of compat/icon4py/known_failures.txt: open defects,
    each with its reason there; everything else must agree with embedded."""
    path = HARNESS / "known_failures.txt"
    entries = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return {entry for entry in entries if entry}
