"""Released gt4py's ``instrumentation.metrics``: collection levels and reports.

The levels and ``dumps``/``dump_json`` map onto :mod:`gt4py.next.metrics` (aggregates per
program). Released gt4py's per-call samples (``sources``, ``get_current_source_key``) are not
recorded here: those names raise an ``AttributeError`` that says so.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any, Final

from .. import metrics as _metrics


DISABLED: Final = 0
MINIMAL: Final = 1
PERFORMANCE: Final = 10
INFO: Final = 30
VERBOSE: Final = 50
ALL: Final = 100


def get_current_level() -> int:
    """The current ``collect_metrics_level`` (``GT4PY_COLLECT_METRICS_LEVEL``)."""
    return _metrics.level()


def is_any_level_enabled() -> bool:
    return get_current_level() > DISABLED


def is_level_enabled(level: int) -> bool:
    return get_current_level() >= level


def dumps() -> str:
    """The metrics of all programs as a text table."""
    return _metrics.table()


def dump(filename: str | pathlib.Path) -> None:
    pathlib.Path(filename).write_text(dumps() + "\n")


def dumps_json() -> str:
    return json.dumps(_metrics.program_metrics(), indent=2)


def dump_json(filename: str | pathlib.Path) -> None:
    _metrics.dump(filename)


def __getattr__(name: str) -> Any:
    if name in ("sources", "get_current_source_key", "get_current_source", "Source", "Metric"):
        raise AttributeError(
            f"{__name__}.{name}: this gt4py.next records no per-call metric samples; "
            "gt4py.next.metrics.program_metrics() gives calls and times per program"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALL",
    "DISABLED",
    "INFO",
    "MINIMAL",
    "PERFORMANCE",
    "VERBOSE",
    "dump",
    "dump_json",
    "dumps",
    "dumps_json",
    "get_current_level",
    "is_any_level_enabled",
    "is_level_enabled",
]
