"""Test-suite wide setup: no test ever touches the user's real cache."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import HealthCheck, settings


# CI machines are small and shared: generation speed and per-example time are not what these
# property tests check, so neither may fail them.
settings.register_profile("gt4py", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gt4py")


# Set before any gt4py import so subprocesses started by tests inherit it as well. A suite-wide
# directory (not per test) lets compile-heavy tests share builds within one run.
_SUITE_CACHE = pathlib.Path(tempfile.mkdtemp(prefix="gt4py-test-cache-"))
os.environ.setdefault("GT4PY_BUILD_CACHE_DIR", str(_SUITE_CACHE))


@pytest.fixture
def cache_dir(tmp_path: pathlib.Path):
    """A fresh, empty cache root applied through the config for the duration of one test."""
    from gt4py.infra import config

    root = tmp_path / "gt4py-cache"
    with config.overrides(build_cache_dir=root, build_cache_lifetime="persistent"):
        yield root


REPO = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def dist_dir(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """Every wheel and sdist of the workspace, built once per test run with `uv build`."""
    if shutil.which("uv") is None:
        pytest.skip("needs uv on PATH")
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        ["uv", "build", "--all-packages", "--out-dir", str(out), "--quiet"], cwd=REPO, check=True
    )
    return out


@pytest.fixture
def wheel_of(dist_dir: pathlib.Path):
    """The built wheel of one distribution (by its normalized name, e.g. ``gt4py_infra``)."""

    def find(dist: str) -> pathlib.Path:
        (wheel,) = dist_dir.glob(f"{dist}-*.whl")
        return wheel

    return find


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Skips summarised by reason (``-rs`` lists each; the default report lists none)."""
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped or "s" in (config.option.reportchars or "").replace("a", "s"):
        return
    reasons: dict[str, int] = {}
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    terminalreporter.section(f"{len(skipped)} skipped, by reason (-rs lists them)", sep="-")
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        terminalreporter.line(f"{count:5d}  {reason}")


def pytest_collection_modifyitems(config, items) -> None:
    """Tests of the GPU code under host emulation carry the ``gpu_emulation`` marker (CI runs
    them once, on Python 3.11), whichever backend list or name they come from."""
    for item in items:
        if "emulated" in item.nodeid and "gpu" in item.nodeid:
            item.add_marker(pytest.mark.gpu_emulation)
