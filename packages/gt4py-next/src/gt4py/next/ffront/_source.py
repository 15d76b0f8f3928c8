"""The parsed source of a decorated function, with positions mapped back to the user's file.

Reading, dedenting and locating are eve's (:class:`gt4py.eve.sources.FunctionSource`, shared
with gt4py.cartesian); this adds how names resolve: like Python at call time, closure cells,
then module globals, then builtins.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import inspect
import os
import types
from collections.abc import Callable, Container
from typing import Any, ClassVar

from gt4py.eve import SourceLocation
from gt4py.eve.sources import FunctionSource, SourceUnavailableError

from ..errors import DSLError


_MISSING = object()
MISSING: Any = _MISSING  # what lookup() returns for an unknown name


@dataclasses.dataclass(frozen=True)
class SourceDefinition:
    """A function's syntax tree and what is needed to locate and resolve its names."""

    function: Callable[..., Any]
    parsed: FunctionSource
    closure: dict[str, Any]
    # locals of the code that applied the decorator: string annotations (PEP 563) may name
    # classes local to it that the function body never refers to
    caller_locals: dict[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_function(cls, function: Callable[..., Any]) -> SourceDefinition:
        if not isinstance(function, types.FunctionType):
            raise TypeError(
                f"gt4py.next decorators take a Python function defined with 'def', got {function!r}"
            )
        try:
            parsed = FunctionSource.read(function)
        except SourceUnavailableError as error:
            location = SourceLocation(filename=error.filename, line=error.line, column=1)
            if error.reason.startswith("not a 'def'"):
                raise DSLError(location, f"'{function.__name__}' is not a 'def' function") from None
            raise DSLError(
                location,
                f"cannot read the source code of '{function.__name__}' ({error.reason}); define "
                "it in a file, not interactively through exec",
            ) from None
        definition = cls(
            function=function,
            parsed=parsed,
            closure=_closure_values(function),
            caller_locals=_caller_locals() if _has_string_annotations(function) else {},
        )
        _DimensionOnTheRight(definition.lookup, parsed.tree).visit(parsed.tree)
        return definition

    @property
    def tree(self) -> ast.FunctionDef:
        return self.parsed.tree

    @property
    def filename(self) -> str:
        return self.parsed.filename

    @property
    def line_offset(self) -> int:
        """Added to ast line numbers."""
        return self.parsed.line_offset

    @property
    def column_offset(self) -> int:
        """Added to ast column offsets (the dedented indentation)."""
        return self.parsed.column_offset

    def location(self, node: ast.AST) -> SourceLocation:
        return self.parsed.location(node)

    def lookup(self, name: str) -> Any:
        """The value ``name`` refers to in the function's scope, or ``_MISSING``."""
        if name in self.closure:
            return self.closure[name]
        globals_ = self.function.__globals__
        if name in globals_:
            return globals_[name]
        return getattr(builtins, name, _MISSING)

    def annotations(self) -> dict[str, Any]:
        """The evaluated annotations (strings from ``from __future__ import annotations`` too)."""
        raw = dict(getattr(self.function, "__annotations__", {}))
        resolved: dict[str, Any] = {}
        for name, raw_annotation in raw.items():
            annotation = raw_annotation
            if isinstance(annotation, str):
                try:
                    annotation = eval(
                        annotation,
                        self.function.__globals__,
                        {**self.caller_locals, **self.closure},
                    )
                except Exception as error:
                    node = self._annotation_node(name)
                    raise DSLError(
                        self.location(node),
                        f"cannot evaluate the annotation {annotation!r} of '{name}': {error}",
                    ) from None
            resolved[name] = annotation
        return resolved

    def _annotation_node(self, name: str) -> ast.AST:
        if name == "return":
            return self.tree.returns or self.tree
        for arg in self.tree.args.args:
            if arg.arg == name:
                return arg
        return self.tree


class _DimensionOnTheRight(ast.NodeTransformer):
    """Writes ``1 <= K`` as ``K >= 1``: domain conditions name their dimension on the left.

    Only comparisons whose right operand is a global (or module attribute) holding a
    ``Dimension`` are turned; the reflected comparison means the same for every number."""

    _REFLECTED: ClassVar[dict[type, type]] = {
        ast.Lt: ast.Gt,
        ast.LtE: ast.GtE,
        ast.Gt: ast.Lt,
        ast.GtE: ast.LtE,
        ast.Eq: ast.Eq,
        ast.NotEq: ast.NotEq,
    }

    def __init__(self, lookup: Callable[[str], Any], tree: ast.FunctionDef) -> None:
        self.lookup = lookup
        arguments = tree.args
        self.local_names = {
            a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        } | {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }

    def _is_dimension(self, node: ast.expr) -> bool:
        from .._dimensions import Dimension

        return isinstance(global_value(node, self.lookup, self.local_names), Dimension)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]) not in self._REFLECTED:
            return node
        left, right = node.left, node.comparators[0]
        if self._is_dimension(right) and not self._is_dimension(left):
            reflected = ast.Compare(
                left=right, ops=[self._REFLECTED[type(node.ops[0])]()], comparators=[left]
            )
            return ast.copy_location(reflected, node)
        return node


def is_missing(value: Any) -> bool:
    return value is _MISSING


def global_value(
    node: ast.expr,
    lookup: Callable[[str], Any],
    local_names: Container[str],
    missing: Any = MISSING,
) -> Any:
    """The value of ``name`` or of a ``name.attr.attr`` chain rooted at a global (a module
    constant, an enum member, a dimension), or ``missing``.

    ``lookup`` resolves a name that is not in ``local_names`` (returning ``missing`` when
    there is none); any other expression, or a missing attribute, gives ``missing``.
    """
    if isinstance(node, ast.Name):
        return missing if node.id in local_names else lookup(node.id)
    if isinstance(node, ast.Attribute):
        base = global_value(node.value, lookup, local_names, missing)
        return missing if base is missing else getattr(base, node.attr, missing)
    return missing


def _has_string_annotations(function: types.FunctionType) -> bool:
    return any(isinstance(a, str) for a in getattr(function, "__annotations__", {}).values())


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _caller_locals() -> dict[str, Any]:
    frame = inspect.currentframe()
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return dict(frame.f_locals) if frame is not None else {}


def _closure_values(function: types.FunctionType) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, cell in zip(function.__code__.co_freevars, function.__closure__ or (), strict=False):
        try:
            values[name] = cell.cell_contents
        except ValueError:  # an empty cell: the name is assigned later in the enclosing scope
            continue
    return values
