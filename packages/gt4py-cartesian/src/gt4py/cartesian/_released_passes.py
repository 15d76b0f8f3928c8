"""Released gt4py.cartesian's optimization passes, by name, and the pipeline that lists them.

Released GTScript lowered a stencil to an "OIR" and ran a fixed sequence of optimization passes
over it (``DefaultPipeline``); frameworks turn single passes off by name (NDSL's
``skip_passes=("PruneKCacheFills",)`` becomes ``stencil(..., oir_pipeline=DefaultPipeline(
skip=[PruneKCacheFills]))``). This gt4py has no OIR: its code generators apply none of these
optimizations (statements are neither merged, cached nor turned into scalars; ADR 0040). So
every pass here is a name with its released meaning, and skipping it holds trivially: the
named optimization is not applied. A pipeline that *adds* passes cannot be honoured and is an
error; so is a name that is not one of released's passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class OptimizationPass:
    """One of released's OIR optimizations (never applied by this gt4py's generators)."""

    def __init__(self) -> None:
        raise TypeError(
            f"{type(self).__name__} is the name of one of released gt4py's OIR passes, which "
            "this gt4py does not have (ADR 0040); use it only in DefaultPipeline(skip=[...])"
        )


def _pass(name: str, module: str, doc: str) -> type[OptimizationPass]:
    return type(
        name,
        (OptimizationPass,),
        {"__doc__": doc, "__module__": f"gt4py.cartesian.gtc.passes.oir_optimizations.{module}"},
    )


AdjacentLoopMerging = _pass(
    "AdjacentLoopMerging", "vertical_loop_merging", "Merges adjacent vertical loops."
)
HorizontalExecutionMerging = _pass(
    "HorizontalExecutionMerging",
    "horizontal_execution_merging",
    "Merges consecutive horizontal executions into one loop nest.",
)
OnTheFlyMerging = _pass(
    "OnTheFlyMerging",
    "horizontal_execution_merging",
    "Recomputes a temporary where it is read instead of storing it.",
)
LocalTemporariesToScalars = _pass(
    "LocalTemporariesToScalars", "temporaries", "Turns temporaries used in one loop into scalars."
)
WriteBeforeReadTemporariesToScalars = _pass(
    "WriteBeforeReadTemporariesToScalars",
    "temporaries",
    "Turns temporaries always written before read into scalars.",
)
MaskStmtMerging = _pass(
    "MaskStmtMerging", "mask_stmt_merging", "Merges consecutive statements under equal masks."
)
MaskInlining = _pass("MaskInlining", "inlining", "Inlines mask temporaries into conditions.")
UnreachableStmtPruning = _pass(
    "UnreachableStmtPruning", "pruning", "Removes statements under always-false conditions."
)
NoFieldAccessPruning = _pass(
    "NoFieldAccessPruning", "pruning", "Removes loops that access no field."
)
IJCacheDetection = _pass("IJCacheDetection", "caches", "Keeps IJ temporaries in a cache.")
KCacheDetection = _pass("KCacheDetection", "caches", "Keeps K-offset reads in a register cache.")
PruneKCacheFills = _pass("PruneKCacheFills", "caches", "Drops K-cache fills not needed.")
PruneKCacheFlushes = _pass("PruneKCacheFlushes", "caches", "Drops K-cache flushes not needed.")

_ALL_STEPS: tuple[type[OptimizationPass], ...] = (
    AdjacentLoopMerging,
    HorizontalExecutionMerging,
    OnTheFlyMerging,
    LocalTemporariesToScalars,
    WriteBeforeReadTemporariesToScalars,
    MaskStmtMerging,
    MaskInlining,
    UnreachableStmtPruning,
    NoFieldAccessPruning,
    IJCacheDetection,
    KCacheDetection,
    PruneKCacheFills,
    PruneKCacheFlushes,
)


class OirPipeline(Protocol):
    """What ``stencil(..., oir_pipeline=...)`` takes: released's protocol of a pass pipeline."""

    def run(self, oir: Any) -> Any: ...


class DefaultPipeline:
    """Released's default passes, in order; ``skip`` names the ones not to apply."""

    def __init__(
        self, *, skip: Sequence[Any] | None = None, add_steps: Sequence[Any] | None = None
    ) -> None:
        known = {step.__name__: step for step in _ALL_STEPS}
        for step in skip or ():
            if step not in _ALL_STEPS:
                raise ValueError(
                    f"cannot skip {getattr(step, '__name__', step)!r}: it is not one of the "
                    f"optimization passes ({', '.join(known)})"
                )
        if add_steps:
            raise ValueError(
                "DefaultPipeline(add_steps=...) runs passes over released gt4py's OIR, which "
                "this gt4py does not have (ADR 0040); custom passes cannot run"
            )
        self.skip: list[Any] = list(skip or ())

    @staticmethod
    def all_steps() -> list[type[OptimizationPass]]:
        return list(_ALL_STEPS)

    @property
    def steps(self) -> list[type[OptimizationPass]]:
        return [step for step in _ALL_STEPS if step not in self.skip]

    def run(self, oir: Any) -> Any:
        raise TypeError(
            "DefaultPipeline.run takes released gt4py's OIR, which this gt4py does not have "
            "(ADR 0040); pass the pipeline to gtscript.stencil(..., oir_pipeline=...) instead"
        )

    def __repr__(self) -> str:
        return f"DefaultPipeline(skip={[s.__name__ for s in self.skip]})"
