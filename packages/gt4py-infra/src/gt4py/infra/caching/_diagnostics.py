"""Cache diagnostics: one log line per miss saying why the entry had to be built.

Enabled by the setting ``cache_diagnostics`` (``GT4PY_CACHE_DIAGNOSTICS=1``; lines at INFO,
shown on stderr even when logging is not configured) or by enabling the logger
``gt4py.infra.caching`` at DEBUG (lines at DEBUG, through the application's handlers).
When neither is on, a miss costs nothing extra.
"""

from __future__ import annotations

import logging
import os
import pathlib
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Final

from ._file_format import CorruptEntry
from ._keys import CacheKey
from ._labels import current_build_label
from ._layout import is_entry_name


logger: Final = logging.getLogger("gt4py.infra.caching")

# (digest, key parts, last modification time) of an existing entry.
PreviousEntry = tuple[str, Mapping[str, str], float]


def previous_entries(
    directory: pathlib.Path, read: Callable[[os.DirEntry[str]], tuple[Mapping[str, str], float]]
) -> Iterator[PreviousEntry]:
    """The entries in ``directory``, their key parts and mtime as ``read`` finds them.

    A directory that cannot be listed has none; an entry ``read`` cannot read (``OSError``,
    :class:`CorruptEntry`) is left out: unreadable entries cannot explain anything.
    """
    try:
        scan = list(os.scandir(directory))
    except OSError:
        return
    for item in scan:
        if not is_entry_name(item.name):
            continue
        try:
            parts, mtime = read(item)
        except (OSError, CorruptEntry):
            continue
        yield item.name, parts, mtime


def diagnostics_level() -> int | None:
    """The level at which to report misses now, or None when nobody asked for diagnostics."""
    from gt4py.infra import config

    if config.CACHE_DIAGNOSTICS.get():
        # An explicit level above INFO on our own logger means "silence": respect it.
        return None if logger.level > logging.INFO else logging.INFO
    return logging.DEBUG if logger.isEnabledFor(logging.DEBUG) else None


def explain_miss(
    key: CacheKey, corrupt_reason: str | None, previous: Iterable[PreviousEntry]
) -> str:
    """Why the entry of ``key`` has to be built (without the namespace prefix)."""
    if corrupt_reason is not None:
        return f"entry corrupt, rebuilt ({corrupt_reason})"
    nearest: tuple[int, float, str, Mapping[str, str]] | None = None
    for digest, parts, mtime in previous:
        if digest == key.digest:
            continue
        shared = sum(1 for name, value in key.parts.items() if parts.get(name) == value)
        candidate = (shared, mtime, digest, parts)
        # Most equal parts wins; among equals, the most recent entry.
        if nearest is None or candidate[:2] > nearest[:2]:
            nearest = candidate
    if nearest is None:
        return "first build"
    _, _, digest, parts = nearest
    differing = sorted(
        name for name in key.parts.keys() | parts.keys() if key.parts.get(name) != parts.get(name)
    )
    names = ", ".join(repr(name) for name in differing)
    noun = "key part" if len(differing) == 1 else "key parts"
    return f"{noun} {names} changed (nearest previous entry {digest[:8]})"


def report_miss(
    namespace: str,
    key: CacheKey,
    corrupt_reason: str | None,
    previous: Callable[[], Iterable[PreviousEntry]],
) -> None:
    """Log why ``key`` missed in ``namespace``, if diagnostics are on (one line)."""
    level = diagnostics_level()
    if level is None:
        return
    label = current_build_label()
    what = f"entry {key.digest[:8]}" + ("" if label is None else f" ({label})")
    message = f"cache miss in {namespace!r} for {what}: " + explain_miss(
        key, corrupt_reason, () if corrupt_reason is not None else previous()
    )
    if level == logging.DEBUG:
        logger.debug("%s", message)
        return
    # Asked for by setting: bypass the effective level (WARNING unless configured) and, when
    # no handler exists anywhere, write to stderr ourselves (logging's last resort would
    # drop an INFO line).
    record = logger.makeRecord(logger.name, level, __file__, 0, "%s", (message,), None)
    if logger.hasHandlers():
        logger.handle(record)
    else:
        fallback = logging.StreamHandler(sys.stderr)
        fallback.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        fallback.handle(record)


__all__: list[str] = []
