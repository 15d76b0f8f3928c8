"""``rebuild=True`` leaves nothing behind, and a stage dump that cannot be written says why.

A rebuild regenerates the stencil in a private temporary directory that is gone as soon as the
stencil is loaded (it used to stay, one per rebuild); the stencil keeps working, its stages
and its source (for tracebacks) stay readable. The temporary directory is a private one here,
so that the count is not disturbed by anyone else.
"""

from __future__ import annotations

import inspect
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import pytest

from gt4py.cartesian import _stencil_builder, gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from gt4py.infra import config


F = gtscript.Field[np.float64]


@pytest.fixture
def private_tmp(tmp_path, monkeypatch) -> pathlib.Path:
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    return directory


def define():
    def doubled(a: F, b: F):
        with computation(PARALLEL), interval(...):
            b = 2.0 * a

    return doubled


def test_rebuild_leaves_no_temporary_directory(backend, private_tmp):
    stencils = [gtscript.stencil(backend=backend, rebuild=True)(define()) for _ in range(3)]
    assert list(private_tmp.iterdir()) == []
    a, b = np.arange(8.0).reshape(2, 2, 2), np.zeros((2, 2, 2))
    for stencil in stencils:
        b[...] = 0
        stencil(a, b)
        np.testing.assert_array_equal(b, 2 * a)
    # Its stages are still there, a path stage (the extension) in the native-module cache.
    stages = stencils[0].stages
    assert "frontend" in stages
    for value in stages.values():
        if isinstance(value, pathlib.Path):
            assert value.is_file()


def test_a_rebuilt_module_keeps_its_source_for_tracebacks(private_tmp):
    stencil = gtscript.stencil(backend="numpy", rebuild=True)(define())
    assert not os.path.exists(stencil.source_path)
    module = inspect.getmodule(stencil._run)
    assert module is not None
    assert inspect.getsource(module) == stencil.stages["py"]


def test_a_rebuild_killed_earlier_is_cleaned_up_by_the_next(private_tmp):
    gone = subprocess.Popen(["true"])
    gone.wait()
    owner = f"{_stencil_builder.REBUILD_PREFIX}{_stencil_builder._host_tag()}-"
    abandoned = private_tmp / f"{owner}{gone.pid}-abcdef"
    (abandoned / "sub").mkdir(parents=True)
    in_progress = private_tmp / f"{owner}{os.getpid()}-012345"  # a live owner's
    in_progress.mkdir()
    other_host = private_tmp / f"{_stencil_builder.REBUILD_PREFIX}00000000-{gone.pid}-fedcba"
    other_host.mkdir()
    gtscript.stencil(backend="numpy", rebuild=True)(define())
    assert sorted(p.name for p in private_tmp.iterdir()) == sorted(
        [in_progress.name, other_host.name]
    )


def test_an_unwritable_dump_directory_fails_naming_the_variable(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")  # a file where the dump directory must go (root can't write either)
    monkeypatch.setenv("GT4PY_DUMP_STAGES", str(blocker / "dumps"))
    with pytest.raises(config.ConfigError) as info:
        gtscript.stencil(backend="numpy", name="undumpable")(define())
    message = str(info.value)
    assert "GT4PY_DUMP_STAGES" in message
    assert str(blocker / "dumps" / "cartesian_undumpable_numpy") in message
    # Nothing was published: with the variable fixed, the stencil builds.
    monkeypatch.delenv("GT4PY_DUMP_STAGES")
    gtscript.stencil(backend="numpy", name="undumpable")(define())
