"""MkDocs hook: figures drawn by a page's plot blocks, rendered when the site is built.

Marker convention: a fenced python block preceded by a line `<!-- docs-plot: ALT TEXT -->` is
a plot block. It draws with matplotlib; the figure it leaves current is saved as an SVG next
to the page (`<page>-plot-N.svg`) and shown right after the block, with ALT TEXT as its
alternative text::

    <!-- docs-plot: the Laplacian on the interior -->
    ```python
    import matplotlib.pyplot as plt

    plt.imshow(out.asnumpy())
    ```

The page's blocks run in order, as one script in a fresh process with the Agg backend, exactly
as tests/docs_tests/test_docs_examples.py runs them (the helper docs/_hooks/doc_blocks.py is
shared), so a plot block sees what the earlier blocks computed. An error in any block of such
a page, or a plot block that draws nothing, fails the build naming the page and the block's
line. Pages without a plot block are not run here (the docs test runs them).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import tempfile
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files


sys.path.insert(0, str(pathlib.Path(__file__).parent))
import doc_blocks


HELPER = pathlib.Path(doc_blocks.__file__)
_LINE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
_IMAGES: dict[str, list[str]] = {}  # page src_uri -> the image names of its plot blocks


def _render(page_name: str, text: str) -> list[bytes]:
    page = doc_blocks.page_blocks(text)
    with tempfile.TemporaryDirectory(prefix="gt4py-docs-plots-") as tmp:
        script = pathlib.Path(tmp) / "page_md.py"
        script.write_text(page.script)
        env = {**os.environ, "MPLBACKEND": "Agg"}
        env.setdefault("GT4PY_BUILD_CACHE_DIR", str(pathlib.Path(tmp) / "cache"))
        out = subprocess.run(
            [sys.executable, str(HELPER), str(script), tmp], cwd=tmp, capture_output=True,
            text=True, env=env, timeout=600, check=False,
        )  # fmt: skip
        if out.returncode:
            trace = (out.stdout + out.stderr).replace(str(script), page_name)
            lines = [int(m["line"]) for m in _LINE.finditer(trace) if m["file"] == page_name]
            block = page.block_at(lines[-1]) if lines else None
            where = f"{page_name}:{block.start}" if block else page_name
            what = "plot block" if block and block.plot is not None else "code block"
            raise PluginError(f"docs plots: the {what} at {where} failed:\n{trace}")
        return [
            (pathlib.Path(tmp) / f"{page.blocks.index(block) + 1}.svg").read_bytes()
            for block in page.plots
        ]


def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    """Run each page that has plot blocks; add its figures to the site as generated files."""
    _IMAGES.clear()
    for file in list(files.documentation_pages()):
        text = pathlib.Path(file.abs_src_path).read_text(encoding="utf-8")
        if "docs-plot:" not in text or not doc_blocks.page_blocks(text).plots:
            continue
        name = f"docs/{file.src_uri}"
        stem = pathlib.PurePosixPath(file.src_uri).stem
        folder = pathlib.PurePosixPath(file.src_uri).parent
        images = []
        for number, svg in enumerate(_render(name, text), 1):
            uri = str(folder / f"{stem}-plot-{number}.svg")
            files.append(File.generated(config, uri, content=svg))
            images.append(pathlib.PurePosixPath(uri).name)
        _IMAGES[file.src_uri] = images
    return files


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """Put each plot block's figure right after the block (relative to the page's source, so
    MkDocs checks the link)."""
    images = _IMAGES.get(page.file.src_uri)
    if not images:
        return markdown
    lines = markdown.splitlines()
    plots = doc_blocks.page_blocks(markdown).plots
    if len(plots) != len(images):
        raise PluginError(f"docs plots: docs/{page.file.src_uri} changed while being built")
    for block, image in reversed(list(zip(plots, images, strict=True))):
        lines[block.end : block.end] = ["", f"![{block.plot}]({image})", ""]
    return "\n".join(lines) + "\n"
