"""Released gt4py's ``instrumentation.metrics``: collection levels, per-call samples, reports.

The levels and ``dumps``/``dump_json`` map onto :mod:`gt4py.next.metrics`. The per-call
samples: ``sources[key].metrics["compute"].samples`` lists the compute time (seconds) of every
call recorded under ``key`` while ``collect_metrics_level`` is above 0, and
``get_current_source_key()`` is the key of the last program call recorded in this context (a
``program_call_context`` hook reads it after the call; outside any recorded call it raises
``LookupError``, as released's does). A key is the program's row in
``gt4py.next.metrics.program_metrics()``: the program's name for its compiled variants (all of
them together), ``<program>[<backend>]`` for its embedded calls.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import json
import pathlib
import statistics
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


COMPUTE_METRIC: Final = "compute"


@dataclasses.dataclass(frozen=True)
class Metric:
    """The samples of one metric (``mean``, ``std`` over them; ``add_sample`` adds one)."""

    name: str | None = None
    samples: list[float] = dataclasses.field(default_factory=list)

    @property
    def mean(self) -> float:
        if not self.samples:
            raise ValueError(f"metric {self.name!r} has no samples: no mean")
        return statistics.fmean(self.samples)

    @property
    def std(self) -> float:
        if len(self.samples) < 2:
            raise ValueError(f"metric {self.name!r} has {len(self.samples)} sample(s): no std")
        return statistics.stdev(self.samples)

    def add_sample(self, sample: float) -> None:
        self.samples.append(sample)

    def __str__(self) -> str:
        return f"{self.mean:.5e} +/- {self.std:.5e}"


class MetricsCollection(dict[str, Metric]):
    """Metrics by name; a name not seen yet gives a new, empty :class:`Metric`."""

    def __missing__(self, key: str) -> Metric:
        if not isinstance(key, str):
            raise TypeError(f"metric names are strings, got {key!r}")
        metric = self[key] = Metric(name=key)
        return metric


@dataclasses.dataclass
class Source:
    """What was recorded under one key: ``metrics["compute"]`` is the per-call compute time."""

    metadata: dict[str, Any] = dataclasses.field(default_factory=dict)
    metrics: MetricsCollection = dataclasses.field(default_factory=MetricsCollection)


class _Sources(collections.abc.MutableMapping[str, Source]):
    """Every key with recorded calls, plus those looked up or set; looking a key up links its
    ``compute`` metric to the samples the program's calls record (a key not recorded yet
    gets a source that its later calls fill)."""

    def __init__(self) -> None:
        self._sources: dict[str, Source] = {}

    def __getitem__(self, key: str) -> Source:
        source = self._sources.get(key)
        if source is None:
            if not isinstance(key, str):
                raise TypeError(f"metrics source keys are strings, got {key!r}")
            record = _metrics.metrics_for(key)
            source = Source(metadata={"name": key})
            source.metrics[COMPUTE_METRIC] = Metric(COMPUTE_METRIC, record.samples)
            self._sources[key] = source
        return source

    def __setitem__(self, key: str, source: Source) -> None:
        if not isinstance(source, Source):
            raise TypeError(f"metrics sources are Source objects, got {source!r}")
        self._sources[key] = source

    def __delitem__(self, key: str) -> None:
        del self._sources[key]

    def _keys(self) -> list[str]:
        return sorted(set(_metrics.program_metrics()) | set(self._sources))

    def __iter__(self) -> collections.abc.Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def __contains__(self, key: object) -> bool:
        return key in self._sources or key in _metrics.program_metrics()


#: The recorded samples by key (see the module docstring).
sources: Final = _Sources()


def is_current_source_key_set() -> bool:
    """Whether a program call was recorded in this context."""
    return _metrics.current_key() is not None


def set_current_source_key(key: str) -> None:
    """Make ``key`` the current key of this context (samples added with
    :func:`add_sample_to_current_source` go there)."""
    if not isinstance(key, str):
        raise TypeError(f"metrics source keys are strings, got {key!r}")
    _metrics._current_key.set(key)


def get_current_source_key() -> str:
    """The key of the last program call recorded in this context; ``LookupError`` if none was
    (``collect_metrics_level`` 0, or no program run yet)."""
    key = _metrics.current_key()
    if key is None:
        raise LookupError(
            "no metrics source key is set: no program call was recorded in this context "
            "(set collect_metrics_level / GT4PY_COLLECT_METRICS_LEVEL above 0 before the call)"
        )
    return key


def get_current_source() -> Source:
    """The :class:`Source` of :func:`get_current_source_key`."""
    return sources[get_current_source_key()]


def add_sample_to_current_source(metric_name: str, sample: float) -> None:
    """Add ``sample`` to the metric ``metric_name`` of the current source."""
    get_current_source().metrics[metric_name].add_sample(sample)


__all__ = [
    "ALL",
    "COMPUTE_METRIC",
    "DISABLED",
    "INFO",
    "MINIMAL",
    "PERFORMANCE",
    "VERBOSE",
    "Metric",
    "MetricsCollection",
    "Source",
    "add_sample_to_current_source",
    "dump",
    "dump_json",
    "dumps",
    "dumps_json",
    "get_current_level",
    "get_current_source",
    "get_current_source_key",
    "is_any_level_enabled",
    "is_current_source_key_set",
    "is_level_enabled",
    "set_current_source_key",
    "sources",
]
