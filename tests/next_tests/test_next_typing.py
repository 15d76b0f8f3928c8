"""mypy (strict; with gt4py.next's plugin, by its new and its released path, and without it) and
pyright on the user-style files of typing_tests/ (ADRs 0022, 0029, 0045).

A line ending in `# E: code[, code...]` must get exactly those mypy error codes with the plugin;
every other line must get none. `# M: code[, ...]` (or `# M: none`) says what mypy without the
plugin reports instead, where that differs; `# P: rule[, rule...]` marks the errors pyright must
report (every other line: none). Markers are `#`-separated comments; `# fmt: skip` may follow.
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
_CODES = r"(?P<codes>[A-Za-z-]+(?:\s*,\s*[A-Za-z-]+)*)\s*(?=#|$)"
_EXPECTED = re.compile(r"#\s*E:\s*" + _CODES)
_NO_PLUGIN_EXPECTED = re.compile(r"#\s*M:\s*" + _CODES)
_PYRIGHT_EXPECTED = re.compile(r"#\s*P:\s*" + _CODES)
PYRIGHT_FILE = FOLDER / "next_typed_calls.py"
Expected = collections.Counter[tuple[str, int, str]]


def _marked(*markers: re.Pattern[str]) -> Expected:
    """(file name, line, code) of each line's first matching marker among ``markers``."""
    expected: Expected = collections.Counter()
    for path in sorted(FOLDER.glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for marker in markers:
                match = marker.search(line)
                if match:
                    for code in match["codes"].split(","):
                        if code.strip() != "none":
                            expected[(path.name, number, code.strip())] += 1
                    break
    return expected


def _expected() -> Expected:
    return _marked(_EXPECTED)


def _mypy(config: pathlib.Path, cache: pathlib.Path, *paths: pathlib.Path) -> tuple[Expected, str]:
    """mypy's errors as (file name, line, code), and its standard error."""
    from mypy import api

    stdout, stderr, status = api.run(
        ["--config-file", str(config), "--cache-dir", str(cache), *map(str, paths)]
    )
    assert status in (0, 1), stdout + stderr  # 2: mypy itself failed (config, plugin, crash)
    found: Expected = collections.Counter()
    for line in stdout.splitlines():
        match = _ERROR.match(line)
        if match:
            found[(pathlib.Path(match["file"]).name, int(match["line"]), match["code"])] += 1
        else:
            assert not re.match(r"^\S+:\d+: error:", line), f"unparsed mypy error: {line}"
    return found, stderr


def _compare(checker: str, expected: Expected, found: Expected) -> None:
    missing, unexpected = expected - found, found - expected
    print(f"typing_tests, {checker}: {sum((expected & found).values())}/"
          f"{sum(expected.values())} expected errors found, {sum(unexpected.values())} others")  # fmt: skip
    assert not missing, f"expected errors {checker} did not report: {sorted(missing)}"
    assert not unexpected, f"{checker}: errors on unmarked lines: {sorted(unexpected)}"


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


def test_without_the_plugin_correct_code_is_clean_and_wrong_code_flagged(tmp_path):
    """Without the plugin (ADR 0045) mypy accepts `Field[Dims[I, J], float64]` and its generic
    aliases, and reports every marked mistake but the calls that pass `out=` /
    `offset_provider=` (their `with_call_options(...)` twins are flagged); the list form
    `Field[[I], dtype]` needs the plugin."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = True\nwarn_unused_ignores = True\n")
    found, _ = _mypy(config, tmp_path / "cache", FOLDER)
    _compare("mypy without the plugin", _marked(_NO_PLUGIN_EXPECTED, _EXPECTED), found)


def test_expected_errors_are_found_and_nothing_else(mypy_errors):
    _compare("mypy with the plugin", _expected(), mypy_errors)


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
    the keywords a call adds (`out=`, `offset_provider=`) or `with_call_options(...)`, is a
    mypy error."""
    expected = {line for name, line, _ in _expected() if name == PYRIGHT_FILE.name}
    assert len(expected) == 18
    assert expected <= {line for name, line, _ in mypy_errors if name == PYRIGHT_FILE.name}


def _pyright_errors(tmp_path: pathlib.Path) -> Expected:
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
            str(FOLDER),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "PYRIGHT_PYTHON_IGNORE_WARNINGS": "1"},  # no version look-up
    )
    assert completed.returncode in (0, 1), completed.stdout + completed.stderr
    report = json.loads(completed.stdout)
    found: Expected = collections.Counter()
    for diagnostic in report["generalDiagnostics"]:
        if diagnostic["severity"] == "error":
            line = diagnostic["range"]["start"]["line"] + 1
            found[(pathlib.Path(diagnostic["file"]).name, line, diagnostic.get("rule", ""))] += 1
    return found


def test_pyright_finds_the_marked_errors_and_nothing_else(tmp_path):
    """pyright (no plugin; `pyrightconfig.json` is standard mode, nothing switched off) accepts
    every correct line, value dimensions and the list form included, and reports each marked
    mistake; calls with `offset_provider=` / `out=` are flagged in their
    `with_call_options(...)` form only (ADR 0045)."""
    expected = _marked(_PYRIGHT_EXPECTED)
    calls = [k for k in expected if k[0] == PYRIGHT_FILE.name]
    assert len(calls) == 15  # six wrong calls, their six with_call_options twins, three floats
    _compare("pyright", expected, _pyright_errors(tmp_path))
