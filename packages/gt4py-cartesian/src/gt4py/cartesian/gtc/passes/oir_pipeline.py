"""Released ``gt4py.cartesian.gtc.passes.oir_pipeline``: ``DefaultPipeline`` and
``OirPipeline`` (see :mod:`gt4py.cartesian._released_passes`)."""

from gt4py.cartesian._released_passes import (
    DefaultPipeline as DefaultPipeline,
    OirPipeline as OirPipeline,
)


__all__ = ["DefaultPipeline", "OirPipeline"]
