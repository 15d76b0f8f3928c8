"""Released ``gt4py.cartesian.gtc.passes.oir_optimizations.horizontal_execution_merging``: pass names (see
:mod:`gt4py.cartesian._released_passes`)."""

from gt4py.cartesian._released_passes import (
    HorizontalExecutionMerging as HorizontalExecutionMerging,
    OnTheFlyMerging as OnTheFlyMerging,
)


__all__ = ["HorizontalExecutionMerging", "OnTheFlyMerging"]
