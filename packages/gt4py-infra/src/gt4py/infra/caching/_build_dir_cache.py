"""BuildDirCache: key -> a directory of build products, published and validated as a whole."""

from __future__ import annotations

import os
import pathlib
import stat
from collections.abc import Callable, Iterator, Mapping

from gt4py.infra.pipeline._compile_log import note_outcome

from ._atomic import (
    create_directory,
    create_in_directory,
    disk_full_is_a_cache_error,
    make_directory,
    prepare_lock_file,
    publish_directory,
    remove_atomically,
    remove_tree,
    temp_sibling,
)
from ._build_counts import count_build
from ._diagnostics import PreviousEntry, previous_entries, report_miss
from ._errors import CacheError
from ._file_format import CorruptEntry
from ._hits_only import refuse_to_build
from ._keys import CacheKey
from ._labels import build_label
from ._layout import NamespaceLayout
from ._locking import build_lock
from ._manifest import MANIFEST_NAME, read_manifest, reseal, verify_contents, write_manifest
from ._namespaced import ABSENT, Miss, NamespacedCache, check_key
from ._trust import check_entry, current_policy, secure_tree


class BuildDirCache(NamespacedCache):
    """A persistent map from :class:`CacheKey` to a directory (e.g. a compiled extension).

    ``build(path)`` fills an empty temp directory next to the final entry; the cache then
    records a manifest of everything in it and renames it into place in one step, so an
    entry directory is always complete. Reading checks the manifest: every listed file must
    be present with its size and (with ``verify_checksums``, the default) its checksum, and
    nothing unlisted may be there; anything else is a miss and is rebuilt. An entry (or a
    file of it) that another user owns or can write is refused with a :class:`CacheError`
    (ADR 0026). Everything in a published entry has the trust policy's mode.

    Build functions must not bake the temp path into their products: the directory is
    renamed after ``build`` returns.
    """

    def __init__(
        self,
        namespace: str,
        *,
        root: str | os.PathLike[str] | None = None,
        verify_checksums: bool = True,
    ) -> None:
        super().__init__(namespace, root=root)
        self._verify_checksums = verify_checksums

    def get(self, key: CacheKey, *, label: str | None = None) -> pathlib.Path | None:
        """The valid entry directory of ``key``, or None on a miss.

        ``label`` names what the entry is for in diagnostics (default: the
        :func:`~gt4py.infra.caching.build_label` in force)."""
        with build_label(label):
            return self._get(key)

    def _get(self, key: CacheKey) -> pathlib.Path | None:
        layout = self._layout()
        miss = self._check(layout, check_key(key))
        if miss is None:
            return layout.dir_entry(key.digest)
        overlay = self._overlay_layout()
        if overlay is not None and self._check(overlay, key) is None:
            return overlay.dir_entry(key.digest)
        self._report(layout, key, miss)
        return None

    def get_or_build(
        self,
        key: CacheKey,
        build: Callable[[pathlib.Path], object],
        *,
        label: str | None = None,
    ) -> pathlib.Path:
        """The entry directory of ``key``; on a miss ``build`` it once and publish it.

        Concurrent callers for the same key wait for the one that builds. An exception from
        ``build`` propagates; its temp directory is removed and nothing is published.
        ``label`` names what the entry is for in diagnostics and lock waits (default: the
        :func:`~gt4py.infra.caching.build_label` in force); it holds inside ``build`` too.
        """
        with build_label(label):
            return self._get_or_build(key, build)

    def _get_or_build(self, key: CacheKey, build: Callable[[pathlib.Path], object]) -> pathlib.Path:
        layout = self._layout()
        entry = layout.dir_entry(check_key(key).digest)
        if self._check(layout, key) is not None:
            overlay = self._overlay_layout()
            if overlay is None or self._check(overlay, key) is not None:
                return self._build_locked(layout, key, build)
            entry = overlay.dir_entry(key.digest)
        note_outcome(self.namespace, "hit")
        return entry

    # -- internals ------------------------------------------------------------------------------

    def _build_locked(
        self, layout: NamespaceLayout, key: CacheKey, build: Callable[[pathlib.Path], object]
    ) -> pathlib.Path:
        refuse_to_build(self.namespace)
        layout = self._writable_layout(layout, key)
        entry = layout.dir_entry(key.digest)
        prepare_lock_file(layout.lock_path(key.digest))
        # Double-checked: another builder may have published while we waited for the lock.
        with build_lock(layout.lock_path(key.digest), entry=self._describe(key)):
            miss = self._check(layout, key)
            if miss is None:
                note_outcome(self.namespace, "hit")  # built by another process meanwhile
                return entry
            self._report(layout, key, miss)
            temp, sealed = self._build_in_temp(entry, key, build)
            try:
                if self._publish(layout, key, temp, entry):
                    reseal(entry, sealed)
            finally:
                remove_tree(temp)  # no-op once published
            count_build(self.namespace)
        note_outcome(self.namespace, "miss")
        return entry

    def _check(self, layout: NamespaceLayout, key: CacheKey) -> Miss | None:
        """None for a valid entry, else why there is no usable one.

        An entry directory that another user owns or can write is a :class:`CacheError`
        (``_trust``), not a miss: rebuilding would not make its namespace trustworthy.
        """
        entry = layout.dir_entry(key.digest)
        try:
            info = os.lstat(entry)
        except (FileNotFoundError, NotADirectoryError):
            return ABSENT
        except OSError as error:
            return Miss(f"entry unreadable: {error.strerror or error}")
        check_entry(entry, info, "cache entry directory")
        if not stat.S_ISDIR(info.st_mode):
            return Miss("a file sits where the entry directory belongs")
        try:
            document = read_manifest(entry, key.digest)
            verify_contents(
                entry,
                document,
                checksums=self._verify_checksums,
                directory_mtime_ns=info.st_mtime_ns,
            )
        except FileNotFoundError:
            return ABSENT
        except CorruptEntry as error:
            return Miss(str(error))
        return None

    def _build_in_temp(
        self, entry: pathlib.Path, key: CacheKey, build: Callable[[pathlib.Path], object]
    ) -> tuple[pathlib.Path, int]:
        temp = temp_sibling(entry)
        create_in_directory(
            entry.parent,
            lambda: create_directory(temp),
            doing="creating a temp build directory",
            path=temp,
        )
        try:
            with disk_full_is_a_cache_error(entry.parent, "building a cache entry"):
                build(temp)
                if not temp.is_dir():
                    make_directory(entry.parent)  # a CacheError if its session ended meanwhile
                    raise CacheError(
                        f"the temp build directory {temp} of {self._describe(key)} was removed "
                        "while it was being built (by a concurrent `python -m gt4py.infra.cache clean`?)"
                    )
                # The build's tools wrote with their umask: give everything the policy's mode.
                secure_tree(temp, current_policy())
            sealed = write_manifest(temp, key)
        except BaseException:
            remove_tree(temp)
            raise
        return temp, sealed

    def _publish(
        self, layout: NamespaceLayout, key: CacheKey, temp: pathlib.Path, entry: pathlib.Path
    ) -> bool:
        """Publish ``temp`` as ``entry``; False when a concurrent builder's valid entry was
        kept instead."""
        # Files are not fsynced one by one: after a power loss, content that never reached
        # the disk fails the manifest's size or checksum check and is rebuilt.
        if entry.is_symlink() or entry.is_file():
            remove_atomically(entry)  # junk where a directory belongs
        if publish_directory(temp, entry):
            return True
        # The entry exists. Under our lock it is normally a corrupt leftover; but if locking
        # failed us (a removed lock file, a file system without working locks) it may be a
        # concurrent builder's valid entry, which readers may already use: keep that one.
        if self._check(layout, key) is None:
            return False
        remove_atomically(entry)
        if not publish_directory(temp, entry):
            raise CacheError(
                f"could not publish {self._describe(key)} at {entry}: another process keeps "
                "replacing it with invalid contents"
            )
        return True

    def _report(self, layout: NamespaceLayout, key: CacheKey, miss: Miss) -> None:
        report_miss(self.namespace, key, miss.corrupt_reason, lambda: _previous_entries(layout))


def _previous_entries(layout: NamespaceLayout) -> Iterator[PreviousEntry]:
    def read(item: os.DirEntry[str]) -> tuple[Mapping[str, str], float]:
        entry = layout.dirs_dir / item.name
        document = read_manifest(entry, item.name, inspecting=True)
        return document["key_parts"], (entry / MANIFEST_NAME).stat().st_mtime

    return previous_entries(layout.dirs_dir, read)


__all__ = ["BuildDirCache"]
