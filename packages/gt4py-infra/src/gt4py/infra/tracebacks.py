"""Tracebacks of user-facing errors without gt4py's own frames (ADR 0030).

An error in the user's definition or call (a ``DSLError``, a bad argument, a GTScript syntax
error) is found deep inside gt4py: printed whole, its traceback is dozens of frames of the
frontend or the call machinery before the one line that matters, which the message already
names. The public entry points of both stacks (decorators, ``__call__``, ``.compile``) catch
their stack's user-facing errors and call :func:`hide_internal_frames`, then re-raise with a
bare ``raise``, which does not add the entry point's own frame again::

    try:
        ...
    except USER_ERRORS as error:
        hide_internal_frames(error)
        raise

The traceback then holds the user's frames only (the call site, and the user's operator
bodies that embedded execution ran), with a note saying how many frames were hidden and how
to show them: ``GT4PY_TRACEBACK_FILTERING=off``. Nothing of this runs unless an error is
raised (``try`` costs nothing in CPython 3.11+), and errors of other types (gt4py's own bugs)
are never touched.
"""

from __future__ import annotations

import contextlib
import os
import sys
import types
import weakref
from collections.abc import Iterable
from typing import NamedTuple


#: The gt4py distributions whose source trees count as internal, as ``gt4py.<name>``.
INTERNAL_PACKAGES = ("infra", "eve", "storage", "next", "cartesian")
#: Code gt4py generates and runs with ``exec`` (call stubs, extent checks) names its file so.
_GENERATED_PREFIX = "<gt4py"
_NOTE_START = "(gt4py: "

_roots: tuple[str, ...] | None = None
_verdicts: dict[str, bool] = {}  # file name -> internal?


def internal_roots() -> tuple[str, ...]:
    """The source directories of the installed gt4py packages, each ending in a separator."""
    global _roots
    if _roots is None:
        namespace = sys.modules["gt4py"]  # one portion per installed distribution

        found = []
        for portion in getattr(namespace, "__path__", ()):
            for name in INTERNAL_PACKAGES:
                directory = os.path.join(os.path.realpath(portion), name)
                if os.path.isdir(directory):
                    found.append(directory + os.sep)
        _roots = tuple(dict.fromkeys(found))
    return _roots


def is_internal(filename: str, roots: Iterable[str] | None = None) -> bool:
    """Whether a frame of ``filename`` is gt4py's own (a package source or generated code)."""
    if roots is not None:
        return filename.startswith(_GENERATED_PREFIX) or _under(filename, tuple(roots))
    verdict = _verdicts.get(filename)
    if verdict is None:
        verdict = filename.startswith(_GENERATED_PREFIX) or _under(filename, internal_roots())
        _verdicts[filename] = verdict
    return verdict


def _under(filename: str, roots: tuple[str, ...]) -> bool:
    if filename.startswith(roots):
        return True
    if not os.path.isabs(filename):
        return False
    resolved = os.path.realpath(filename)  # an editable install seen through a link
    return resolved != filename and resolved.startswith(roots)


def filtering_enabled() -> bool:
    """Whether ``traceback_filtering`` (``GT4PY_TRACEBACK_FILTERING``) is on."""
    from .config import TRACEBACK_FILTERING

    return TRACEBACK_FILTERING.get() == "on"


def hide_internal_frames(error: BaseException, roots: Iterable[str] | None = None) -> None:
    """Drop gt4py's frames from ``error.__traceback__`` (and from its causes), in place.

    Does nothing with ``traceback_filtering`` off. The user's frames stay, in order, with
    their lines and columns. A chained ``__context__`` (an exception gt4py handled while
    raising ``error``) that has no user frame is suppressed as ``raise ... from None``
    would; an explicit ``__cause__`` stays, with its gt4py frames dropped too. The first call
    on an error adds a note (PEP 678) saying how many frames were hidden and how to show them;
    later calls (an entry point calling another) update it. ``roots`` replaces the source
    directories counted as gt4py's (:func:`internal_roots`), for tests.
    """
    if not filtering_enabled():
        return
    root_tuple = None if roots is None else tuple(roots)
    _prune_chain(error, root_tuple, set())


