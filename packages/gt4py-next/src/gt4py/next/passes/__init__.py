"""IR passes of gt4py.next, each a small module: constant folding, common subexpressions.

Operator calls are inlined by the lowering itself (every intermediate is recomputed where it
is read: no temporaries), see ADR 0013 for the heuristic and its limits.
"""

from __future__ import annotations

from .. import ir
from .common_subexpressions import cse as cse
from .constant_folding import fold_constants as fold_constants


def default_pipeline(
    program: ir.Program, *, cse: bool = True, constant_folding: bool = True
) -> ir.Program:
    from . import common_subexpressions

    if constant_folding:
        program = fold_constants(program)
    if cse:
        program = common_subexpressions.cse(program)
    return program


__all__ = ["cse", "default_pipeline", "fold_constants"]
