"""File-level import graph of each gt4py package, and its circles (issue 29).

Every ``.py`` file of a package (``packages/<dist>/src/gt4py/<name>/``) is parsed with `ast`;
its imports of modules of the same package become edges of a directed graph:

- ``import gt4py.next.a.b`` -> ``gt4py.next.a.b`` (the parents that Python also runs on the
  way are not edges: a package ``__init__`` running its submodules is the normal case);
- ``from gt4py.next.a import b`` -> ``gt4py.next.a.b`` when ``b`` is a submodule, otherwise
  ``gt4py.next.a``; relative imports (``from . import x``, ``from ..a import b``) resolve the
  same way;
- imports under ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) are not edges, since they
  never run; imports inside functions and classes are edges, so that a function-level import
  cannot hide a circle.

A circle is a strongly connected component (Tarjan) of more than one module; a module
importing itself is ignored. `find_circles` returns them, `cycle_path` gives one concrete loop
``a -> b -> ... -> a`` through a component. Run as a script to print the circles of every
package: ``uv run python tests/import_graph.py``.
"""

from __future__ import annotations

import ast
import pathlib
from collections import deque
from collections.abc import Iterable, Iterator, Mapping


REPO = pathlib.Path(__file__).resolve().parent.parent

Graph = dict[str, set[str]]


def package_roots(repo: pathlib.Path = REPO) -> list[pathlib.Path]:
    """Every top-level package directory ``packages/*/src/gt4py/*`` (with an ``__init__.py``)."""
    return sorted(path.parent for path in (repo / "packages").glob("*/src/gt4py/*/__init__.py"))


def _module_names(root: pathlib.Path, prefix: str) -> dict[str, pathlib.Path]:
    """Module name -> file, for every ``.py`` file under the package directory `root`."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).with_suffix("").parts
        if "__pycache__" in relative or any("." in part for part in relative):
            continue
        if relative[-1] == "__init__":
            relative = relative[:-1]
        modules[".".join((prefix, *relative))] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of `tree`, at any depth, except those under TYPE_CHECKING."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _resolve_base(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    """The absolute module that ``from <...> import`` names, or None if it leaves the tree."""
    if node.level == 0:
        return node.module
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if node.level - 1 > len(parts) - 1:
        return None
    if node.level > 1:
        parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _deepest_known(name: str, known: Mapping[str, object]) -> str | None:
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def import_graph(root: pathlib.Path, prefix: str | None = None) -> Graph:
    """The import graph of the package at `root` (named `prefix`, by default
    ``gt4py.<dirname>``): module -> the modules of the same package it imports."""
    prefix = prefix or f"gt4py.{root.name}"
    modules = _module_names(root, prefix)
    graph: Graph = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _imports(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve_base(name, is_package, node)
                if base is None:
                    continue
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    targets.append(submodule if submodule in modules else base)
            for target in targets:
                found = _deepest_known(target, modules)
                if found is not None and found != name:
                    graph[name].add(found)
    return graph


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of `graph` (iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in graph:
                    continue
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The components of more than one module, sorted; self-imports are ignored."""
    return sorted(c for c in strongly_connected(graph) if len(c) > 1)


def cycle_path(graph: Mapping[str, Iterable[str]], component: Iterable[str]) -> list[str]:
    """One shortest loop ``[a, b, ..., a]`` through the first module of `component`."""
    members = set(component)
    start = min(members)
    previous: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for successor in sorted(graph[node]):
            if successor not in members:
                continue
            if successor == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [*reversed(path), start]
            if successor not in previous:
                previous[successor] = node
                queue.append(successor)
    raise ValueError(f"{sorted(members)} is not a strongly connected component")


def format_loop(path: Iterable[str]) -> str:
    return " -> ".join(path)


def find_circles(repo: pathlib.Path = REPO) -> dict[tuple[str, ...], str]:
    """Every circle of every package: sorted module names -> one loop through it."""
    found = {}
    for root in package_roots(repo):
        graph = import_graph(root)
        for component in circles(graph):
            found[tuple(component)] = format_loop(cycle_path(graph, component))
    return found


if __name__ == "__main__":
    all_circles = find_circles()
    for component, loop in sorted(all_circles.items()):
        print(" ".join(component))
        print(f"    loop: {loop}")
    print(f"{len(all_circles)} circle(s)")
