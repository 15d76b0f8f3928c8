"""Released ``gt4py.cartesian.gtc.passes.oir_optimizations.inlining``: pass names (see
:mod:`gt4py.cartesian._released_passes`)."""

from gt4py.cartesian._released_passes import (
    MaskInlining as MaskInlining,
)


__all__ = ["MaskInlining"]
