"""mypy (strict, with gt4py.next's plugin) on the user-style files of typing_tests/, and pyright
on the typed calls (ADR 0029).

A line ending in `# E: code[, code...]` must get exactly those mypy error codes; every other
line must get none. In `next_typed_calls.py`, `# P: rule[, rule...]` (before any `# E:`) marks
the errors pyright must report, and every other line must get none.
"""

from __future__ import annotations

import collections
import contextlib
import importlib.util
import io
import json
import os
import pathlib
import re
import runpy
import shutil
import subprocess
import sys

import pytest


# mypy is a developer tool (the `dev` group): absent from CI's lowest-versions environment
pytest.importorskip("mypy")


REPO = pathlib.Path(__file__).resolve().parents[2]
FOLDER = REPO / "typing_tests"
_ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.*)  \[(?P<code>[a-z-]+)\]$")  # fmt: skip
_EXPECTED = re.compile(r"#\s*E:\s*(?P<codes>[a-z-]+(?:\s*,\s*[a-z-]+)*)\s*$")
_PYRIGHT_EXPECTED = re.compile(r"#\s*P:\s*(?P<rules>[A-Za-z]+(?:\s*,\s*[A-Za-z]+)*)\s*(?:#|$)")
PYRIGHT_FILE = FOLDER / "next_typed_calls.py"


def _expected() -> collections.Counter[tuple[str, int, str]]:
    expected: collections.Counter[tuple[str, int, str]] = collections.Counter()
    for path in sorted(FOLDER.glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = _EXPECTED.search(line)
            if match:
                for code in match["codes"].split(","):
                    expected[(path.name, number, code.strip())] += 1
    return expected


def _mypy(
    config: pathlib.Path, cache: pathlib.Path, *paths: pathlib.Path
) -> tuple[collections.Counter[tuple[str, int, str]], str]:
    """mypy's errors as (file name, line, code), and its standard error."""
    from mypy import api

    stdout, stderr, status = api.run(
        ["--config-file", str(config), "--cache-dir", str(cache), *map(str, paths)]
    )
    assert status in (0, 1), stdout + stderr  # 2: mypy itself failed (config, plugin, crash)
    found: collections.Counter[tuple[str, int, str]] = collections.Counter()
    for line in stdout.splitlines():
        match = _ERROR.match(line)
        if match:
            found[(pathlib.Path(match["file"]).name, int(match["line"]), match["code"])] += 1
        else:
            assert not re.match(r"^\S+:\d+: error:", line), f"unparsed mypy error: {line}"
    return found, stderr


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> collections.Counter[tuple[str, int, str]]:  # fmt: skip
    cache = tmp_path_factory.mktemp("mypy-cache")
    return _mypy(FOLDER / "mypy.ini", cache, FOLDER)[0]


def test_the_released_plugin_path_still_checks_and_names_the_new_one(mypy_errors, tmp_path):
    """A gt4py 1.2 configuration (`plugins = gt4py.next.type_system.mypy_plugin`) loads the
    same plugin: the same errors, and a line on standard error naming the new path."""
    config = tmp_path / "mypy.ini"
    text = (FOLDER / "mypy.ini").read_text()
    assert "plugins = gt4py.next.mypy_plugin" in text
    config.write_text(text.replace("gt4py.next.mypy_plugin", "gt4py.next.type_system.mypy_plugin"))
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):  # the plugin's line (mypy's api keeps its own)
        found, _ = _mypy(config, tmp_path / "cache", FOLDER)
    assert found == mypy_errors
    stderr = printed.getvalue()
    assert (
        "the mypy plugin gt4py.next.type_system.mypy_plugin is deprecated; "
        'use plugins = ["gt4py.next.mypy_plugin"]' in stderr
    )


