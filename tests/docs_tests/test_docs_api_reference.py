"""The built API reference has no raw reStructuredText roles and no private-path headings (ADR 0020).

Builds the site (strict, ~7 s) into a temporary directory. The MkDocs packages are the `docs`
dependency group; where they are not installed the test is skipped (CI builds the site with
them before running the tests).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest


ROOT = pathlib.Path(__file__).resolve().parents[2]
_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|data|mod|attr|exc|obj|const):`")
_HEADING = re.compile(r"<h([1-6])(?P<attrs>[^>]*)>(?P<text>.*?)</h\1>", re.DOTALL)
_ID = re.compile(r'\bid="(?P<id>[^"]*)"')
_PRIVATE = re.compile(r"(?:^|\.)_[A-Za-z]")  # a `_name` component; `__init__` is not one


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def _api_pages(site: pathlib.Path) -> list[pathlib.Path]:
    pages = sorted((site / "api").rglob("*.html"))
    assert len(pages) >= 6, pages  # the overview and one page per distribution
    return pages


def test_no_raw_sphinx_roles(site: pathlib.Path) -> None:
    # the pages made from docstrings (prose pages such as the ADRs may quote a role as code)
    raw = {
        str(page.relative_to(site)): len(_ROLE.findall(page.read_text()))
        for page in _api_pages(site)
    }
    assert {page: count for page, count in raw.items() if count} == {}


def test_api_headings_use_public_paths(site: pathlib.Path) -> None:
    private = []
    for page in _api_pages(site):
        for heading in _HEADING.finditer(page.read_text()):
            anchor = _ID.search(heading["attrs"])
            text = re.sub(r"<[^>]+>", "", heading["text"])
            for value in (anchor["id"] if anchor else "", text):
                if value.startswith("gt4py") and _PRIVATE.search(value.split("(")[0]):
                    private.append(f"{page.relative_to(site)}: {value}")
    assert private == []


def test_builtins_and_backends_are_documented(site: pathlib.Path) -> None:
    next_page = (site / "api" / "next" / "index.html").read_text()
    for name in ("where", "neighbor_sum", "astype", "broadcast", "max_over", "sqrt"):
        assert f'id="gt4py.next.{name}"' in next_page
    for name in ("FieldOffset", "compile_all", "field_operator", "program", "scan_operator"):
        assert f'id="gt4py.next.{name}"' in next_page
    for backend in ("gtfn_cpu", "gtfn_gpu", "itir_python", "embedded_numpy"):
        assert f"gtx.{backend}" in next_page
    cartesian = (site / "api" / "cartesian" / "index.html").read_text()
    for name in ("stencil", "lazy_stencil", "function", "computation", "interval", "PARALLEL"):
        assert f'id="gt4py.cartesian.gtscript.{name}"' in cartesian
