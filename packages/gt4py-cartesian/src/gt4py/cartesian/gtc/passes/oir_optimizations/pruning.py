"""Released ``gt4py.cartesian.gtc.passes.oir_optimizations.pruning``: pass names (see
:mod:`gt4py.cartesian._released_passes`)."""

from gt4py.cartesian._released_passes import (
    NoFieldAccessPruning as NoFieldAccessPruning,
    UnreachableStmtPruning as UnreachableStmtPruning,
)


__all__ = ["NoFieldAccessPruning", "UnreachableStmtPruning"]
