"""Test-suite wide setup: no test ever touches the user's real cache."""

from __future__ import annotations

import os
import pathlib
import tempfile

import pytest


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
