"""No new file-level import circle inside any gt4py package (issue 29).

`import_graph` finds the circles (strongly connected components of the import graph, imports
inside functions included, ``if TYPE_CHECKING:`` imports excluded); the known ones are listed
in ``import_cycles_allowed.txt``, one per line, its modules sorted and space separated. A new
circle fails, showing one loop through it; an allowed circle that is gone fails too, so that
the allowlist only ever shrinks.
"""

from __future__ import annotations

import pathlib
import sys


sys.path.insert(0, str(pathlib.Path(__file__).parent))

import import_graph


ALLOWLIST = pathlib.Path(__file__).parent / "import_cycles_allowed.txt"


def _allowed() -> set[tuple[str, ...]]:
    lines = ALLOWLIST.read_text().splitlines()
    entries = [line.split() for line in lines if line.strip() and not line.startswith("#")]
    return {tuple(sorted(entry)) for entry in entries}


def test_no_import_circle_outside_the_allowlist() -> None:
    found = import_graph.find_circles()
    allowed = _allowed()
    new = sorted(set(found) - allowed)
    gone = sorted(allowed - set(found))
    problems = [
        f"new import circle: {' '.join(c)}\n    loop: {found[c]}\n    break it (move the shared "
        "part into a module both sides import, or invert the dependency)"
        for c in new
    ] + [
        f"allowed circle no longer exists: {' '.join(c)}\n    remove its line from "
        f"{ALLOWLIST.name} (the allowlist only shrinks)"
        for c in gone
    ]
    assert not problems, "\n".join(problems)


def _package(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    root = tmp_path / "packages" / "gt4py-demo" / "src" / "gt4py" / "demo"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_checker_reports_a_deliberate_circle(tmp_path: pathlib.Path) -> None:
    _package(
        tmp_path,
        {
            "a.py": "from . import b\n",
            "b.py": "def f():\n    from .a import x  # a function-level import is an edge too\n",
            "c.py": "import gt4py.demo.c\nfrom gt4py.demo import a\n",  # self-import ignored
        },
    )
    found = import_graph.find_circles(tmp_path)
    assert list(found) == [("gt4py.demo.a", "gt4py.demo.b")]
    assert found["gt4py.demo.a", "gt4py.demo.b"] == "gt4py.demo.a -> gt4py.demo.b -> gt4py.demo.a"


def test_type_checking_imports_are_not_edges(tmp_path: pathlib.Path) -> None:
    _package(
        tmp_path,
        {
            "a.py": "from .b import y\n",
            "b.py": "import typing\nif typing.TYPE_CHECKING:\n    from .a import x\n",
            "sub/__init__.py": "from .. import a\n",
            "sub/d.py": "from ..sub import e\n",
            "sub/e.py": "from gt4py.demo.sub import d\n",
        },
    )
    assert list(import_graph.find_circles(tmp_path)) == [("gt4py.demo.sub.d", "gt4py.demo.sub.e")]
