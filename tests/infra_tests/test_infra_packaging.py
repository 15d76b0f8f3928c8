"""The six distributions build, and gt4py-infra installs and imports alone."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest


REPO = pathlib.Path(__file__).resolve().parents[2]
DISTRIBUTIONS = {
    "gt4py_infra": "gt4py/infra/__init__.py",
    "gt4py_eve": "gt4py/eve/__init__.py",
    "gt4py_storage": "gt4py/storage/__init__.py",
    "gt4py_next": "gt4py/next/__init__.py",
    "gt4py_cartesian": "gt4py/cartesian/__init__.py",
    "gt4py": None,
}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("uv") is None, reason="needs uv on PATH"),
]


@pytest.mark.parametrize("dist", sorted(DISTRIBUTIONS))
def test_every_distribution_builds_wheel_and_sdist(dist_dir, wheel_of, dist):
    wheel = wheel_of(dist)
    assert list(dist_dir.glob(f"{dist}-*.tar.gz")), f"no sdist for {dist}"
    names = zipfile.ZipFile(wheel).namelist()
    # PEP 420: nobody ships gt4py/__init__.py, or installing two wheels would clash.
    assert "gt4py/__init__.py" not in names
    expected = DISTRIBUTIONS[dist]
    if expected is None:
        assert not [n for n in names if n.startswith("gt4py/")], "the meta-distribution has code"
    else:
        assert expected in names


@pytest.mark.parametrize("dist", sorted(DISTRIBUTIONS))
def test_every_wheel_carries_its_licence_classifiers_and_a_real_readme(wheel_of, dist):
    wheel = zipfile.ZipFile(wheel_of(dist))
    metadata_name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = wheel.read(metadata_name).decode()
    headers, _, description = metadata.partition("\n\n")
    assert "License-Expression: BSD-3-Clause" in headers
    assert "License-File: LICENSE" in headers
    licence = next(n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE"))
    assert wheel.read(licence).decode() == (REPO / "LICENSE").read_text()
    classifiers = [line for line in headers.splitlines() if line.startswith("Classifier:")]
    assert any("Development Status" in c for c in classifiers)
    assert any("Atmospheric Science" in c for c in classifiers)
    assert len(description.splitlines()) >= 15, "the PyPI page is the README: say what it is"


def test_infra_wheel_installs_alone(wheel_of, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run(["uv", "venv", "--quiet", "-p", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            "uv",
            "pip",
            "install",
            "--quiet",
            "-p",
            str(python),
            str(wheel_of("gt4py_infra")),
        ],
        check=True,
    )
    code = (
        "import importlib.util, gt4py.infra, gt4py.infra.config as c\n"
        "print(gt4py.infra.__version__, c.get('build_jobs_mode'))\n"
        "for other in ('gt4py.eve', 'gt4py.next', 'nanobind'):\n"
        "    assert importlib.util.find_spec(other) is None, other\n"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0.1.0", "process"]


def test_inter_package_pins_are_ranges():
    import tomllib

    for pyproject in (REPO / "packages").glob("*/pyproject.toml"):
        deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
        for dep in deps:
            if dep.startswith("gt4py"):
                assert ">=" in dep and "<" in dep.replace("<=", ""), f"{pyproject}: {dep}"
