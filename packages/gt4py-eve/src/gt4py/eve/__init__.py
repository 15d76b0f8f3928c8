"""gt4py.eve: the IR toolkit of gt4py.

Typed, validated datamodels (:mod:`~gt4py.eve.datamodels`), tree nodes and walks
(:mod:`~gt4py.eve.nodes`), visitors (:mod:`~gt4py.eve.visitors`), template code generation
(:mod:`~gt4py.eve.codegen`) and small utilities (:mod:`~gt4py.eve.utils`). The most used
names are re-exported here.
"""

from enum import StrEnum as StrEnum  # released gt4py's eve.StrEnum (str-valued enums)

from . import codegen, datamodels, nodes, utils, visitors
from ._fingerprints import register as _register_fingerprints
from ._version import __version__ as __version__
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
from .utils import UIDGenerator, content_hash
from .visitors import NOTHING, NodeMutator, NodeTranslator, NodeVisitor


_register_fingerprints()

__all__ = [
    "StrEnum",
    "NOTHING",
    "Coerced",
    "ConstrainedStr",
    "DataModel",
    "DataModelTypeError",
    "FormatTemplate",
    "JinjaTemplate",
    "Node",
    "NodeMutator",
    "NodeTranslator",
    "NodeVisitor",
    "SourceLocation",
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
    "utils",
    "validator",
    "visitors",
    "walk_values",
]
