"""FileCache: key -> bytes or a pickled object, one validated file per entry."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from gt4py.infra.pipeline._compile_log import note_outcome

from . import _file_format as file_format
from ._atomic import disk_full_is_a_cache_error, prepare_lock_file, write_chunks_atomically
from ._build_counts import count_build
from ._diagnostics import PreviousEntry, previous_entries, report_miss
from ._file_format import CorruptEntry, PayloadKind
from ._hits_only import refuse_to_build
from ._keys import CacheKey
from ._labels import build_label
from ._layout import NamespaceLayout
from ._locking import build_lock
from ._namespaced import ABSENT, Miss, NamespacedCache, check_key
from ._trust import check_entry


_T = TypeVar("_T")


class FileCache(NamespacedCache):
    """A persistent map from :class:`CacheKey` to bytes (or pickled objects) on disk.

    Entries live in ``<root>/<namespace>/``; ``root`` defaults to ``config.cache_root()``,
    looked up on every call. Writes are atomic and reads validate, so a reader sees a
    complete entry or a miss, and a damaged entry is rebuilt, never returned or crashed on.
    Safe to share between threads, processes and hosts on a shared file system.
    """

    def get(self, key: CacheKey, *, label: str | None = None) -> bytes | None:
        """The bytes stored under ``key``, or None on a miss (absent or invalid entry).

        ``label`` names what the entry is for in diagnostics (default: the
        :func:`~gt4py.infra.caching.build_label` in force)."""
        with build_label(label):
            return self._get(key)

    def _get(self, key: CacheKey) -> bytes | None:
        layout = self._layout()
        found = _lookup(layout, check_key(key), PayloadKind.BYTES)
        if isinstance(found, Miss):
            overlay = self._overlay_layout()
            in_overlay = None if overlay is None else _lookup(overlay, key, PayloadKind.BYTES)
            if isinstance(in_overlay, bytes):
                return in_overlay
            self._report(layout, key, found)
            return None
        assert isinstance(found, bytes)
        return found

    def put(self, key: CacheKey, data: bytes) -> None:
        """Store ``data`` under ``key``, atomically replacing any previous entry."""
        layout = self._writable_layout(self._layout(), check_key(key))
        _publish(layout, key, PayloadKind.BYTES, _as_bytes(data, "put()"))

    def get_or_build(
        self, key: CacheKey, build: Callable[[], bytes], *, label: str | None = None
    ) -> bytes:
        """The bytes under ``key``; on a miss ``build()`` them once, store and return them.

        Concurrent callers for the same key (threads, processes, hosts) wait for the one
        that builds and then read its result. An exception from ``build`` propagates and
        stores nothing. ``label`` names what the entry is for in diagnostics and lock waits
        (default: the :func:`~gt4py.infra.caching.build_label` in force); it holds inside
        ``build`` too.
        """
        with build_label(label):
            value = self._get_or_build(
                check_key(key), PayloadKind.BYTES, build, lambda v: _as_bytes(v, "build()")
            )
        assert isinstance(value, bytes)
        return value

    def get_or_build_object(
        self, key: CacheKey, build: Callable[[], _T], *, label: str | None = None
    ) -> _T:
        """Like :meth:`get_or_build` for any picklable object (stored with pickle).

        An entry that no longer unpickles (e.g. its class moved) counts as corrupt and is
        rebuilt.
        """
        with build_label(label):
            value: _T = self._get_or_build(check_key(key), PayloadKind.PICKLE, build, _pickled)
        return value

    # -- internals ------------------------------------------------------------------------------

    def _get_or_build(
        self,
        key: CacheKey,
        kind: PayloadKind,
        build: Callable[[], Any],
        to_payload: Callable[[Any], bytes],
    ) -> Any:
        layout = self._layout()
        found = _lookup(layout, key, kind)
        if isinstance(found, Miss):
            overlay = self._overlay_layout()
            if overlay is not None:
                found = _lookup(overlay, key, kind)
        if isinstance(found, Miss):
            found = self._build_locked(layout, key, kind, build, to_payload)
        else:
            note_outcome(self.namespace, "hit")
        return found

    def _build_locked(
        self,
        layout: NamespaceLayout,
        key: CacheKey,
        kind: PayloadKind,
        build: Callable[[], Any],
        to_payload: Callable[[Any], bytes],
    ) -> Any:
        refuse_to_build(self.namespace)
        layout = self._writable_layout(layout, key)
        prepare_lock_file(layout.lock_path(key.digest))
        # Double-checked: another builder may have published while we waited for the lock.
        with build_lock(layout.lock_path(key.digest), entry=self._describe(key)):
            found = _lookup(layout, key, kind)
            if not isinstance(found, Miss):
                note_outcome(self.namespace, "hit")  # built by another process meanwhile
                return found
            self._report(layout, key, found)
            with disk_full_is_a_cache_error(layout.files_dir, "building a cache entry"):
                value = build()
            payload = to_payload(value)
            _publish(layout, key, kind, payload)
            count_build(self.namespace)
        note_outcome(self.namespace, "miss")
        return payload if kind is PayloadKind.BYTES else value

    def _report(self, layout: NamespaceLayout, key: CacheKey, miss: Miss) -> None:
        report_miss(self.namespace, key, miss.corrupt_reason, lambda: _previous_entries(layout))


def _lookup(layout: NamespaceLayout, key: CacheKey, kind: PayloadKind) -> object:
    """The stored value for ``key``, or a :class:`Miss` saying why there is none."""
    try:
        stored_kind, payload = file_format.read_payload(
            layout.file_entry(key.digest), key.digest, check_entry
        )
    except FileNotFoundError:
        return ABSENT
    except CorruptEntry as error:
        return Miss(str(error))
    if stored_kind is not kind:
        return Miss(f"entry holds {stored_kind.name.lower()}, expected {kind.name.lower()}")
    if kind is PayloadKind.BYTES:
        return payload
    try:
        return pickle.loads(payload)
    except Exception as error:  # anything unpickling raises means: unusable entry
        return Miss(f"cannot unpickle: {type(error).__name__}: {error}")


def _publish(layout: NamespaceLayout, key: CacheKey, kind: PayloadKind, payload: bytes) -> None:
    write_chunks_atomically(layout.file_entry(key.digest), file_format.encode(key, kind, payload))


def _previous_entries(layout: NamespaceLayout) -> Iterator[PreviousEntry]:
    def read(item: os.DirEntry[str]) -> tuple[Mapping[str, str], float]:
        parts = file_format.read_key_parts(layout.files_dir / item.name, item.name)
        return parts, item.stat().st_mtime

    return previous_entries(layout.files_dir, read)


def _as_bytes(data: object, source: str) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, bytearray | memoryview):
        return bytes(data)
    raise TypeError(f"FileCache {source} needs bytes, got {type(data).__name__}")


def _pickled(value: object) -> bytes:
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as error:
        raise TypeError(
            f"FileCache.get_or_build_object: the built {type(value).__name__} cannot be "
            f"pickled ({error}); return a picklable value or use get_or_build with bytes"
        ) from error


__all__ = ["FileCache"]
