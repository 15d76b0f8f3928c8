"""Every ```python block of the documentation runs (ADR 0020).

The blocks of one page run in order, as one script in a fresh process, so a page can build on
its earlier blocks. The script keeps the page's line numbers (other lines are blank), so a
traceback points into the Markdown. A block preceded by a `<!-- docs-test: skip ... -->` line
is not run (it says why, e.g. it compiles C++ that the test suite covers elsewhere). The
decision records (docs/adr) are not examples and are not run.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest


REPO = pathlib.Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
_SKIP = re.compile(r"^<!--\s*docs-test:\s*skip\b")


def python_blocks(text: str) -> tuple[str, int]:
    """The page's runnable Python as one script with the page's line numbers, and how many
    blocks it holds."""
    lines = text.splitlines()
    script = [""] * len(lines)
    inside = skip = False
    count = 0
    previous = ""
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not inside and stripped.startswith("```"):
            inside = True
            runnable = stripped[3:].strip().split(" ")[0] in ("python", "py")
            skip = not runnable or bool(_SKIP.match(previous))
            count += 0 if skip else 1
        elif inside and stripped == "```":
            inside = False
        elif inside and not skip:
            script[number] = line
        if stripped:
            previous = stripped
    return "\n".join(script) + "\n", count


PAGES = sorted(
    path
    for path in [*DOCS.rglob("*.md"), *REPO.glob("packages/*/README.md")]  # READMEs: PyPI pages
    if "adr" not in path.relative_to(REPO).parts and python_blocks(path.read_text())[1]
)


def test_the_pages_with_examples_are_found():
    names = {str(path.relative_to(REPO)) for path in PAGES}
    assert {"docs/quickstart/next.md", "docs/quickstart/cartesian.md", "docs/migration.md"} <= names
    assert {f"packages/gt4py-{name}/README.md" for name in ("next", "cartesian", "eve")} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_page_examples_run(page: pathlib.Path, tmp_path: pathlib.Path):
    script, _ = python_blocks(page.read_text())
    path = tmp_path / page.name.replace(".md", "_md.py").replace("-", "_").lower()
    path.write_text(script)
    env = {**os.environ, "GT4PY_BUILD_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, str(path)], cwd=tmp_path, capture_output=True, text=True, env=env,
        timeout=300, check=False,
    )  # fmt: skip
    trace = (out.stdout + out.stderr).replace(str(path), str(page))
    assert out.returncode == 0, f"{page.relative_to(REPO)}:\n{trace}"
