"""MkDocs hook: `<!-- gt4py-next-builtins -->` in a page becomes the table of gt4py.next's builtins.

The builtins of the field-operator language (`where`, `neighbor_sum`, `sin`, ...) are made at
import time from gt4py.next's builtin vocabulary, so griffe (static analysis) sees them as
undocumented module attributes. This hook imports `gt4py.next.ffront.fbuiltins` and lists every
exported builtin with its run-time doc, grouped by what it does, so the page cannot drift from
the code. Each row has an anchor `gt4py.next.<name>` (registered with mkdocs-autorefs), so
``[`where`][gt4py.next.where]`` links to it.
"""

from __future__ import annotations

from typing import Any


MARKER = "<!-- gt4py-next-builtins -->"

_GROUPS = (
    ("Selection and conversion", ("where", "astype", "broadcast")),
    ("Reductions over neighbours", ("neighbor_sum", "max_over", "min_over")),
    ("Binary math", ("minimum", "maximum", "fmod", "power")),
)
_REST = "Unary math (pointwise)"


def _builtins() -> dict[str, str]:
    from gt4py.next.ffront import fbuiltins

    return {
        name: " ".join((value.__doc__ or "").split())
        for name in fbuiltins.__all__
        if isinstance(value := getattr(fbuiltins, name), fbuiltins.BuiltInFunction)
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def builtins_tables() -> str:
    docs = _builtins()
    grouped = [(title, [n for n in names if n in docs]) for title, names in _GROUPS]
    listed = {name for _, names in grouped for name in names}
    grouped.append((_REST, sorted(set(docs) - listed)))
    out = []
    for title, names in grouped:
        out += [f"**{title}**", "", "| builtin | what it does |", "| --- | --- |"]
        out += [
            f'| <code id="gt4py.next.{name}">gtx.{name}</code> | {_cell(docs[name])} |'
            for name in names
        ]
        out.append("")
    return "\n".join(out)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, builtins_tables())


def on_page_content(html: str, page: Any, config: Any, **kwargs: Any) -> str:
    if 'id="gt4py.next.where"' not in html:
        return html
    autorefs = config["plugins"].get("autorefs")
    if autorefs is not None:
        for name in _builtins():
            autorefs.register_anchor(page, f"gt4py.next.{name}", f"gt4py.next.{name}", primary=True)
    return html
