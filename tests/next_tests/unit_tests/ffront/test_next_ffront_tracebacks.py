"""Tracebacks of DSL and argument errors show the user's frames only (ADR 0030).

A user script in a subprocess prints the real traceback: with filtering on (the default) no
frame lies in gt4py's sources, the user's file:line is there and a note says what was hidden;
with ``GT4PY_TRACEBACK_FILTERING=off`` gt4py's frames are back. In-process tests check
``__traceback__`` itself, and that gt4py's own bugs keep every frame.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap
import traceback

import numpy as np
import pytest

import gt4py.next as gtx
from gt4py.infra import tracebacks
from gt4py.next import errors
from gt4py.next.embedded.exceptions import DomainError


I = gtx.Dimension("I")
J = gtx.Dimension("J")
IField = gtx.Field[gtx.Dims[I], gtx.float64]

HEADER = """
import numpy as np
import gt4py.next as gtx

I = gtx.Dimension("I")
J = gtx.Dimension("J")
F = gtx.Field[gtx.Dims[I], gtx.float64]
"""

SCRIPTS = {
    # (a) a type error in a field operator: raised at decoration
    "dsl_type_error": (
        """
@gtx.field_operator
def add(a: F, b: gtx.Field[gtx.Dims[I], gtx.int32]) -> F:
    return a + b
""",
        "@gtx.field_operator",
        "DSLTypeError",
    ),
    # (b) a field with the wrong dimensions, on a compiled backend (checked before compiling)
    "wrong_dims_compiled": (
        """
@gtx.field_operator(backend=gtx.gtfn_cpu)
def copy(a: F) -> F:
    return a

copy(gtx.as_field([J], np.zeros(5)), out=gtx.as_field([I], np.zeros(5)), offset_provider={})
""",
        "copy(gtx.as_field([J]",
        "CallArgumentError",
    ),
    # (b') the same call on embedded, through a program
    "wrong_dims_embedded_program": (
        """
@gtx.field_operator
def copy(a: F) -> F:
    return a

@gtx.program(backend=gtx.embedded_numpy)
def run(a: F, out: F):
    copy(a, out=out)

run(gtx.as_field([J], np.zeros(5)), gtx.as_field([I], np.zeros(5)), offset_provider={})
""",
        "run(gtx.as_field([J]",
        "CallArgumentError",
    ),
}


def _run(tmp_path: pathlib.Path, name: str, filtering: str | None) -> tuple[str, str]:
    body, _, _ = SCRIPTS[name]
    script = tmp_path / f"{name}.py"
    script.write_text(HEADER + textwrap.dedent(body))
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


def _internal(files: list[str]) -> list[str]:
    return [f for f in files if tracebacks.is_internal(f)]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_printed_traceback_shows_the_users_frames_only(
    tmp_path: pathlib.Path, name: str
) -> None:
    script, stderr = _run(tmp_path, name, None)
    _, user_line, kind = SCRIPTS[name]
    files = _frame_files(stderr)
    assert files and not _internal(files), stderr
    assert all(f == script for f in files), stderr
    assert user_line in stderr
    assert kind in stderr
    assert "internal frames hidden from this traceback" in stderr
    assert "GT4PY_TRACEBACK_FILTERING=off" in stderr
    assert "packages/gt4py-" not in stderr and "site-packages/gt4py" not in stderr


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_off_shows_gt4pys_frames(tmp_path: pathlib.Path, name: str) -> None:
    script, stderr = _run(tmp_path, name, "off")
    files = _frame_files(stderr)
    assert script in files
    assert len(_internal(files)) >= 3, stderr
    assert "internal frames hidden" not in stderr


def _user_frames_of(error: BaseException) -> list[str]:
    return [f.filename for f in traceback.extract_tb(error.__traceback__)]


def test_a_dsl_error_keeps_only_this_file_in_its_traceback() -> None:
    with pytest.raises(errors.DSLTypeError) as info:

        @gtx.field_operator
        def add(a: IField, b: gtx.Field[gtx.Dims[I], gtx.int32]) -> IField:
            return a + b

    files = _user_frames_of(info.value)
    assert files and set(files) == {__file__}
    assert info.value.location is not None and info.value.location.filename == __file__
    assert len(info.value.__notes__) == 1


def test_an_argument_error_keeps_only_this_file_in_its_traceback() -> None:
    @gtx.field_operator(backend=gtx.embedded_numpy)
    def copy(a: IField) -> IField:
        return a

    @gtx.program(backend=gtx.embedded_numpy)
    def run(a: IField, out: IField) -> None:
        copy(a, out=out)

    wrong = gtx.as_field([J], np.zeros(3))
    with pytest.raises(TypeError, match="argument 'a' must be a field over") as info:
        run(wrong, gtx.as_field([I], np.zeros(3)), offset_provider={})
    assert isinstance(info.value, errors.CallArgumentError)
    assert set(_user_frames_of(info.value)) == {__file__}


def test_an_error_in_an_operator_body_keeps_the_body() -> None:
    # an embedded run reaches the user's operator body: its line stays, gt4py's go
    Ioff = gtx.FieldOffset("Ioff", source=I, target=(I,))

    @gtx.field_operator
    def shifted(a: IField) -> IField:
        return a(Ioff[1])

    @gtx.program(backend=gtx.embedded_numpy)
    def run(a: IField, out: IField) -> None:
        shifted(a, out=out)

    field = gtx.as_field([I], np.zeros(3))
    with pytest.raises(DomainError) as info:
        run(field, gtx.as_field([I], np.zeros(3)), offset_provider={"Ioff": I})
    names = [f.name for f in traceback.extract_tb(info.value.__traceback__)]
    assert names[-1] == "run"  # the program's line calling the operator
    assert set(_user_frames_of(info.value)) == {__file__}


def test_a_program_definition_error_is_the_same_at_every_call() -> None:
    @gtx.program(backend=gtx.embedded_numpy)
    def broken(a: IField) -> None:
        undefined_operator(a)  # type: ignore[name-defined]  # noqa: F821

    field = gtx.as_field([I], np.zeros(3))
    printed = []
    for _ in range(2):
        with pytest.raises(errors.UndefinedSymbolError) as info:
            broken(field, offset_provider={})
        printed.append(traceback.format_exception(info.value))
        assert len(_user_frames_of(info.value)) == 1  # this test calling the program
    assert printed[0][-1] == printed[1][-1]  # the note: the same count both times


def test_gt4pys_own_bugs_keep_every_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    from gt4py.next.ffront import _frontend

    def buggy(*args: object, **kwargs: object) -> None:
        raise AssertionError("a bug in gt4py")

    monkeypatch.setattr(_frontend, "check_operator", buggy)
    with pytest.raises(AssertionError) as info:

        @gtx.field_operator
        def identity(a: IField) -> IField:
            return a

    files = _user_frames_of(info.value)
    assert len(_internal(files)) >= 3  # decorator.py's frames are all there
    assert not getattr(info.value, "__notes__", None)


def test_off_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GT4PY_TRACEBACK_FILTERING", "off")
    with pytest.raises(errors.DSLTypeError) as info:

        @gtx.field_operator
        def add(a: IField, b: gtx.Field[gtx.Dims[I], gtx.int32]) -> IField:
            return a + b

    assert len(_internal(_user_frames_of(info.value))) >= 5
