"""MkDocs hook: `<!-- gt4py-settings -->` in a page becomes the table of every registered setting.

The table is generated from gt4py.infra's settings registry (the same source as
`python -m gt4py.infra.config`), so the page cannot drift from the code: the settings of every
installed distribution are loaded through the `gt4py.infra.settings` entry points.
"""

from __future__ import annotations

import pathlib
from importlib.metadata import entry_points
from typing import Any


MARKER = "<!-- gt4py-settings -->"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def settings_table() -> str:
    from gt4py.infra import config

    for entry in entry_points(group="gt4py.infra.settings"):
        entry.load()
    rows = [
        "| setting | environment variable | type | default | what it does |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name in config.names():
        setting = config.setting(name)
        if name.startswith("_") or setting.doc.startswith("internal"):
            continue
        if callable(setting.default) and setting.type.__name__ == "Path":
            home = str(pathlib.Path.home())
            default = f"`{str(setting.default()).replace(home, '~', 1)}`"
        elif callable(setting.default):
            default = "computed (see description)"
        else:
            default = f"`{setting.default!r}`" if setting.default is not None else "unset"
        kind = setting.type.__name__
        if setting.choices:
            kind = " / ".join(f"`{choice}`" for choice in setting.choices)
        elif setting.optional:
            kind += " (empty: unset)"
        doc = setting.doc
        if setting.aliases:
            doc += " Deprecated aliases: " + ", ".join(f"`{a.env}`" for a in setting.aliases) + "."
        rows.append(
            f"| `{name}` | `{setting.env}` | {_cell(kind)} | {_cell(default)} | {_cell(doc)} |"
        )
    return "\n".join(rows)


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    if MARKER in markdown:
        return markdown.replace(MARKER, settings_table())
    return markdown
