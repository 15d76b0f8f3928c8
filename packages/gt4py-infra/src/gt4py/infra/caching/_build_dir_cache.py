"""BuildDirCache: key -> a directory of build products, published and validated as a whole."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Iterator

from gt4py.infra.pipeline._compile_log import note_outcome

from ._atomic import (
    create_in_directory,
    disk_full_is_a_cache_error,
    publish_directory,
    remove_atomically,
    remove_tree,
    temp_sibling,
)
from ._build_counts import count_build
from ._diagnostics import PreviousEntry, report_miss
from ._errors import CacheError
from ._file_format import CorruptEntry
from ._keys import CacheKey
from ._layout import NamespaceLayout, is_entry_name
from ._locking import build_lock
from ._manifest import MANIFEST_NAME, read_manifest, verify_contents, write_manifest
from ._namespaced import ABSENT, Miss, NamespacedCache, check_key


class BuildDirCache(NamespacedCache):
    """A persistent map from :class:`CacheKey` to a directory (e.g. a compiled extension).

    ``build(path)`` fills an empty temp directory next to the final entry; the cache then
    records a manifest of everything in it and renames it into place in one step, so an
    entry directory is always complete. Reading checks the manifest: every listed file must
    be present with its size and (with ``verify_checksums``, the default) its checksum;
    anything else is a miss and is rebuilt.

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

    def get(self, key: CacheKey) -> pathlib.Path | None:
        """The valid entry directory of ``key``, or None on a miss."""
        layout = self._layout()
        miss = self._check(layout, check_key(key))
        if miss is None:
            return layout.dir_entry(key.digest)
        overlay = self._overlay_layout()
        if overlay is not None and self._check(overlay, key) is None:
            return overlay.dir_entry(key.digest)
        self._report(layout, key, miss)
        return None

    def get_or_build(self, key: CacheKey, build: Callable[[pathlib.Path], object]) -> pathlib.Path:
        """The entry directory of ``key``; on a miss ``build`` it once and publish it.

        Concurrent callers for the same key wait for the one that builds. An exception from
        ``build`` propagates; its temp directory is removed and nothing is published.
        """
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
        layout = self._writable_layout(layout, key)
        entry = layout.dir_entry(key.digest)
        # Double-checked: another builder may have published while we waited for the lock.
        with build_lock(layout.lock_path(key.digest), entry=self._describe(key)):
            miss = self._check(layout, key)
            if miss is None:
                note_outcome(self.namespace, "hit")  # built by another process meanwhile
                return entry
            self._report(layout, key, miss)
            temp = self._build_in_temp(entry, key, build)
            try:
                self._publish(layout, key, temp, entry)
            finally:
                remove_tree(temp)  # no-op once published
            count_build(self.namespace)
        note_outcome(self.namespace, "miss")
        return entry

    def _check(self, layout: NamespaceLayout, key: CacheKey) -> Miss | None:
        """None for a valid entry, else why there is no usable one."""
        entry = layout.dir_entry(key.digest)
        try:
            document = read_manifest(entry, key.digest)
            verify_contents(entry, document, checksums=self._verify_checksums)
        except FileNotFoundError:
            return ABSENT
        except CorruptEntry as error:
            return Miss(str(error))
        return None

    def _build_in_temp(
        self, entry: pathlib.Path, key: CacheKey, build: Callable[[pathlib.Path], object]
    ) -> pathlib.Path:
        temp = temp_sibling(entry)
        create_in_directory(
            entry.parent, temp.mkdir, doing="creating a temp build directory", path=temp
        )
        try:
            with disk_full_is_a_cache_error(entry.parent, "building a cache entry"):
                build(temp)
            write_manifest(temp, key)
        except BaseException:
            remove_tree(temp)
            raise
        return temp

    def _publish(
        self, layout: NamespaceLayout, key: CacheKey, temp: pathlib.Path, entry: pathlib.Path
    ) -> None:
        # Files are not fsynced one by one: after a power loss, content that never reached
        # the disk fails the manifest's size or checksum check and is rebuilt.
        if entry.is_symlink() or entry.is_file():
            remove_atomically(entry)  # junk where a directory belongs
        if publish_directory(temp, entry):
            return
        # The entry exists. Under our lock it is normally a corrupt leftover; but if locking
        # failed us (a removed lock file, a file system without working locks) it may be a
        # concurrent builder's valid entry, which readers may already use: keep that one.
        if self._check(layout, key) is None:
            return
        remove_atomically(entry)
        if not publish_directory(temp, entry):
            raise CacheError(
                f"could not publish {self._describe(key)} at {entry}: another process keeps "
                "replacing it with invalid contents"
            )

    def _report(self, layout: NamespaceLayout, key: CacheKey, miss: Miss) -> None:
        report_miss(self.namespace, key, miss.corrupt_reason, lambda: _previous_entries(layout))


def _previous_entries(layout: NamespaceLayout) -> Iterator[PreviousEntry]:
    try:
        scan = list(os.scandir(layout.dirs_dir))
    except OSError:
        return
    for item in scan:
        if not is_entry_name(item.name):
            continue
        entry = layout.dirs_dir / item.name
        try:
            document = read_manifest(entry, item.name, inspecting=True)
            mtime = (entry / MANIFEST_NAME).stat().st_mtime
        except (OSError, CorruptEntry):
            continue
        yield item.name, document["key_parts"], mtime


__all__ = ["BuildDirCache"]
