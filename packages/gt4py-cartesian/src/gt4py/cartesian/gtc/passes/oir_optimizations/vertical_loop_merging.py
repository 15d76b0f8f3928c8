"""Released ``gt4py.cartesian.gtc.passes.oir_optimizations.vertical_loop_merging``: pass names (see
:mod:`gt4py.cartesian._released_passes`)."""

from gt4py.cartesian._released_passes import (
    AdjacentLoopMerging as AdjacentLoopMerging,
)


__all__ = ["AdjacentLoopMerging"]
