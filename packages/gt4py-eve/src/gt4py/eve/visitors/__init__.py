"""Visitors over IR trees: inspect (``NodeVisitor``), rebuild (``NodeTranslator``) or change in
place (``NodeMutator``), dispatching on ``visit_<ClassName>`` methods along the MRO."""

from ._nothing import NOTHING as NOTHING, NothingType as NothingType
from ._translator import NodeMutator as NodeMutator, NodeTranslator as NodeTranslator
from ._visitor import NodeVisitor as NodeVisitor


__all__ = ["NOTHING", "NodeMutator", "NodeTranslator", "NodeVisitor", "NothingType"]