def test_without_the_plugin_mypy_flags_the_calls_pyright_flags(tmp_path):
    """Without the plugin mypy checks what pyright checks: each wrong call that passes only the
    definition's arguments (the `# P:` lines) is an error. Its other errors are the documented
    limits (docs/guides/typing.md): value dimensions in the annotation alias, which mypy reads
    as types (`type-arg`, `valid-type`), and the Python float for a `gtx.float64`."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\n")
    found, _ = _mypy(config, tmp_path / "cache", PYRIGHT_FILE)
    flagged = {line for _, line, _ in found}
    calls = {line for line, _ in _pyright_expected()}
    assert len(calls) == 7 and calls <= flagged
    annotation = next(
        n
        for n, text in enumerate(PYRIGHT_FILE.read_text().splitlines(), start=1)
        if text.startswith("IField = ")
    )
    others = {(line, code) for _, line, code in found if line not in calls}
    assert others <= {(annotation, "type-arg"), (annotation, "valid-type")}, sorted(others)


def test_expected_errors_are_found_and_nothing_else(mypy_errors):
    expected = _expected()
    missing = expected - mypy_errors
    unexpected = mypy_errors - expected
    found = sum((expected & mypy_errors).values())
    print(f"typing_tests: {found}/{sum(expected.values())} expected mypy errors found")
    assert not missing, f"expected errors mypy did not report: {sorted(missing)}"
    assert not unexpected, f"errors on lines without '# E:': {sorted(unexpected)}"


def test_the_folder_checks_the_promised_cases():
    codes = {(name, code) for name, _, code in _expected()}
    assert ("next_backend_none.py", "call-overload") in codes  # backend=None
    assert ("next_builder_settings.py", "call-arg") in codes  # a misspelled builder setting
    assert any(name == "next_annotations.py" for name, _ in codes) is False  # all accepted


def test_the_accepted_annotations_also_run():
    """The file mypy accepts is gt4py.next code that decorates without errors."""
    namespace = runpy.run_path(str(FOLDER / "next_annotations.py"))
    assert namespace["IJField"].__parameters__ == (namespace["T"],)


def test_the_typed_calls_are_checked_by_mypy(mypy_errors):
    """A wrong, missing or extra argument to a program or a field operator, with and without
    the keywords a call adds (`out=`, `offset_provider=`), is a mypy error."""
    expected = {line for name, line, _ in _expected() if name == PYRIGHT_FILE.name}
    assert len(expected) == 12
    assert expected <= {line for name, line, _ in mypy_errors if name == PYRIGHT_FILE.name}


def _pyright_expected() -> collections.Counter[tuple[int, str]]:
    expected: collections.Counter[tuple[int, str]] = collections.Counter()
    for number, line in enumerate(PYRIGHT_FILE.read_text().splitlines(), start=1):
        match = _PYRIGHT_EXPECTED.search(line)
        if match:
            for rule in match["rules"].split(","):
                expected[(number, rule.strip())] += 1
    return expected


def test_pyright_finds_the_wrong_calls_and_nothing_else(tmp_path):
    # pyright (the `typing` group) runs on node: without node its wrapper would download one
    if importlib.util.find_spec("pyright") is None or shutil.which("node") is None:
        pytest.skip("pyright or node is not installed")
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pyright",
            "--outputjson",
            "--project",
            str(FOLDER / "pyrightconfig.json"),
            "--pythonpath",
            sys.executable,
            str(PYRIGHT_FILE),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "PYRIGHT_PYTHON_IGNORE_WARNINGS": "1"},  # no version look-up
    )
    assert completed.returncode in (0, 1), completed.stdout + completed.stderr
    report = json.loads(completed.stdout)
    found: collections.Counter[tuple[int, str]] = collections.Counter()
    for diagnostic in report["generalDiagnostics"]:
        if diagnostic["severity"] == "error":
            assert pathlib.Path(diagnostic["file"]).name == PYRIGHT_FILE.name, diagnostic
            found[(diagnostic["range"]["start"]["line"] + 1, diagnostic.get("rule", ""))] += 1
    expected = _pyright_expected()
    assert sum(expected.values()) == 7  # six wrong calls, one Python float for a float64
    assert not expected - found, (
        f"expected errors pyright did not report: {sorted(expected - found)}"
    )
    assert not found - expected, f"errors on lines without '# P:': {sorted(found - expected)}"
