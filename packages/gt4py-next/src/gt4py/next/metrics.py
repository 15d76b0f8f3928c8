"""Per-program metrics: call counts, compute time, compile time.

Collected when ``GT4PY_COLLECT_METRICS_LEVEL`` (setting ``collect_metrics_level``) is above 0:
for a compiled program when the setting is on at the time a variant is made (with 0, the
default, variants run without any bookkeeping), all its variants on all compiled backends in
one row under the program's name; for a program run on an embedded backend, each call made
while the setting is on, in a row of its own, ``<program>[<backend>]`` (e.g.
``copy[embedded_numpy]``), its compute time the whole embedded execution. At exit the metrics
go to the JSON file ``GT4PY_DUMP_METRICS_AT_EXIT`` names, or else as a table to stderr.
``program_metrics()`` returns them in Python; ``metrics_for(name).samples`` holds the compute
time of every call, and :func:`current_key` names the row of the last call recorded in this
context (what released gt4py's ``instrumentation.metrics`` sample API reads).
"""

from __future__ import annotations

import atexit
import contextvars
import dataclasses
import datetime
import json
import pathlib
import sys
import threading
from typing import Any

from gt4py.infra import config


_FLAG_ON = frozenset({"1", "true", "on", "yes"})
_FLAG_OFF = frozenset({"0", "false", "off", "no"})


def _dump_file_text(text: str) -> str:
    """Released gt4py's forms of ``GT4PY_DUMP_METRICS_AT_EXIT``: a path, or a flag: on means
    ``gt4py_metrics_<YYYYmmdd_HHMMSS>.json`` in the working directory, off means unset."""
    flag = text.strip().lower()
    if flag in _FLAG_ON:
        return f"gt4py_metrics_{datetime.datetime.now().strftime('%Y%m%d_%H%M%S')}.json"
    return "" if flag in _FLAG_OFF else text


# Registered here, beside what they steer (gt4py.next.backends._settings lists them too).
COLLECT_METRICS_LEVEL = config.register(
    config.Setting(
        name="collect_metrics_level",
        type=int,
        default=0,
        minimum=0,
        doc="above 0: count calls and time them per program (gt4py.next.metrics)",
        env="GT4PY_COLLECT_METRICS_LEVEL",
    )
)
DUMP_METRICS_AT_EXIT: config.Setting[pathlib.Path | None] = config.register(
    config.Setting(
        name="dump_metrics_at_exit",
        type=pathlib.Path,
        default=None,
        optional=True,
        doc=(
            "JSON file the collected metrics are written to at exit (unset: a table on stderr); "
            "1/true/on: gt4py_metrics_<date>_<time>.json here, 0/false/off: unset"
        ),
        env="GT4PY_DUMP_METRICS_AT_EXIT",
        env_text=_dump_file_text,
    )
)


@dataclasses.dataclass
class ProgramMetrics:
    """What was measured for one program (all its variants on all backends together)."""

    calls: int = 0
    compute_time_s: float = 0.0
    compile_time_s: float = 0.0
    variants: int = 0
    #: the row's name (``program_metrics()`` key), set by :func:`metrics_for`
    key: str = dataclasses.field(default="", repr=False, compare=False)
    #: the compute time of every call, in call order (released gt4py's per-call samples)
    samples: list[float] = dataclasses.field(default_factory=list, repr=False, compare=False)

    def record_call(self, seconds: float) -> None:
        self.calls += 1
        self.compute_time_s += seconds
        self.samples.append(seconds)
        _current_key.set(self.key)

    def as_dict(self) -> dict[str, Any]:
        mean = self.compute_time_s / self.calls if self.calls else 0.0
        return {
            "calls": self.calls,
            "compute_time_s": self.compute_time_s,
            "compile_time_s": self.compile_time_s,
            "variants": self.variants,
            "mean_compute_time_s": mean,
        }


#: The row of the program whose call was recorded last in this context (thread, task).
_current_key: contextvars.ContextVar[str] = contextvars.ContextVar("gt4py_metrics_key")


def current_key() -> str | None:
    """The row (``program_metrics()`` key) of the last call recorded in this context, or None
    when none was (metrics off, or no program run since)."""
    return _current_key.get(None)


_metrics: dict[str, ProgramMetrics] = {}
_lock = threading.Lock()
_exit_hook_installed = False


def level() -> int:
    """The current ``collect_metrics_level`` (0: off)."""
    return int(COLLECT_METRICS_LEVEL.get())


def metrics_for(program_name: str) -> ProgramMetrics:
    """The (shared, mutable) record of ``program_name``; installs the exit dump on first use."""
    global _exit_hook_installed
    with _lock:
        record = _metrics.get(program_name)
        if record is None:
            record = _metrics[program_name] = ProgramMetrics(key=program_name)
        if not _exit_hook_installed:
            atexit.register(_dump_at_exit)
            _exit_hook_installed = True
        return record


def embedded_key(program_name: str, backend_name: str) -> str:
    """The row of the calls of ``program_name`` on the embedded backend ``backend_name``."""
    return f"{program_name}[{backend_name}]"


def record_embedded_call(program_name: str, backend_name: str, seconds: float) -> None:
    """Count one call of ``program_name`` run on the embedded backend ``backend_name``."""
    metrics_for(embedded_key(program_name, backend_name)).record_call(seconds)


def program_metrics() -> dict[str, dict[str, Any]]:
    """``{program name: {calls, compute_time_s, mean_compute_time_s, compile_time_s, variants}}``.

    Programs with nothing measured since the last :func:`reset` are left out.
    """
    with _lock:
        return {
            name: record.as_dict()
            for name, record in sorted(_metrics.items())
            if record.calls or record.variants
        }


def reset() -> None:
    """Forget everything measured so far (records held by live variants restart at zero)."""
    with _lock:
        for record in _metrics.values():
            record.calls = 0
            record.compute_time_s = 0.0
            record.compile_time_s = 0.0
            record.variants = 0
            record.samples.clear()


def dump(path: str | pathlib.Path) -> None:
    """Write :func:`program_metrics` as JSON to ``path``."""
    pathlib.Path(path).write_text(json.dumps(program_metrics(), indent=2) + "\n")


def table() -> str:
    """:func:`program_metrics` as a text table."""
    rows = program_metrics()
    lines = [f"{'program':32} {'calls':>8} {'compute s':>12} {'mean s':>12} {'compile s':>10}"]
    for name, row in rows.items():
        lines.append(
            f"{name:32} {row['calls']:>8} {row['compute_time_s']:>12.6f} "
            f"{row['mean_compute_time_s']:>12.3e} {row['compile_time_s']:>10.3f}"
        )
    return "\n".join(lines)


def _dump_at_exit() -> None:
    if not program_metrics():
        return
    target = DUMP_METRICS_AT_EXIT.get()
    if target is not None:
        dump(target)
    else:
        print("gt4py.next metrics:\n" + table(), file=sys.stderr)


__all__ = [
    "COLLECT_METRICS_LEVEL",
    "DUMP_METRICS_AT_EXIT",
    "current_key",
    "dump",
    "embedded_key",
    "level",
    "metrics_for",
    "program_metrics",
    "record_embedded_call",
    "reset",
    "table",
]
