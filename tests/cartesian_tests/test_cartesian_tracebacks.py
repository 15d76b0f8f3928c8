"""Tracebacks of GTScript and stencil-argument errors show the user's frames only (ADR 0030)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval
from gt4py.infra import tracebacks


F = gtscript.Field[np.float64]

SYNTAX_ERROR = """
import numpy as np
from gt4py.cartesian import gtscript
from gt4py.cartesian.gtscript import PARALLEL, computation, interval

F = gtscript.Field[np.float64]


@gtscript.stencil(backend="numpy")
def bad(a: F, out: F):
    with computation(PARALLEL), interval(...):
        for i in range(3):
            out = a
"""


def _run(tmp_path: pathlib.Path, filtering: str | None) -> tuple[str, str]:
    script = tmp_path / "user_stencil.py"
    script.write_text(textwrap.dedent(SYNTAX_ERROR))
    env = dict(os.environ)
    env.pop("GT4PY_TRACEBACK_FILTERING", None)
    if filtering is not None:
        env["GT4PY_TRACEBACK_FILTERING"] = filtering
    result = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 1, result.stderr
    return str(script), result.stderr


def _frame_files(stderr: str) -> list[str]:
    return [line.split('"')[1] for line in stderr.splitlines() if line.startswith('  File "')]


def test_a_syntax_error_shows_the_users_frames_only(tmp_path: pathlib.Path) -> None:
    script, stderr = _run(tmp_path, None)
    files = _frame_files(stderr)
    assert files == [script], stderr
    assert '@gtscript.stencil(backend="numpy")' in stderr
    assert "GTScriptSyntaxError: For statements are not supported" in stderr
    assert f"at {script}:12:" in stderr  # the message's own location stays
    assert "internal frames hidden from this traceback" in stderr
    assert "GT4PY_TRACEBACK_FILTERING=off" in stderr


def test_off_shows_gt4pys_frames(tmp_path: pathlib.Path) -> None:
    script, stderr = _run(tmp_path, "off")
    files = _frame_files(stderr)
    assert files[0] == script
    assert len([f for f in files if tracebacks.is_internal(f)]) >= 5, stderr
    assert "internal frames hidden" not in stderr


def _files(error: BaseException) -> set[str]:
    return {f.filename for f in traceback.extract_tb(error.__traceback__)}


def test_a_definition_error_keeps_only_this_file() -> None:
    def undefined(a: F, out: F):  # type: ignore[no-untyped-def]
        with computation(PARALLEL), interval(...):
            out = a + not_defined  # noqa: F841, F821

    with pytest.raises(gtscript.GTScriptSymbolError) as info:
        gtscript.stencil(backend="numpy", definition=undefined)
    assert _files(info.value) == {__file__}
    assert len(info.value.__notes__) == 1


def test_a_stencil_argument_error_keeps_only_this_file() -> None:
    @gtscript.stencil(backend="numpy")
    def copy(a: F, out: F):  # type: ignore[no-untyped-def]
        with computation(PARALLEL), interval(...):
            out = a  # noqa: F841

    with pytest.raises(gtscript.StencilArgumentError) as info:
        copy(np.zeros((3, 3, 3)), np.zeros((3, 3, 3)), domain=(4, 4, 4))
    assert _files(info.value) == {__file__}


def test_a_lazy_stencil_error_keeps_only_this_file() -> None:
    @gtscript.lazy_stencil(backend="numpy", check_syntax=False)
    def bad(a: F, out: F):  # type: ignore[no-untyped-def]
        with computation(PARALLEL), interval(...):
            out = a + not_defined  # noqa: F841, F821

    with pytest.raises(gtscript.GTScriptSymbolError) as info:
        bad(np.zeros((3, 3, 3)), np.zeros((3, 3, 3)))
    assert _files(info.value) == {__file__}


def test_a_lazy_stencil_syntax_check_error_keeps_only_this_file() -> None:
    def bad(a: F, out: F):  # type: ignore[no-untyped-def]
        with computation(PARALLEL), interval(...):
            out = a + not_defined  # noqa: F841, F821

    with pytest.raises(gtscript.GTScriptSymbolError) as info:
        gtscript.lazy_stencil(backend="numpy")(bad)  # check_syntax=True: parsed now
    assert _files(info.value) == {__file__}
