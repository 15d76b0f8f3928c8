"""The ``gt4py.compile`` log: one timed line per compile, naming which caches hit.

Like JAX's ``log_compiles``: quiet by default (Python shows WARNING and above without a
handler) unless a compile takes longer than the ``compile_log_threshold_s`` setting; at INFO
every compile is one line::

    compiling lap(a: Field[[I, J, K], float64]) for gtfn_cpu … 0.9 s (next/translation hit, build miss)

Notes go to the innermost active :class:`CompileEvent` (or :func:`collect_outcomes` list) of
the current context, so caches deep down can say "hit" or "miss" without being passed an
event. Threads start with an empty context: work done in another thread or process is
collected there and replayed by the caller with :meth:`CompileEvent.note`.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import time
from collections.abc import Iterator
from typing import Final

from gt4py.infra import config


logger: Final = logging.getLogger("gt4py.compile")

Note = tuple[str, str]

# The innermost list collecting notes in this context (an event's, or collect_outcomes').
_current_notes: contextvars.ContextVar[list[Note] | None] = contextvars.ContextVar(
    "gt4py_compile_notes", default=None
)


def note_outcome(part: str, outcome: str) -> None:
    """Tell the innermost active compile event that ``part`` had ``outcome`` (e.g. "hit").

    Does nothing outside a :class:`CompileEvent` or :func:`collect_outcomes`.
    """
    notes = _current_notes.get()
    if notes is not None:
        notes.append((part, outcome))


@contextlib.contextmanager
def collect_outcomes() -> Iterator[list[Note]]:
    """Collect the notes made inside into the yielded list (instead of the enclosing event).

    For work that runs elsewhere (a worker process building an artifact): the notes travel
    back with the result and the caller replays them with :meth:`CompileEvent.note`.
    """
    notes: list[Note] = []
    token = _current_notes.set(notes)
    try:
        yield notes
    finally:
        _current_notes.reset(token)


class CompileEvent:
    """Times one compile and logs it as one line when it succeeds.

    ``with CompileEvent(what="lap(a: ...)", target="gtfn_cpu") as event: ...`` logs
    ``compiling lap(a: ...) for gtfn_cpu … 0.9 s (next/translation hit, build miss)``: at
    WARNING when it took longer than the ``compile_log_threshold_s`` setting, else at INFO.
    An exception leaves the log alone (the exception says what happened). ``verb`` words
    other work: ``CompileEvent("the native toolchain", verb="setting up")``.
    """

    def __init__(self, what: str, target: str | None = None, *, verb: str = "compiling") -> None:
        self.what = what
        self.target = target
        self.verb = verb
        self.notes: list[Note] = []
        self.seconds: float | None = None
        self._start: float | None = None
        self._token: contextvars.Token[list[Note] | None] | None = None

    def note(self, part: str, outcome: str) -> None:
        """Record that ``part`` (a cache, the build) had ``outcome`` ("hit", "miss", ...)."""
        self.notes.append((part, outcome))

    def __enter__(self) -> CompileEvent:
        if self._start is not None:
            raise RuntimeError(f"{self!r} was already entered; use a new CompileEvent")
        self._token = _current_notes.set(self.notes)
        self._start = time.perf_counter()
        return self

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> None:
        assert self._start is not None and self._token is not None
        self.seconds = time.perf_counter() - self._start
        _current_notes.reset(self._token)
        if exc_type is not None:
            return
        slow = self.seconds > config.COMPILE_LOG_THRESHOLD_S.get()
        level = logging.WARNING if slow else logging.INFO
        if logger.isEnabledFor(level):
            logger.log(level, "%s", self.message())

    def message(self) -> str:
        """The log line (after exit: with the time taken)."""
        text = f"{self.verb} {self.what}"
        if self.target:
            text += f" for {self.target}"
        if self.seconds is not None:
            text += f" … {_format_seconds(self.seconds)} s"
        if self.notes:
            text += f" ({_summarize(self.notes)})"
        return text

    def __repr__(self) -> str:
        return f"CompileEvent({self.what!r}, {self.target!r})"


def _format_seconds(seconds: float) -> str:
    return f"{seconds:.1f}" if seconds >= 0.1 else f"{seconds:.3f}"


def _summarize(notes: list[Note]) -> str:
    """``"a hit, b miss"``; a note repeated (several lookups in one cache) shows a count."""
    counts: dict[Note, int] = {}
    for note in notes:
        counts[note] = counts.get(note, 0) + 1
    return ", ".join(
        f"{part} {outcome}" + (f" x{count}" if count > 1 else "")
        for (part, outcome), count in counts.items()
    )


__all__ = ["CompileEvent", "collect_outcomes", "logger", "note_outcome"]
