"""pyFV3's dynamical core runs through NDSL's StencilFactory on this gt4py.cartesian.

The slow test runs compat/pyfv3/run_dycore.py with ``mpirun -n 6`` (one c12 tile per rank,
Jablonowski-Williamson baroclinic state, 9 levels, 2 steps) in the environment that
``compat/pyfv3/install.sh VENV PYTHON THIRDPARTY_DIR REPO_ROOT`` made, and compares every field
of every rank with the released-1.2.3 oracle in compat/pyfv3/oracle/: bitwise on numpy (the
install pins the oracle's numpy); on gt:cpu_ifirst every value within 1e-10 of its field's
largest magnitude (``field_rtol``; see FIELD_RTOL).

Environment:
  PYFV3_VENV              the installed environment (skipped when unset); its bin/mpirun is the
                          mpich wheel's.
  PYFV3_COMPAT_BACKENDS   comma list, default "numpy"; "numpy,gt:cpu_ifirst" for both.
  PYFV3_CACHE_ROOT        gt4py cache root shared between runs (default: a fresh folder, so the
                          run includes the cold build of every stencil).
  PYFV3_TIMEOUT           seconds for one run (default 3600).
The snapshots (../shared/thirdparty next to the repository, or next to the one CI cloned) are
what install.sh makes PYFV3_VENV from; without them .ci/run leaves it unset and the test skips.

The fast tests check compare.py's verdicts, run_dycore.py's arguments and vertical coordinate,
install.sh's refusals, and that the stored oracle is complete and matches install.sh's numpy.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest


REPO = pathlib.Path(__file__).resolve().parents[3]
HARNESS = REPO / "compat" / "pyfv3"
ORACLE = HARNESS / "oracle"
TARBALLS = ("ndsl-2024.03.01.tar.gz", "pyfv3-144d1620.tar.gz")
# The oracle is released's numpy run. Compiled code differs from numpy in the last bit of some
# exp / log / ** results -- released 1.2.3's own gt:cpu_ifirst as much as ours: 779 of 16000
# values of exp(a) * log(b) + b ** 0.2857, identical counts and maximum (4.4e-16) on both -- and
# two steps of the dynamics grow those bits to at most 2.7e-11 of a field's largest magnitude
# (w, omga, diss_estd; 1e-13 in absolute terms). Pointwise relative differences are unbounded
# where a field crosses zero (vc: 1.35 at a value of 4e-14), so the bound is relative to the
# field's scale.
FIELD_RTOL = {"numpy": 0.0, "gt:cpu_ifirst": 1e-10}


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"pyfv3_compat_{name}", HARNESS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


compare = _load("compare")
run_dycore = _load("run_dycore")


# ------------------------------------------------------------------------------------------
# compare.py


def _write_run(folder: pathlib.Path, ranks: dict[int, dict[str, np.ndarray]]) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    for r, fields in ranks.items():
        np.savez_compressed(folder / f"rank{r}.npz", **fields)
    return folder


@pytest.fixture
def oracle_and_run(tmp_path):
    rng = np.random.default_rng(0)
    ref = {r: {"u": rng.normal(size=(5, 5, 3)), "ps": rng.normal(size=(5, 5))} for r in (0, 1)}
    ref[1]["u"][0, 0, 0] = np.nan
    oracle = _write_run(tmp_path / "oracle", ref)
    return oracle, ref


def test_compare_bitwise_equal_passes(tmp_path, oracle_and_run):
    oracle, ref = oracle_and_run
    run = _write_run(tmp_path / "run", ref)
    report = compare.compare(run, oracle, rtol=0.0, atol=0.0)
    assert report["ok"]
    assert report["ranks"][1]["u"]["bitwise_equal"]
    assert report["ranks"][1]["u"]["nan_in_oracle"] == 1
    assert compare.main([str(run), "--oracle", str(oracle)]) == 0


def test_compare_one_ulp_fails_bitwise_passes_rtol(tmp_path, oracle_and_run):
    oracle, ref = oracle_and_run
    changed = {r: {k: v.copy() for k, v in f.items()} for r, f in ref.items()}
    changed[0]["ps"][2, 3] = np.nextafter(changed[0]["ps"][2, 3], np.inf)
    run = _write_run(tmp_path / "run", changed)
    bitwise = compare.compare(run, oracle, rtol=0.0, atol=0.0)
    assert not bitwise["ok"]
    assert not bitwise["ranks"][0]["ps"]["ok"]
    assert bitwise["ranks"][0]["u"]["ok"] and bitwise["ranks"][1]["ps"]["ok"]
    assert 0 < bitwise["ranks"][0]["ps"]["max_rel"] < 1e-15
    assert compare.main([str(run), "--oracle", str(oracle)]) == 1
    assert compare.compare(run, oracle, rtol=1e-12, atol=0.0)["ok"]
    assert compare.main([str(run), "--oracle", str(oracle), "--rtol", "1e-12"]) == 0


def test_compare_beyond_rtol_fails(tmp_path, oracle_and_run):
    oracle, ref = oracle_and_run
    changed = {r: {k: v.copy() for k, v in f.items()} for r, f in ref.items()}
    changed[1]["u"][1, 1, 1] *= 1 + 1e-9
    run = _write_run(tmp_path / "run", changed)
    report = compare.compare(run, oracle, rtol=1e-12, atol=0.0)
    assert not report["ok"] and not report["ranks"][1]["u"]["ok"]
    assert report["ranks"][1]["u"]["max_rel"] == pytest.approx(1e-9, rel=1e-3)


def test_compare_field_rtol_scales_with_the_field_not_the_value(tmp_path, oracle_and_run):
    oracle, ref = oracle_and_run
    changed = {r: {k: v.copy() for k, v in f.items()} for r, f in ref.items()}
    u = changed[1]["u"]
    scale = float(np.nanmax(np.abs(u)))
    small = np.unravel_index(np.nanargmin(np.abs(u) + (u == 0)), u.shape)
    pointwise = 1e-12 * scale / abs(float(u[small]))  # the change relative to the value
    u[small] += 1e-12 * scale  # tiny relative to the field
    run = _write_run(tmp_path / "run", changed)
    assert not compare.compare(run, oracle, rtol=0.5 * pointwise, atol=0.0)["ok"]
    report = compare.compare(run, oracle, rtol=0.0, atol=0.0, field_rtol=1e-10)
    assert report["ok"]
    assert report["ranks"][1]["u"]["field_rel"] == pytest.approx(1e-12, rel=1e-2)
    assert not compare.compare(run, oracle, rtol=0.0, atol=0.0, field_rtol=1e-13)["ok"]
    assert compare.main([str(run), "--oracle", str(oracle), "--field-rtol", "1e-10"]) == 0


def test_compare_nan_where_oracle_has_number_fails(tmp_path, oracle_and_run):
    oracle, ref = oracle_and_run
    changed = {r: {k: v.copy() for k, v in f.items()} for r, f in ref.items()}
    changed[0]["u"][4, 4, 2] = np.nan
    run = _write_run(tmp_path / "run", changed)
    report = compare.compare(run, oracle, rtol=1.0, atol=1.0)
    assert not report["ok"]
    assert report["ranks"][0]["u"]["nan_mismatch"] == 1


def test_compare_missing_rank_field_or_shape_fails(tmp_path, oracle_and_run):
    oracle, ref = oracle_and_run
    only_rank0 = _write_run(tmp_path / "run_a", {0: ref[0]})
    report = compare.compare(only_rank0, oracle, rtol=0.0, atol=0.0)
    assert not report["ok"] and "missing" in report["ranks"][1]["error"]

    no_ps = _write_run(tmp_path / "run_b", {r: {"u": f["u"]} for r, f in ref.items()})
    report = compare.compare(no_ps, oracle, rtol=0.0, atol=0.0)
    assert report["ranks"][0]["ps"] == {"ok": False, "error": "missing from the run"}

    reshaped = _write_run(
        tmp_path / "run_c", {r: {"u": f["u"][:4], "ps": f["ps"]} for r, f in ref.items()}
    )
    report = compare.compare(reshaped, oracle, rtol=1.0, atol=1.0)
    assert not report["ok"] and "shape/dtype" in report["ranks"][0]["u"]["error"]
    assert "NOT within" in compare.format_report(report)


def test_compare_bad_input(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert compare.main([str(empty), "--oracle", str(empty)]) == 2
    assert "no rank*.npz in the oracle folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        compare.main([str(tmp_path / "absent")])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        compare.main([str(empty), "--rtol", "-1"])


# ------------------------------------------------------------------------------------------
# run_dycore.py, install.sh


def test_run_dycore_arguments(tmp_path):
    args = run_dycore.parse_args(["--out", str(tmp_path)])
    assert (args.backend, args.steps, args.shared_cache) == ("numpy", 2, True)
    args = run_dycore.parse_args(
        ["--out", str(tmp_path), "--backend", "gt:cpu_ifirst", "--no-shared-cache"]
    )
    assert (args.backend, args.shared_cache) == ("gt:cpu_ifirst", False)
    with pytest.raises(SystemExit):
        run_dycore.parse_args(["--out", str(tmp_path), "--steps", "-1"])
    with pytest.raises(SystemExit):
        run_dycore.parse_args([])  # --out is required


def test_vertical_coordinate_is_what_ndsl_accepts():
    ak, bk = run_dycore.eta_coefficients(run_dycore.N_LEVELS)
    assert ak.shape == bk.shape == (run_dycore.N_LEVELS + 1,)
    assert bk[0] == bk[1] == 0.0 and bk[-1] == 1.0 and np.all(bk[2:] > 0)
    assert ak[0] == 100.0 and ak[-1] == 0.0 and np.all(ak >= 0)
    # NDSL's check: layer-mid eta (at 1e5 Pa) increases monotonically
    eta = 0.5 * ((ak[:-1] + ak[1:]) / 1.0e5 + bk[:-1] + bk[1:])
    assert np.all(np.diff(eta) > 0)


def test_install_refuses_missing_snapshots_and_bad_source(tmp_path):
    script = HARNESS / "install.sh"
    result = subprocess.run(
        ["bash", str(script), str(tmp_path / "venv"), sys.executable, str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 3
    assert "ndsl-2024.03.01.tar.gz not found" in result.stderr
    assert not (tmp_path / "venv").exists()

    for name in TARBALLS:
        (tmp_path / name).write_bytes(b"")
    result = subprocess.run(
        ["bash", str(script), str(tmp_path / "venv"), sys.executable, str(tmp_path), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert "GT4PY_SOURCE must be 'released' or a repository root" in result.stderr

    result = subprocess.run(["bash", str(script)], capture_output=True, text=True)
    assert result.returncode == 2 and "usage" in result.stderr


# ------------------------------------------------------------------------------------------
# the stored oracle


def test_oracle_complete_and_numpy_pinned():
    manifest = json.loads((ORACLE / "MANIFEST.json").read_text())
    assert manifest["versions"]["gt4py"] == "1.2.3"
    assert manifest["backend"] == "numpy" and manifest["steps"] == 2
    pinned = re.search(r'^NUMPY_VERSION="([^"]+)"', (HARNESS / "install.sh").read_text(), re.M)
    assert pinned and pinned.group(1) == manifest["versions"]["numpy"]
    names = None
    for r in range(run_dycore.N_RANKS):
        with np.load(ORACLE / f"rank{r}.npz") as fields:
            assert names is None or fields.files == names
            names = fields.files
            assert fields["pt"].shape == (12, 12, run_dycore.N_LEVELS)  # compute domain
            assert not np.isnan(fields["u"]).any()
    assert names is not None and {"u", "v", "w", "delp", "pt", "qvapor"} <= set(names)


# ------------------------------------------------------------------------------------------
# the dycore on this gt4py, against the oracle


def _backends() -> list[str]:
    names = [b.strip() for b in os.environ.get("PYFV3_COMPAT_BACKENDS", "numpy").split(",")]
    unknown = [b for b in names if b not in FIELD_RTOL]
    if unknown:
        raise ValueError(f"PYFV3_COMPAT_BACKENDS: unknown {unknown}; known: {sorted(FIELD_RTOL)}")
    return [b for b in names if b]


@pytest.mark.slow
@pytest.mark.compat
@pytest.mark.timeout(4 * 3600)
@pytest.mark.parametrize("backend", _backends())
def test_pyfv3_dycore_matches_released(backend, tmp_path):
    venv_env = os.environ.get("PYFV3_VENV")  # made from the snapshots (.ci/run finds them)
    if not venv_env:
        pytest.skip(
            "pyFV3 is not installed: run compat/pyfv3/install.sh VENV PYTHON THIRDPARTY_DIR "
            f"{REPO} and set PYFV3_VENV=VENV"
        )
    venv = pathlib.Path(venv_env)
    mpirun, python = venv / "bin" / "mpirun", venv / "bin" / "python"
    if not (mpirun.is_file() and python.is_file()):
        pytest.fail(f"PYFV3_VENV={venv} has no bin/mpirun and bin/python: not made by install.sh")

    out = tmp_path / "run"
    cache_root = pathlib.Path(os.environ.get("PYFV3_CACHE_ROOT") or tmp_path / "cache")
    command = [str(mpirun), "-n", "6", str(python), str(HARNESS / "run_dycore.py")]
    command += ["--backend", backend, "--steps", "2", "--out", str(out)]
    command += ["--cache-root", str(cache_root)]
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=int(os.environ.get("PYFV3_TIMEOUT", "3600")),
    )
    assert result.returncode == 0, (
        f"run_dycore.py failed on {backend}:\n{result.stdout[-4000:]}\n{result.stderr[-8000:]}"
    )
    timings = json.loads((out / "timings-rank0.json").read_text())
    assert timings["steps_done"] == 2

    report = compare.compare(out, ORACLE, rtol=0.0, atol=0.0, field_rtol=FIELD_RTOL[backend])
    print(compare.format_report(report))
    print(json.dumps({k: v for k, v in timings.items() if k != "backend"}))
    assert report["ok"], compare.format_report(report)