def _prune_chain(error: BaseException, roots: tuple[str, ...] | None, seen: set[int]) -> None:
    """Prune ``error`` and what it chains to."""
    seen.add(id(error))
    _prune(error, roots)
    cause = error.__cause__
    if cause is not None:
        if id(cause) not in seen:
            _prune_chain(cause, roots, seen)
    elif error.__context__ is not None and not error.__suppress_context__:
        context = error.__context__
        if not _has_user_frame(context.__traceback__, roots):
            error.__suppress_context__ = True  # gt4py's own business: not the user's
        elif id(context) not in seen:
            _prune_chain(context, roots, seen)


def _prune(error: BaseException, roots: tuple[str, ...] | None) -> None:
    # What the last pruning of this error left (that of an inner entry point): the id of its
    # first kept entry and how many frames it hid; those count here too.
    last = _prunings_get(error)
    kept: list[types.TracebackType] = []
    hidden = 0 if last is None or last.head is not None else last.hidden
    tb = error.__traceback__
    while tb is not None:
        if last is not None and last.head is not None and _mark(tb) == last.head:
            hidden += last.hidden  # pruned already below here: the error came up from there
        if is_internal(tb.tb_frame.f_code.co_filename, roots):
            hidden += 1
        else:
            kept.append(tb)
        tb = tb.tb_next
    if (last is not None and hidden == last.hidden) or hidden == 0:
        return  # nothing (new) to hide
    rebuilt: types.TracebackType | None = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    error.__traceback__ = rebuilt
    _prunings_set(error, _Pruned(None if rebuilt is None else _mark(rebuilt), hidden))
    _note(error, hidden)


class _Pruned(NamedTuple):
    """The first kept entry by :func:`_mark`, so that nothing is kept alive by it."""

    head: tuple[int, int, int, int] | None
    hidden: int


def _mark(tb: types.TracebackType) -> tuple[int, int, int, int]:
    # the ids alone could be those of a new entry, if the error's traceback was replaced
    return (id(tb), id(tb.tb_frame), tb.tb_lasti, tb.tb_lineno)


# Per error, outside its __dict__ (which pickling copies). Errors of classes defined in Python
# take weak references; for others (never raised by an entry point) each pruning counts anew.
_prunings: weakref.WeakKeyDictionary[BaseException, _Pruned] = weakref.WeakKeyDictionary()


def _prunings_get(error: BaseException) -> _Pruned | None:
    try:
        return _prunings.get(error)
    except TypeError:
        return None


def _prunings_set(error: BaseException, pruned: _Pruned) -> None:
    with contextlib.suppress(TypeError):
        _prunings[error] = pruned


def _has_user_frame(tb: types.TracebackType | None, roots: tuple[str, ...] | None) -> bool:
    while tb is not None:
        if not is_internal(tb.tb_frame.f_code.co_filename, roots):
            return True
        tb = tb.tb_next
    return False


def _note(error: BaseException, hidden: int) -> None:
    frames = "frame" if hidden == 1 else "frames"
    note = (
        f"{_NOTE_START}{hidden} internal {frames} hidden from this traceback; "
        "set GT4PY_TRACEBACK_FILTERING=off to show them)"
    )
    notes = getattr(error, "__notes__", None)
    if isinstance(notes, list):
        for i, existing in enumerate(notes):
            if isinstance(existing, str) and existing.startswith(_NOTE_START):
                notes[i] = note
                return
    error.add_note(note)


__all__ = [
    "INTERNAL_PACKAGES",
    "filtering_enabled",
    "hide_internal_frames",
    "internal_roots",
    "is_internal",
]
