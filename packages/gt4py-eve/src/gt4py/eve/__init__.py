"""gt4py.eve: the IR toolkit of gt4py.

Typed, validated datamodels (:mod:`~gt4py.eve.datamodels`), tree nodes, source locations and
walks (:mod:`~gt4py.eve.nodes`), visitors (:mod:`~gt4py.eve.visitors`), template code
generation (:mod:`~gt4py.eve.codegen`) and small utilities (:mod:`~gt4py.eve.utils`). The most
used names are re-exported here.

Submodules and re-exported names load on first use: reading a function's source
(:mod:`~gt4py.eve.sources`) must stay cheap for the cache-key path of a warm start, which
never builds a datamodel.
"""

from __future__ import annotations

import importlib
from enum import StrEnum as StrEnum  # released gt4py's eve.StrEnum (str-valued enums)
from typing import TYPE_CHECKING, Any, Final

from ._version import __version__ as __version__


if TYPE_CHECKING:
    from . import codegen, datamodels, nodes, sources, utils, visitors
    from .codegen import (
        FormatTemplate,
        JinjaTemplate,
        TemplatedGenerator,
        as_fmt,
        as_jinja,
        format_source,
    )
    from .datamodels import (
        Coerced,
        ConstrainedStr,
        DataModel,
        DataModelTypeError,
        evolve,
        field,
        root_validator,
        validator,
    )
    from .nodes import Node, SourceLocation, Walk, iter_tree, walk_values
    from .sources import FunctionSource
    from .utils import UIDGenerator, content_hash
    from .visitors import NOTHING, NodeMutator, NodeTranslator, NodeVisitor

_SUBMODULES: Final = frozenset({"codegen", "datamodels", "nodes", "sources", "utils", "visitors"})

#: re-exported name -> the submodule defining it
_EXPORTS: Final[dict[str, str]] = {
    **dict.fromkeys(
        ("FormatTemplate", "JinjaTemplate", "TemplatedGenerator", "as_fmt", "as_jinja"),
        "codegen",
    ),
    "format_source": "codegen",
    **dict.fromkeys(
        (
            "Coerced",
            "ConstrainedStr",
            "DataModel",
            "DataModelTypeError",
            "evolve",
            "field",
            "root_validator",
            "validator",
        ),
        "datamodels",
    ),
    **dict.fromkeys(("Node", "SourceLocation", "Walk", "iter_tree", "walk_values"), "nodes"),
    "FunctionSource": "sources",
    **dict.fromkeys(("UIDGenerator", "content_hash"), "utils"),
    **dict.fromkeys(("NOTHING", "NodeMutator", "NodeTranslator", "NodeVisitor"), "visitors"),
}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module_name}"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "NOTHING",
    "Coerced",
    "ConstrainedStr",
    "DataModel",
    "DataModelTypeError",
    "FormatTemplate",
    "FunctionSource",
    "JinjaTemplate",
    "Node",
    "NodeMutator",
    "NodeTranslator",
    "NodeVisitor",
    "SourceLocation",
    "StrEnum",
    "TemplatedGenerator",
    "UIDGenerator",
    "Walk",
    "__version__",
    "as_fmt",
    "as_jinja",
    "codegen",
    "content_hash",
    "datamodels",
    "evolve",
    "field",
    "format_source",
    "iter_tree",
    "nodes",
    "root_validator",
    "sources",
    "utils",
    "validator",
    "visitors",
    "walk_values",
]
