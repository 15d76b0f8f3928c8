"""Released ``gt4py.cartesian.gtc.passes.oir_optimizations``: the passes, by name."""
