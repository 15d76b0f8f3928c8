"""Shared fixtures of the cartesian tests: the backend registry and an isolated cache root."""

from __future__ import annotations

import pytest

from gt4py.infra import config


# Every backend the feature suite runs on; the C++ backends join here by one line each.
BACKENDS = [
    "numpy",
    "debug",
    # Each stencil is one C++ compile (about a second): slow tests, still run in CI.
    pytest.param("gt:cpu_ifirst", marks=pytest.mark.slow),
    pytest.param("gt:cpu_kfirst", marks=pytest.mark.slow),
]
CPP_BACKENDS = ("gt:cpu_ifirst", "gt:cpu_kfirst")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session")
def _shared_native_cache(tmp_path_factory: pytest.TempPathFactory):
    """One cache root for the C++ backends' tests: the native toolchain is set up once."""
    return tmp_path_factory.mktemp("gt4py_cpp_cache")


@pytest.fixture(autouse=True)
def _isolated_cache(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("backend") in CPP_BACKENDS:
        root = request.getfixturevalue("_shared_native_cache")
    else:
        root = tmp_path_factory.mktemp("gt4py_cache")
    with config.overrides(build_cache_dir=root):
        yield root
