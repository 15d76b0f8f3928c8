"""Released ``gt4py.cartesian.gtc.passes.oir_optimizations.mask_stmt_merging``: pass names (see
:mod:`gt4py.cartesian._released_passes`)."""

from gt4py.cartesian._released_passes import (
    MaskStmtMerging as MaskStmtMerging,
)


__all__ = ["MaskStmtMerging"]
