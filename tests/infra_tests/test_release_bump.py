"""`nox -s bump`: one distribution's version moves; dependents' ranges must still admit it."""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import subprocess
import sys

import pytest


# a developer tool (the `dev` group): absent from the lowest-versions environment of CI
pytest.importorskip("nox")

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def noxfile():
    spec = importlib.util.spec_from_file_location("_gt4py_noxfile", REPO / "noxfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def workspace(tmp_path: pathlib.Path) -> pathlib.Path:
    """The release-relevant files of the workspace: pyprojects, versions, changelogs."""
    for pattern in ("packages/*/pyproject.toml", "packages/*/CHANGELOG.md", "packages/*/src/gt4py/*/_version.py"):  # fmt: skip
        for path in REPO.glob(pattern):
            target = tmp_path / path.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    return tmp_path


def test_every_distribution_has_a_changelog_with_its_current_version(noxfile):
    for dist, folder in noxfile._distributions(REPO).items():
        text = (folder / "CHANGELOG.md").read_text()
        assert "## Unreleased" in text, dist
        assert f"## {noxfile.current_version(REPO, dist)}" in text, dist


def test_patch_bump_is_admitted_and_written(noxfile, workspace):
    assert noxfile.bump_version(workspace, "gt4py-infra", "0.1.1") == "0.1.0"
    assert noxfile.current_version(workspace, "gt4py-infra") == "0.1.1"
    changelog = (workspace / "packages/gt4py-infra/CHANGELOG.md").read_text()
    assert changelog.index("## Unreleased") < changelog.index("## 0.1.1 (") < changelog.index("## 0.1.0")  # fmt: skip
    # The others did not move.
    assert noxfile.current_version(workspace, "gt4py-next") == "0.1.0"


def test_meta_distribution_version_lives_in_its_pyproject(noxfile, workspace):
    noxfile.bump_version(workspace, "gt4py", "2.0.1")
    assert 'version = "2.0.1"' in (workspace / "packages/gt4py/pyproject.toml").read_text()


def test_minor_bump_outside_dependents_ranges_is_refused_and_writes_nothing(noxfile, workspace):
    with pytest.raises(ValueError, match="outside the range of its dependents") as error:
        noxfile.bump_version(workspace, "gt4py-infra", "0.2.0")
    # the meta-distribution depends on the stacks, not on gt4py-infra itself (ADR 0021)
    for dependent in ("gt4py-eve", "gt4py-storage", "gt4py-next", "gt4py-cartesian"):
        assert dependent in str(error.value)
    assert noxfile.current_version(workspace, "gt4py-infra") == "0.1.0"
    # gt4py-next's only dependent is the meta-distribution (its dependencies and extras).
    refusing = noxfile.dependents_refusing(workspace, "gt4py-next", "0.2.0")
    assert "gt4py: gt4py-next>=0.1,<0.2" in refusing
    assert all(line.startswith("gt4py: gt4py-next") for line in refusing), refusing


@pytest.mark.parametrize(
    ("dist", "version", "message"),
    [
        ("gt4py-infra", "0.1.0", "not above"),
        ("gt4py-nope", "0.1.1", "unknown distribution"),
        ("gt4py-eve", "one", "not a PEP 440 version"),
    ],
)
def test_bad_requests_are_refused(noxfile, workspace, dist, version, message):
    with pytest.raises(ValueError, match=message):
        noxfile.bump_version(workspace, dist, version)


def test_nox_session_checks_without_writing():
    ok = subprocess.run(
        [sys.executable, "-m", "nox", "-s", "bump", "--", "gt4py-next", "0.1.1", "--check"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "may bump 0.1.0 -> 0.1.1" in ok.stderr
    refused = subprocess.run(
        [sys.executable, "-m", "nox", "-s", "bump", "--", "gt4py-infra", "0.2.0", "--check"],
        cwd=REPO, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert refused.returncode != 0
    assert "gt4py-eve: gt4py-infra>=0.1,<0.2" in refused.stderr
