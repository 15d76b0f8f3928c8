"""Every ```python block of the documentation runs (ADR 0020).

The blocks of one page run in order, as one script in a fresh process, so a page can build on
its earlier blocks. The script keeps the page's line numbers (other lines are blank), so a
traceback points into the Markdown. A block preceded by a `<!-- docs-test: skip ... -->` line
is not run (it says why, e.g. it compiles C++ that the test suite covers elsewhere). The
decision records (docs/adr) are not examples and are not run. A block preceded by a
`<!-- docs-plot: ALT -->` line draws a matplotlib figure (Agg): the test checks that it drew
something; without matplotlib (CI's lowest-dependencies leg) only the plot blocks are left out
and the page's test is reported skipped after the rest ran. The conventions live in one helper,
docs/_hooks/doc_blocks.py, shared with the plot hook of the site build (docs/_hooks/plots.py).
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest


REPO = pathlib.Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
HELPER = DOCS / "_hooks" / "doc_blocks.py"  # shared with the plot hook (docs/_hooks/plots.py)

sys.path.insert(0, str(HELPER.parent))
import doc_blocks  # noqa: E402


def python_blocks(text: str) -> tuple[str, int]:
    """The page's runnable Python as one script with the page's line numbers, and how many
    blocks it holds (plot blocks included)."""
    page = doc_blocks.page_blocks(text)
    return page.script, len(page.blocks)


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
    has_matplotlib = importlib.util.find_spec("matplotlib") is not None
    blocks = doc_blocks.page_blocks(page.read_text(), plots=has_matplotlib)
    path = tmp_path / page.name.replace(".md", "_md.py").replace("-", "_").lower()
    path.write_text(blocks.script)
    figures = tmp_path / "figures"
    figures.mkdir()
    env = {**os.environ, "GT4PY_BUILD_CACHE_DIR": str(tmp_path / "cache"), "MPLBACKEND": "Agg"}
    out = subprocess.run(
        [sys.executable, str(HELPER), str(path), str(figures)], cwd=tmp_path,
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    trace = (out.stdout + out.stderr).replace(str(path), str(page))
    assert out.returncode == 0, f"{page.relative_to(REPO)}:\n{trace}"
    for block in blocks.plots:  # each drew something (checked in doc_blocks) and was saved
        svg = figures / f"{blocks.blocks.index(block) + 1}.svg"
        assert svg.stat().st_size > 1000, f"{page.relative_to(REPO)}:{block.start}: no figure"
    left_out = len(doc_blocks.page_blocks(page.read_text()).plots) - len(blocks.plots)
    if left_out:  # the rest of the page ran and passed; only the plot blocks were not run
        pytest.skip(f"{left_out} plot block(s) not run: matplotlib is not installed")


def test_a_plot_block_draws_and_is_saved(tmp_path: pathlib.Path):
    pytest.importorskip("matplotlib")
    text = "# t\n\n<!-- docs-plot: a line -->\n```python\nimport matplotlib.pyplot as plt\n"
    text += "plt.plot([0, 1], [1, 0])\n```\n\n<!-- docs-plot: nothing -->\n```python\nx = 1\n```\n"
    page = doc_blocks.page_blocks(text)
    assert [b.plot for b in page.blocks] == ["a line", "nothing"]
    assert doc_blocks.page_blocks(text, plots=False).blocks == ()
    script = tmp_path / "page.py"
    script.write_text(page.script)
    out = subprocess.run(
        [sys.executable, str(HELPER), str(script), str(tmp_path)], capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert (tmp_path / "1.svg").stat().st_size > 1000
    assert out.returncode != 0 and "block 2) drew nothing" in out.stderr
    assert 'page.py", line 12' in out.stderr  # the closing fence of block 2, as on the page
