"""The code blocks of a documentation page as one runnable script (shared by the docs test and
the plot hook, so both run a page the same way).

Conventions (ADR 0020):

- Every fenced ```python (or ```py) block runs; the blocks of one page run in order, as one
  script in a fresh process, so a page can build on its earlier blocks.
- The script keeps the page's line numbers (the other lines are blank), so a traceback points
  into the Markdown.
- A block preceded by a `<!-- docs-test: skip ... -->` line is not run (the comment says why).
- A block preceded by a `<!-- docs-plot: ALT TEXT -->` line is a **plot block**: it draws
  with matplotlib (`import matplotlib.pyplot as plt`, then `plt.subplots()`, ...), and after
  it the current figure is saved (see `run`). The plot hook shows the image after the block,
  with ALT TEXT as its alternative text. A plot block only draws: later blocks must not need
  names it defines, so that a page still runs without matplotlib (its plot blocks left out).

Run a script as `python doc_blocks.py SCRIPT OUT_DIR`: the script's plot blocks end with a call
`__docs_plot__(N)` (on the line of the closing fence) that saves figure N as `OUT_DIR/N.svg`.
"""

from __future__ import annotations

import dataclasses
import os
import re
import runpy
import sys


_SKIP = re.compile(r"^<!--\s*docs-test:\s*skip\b")
_PLOT = re.compile(r"^<!--\s*docs-plot:\s*(?P<alt>.*?)\s*-->$")
PLOT_CALL = "__docs_plot__"


@dataclasses.dataclass(frozen=True)
class Block:
    start: int  # 1-based line of the opening fence
    end: int  # 1-based line of the closing fence
    plot: str | None  # the alt text of a plot block, else None


@dataclasses.dataclass(frozen=True)
class Page:
    script: str
    blocks: tuple[Block, ...]

    @property
    def plots(self) -> tuple[Block, ...]:
        return tuple(block for block in self.blocks if block.plot is not None)

    def block_at(self, line: int) -> Block | None:
        return next((b for b in self.blocks if b.start < line < b.end), None)


def page_blocks(text: str, *, plots: bool = True) -> Page:
    """The page's runnable Python (see the module doc). With `plots=False`, plot blocks are
    left out (matplotlib is not installed)."""
    lines = text.splitlines()
    script = [""] * len(lines)
    blocks: list[Block] = []
    inside = run = False
    start = 0
    plot: str | None = None
    previous = ""
    for number, line in enumerate(lines):
        stripped = line.strip()
        if not inside and stripped.startswith("```"):
            inside, start = True, number
            runnable = stripped[3:].strip().split(" ")[0] in ("python", "py")
            match = _PLOT.match(previous)
            plot = match.group("alt") or "plot" if match else None
            run = runnable and not _SKIP.match(previous) and (plots or plot is None)
        elif inside and stripped == "```":
            inside = False
            if run:
                blocks.append(Block(start + 1, number + 1, plot))
                if plot is not None:
                    script[number] = f"{PLOT_CALL}({len(blocks)})"
        elif inside and run:
            script[number] = line
        if stripped:
            previous = stripped
    return Page("\n".join(script) + "\n", tuple(blocks))


def _save_plot(out_dir: str, number: int) -> None:
    import matplotlib.pyplot as plt

    figure = plt.gcf()
    if not any(axes.has_data() for axes in figure.axes):
        raise AssertionError(f"the plot block (block {number}) drew nothing")
    for axes in figure.axes:  # meshes and images as pixels inside the SVG: small files
        for artist in [*axes.collections, *axes.images]:
            artist.set_rasterized(True)
    figure.savefig(f"{out_dir}/{number}.svg", format="svg", bbox_inches="tight", dpi=150)
    plt.close("all")


def run(script_path: str, out_dir: str) -> None:
    """Run a page script as `__main__`, saving the figures of its plot blocks into `out_dir`."""
    os.environ["MPLBACKEND"] = "Agg"  # before the page imports matplotlib
    sys.argv = [script_path]
    plot = {PLOT_CALL: lambda number: _save_plot(out_dir, number)}
    runpy.run_path(script_path, init_globals=plot, run_name="__main__")  # a real __main__


if __name__ == "__main__":
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[1]))  # as if the page script ran
    run(sys.argv[1], sys.argv[2])
