"""Released ``gt4py.cartesian.utils``: the names frameworks import from it (``compiler``)."""
