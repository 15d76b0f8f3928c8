"""The compiler pipeline as data, for both DSL stacks.

- :class:`Stage` and :func:`describe`: a backend declares its stages as one ordered list
  (``frontend → ir → ir_optimized → cpp → so``); :class:`StageValues` holds what a compile
  produced per stage, in that order, and dumps it as ``<stage>.<suffix>`` files
  (:func:`dump_directory`: the ``dump_stages`` setting, ``GT4PY_DUMP_STAGES``).
- The compile log: :class:`CompileEvent` times one compile and logs one line on the
  ``gt4py.compile`` logger, at INFO, or at WARNING when slower than the
  ``compile_log_threshold_s`` setting (so quiet by default unless a compile is slow). Caches
  and builds say whether they hit with :func:`note_outcome`; :func:`collect_outcomes` carries
  those notes back from a worker.
"""

from ._compile_log import (
    CompileEvent as CompileEvent,
    collect_outcomes as collect_outcomes,
    logger as logger,
    note_outcome as note_outcome,
)
from ._stages import (
    Deferred as Deferred,
    Stage as Stage,
    StageValues as StageValues,
    describe as describe,
    dump_directory as dump_directory,
)


__all__ = [
    "CompileEvent",
    "Stage",
    "Deferred",
    "StageValues",
    "collect_outcomes",
    "describe",
    "dump_directory",
    "logger",
    "note_outcome",
]
