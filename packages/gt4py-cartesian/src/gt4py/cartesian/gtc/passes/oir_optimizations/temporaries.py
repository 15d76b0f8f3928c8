"""Released ``gt4py.cartesian.gtc.passes.oir_optimizations.temporaries``: pass names (see
:mod:`gt4py.cartesian._released_passes`)."""

from gt4py.cartesian._released_passes import (
    LocalTemporariesToScalars as LocalTemporariesToScalars,
    WriteBeforeReadTemporariesToScalars as WriteBeforeReadTemporariesToScalars,
)


__all__ = ["LocalTemporariesToScalars", "WriteBeforeReadTemporariesToScalars"]
