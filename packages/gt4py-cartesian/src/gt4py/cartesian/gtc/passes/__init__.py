"""Released ``gt4py.cartesian.gtc.passes``: the optimization pipeline's names."""
