"""mypy (strict, with gt4py.next's plugin) on the user-style files of typing_tests/.

A line ending in `# E: code[, code...]` must get exactly those mypy error codes; every other
line must get none.
"""

from __future__ import annotations

import collections
import pathlib
import re
import runpy

import pytest


# mypy is a developer tool (the `dev` group): absent from CI's lowest-versions environment
pytest.importorskip("mypy")


REPO = pathlib.Path(__file__).resolve().parents[2]
FOLDER = REPO / "typing_tests"
_ERROR = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.*)  \[(?P<code>[a-z-]+)\]$")  # fmt: skip
_EXPECTED = re.compile(r"#\s*E:\s*(?P<codes>[a-z-]+(?:\s*,\s*[a-z-]+)*)\s*$")


def _expected() -> collections.Counter[tuple[str, int, str]]:
    expected: collections.Counter[tuple[str, int, str]] = collections.Counter()
    for path in sorted(FOLDER.glob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            match = _EXPECTED.search(line)
            if match:
                for code in match["codes"].split(","):
                    expected[(path.name, number, code.strip())] += 1
    return expected


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory) -> collections.Counter[tuple[str, int, str]]:  # fmt: skip
    from mypy import api

    cache = tmp_path_factory.mktemp("mypy-cache")
    stdout, stderr, status = api.run(
        ["--config-file", str(FOLDER / "mypy.ini"), "--cache-dir", str(cache), str(FOLDER)]
    )
    assert status in (0, 1), stdout + stderr  # 2: mypy itself failed (config, plugin, crash)
    found: collections.Counter[tuple[str, int, str]] = collections.Counter()
    for line in stdout.splitlines():
        match = _ERROR.match(line)
        if match:
            found[(pathlib.Path(match["file"]).name, int(match["line"]), match["code"])] += 1
        else:
            assert not re.match(r"^\S+:\d+: error:", line), f"unparsed mypy error: {line}"
    return found


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
