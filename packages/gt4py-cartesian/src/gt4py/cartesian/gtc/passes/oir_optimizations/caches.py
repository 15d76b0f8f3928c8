"""Released ``gt4py.cartesian.gtc.passes.oir_optimizations.caches``: pass names (see
:mod:`gt4py.cartesian._released_passes`)."""

from gt4py.cartesian._released_passes import (
    IJCacheDetection as IJCacheDetection,
    KCacheDetection as KCacheDetection,
    PruneKCacheFills as PruneKCacheFills,
    PruneKCacheFlushes as PruneKCacheFlushes,
)


__all__ = ["IJCacheDetection", "KCacheDetection", "PruneKCacheFills", "PruneKCacheFlushes"]
